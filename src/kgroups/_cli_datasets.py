"""``kgroups datasets``: the bundled UCI tables of :mod:`kgroups.datasets` as CSV text,
so that the command line's examples run on files anyone can make
(``kgroups datasets wine > wine.csv``).

Each table is written as its loader reads it with ``standardize=False`` (the raw
values; the paper's preprocessing, such as z-scoring, is left to ``--standardize``):
a header ``x1,...,xD,class``, then one row per sample, the class as the loader's
labels 0..k-1. ``kgroups/datasets/data/MANIFEST.md`` gives each file's source.
"""

from __future__ import annotations

# name -> (loader in kgroups.datasets, what the rows are)
TABLES = {
    "dermatology": ("load_dermatology", "patients, by skin disease (the 8 missing ages "
                                        "replaced by the mean age)"),
    "glass": ("load_glass", "glass fragments, by type (the id column left out)"),
    "ionosphere": ("load_ionosphere", "radar returns, good or bad"),
    "iris": ("load_iris", "iris flowers, by species"),
    "seeds": ("load_seeds", "wheat kernels, by variety"),
    "wine": ("load_wine", "wines, by cultivar"),
}


def load(name):
    """``(X, y)`` of the bundled table ``name`` (raw values, labels 0..k-1)."""
    from . import datasets

    return getattr(datasets, TABLES[name][0])(standardize=False)


def table_csv(name):
    """The CSV text of the bundled table ``name``: header ``x1,...,xD,class``, then a row
    per sample (numbers as Python writes them, which read back to the same floats).

    >>> text = table_csv("iris")
    >>> text.splitlines()[:2]
    ['x1,x2,x3,x4,class', '5.1,3.5,1.4,0.2,0']
    >>> len(text.splitlines())
    151
    """
    X, y = load(name)
    header = ",".join([f"x{j + 1}" for j in range(X.shape[1])] + ["class"])
    rows = (",".join(map(repr, features)) + f",{label}"
            for features, label in zip(X.tolist(), y.tolist()))
    return "\n".join([header, *rows]) + "\n"


def table_list():
    """A line per bundled table: its name, size and what its rows are."""
    lines = []
    for name, (_, about) in TABLES.items():
        X, y = load(name)
        lines.append(f"{name:12s} {X.shape[0]:4d} rows, {X.shape[1]:2d} features, "
                     f"{int(y.max()) + 1} classes: {about}")
    return "\n".join(lines) + "\n"
