"""Bundled real data and user files (``kgroups.datasets._real``).

Expected counts are the MANIFEST's (checked against the paper) and are typed here;
reference values are recomputed from the raw files with the csv module, never
taken from the loaders.
"""

import csv
import hashlib
import re

import networkx as nx
import numpy as np
import pytest

from kgroups import datasets as ds
from kgroups.datasets import DATA_DIR


def _manifest_hashes():
    text = (DATA_DIR / "MANIFEST.md").read_text(encoding="utf-8")
    return dict(
        (name, digest) for digest, name in re.findall(r"^([0-9a-f]{64})  (\S+)$", text, re.M)
    )


def test_manifest_lists_every_bundled_file_and_hashes_match():
    hashes = _manifest_hashes()
    assert len(hashes) == 22  # 21 tables and networks + CA-GrQc.txt (TPAMI Table VI)
    on_disk = {p.name for p in DATA_DIR.iterdir() if p.is_file()} - {"MANIFEST.md"}
    assert on_disk == set(hashes)
    for name, digest in hashes.items():
        assert hashlib.sha256((DATA_DIR / name).read_bytes()).hexdigest() == digest, name


def test_known_hash_of_dermatology():
    # value copied by hand from the MANIFEST, in case the MANIFEST itself is edited
    digest = hashlib.sha256((DATA_DIR / "dermatology.data").read_bytes()).hexdigest()
    assert digest == "455eba77f72cd087ce54a5a266c514c5f34e85000c8689ad09e796d68ad45742"


TABLES = [
    (ds.load_dermatology, (366, 34), [112, 61, 72, 49, 52, 20], True),
    (ds.load_iris, (150, 4), [50, 50, 50], False),
    (ds.load_wine, (178, 13), [59, 71, 48], True),
    (ds.load_seeds, (210, 7), [70, 70, 70], True),
    (ds.load_glass, (214, 9), [70, 76, 17, 13, 9, 29], False),
    (ds.load_ionosphere, (351, 34), [126, 225], False),
]


@pytest.mark.parametrize("loader, shape, counts, zscored", TABLES)
def test_shapes_counts_and_types(loader, shape, counts, zscored):
    X, y = loader()
    assert X.shape == shape and X.dtype == np.float64 and np.all(np.isfinite(X))
    assert y.shape == (shape[0],) and np.issubdtype(y.dtype, np.integer)
    assert np.bincount(y).tolist() == counts


@pytest.mark.parametrize("loader, shape, counts, zscored", TABLES)
def test_paper_normalisation_and_override(loader, shape, counts, zscored):
    X, _ = loader()
    Xz, _ = loader(standardize=True)
    Xr, _ = loader(standardize=False)
    np.testing.assert_allclose(X, Xz if zscored else Xr, rtol=0, atol=0)
    np.testing.assert_allclose(Xz.mean(axis=0), 0.0, atol=1e-12)
    sd = Xz.std(axis=0)
    const = Xr.std(axis=0) == 0
    np.testing.assert_allclose(sd[~const], 1.0, rtol=1e-12)
    np.testing.assert_array_equal(Xz[:, const], 0.0)


def _raw_rows(name):
    with open(DATA_DIR / name, newline="") as fh:
        return [row for row in csv.reader(fh) if row]


def test_dermatology_missing_ages_are_the_mean():
    rows = _raw_rows("dermatology.data")
    missing = [i for i, r in enumerate(rows) if r[33] == "?"]
    assert missing == [33, 34, 35, 36, 262, 263, 264, 265]
    ages = [float(r[33]) for r in rows if r[33] != "?"]
    mean_age = sum(ages) / len(ages)
    assert len(ages) == 358 and abs(mean_age - 36.296) < 1e-3
    X, y = ds.load_dermatology(standardize=False)
    assert X[33, 33] == pytest.approx(mean_age, rel=1e-14)
    assert X[262, 33] == pytest.approx(mean_age, rel=1e-14)
    assert X[0, 33] == 55.0 and X[0, 0] == 2.0 and y[0] == 1  # row 1: class 2
    Xz, _ = ds.load_dermatology()
    assert abs(Xz[33, 33]) < 1e-12  # the mean z-scores to 0
    raw = np.array([[float(v) for v in r[:33]] for r in rows])
    np.testing.assert_array_equal(X[:, :33], raw)


def test_raw_values_of_unnormalised_tables():
    X, y = ds.load_iris()
    np.testing.assert_array_equal(X[0], [5.1, 3.5, 1.4, 0.2])
    assert y[0] == 0 and y[-1] == 2
    X, y = ds.load_glass()
    np.testing.assert_array_equal(X[0], [1.52101, 13.64, 4.49, 1.10, 71.78, 0.06, 8.75, 0, 0])
    assert y[-1] == 5  # class 7
    X, y = ds.load_ionosphere()
    assert np.all(X[:, 1] == 0) and X[0, 0] == 1.0 and X[0, 2] == 0.99539
    labels = [r[-1] for r in _raw_rows("ionosphere.data")]
    np.testing.assert_array_equal(y, [1 if v == "g" else 0 for v in labels])


def test_wine_and_seeds_match_raw_files():
    rows = _raw_rows("wine.data")
    X, y = ds.load_wine(standardize=False)
    np.testing.assert_array_equal(X, [[float(v) for v in r[1:]] for r in rows])
    np.testing.assert_array_equal(y, [int(r[0]) - 1 for r in rows])
    lines = (DATA_DIR / "seeds_dataset.txt").read_text().split("\n")
    parsed = [[float(v) for v in ln.split()] for ln in lines if ln.strip()]
    X, y = ds.load_seeds(standardize=False)
    np.testing.assert_array_equal(X, [p[:7] for p in parsed])
    np.testing.assert_array_equal(y, [int(p[7]) - 1 for p in parsed])


@pytest.mark.parametrize("bad", ["yes", 1, 0.0])
def test_standardize_must_be_none_or_bool(bad):
    with pytest.raises(ValueError, match="standardize"):
        ds.load_wine(standardize=bad)


@pytest.mark.parametrize("name, nodes, edges, counts", [
    ("karate", 34, 78, [16, 18]),
    ("dolphins", 62, 159, [42, 20]),
    ("football", 115, 613, [9, 8, 11, 12, 10, 5, 13, 8, 10, 12, 7, 10]),
    ("polbooks", 105, 441, [43, 13, 49]),
])
def test_networks(name, nodes, edges, counts):
    G, y = ds.load_network(name)
    assert isinstance(G, nx.Graph) and not G.is_directed()
    assert (G.number_of_nodes(), G.number_of_edges()) == (nodes, edges)
    assert sorted(G.nodes) == list(range(nodes)) and nx.number_of_selfloops(G) == 0
    assert np.bincount(y).tolist() == counts


def test_karate_label_columns_and_networkx_agreement():
    G, y_gml = ds.load_network("karate")
    _, y_club = ds.load_network("karate", label="label")
    assert np.flatnonzero(y_gml != y_club).tolist() == [8]
    ref = nx.karate_club_graph()
    assert {frozenset(e) for e in G.edges} == {frozenset(e) for e in ref.edges}
    club = [0 if ref.nodes[v]["club"] == "Mr. Hi" else 1 for v in range(34)]
    np.testing.assert_array_equal(y_club, club)
    _, y_alt = ds.load_network("dolphins", label="label_alt")
    assert np.bincount(y_alt).tolist() == [43, 19]


def test_polbooks_letters_and_bad_arguments():
    _, y = ds.load_network("polbooks")
    with open(DATA_DIR / "polbooks_labels.csv", newline="") as fh:
        letters = [r["value"] for r in csv.DictReader(fh)]
    np.testing.assert_array_equal(y, ["lnc".index(v) for v in letters])
    with pytest.raises(ValueError, match="name='zachary'"):
        ds.load_network("zachary")
    with pytest.raises(ValueError, match="label='label_alt'"):
        ds.load_network("karate", label="label_alt")


@pytest.mark.parametrize("side, n, edges, counts", [
    ("left", 209, 5559, {"K": 101, "P": 58, "O": 29, "I": 21}),
    ("right", 213, 5625, {"K": 100, "P": 63, "O": 29, "I": 21}),
])
def test_drosophila(side, n, edges, counts):
    A, y, types = ds.load_drosophila(side)
    raw = np.loadtxt(DATA_DIR / f"drosophila_{side}_adjacency.csv")
    assert raw.shape == (n, n) and raw.sum() > 25000
    dense = ((raw + raw.T) > 0).astype(float)
    np.testing.assert_array_equal(A.toarray(), dense)
    assert A.format == "csr" and A.nnz == 2 * edges and A.diagonal().sum() == 0
    assert {str(t): int(np.sum(y == j)) for j, t in enumerate(types)} == counts
    letters = (DATA_DIR / f"drosophila_{side}_cell_labels.csv").read_text().split()
    assert [str(types[j]) for j in y] == letters
    with pytest.raises(ValueError, match="side='up'"):
        ds.load_drosophila("up")


def _write(path, lines):
    path.write_text("\n".join(lines) + "\n")
    return path


def test_user_file_missing_names_the_source(tmp_path):
    with pytest.raises(FileNotFoundError, match="Epileptic Seizure Recognition"):
        ds.load_user_file("epileptic", tmp_path / "nope.csv")
    with pytest.raises(ValueError, match="name='mnist'"):
        ds.load_user_file("mnist", tmp_path / "nope.csv")


def test_user_file_parse_errors_name_file_and_line(tmp_path):
    bad = _write(tmp_path / "cmc.data", ["1,2,3,1", "4,x,6,2", "7,8,9,3"])
    with pytest.raises(ValueError, match=r"cmc\.data, line 2: field 2 is 'x'"):
        ds.load_user_file("contraceptive", bad)
    short = _write(tmp_path / "short.data", ["1,2,3,1", "", "4,5,2"])
    with pytest.raises(ValueError, match=r"short\.data, line 3: expected 4 fields"):
        ds.load_user_file("contraceptive", short)


def test_user_file_uniform_subsample_without_replacement(tmp_path):
    n = 2600
    rows = [f"{i},{(7 * i) % 13},{i % 10}" for i in range(n)]
    path = _write(tmp_path / "pendigits.tra", rows)
    X, y = ds.load_user_file("pendigits", path, random_state=3, standardize=False)
    assert X.shape == (2000, 2) and np.unique(X[:, 0]).size == 2000
    idx = X[:, 0].astype(int)
    np.testing.assert_array_equal(y, idx % 10)
    X2, _ = ds.load_user_file("pendigits", path, random_state=3, standardize=False)
    np.testing.assert_array_equal(X, X2)
    Xz, _ = ds.load_user_file("pendigits", path, random_state=3)
    np.testing.assert_allclose(Xz.mean(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(Xz.std(axis=0), 1, rtol=1e-12)


def test_user_file_covertype_per_class(tmp_path):
    rows = [f"{i},{i % 5},{1 + i % 7}" for i in range(7 * 250)]
    path = _write(tmp_path / "covtype.data", rows)
    X, y = ds.load_user_file("covertype", path, random_state=0, standardize=False)
    assert np.bincount(y).tolist() == [200] * 7
    assert np.unique(X[:, 0]).size == 1400  # drawn without replacement
    np.testing.assert_array_equal(y, X[:, 0].astype(int) % 7)


def test_user_file_header_id_and_labels(tmp_path):
    rng = np.random.default_rng(0)
    vals = rng.normal(size=(30, 250))
    head = "," + ",".join(f"gene_{j}" for j in range(250))
    body = [f"sample_{i}," + ",".join(f"{v:.6f}" for v in vals[i]) for i in range(30)]
    data = _write(tmp_path / "data.csv", [head] + body)
    classes = ["BRCA", "LUAD", "PRAD"]
    labels = _write(tmp_path / "labels.csv",
                    [",Class"] + [f"sample_{i},{classes[i % 3]}" for i in range(30)])
    X, y = ds.load_user_file("gene_expression", data, labels_path=labels, standardize=False)
    np.testing.assert_allclose(X, np.round(vals[:, :200], 6), atol=1e-12)
    np.testing.assert_array_equal(y, np.arange(30) % 3)


def test_user_file_label_map_and_first_column_class(tmp_path):
    path = _write(tmp_path / "fertility.txt", ["1,2,N", "3,4,O", "5,6,N"])
    X, y = ds.load_user_file("fertility", path)
    np.testing.assert_array_equal(X, [[1, 2], [3, 4], [5, 6]])
    np.testing.assert_array_equal(y, [1, 0, 1])
    parts = [_write(tmp_path / "a.csv", ["class,b1,b2", "s,1,2", "d,3,4"]),
             _write(tmp_path / "b.csv", ["class,b1,b2", "h,5,6"])]
    X, y = ds.load_user_file("forest", parts, standardize=False)
    np.testing.assert_array_equal(X, [[1, 2], [3, 4], [5, 6]])
    np.testing.assert_array_equal(y, [2, 0, 1])  # d < h < s
    path = _write(tmp_path / "libras.data", ["0.5,2", "0.1,10", "0.2,9"])
    _, y = ds.load_user_file("libras_movement", path)
    np.testing.assert_array_equal(y, [0, 2, 1])  # numeric, not text, order
