"""Trimmed kernel k-groups at ``alpha=2`` against R's ``trimcluster::trimkmeans``
(trimmed k-means, Cuesta-Albertos, Gordaliza & Matrán 1997), from the runs stored in
tests/reference/trimkmeans_reference.json (tests/reference/trimkmeans_reference.R;
no R needed here).

With the semimetric ``|x - y|^2`` the within energy W of a partition is its within
sum of squares, and ``trimkmeans``' ``criterion`` is that sum over the points kept
divided by their number ``nin = ceiling((1 - trim) n)`` (the R script checks it by
hand). Each start of R (k rows of the data as centres) is given to kgroups as R's
first concentration step: every point to its nearest centre, the ``n - nin`` farthest
set aside (-1). From there ``KernelKMeans(noise=trim)``, the concentration steps alone,
must end where R ends, and ``KernelKGroups(noise=trim)``, which goes on with
Hartigan's moves and swaps, at a W no larger than R's; on the well-separated data,
where R's best start finds the blobs, the same points set aside and the same partition.
"""

import json
import pathlib

import numpy as np
import pytest

from kgroups import KernelKGroups, KernelKMeans
from kgroups.metrics import ari

REF = json.loads((pathlib.Path(__file__).parent / "reference" / "trimkmeans_reference.json")
                 .read_text())
CASES = {case["name"]: case for case in REF["cases"]}


def first_step(X, centres, nin):
    """trimkmeans' first concentration step: nearest centre (the first on a tie), the
    points of the ``n - nin`` largest squared distances set aside (a stable order)."""
    d = ((X[:, None, :] - centres[None, :, :]) ** 2).sum(-1)
    labels = np.argmin(d, axis=1)
    labels[np.argsort(d.min(axis=1), kind="stable")[nin:]] = -1
    return labels


def r_labels(start, k):
    """R's classification (1..k, k + 1 for trimmed) as kgroups labels (0..k-1, -1)."""
    lab = np.array(start["classification"]) - 1
    return np.where(lab == k, -1, lab)


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_start_of_trimkmeans(name):
    case = CASES[name]
    X, k, trim, nin = np.array(case["x"]), case["k"], case["trim"], case["nin"]
    assert nin == int(np.ceil((1 - trim) * X.shape[0] - 1e-9))
    for start in case["starts"]:
        init = first_step(X, X[start["centre_rows"]], nin)
        np.testing.assert_array_equal(init, r_labels({"classification": start["first"]}, k))
        assert not start["empty"]
        r = r_labels(start, k)
        w_r = start["criterion"] * nin
        assert w_r == pytest.approx(start["W_by_hand"], rel=1e-12)
        km = KernelKMeans(k, alpha=2.0, noise=trim, init=init).fit(X)
        np.testing.assert_array_equal(km.labels_, r)
        assert km.within_energy_ == pytest.approx(w_r, rel=1e-10)
        kg = KernelKGroups(k, alpha=2.0, noise=trim, init=init).fit(X)
        assert kg.n_noise_ == X.shape[0] - nin
        assert kg.within_energy_ <= w_r * (1 + 1e-12)


def test_same_points_set_aside_and_partition_on_separated_data():
    case = CASES["separated"]
    X, k, trim, nin = np.array(case["x"]), case["k"], case["trim"], case["nin"]
    best = min(case["starts"], key=lambda s: s["criterion"])
    r = r_labels(best, k)
    np.testing.assert_array_equal(np.flatnonzero(r == -1), np.arange(60, 66))  # the strays
    for start in case["starts"]:
        kg = KernelKGroups(k, alpha=2.0, noise=trim,
                           init=first_step(X, X[start["centre_rows"]], nin)).fit(X)
        if start["criterion"] == best["criterion"]:
            np.testing.assert_array_equal(kg.labels_ == -1, r == -1)
            assert ari(r[r >= 0], kg.labels_[r >= 0]) == 1.0
            assert kg.within_energy_ == pytest.approx(best["criterion"] * nin, rel=1e-10)
    # from its own starts kgroups finds R's best partition
    kg = KernelKGroups(k, alpha=2.0, noise=trim, random_state=0).fit(X)
    np.testing.assert_array_equal(kg.labels_ == -1, r == -1)
    assert ari(r[r >= 0], kg.labels_[r >= 0]) == 1.0
