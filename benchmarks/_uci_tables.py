"""Labelled real tables from R packages that Debian ships, and the synthetic control
charts: the "uci" battery of :mod:`_batteries`.

``bash benchmarks/setup_uci_r.sh`` installs R and the packages when they are missing
(``apt-get install r-base-core r-cran-mlbench r-cran-mclust r-cran-factoextra
r-cran-rrcov r-cran-hsaur3 r-cran-mass r-cran-cardata r-cran-caret r-cran-boot``) and
runs ``benchmarks/export_r_tables.R``, which writes each table as CSV (features, then a
column ``label``) into ``benchmarks/.data/r/``. Most tables are copies of the UCI
Machine Learning Repository (Dua & Graff 2019); the R package and the original source
of each:

- mlbench (Leisch & Dimitriadou): ``PimaIndiansDiabetes`` (Smith et al. 1988),
  ``Sonar`` (Gorman & Sejnowski 1988), ``Vehicle`` (Siebert 1987, Statlog),
  ``Vowel`` (Deterding 1989; the speaker column dropped; mlbench's copy holds 9 of
  the 10 features of the UCI file), ``Zoo`` (Forsyth 1990; 15 logical features as
  0/1 and legs as a number), ``Satellite`` (Statlog Landsat), ``HouseVotes84``
  (Schlimmer 1987; votes n/y as 0/1, complete cases), ``Shuttle`` (Catlett, Statlog),
  ``DNA`` (Statlog splice junctions, Noordewier, Towell & Shavlik 1991; 180 binary
  indicators).
- mclust (Scrucca et al. 2016): ``banknote`` (Flury & Riedwyl 1988), ``thyroid``
  (Coomans et al. 1983), ``cross`` (two crossed elliptical Gaussians, the package's
  simulation; its first column is the class).
- rrcov (Todorov & Filzmoser 2009): ``fish`` (Fish Catch, Journal of Statistical
  Education; Height and Width as % of Length3, as recorded; the row with a missing
  Weight dropped), ``olitos`` (Armanino et al. 1989), ``salmon`` (Johnson & Wichern
  2002; the two growth-ring diameters, Gender left out: it is the fish's sex, not a
  measure of its origin), ``hemophilia`` (Habbema, Hermans & van den Broek 1974;
  carriers and normal women), ``fruit`` (cantaloupe spectra of three cultivars,
  Hubert & Van Driessen 2004), ``pottery`` (Romano-British pottery of two origins; 27
  rows, "pottery (origin)").
- MASS (Venables & Ripley 2002): ``cats`` (Fisher 1947), ``painters`` (de Piles'
  scores of 54 painters, 8 schools), ``Cars93`` (Lock 1993; the 18 numeric columns;
  the rows with a missing value dropped, which drops the vans: 5 types left).
- HSAUR3 (Hothorn & Everitt): ``pottery`` (Tubb, Parker & Nickless 1980; 5 kilns),
  ``household`` (expenditures of 40 households, by the gender of its head).
- carData (Fox & Weisberg 2019): ``Salaries`` (professors' rank from years, salary,
  discipline and sex), ``Prestige`` (occupations' type; census code dropped),
  ``Davis`` (sex from measured and reported weight and height).
- caret (Kuhn 2008): ``dhfr`` (inhibitors of dihydrofolate reductase, 228
  descriptors), ``scat`` (Reid 2015; species of carnivore scats, its factors dropped),
  ``GermanCredit`` (Statlog German credit, numeric and indicator columns).
- boot (Canty & Ripley): ``urine`` (Andrews & Herzberg 1985; calcium oxalate
  crystals).
- mlbench ``LetterRecognition`` (Frey & Slate 1991): 26 letters, subsampled.
- factoextra (Kassambara & Mundt): ``multishapes`` (5 shapes and outliers: its help
  page says "5 clusters and some outliers/noises"; shape 5, 50 points spread over the
  whole plane with a median nearest-neighbour distance 10 to 20 times the others',
  is the noise, label -1).

Large tables are subsampled with a fixed seed, stratified by class (each class keeps
its share, rounded by largest remainder): Satellite to 2,000 rows, Shuttle to 2,000
(then the classes with fewer than 10 rows in the sample are dropped: 3 of its 7
classes are left, 79 % of one), DNA to 1,500, LetterRecognition to 2,000.

Left out: mclust ``chevron`` (its class
column is "data" or "noise": one class once the noise is set apart, which no score
judges, as FCPS GolfBall in :mod:`_fcps`); mclust ``wreath`` (no labels); MASS
``Pima.te`` (its 332 rows are rows of ``PimaIndiansDiabetes``: all 332 match on the 7
columns they share); and every table already in :mod:`_real_tables` or in the
``"tables"`` battery (iris, wine, glass, ionosphere, biopsy / BreastCancer, crabs,
diabetes, ...).

"synthetic control (generated)" is drawn by :func:`synthetic_control`, our own
generator of the Synthetic Control Chart Time Series (Alcock & Manolopoulos 1999;
UCI; Pham & Chan 1998), seed 0.

Each loader returns ``(X, y, note)``: float64 features without constant columns,
labels 0..k-1 (-1 for noise), z-scored (mean 0, population sd 1 per column) unless
the features share one unit and raw is the usual practice (the note says which), and
the note says how many rows with missing values were dropped.

Usage: python benchmarks/_uci_tables.py   (loads every set and lists it)
"""

from __future__ import annotations

import csv
import os

import numpy as np

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), ".data", "r")

# name -> (CSV file, source, label, scaling: "z" or the reason the set stays raw,
#          rows after subsampling or None, expected (n, k) after loading)
SETS = {
    "Pima Indians diabetes": (
        "PimaIndiansDiabetes", "mlbench::PimaIndiansDiabetes (8 measures; its zeros "
        "for missing glucose, pressure, triceps, insulin, mass kept as recorded)",
        "diabetes", "z", None, (768, 2)),
    "sonar": ("Sonar", "mlbench::Sonar (60 band energies)", "Class",
              "band energies in [0, 1]", None, (208, 2)),
    "vehicle silhouettes": ("Vehicle", "mlbench::Vehicle (18 shape features)", "Class",
                            "z", None, (846, 4)),
    "vowel": ("Vowel", "mlbench::Vowel (9 log area ratios, speaker dropped)", "Class",
              "log area ratios", None, (990, 11)),
    "zoo": ("Zoo", "mlbench::Zoo (15 features 0/1, legs)", "type", "z", None, (101, 7)),
    "satellite": ("Satellite", "mlbench::Satellite (36 pixel values)", "classes",
                  "pixel values 0-255", 2000, (2000, 6)),
    "house votes 84": ("HouseVotes84", "mlbench::HouseVotes84 (16 votes n/y as 0/1)",
                       "Class", "votes 0/1", None, (232, 2)),
    "shuttle": ("Shuttle", "mlbench::Shuttle (9 numeric; very unequal classes)",
                "Class", "z", 2000, (1992, 3)),
    "DNA splice": ("DNA", "mlbench::DNA (180 binary indicators)", "Class",
                   "binary indicators", 1500, (1500, 3)),
    "banknote": ("banknote", "mclust::banknote (6 measures)", "Status", "all in mm",
                 None, (200, 2)),
    "thyroid": ("thyroid", "mclust::thyroid (5 lab tests)", "Diagnosis", "z", None,
                (215, 3)),
    "cross": ("cross", "mclust::cross (2 crossed elongated Gaussians)", "group",
              "2-D coordinates", None, (500, 2)),
    "fish catch": ("fish", "rrcov::fish (Weight, 3 lengths, Height %, Width %)",
                   "Species", "z", None, (158, 7)),
    "olitos": ("olitos", "rrcov::olitos (25 chemical measures)", "grp", "z", None,
               (120, 4)),
    "salmon": ("salmon", "rrcov::salmon (Freshwater, Marine ring diameters)", "Origin",
               "both in hundredths of an inch", None, (100, 2)),
    "cats": ("cats", "MASS::cats (Bwt kg, Hwt g)", "Sex", "z", None, (144, 2)),
    "pottery": ("pottery", "HSAUR3::pottery (9 oxides)", "kiln",
                "oxide percentages, as HSAUR clusters them", None, (45, 5)),
    "multishapes": ("multishapes", "factoextra::multishapes (2-D)", "shape",
                    "2-D coordinates", None, (1100, 5)),
    # widened for the choice of k (issue 55)
    "hemophilia": ("hemophilia", "rrcov::hemophilia (AHF activity and antigen)", "gr",
                   "both log10 AHF levels", None, (75, 2)),
    "fruit spectra": ("fruit", "rrcov::fruit (256 wavelengths of cantaloupe spectra)",
                      "cultivar", "spectra on one scale", None, (1096, 3)),
    "pottery (origin)": ("pottery_origin", "rrcov::pottery (6 oxides)", "origin", "z", None,
                         (27, 2)),
    "painters": ("painters", "MASS::painters (4 scores 0-20)", "School", "scores 0-20",
                 None, (54, 8)),
    "Cars93": ("Cars93", "MASS::Cars93 (18 numeric specifications)", "Type", "z", None,
               (82, 5)),
    "Salaries": ("Salaries", "carData::Salaries (years, salary, discipline and sex 0/1)",
                 "rank", "z", None, (397, 3)),
    "Prestige": ("Prestige", "carData::Prestige (education, income, women, prestige)",
                 "type", "z", None, (98, 3)),
    "Davis": ("Davis", "carData::Davis (measured and reported weight, height)", "sex", "z",
              None, (181, 2)),
    "dhfr": ("dhfr", "caret::dhfr (228 molecular descriptors)", "Y", "z", None, (325, 2)),
    "scat": ("scat", "caret::scat (15 measures of scats)", "Species", "z", None, (91, 3)),
    "German credit": ("GermanCredit", "caret::GermanCredit (7 numeric, 54 indicators)",
                      "Class", "z", None, (1000, 2)),
    "letter recognition": ("LetterRecognition", "mlbench::LetterRecognition (16 features "
                           "0-15)", "lettr", "features on one 0-15 scale", 2000, (2000, 26)),
    "household": ("household", "HSAUR3::household (4 expenditures)", "gender",
                  "all in the same currency", None, (40, 2)),
    "urine": ("urine", "boot::urine (6 measures)", "r", "z", None, (77, 2)),
}
# label (as written in the CSV) that marks noise, per set
NOISE = {"multishapes": "5"}
# in a subsample, classes with fewer rows than this are dropped
MIN_CLASS = 10
SYNTHETIC = "synthetic control (generated)"


def stratified_subsample(y, m, seed=0):
    """Indices of ``m`` rows drawn without replacement, each class keeping its share.

    Class c of n_c rows out of n gets floor(m n_c / n) rows, and the rows left over go
    to the classes of largest remainder m n_c / n - floor(m n_c / n) (ties: the lower
    class first); the rows of each class are drawn uniformly.

    Parameters
    ----------
    y : ndarray of shape (n_samples,)
        Labels 0..k-1.
    m : int
        Rows to keep, at most n_samples.
    seed : int, default=0

    Returns
    -------
    ndarray of shape (m,), int64, sorted

    Examples
    --------
    >>> y = np.repeat([0, 1, 2], [90, 9, 1])
    >>> idx = stratified_subsample(y, 50)
    >>> np.bincount(y[idx], minlength=3).tolist(), bool(np.all(np.diff(idx) > 0))
    ([45, 5, 0], True)
    """
    counts = np.bincount(y)
    share = m * counts / counts.sum()
    size = np.floor(share).astype(np.int64)
    order = np.argsort(-(share - size), kind="stable")
    size[order[:m - size.sum()]] += 1
    rng = np.random.default_rng(seed)
    picks = [rng.choice(np.flatnonzero(y == c), size[c], replace=False)
             for c in range(len(counts)) if size[c]]
    return np.sort(np.concatenate(picks)).astype(np.int64)


def synthetic_control(n_per_class=100, length=60, seed=0):
    """Synthetic control charts: series of 6 classes (Alcock & Manolopoulos 1999).

    With t = 1..length, m = 30, s = 2 and r ~ U(-3, 3) drawn at every t, each series
    is y(t) = m + r s plus (parameters drawn once per series):

    0. normal: nothing;
    1. cyclic: a sin(2 pi t / T), a ~ U(10, 15), T ~ U(10, 15);
    2. increasing trend: g t, g ~ U(0.2, 0.5);
    3. decreasing trend: -g t;
    4. upward shift: k x, x ~ U(7.5, 20), k = 0 for t < t3 and 1 from t3 on,
       t3 ~ U(length / 3, 2 length / 3);
    5. downward shift: -k x.

    These are the equations of the UCI "Synthetic Control Chart Time Series" page
    (after Pham & Chan 1998); this is our own code, not the UCI file.

    Parameters
    ----------
    n_per_class : int, default=100
    length : int, default=60
    seed : int, default=0

    Returns
    -------
    X : ndarray of shape (6 n_per_class, length)
        One series per row, in blocks of one class.
    y : ndarray of shape (6 n_per_class,), int64
        Classes 0..5 in the order above.

    Examples
    --------
    >>> X, y = synthetic_control()
    >>> X.shape, np.bincount(y).tolist()
    ((600, 60), [100, 100, 100, 100, 100, 100])
    >>> slope = np.polyfit(np.arange(60), X.T, 1)[0]
    >>> bool((slope[y == 2] > 0.1).all() and (slope[y == 3] < -0.1).all())
    True
    """
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(6), n_per_class)
    n = len(y)
    t = np.arange(1, length + 1, dtype=np.float64)
    X = 30.0 + 2.0 * rng.uniform(-3.0, 3.0, size=(n, length))
    a, period = rng.uniform(10.0, 15.0, n), rng.uniform(10.0, 15.0, n)
    g = rng.uniform(0.2, 0.5, n)
    x, t3 = rng.uniform(7.5, 20.0, n), rng.uniform(length / 3, 2 * length / 3, n)
    cyclic = a[:, None] * np.sin(2 * np.pi * t / period[:, None])
    trend = g[:, None] * t
    shift = x[:, None] * (t >= t3[:, None])
    for c, add in ((1, cyclic), (2, trend), (3, -trend), (4, shift), (5, -shift)):
        X[y == c] += add[y == c]
    return X, y.astype(np.int64)


def _read(file):
    """Features (NaN where missing) and label strings of one exported CSV."""
    path = os.path.join(DATA, f"{file}.csv")
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path} is missing: run bash benchmarks/setup_uci_r.sh")
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    if rows[0][-1] != "label":
        raise RuntimeError(f"{path}: the last column is {rows[0][-1]!r}, not 'label'")
    X = np.array([[np.nan if v == "NA" else float(v) for v in r[:-1]] for r in rows[1:]],
                 dtype=np.float64)
    return X, np.array([r[-1] for r in rows[1:]])


def _codes(labels, noise=None):
    """Labels 0..k-1 in sorted order of the strings; ``noise`` -> -1."""
    y = np.full(len(labels), -1, dtype=np.int64)
    keep = labels != noise
    y[keep] = np.unique(labels[keep], return_inverse=True)[1]
    return y


def _scale(X, how):
    X = X[:, X.std(axis=0) > 0]
    if how != "z":
        return X, f"raw ({how})"
    return (X - X.mean(axis=0)) / X.std(axis=0), "z-scored"


def z_scored(name, X, labels, m, expected, notes):
    """``(X, y, note)`` of a z-scored battery's table: the labels coded 0..k-1, a
    stratified subsample of ``m`` rows (seed 0) where the table has more, every column
    z-scored, and the rows and classes checked against ``expected``."""
    y = _codes(labels)
    if m is not None and m < len(y):
        idx = stratified_subsample(y, m, seed=0)
        X, y = X[idx], _codes(labels[idx])
        notes.append(f"stratified subsample of {m} (seed 0)")
    X, how = _scale(X, "z")
    notes.append(how)
    k = int(y.max()) + 1
    if (len(y), k) != expected:
        raise RuntimeError(f"{name}: {len(y)} rows and {k} classes, expected {expected[0]} "
                           f"rows and {expected[1]} classes")
    return X, y, "; ".join(notes)


def load(name):
    """``(X, y, note)`` of one set of :data:`SETS` or the synthetic control charts."""
    if name == SYNTHETIC:
        X, y = synthetic_control(seed=0)
        return X, y, "600 series of length 60, 6 classes of 100; raw (one unit)"
    file, _, label, how, m, (n_exp, k_exp) = SETS[name]
    X, labels = _read(file)
    ok = ~np.isnan(X).any(axis=1) & (labels != "NA")
    X, labels, notes = X[ok], labels[ok], [f"label {label}"]
    if not ok.all():
        gone = int((~ok).sum())
        notes.append(f"{gone} row{'s' * (gone > 1)} with missing values dropped")
    y = _codes(labels, NOISE.get(name))
    if m is not None and m < len(y):
        idx = stratified_subsample(y, m, seed=0)
        counts = np.bincount(y[idx], minlength=y.max() + 1)
        idx = idx[counts[y[idx]] >= MIN_CLASS]
        X, y = X[idx], _codes(labels[idx], NOISE.get(name))
        dropped = int((counts < MIN_CLASS).sum())
        notes.append(f"stratified subsample of {m} (seed 0)" + (
            f", {dropped} classes of < {MIN_CLASS} rows in it dropped" if dropped else ""))
    X, scaling = _scale(X, how)
    notes.append(scaling)
    if name in NOISE:
        notes.append(f"label {NOISE[name]} is noise (-1, {int((y < 0).sum())} points)")
    k = int(y.max()) + 1
    if (len(y), k) != (n_exp, k_exp) or np.bincount(y[y >= 0]).min() == 0:
        raise RuntimeError(f"{name}: {len(y)} rows and {k} classes, expected {n_exp} "
                           f"rows and {k_exp} classes")
    return X, y, "; ".join(notes)


def table_loaders(sets, load):
    """``[(name, note, load() -> (X, y, how))]`` of the tables of ``sets`` (name -> a
    tuple whose second item is the note), nothing loaded yet."""
    return [(name, sets[name][1], lambda name=name: load(name)) for name in sets]


def loaders():
    """``[(name, note, load() -> (X, y, how))]`` of the battery."""
    out = table_loaders(SETS, load)
    out.append((SYNTHETIC, "own generator after Alcock & Manolopoulos 1999 (UCI)",
                lambda: load(SYNTHETIC)))
    return out


def show(sets, width=30):
    """Load every set of ``sets`` (a battery's ``loaders()``) and list it."""
    for name, source, get in sets:
        X, y, how = get()
        print(f"{name:{width}s} {len(X):5d} {X.shape[1]:4d} {int(y.max()) + 1:3d}  "
              f"{source}; {how}")


def main():
    show(loaders())


if __name__ == "__main__":
    main()
