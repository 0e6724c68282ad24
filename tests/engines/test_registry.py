"""The engine registry: one table of names, capabilities declared on the classes, and a
contract that lets an engine written elsewhere run through the public estimators."""

import ast
import pathlib
import sys

import numpy as np
import pytest

from kgroups import KernelKGroups, KernelKMeans
from kgroups._engines import registry
from kgroups._engines.engine import INPUTS, SEMIMETRIC_KINDS, Capabilities, Engine, RunState
from kgroups._kernels.gain import best_move, update_stats
from kgroups._semimetrics import pairwise
from kgroups._validation import InvalidParameterError

from tests._helpers import blobs
from tests.test_layers import docstrings

SRC = pathlib.Path(__file__).resolve().parents[2] / "src" / "kgroups"


class BruteForceEngine(Engine):
    """An engine written here, as a user or contributor would: ``B`` as an n x n array,
    ``M`` recomputed from scratch for every point (O(n^2 k) a sweep), every gain from
    paper eq. 50 by the shared kernel ``best_move``."""

    name = "brute-force"
    capabilities = Capabilities(exact=True, inputs=("raw data",), semimetrics="any",
                                memory="the n x n kernel")

    def __init__(self, B, w):
        self.B, self.w, self.diag = B, w, np.diag(B).copy()
        self.kernel_max = float(np.max(np.abs(B / np.outer(w, w))))

    @classmethod
    def memory_bytes(cls, n_samples, n_features, *, n_clusters, n_init=1, dtype=np.float64,
                     options=None):
        return 8 * n_samples * n_samples

    @classmethod
    def from_semimetric(cls, X, w, semimetric, params, *, dtype=np.float64, n_clusters,
                        n_init=1, options=None):
        K = -0.5 * pairwise(X, semimetric=semimetric, **params)
        eng = cls(w[:, None] * K * w[None, :], w)
        eng.semimetric, eng.params = semimetric, params  # predict computes from raw data
        return eng

    def build_m(self, labels, k):
        return np.stack([self.B[labels == l].sum(axis=0) for l in range(k)])

    def move_rows(self, points, old, new, M):
        for i, j, l in zip(points, old, new):
            M[j] -= self.B[i]
            M[l] += self.B[i]

    def column(self, c):
        return self.B[:, c] / (self.w * self.w[c])

    def gram(self):
        return self.B / np.outer(self.w, self.w)

    def sweep_run(self, state, r):
        labels, s, q, cnt = state.labels[r], state.s[r], state.q[r], state.cnt[r]
        moves = 0
        for i in range(labels.shape[0]):
            M = self.build_m(labels, s.shape[0])
            j = labels[i]
            l, _ = best_move(M[:, i].copy(), j, s, q, cnt, self.w[i], self.diag[i])
            if l >= 0:
                update_stats(j, l, M[j, i], M[l, i], self.w[i], self.diag[i], s, q, cnt)
                labels[i] = l
                moves += 1
        state.M[r] = self.build_m(labels, s.shape[0])
        return moves


@pytest.fixture
def brute_force():
    registry.register(BruteForceEngine)
    yield BruteForceEngine
    registry.unregister(BruteForceEngine.name)


@pytest.mark.parametrize("estimator", [KernelKGroups, KernelKMeans])
def test_an_engine_written_here_runs_through_the_estimators(brute_force, estimator):
    X, _ = blobs(60, 3, 3, seed=3, spread=2.0)
    w = np.random.default_rng(4).uniform(0.5, 2.0, 60)
    ours = estimator(3, engine="brute-force", random_state=0).fit(X, sample_weight=w)
    dense = estimator(3, engine="dense", random_state=0).fit(X, sample_weight=w)
    assert ours.engine_ == "brute-force"
    np.testing.assert_array_equal(ours.labels_, dense.labels_)
    assert ours.n_iter_ == dense.n_iter_
    assert ours.within_energy_ == pytest.approx(dense.within_energy_, rel=1e-12)
    np.testing.assert_array_equal(ours.predict(X[:7]), dense.predict(X[:7]))


def test_an_unregistered_engine_is_refused_by_name(brute_force):
    registry.unregister(BruteForceEngine.name)
    X, _ = blobs(30, 2, 2, seed=5)
    with pytest.raises(InvalidParameterError, match=r"engine='brute-force' should be one of "
                       r"'auto', 'dense'"):
        KernelKGroups(2, engine="brute-force").fit(X)


def test_register_refuses_what_is_no_engine():
    with pytest.raises(TypeError, match="expected a subclass of Engine"):
        registry.register(object)

    class Auto(BruteForceEngine):
        name = "auto"

    with pytest.raises(ValueError, match="should be a new name"):
        registry.register(Auto)


def test_every_engine_declares_its_capabilities():
    for name, cls in registry.engines().items():
        caps = cls.capabilities
        assert cls.name == name and isinstance(caps, Capabilities)
        assert caps is not Engine.capabilities, name  # its own, not the base's
        assert set(caps.inputs) <= set(INPUTS) and caps.inputs, name
        assert caps.semimetrics in SEMIMETRIC_KINDS and caps.memory and caps.device, name
        assert set(caps.rules) <= {"hartigan", "lloyd", "trimmed", "concentration"} \
            and caps.rules, name
        assert cls.state_class is RunState or issubclass(cls.state_class, RunState)


def test_the_contract_names_the_engine_that_lacks_a_method():
    class Partial(BruteForceEngine):
        name = "partial"

    eng = Partial(np.eye(3), np.ones(3))
    with pytest.raises(NotImplementedError, match="engine='partial' does not extend"):
        eng.extend(None, None, None, None, 2)
    with pytest.raises(TypeError, match="abstract method"):
        type("NoMemory", (Engine,), {"name": "x"})()


def _code_strings(path):
    """String constants of a module's code (docstrings excepted)."""
    tree = ast.parse(path.read_text())
    docs = docstrings(tree)
    return [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)
            and isinstance(n.value, str) and id(n) not in docs]


def engine_name_holders():
    """Modules, other than the registry, whose code holds two or more engine names as
    string constants (a name spelled in a message's prose is no constant)."""
    names = set(registry.BUILTIN)
    out = {}
    for path in sorted(SRC.rglob("*.py")):
        if path == SRC / "_engines" / "registry.py":
            continue
        held = sorted({s for s in _code_strings(path) if s in names})
        if len(held) >= 2:
            out[str(path.relative_to(SRC))] = held
    return out


def test_only_the_registry_spells_the_engine_names():
    assert engine_name_holders() == {}


def test_the_name_check_finds_a_module_that_spells_names(tmp_path, monkeypatch):
    """The check above can fail: a module with two names as constants is found."""
    fake = tmp_path / "kgroups"
    (fake / "_engines").mkdir(parents=True)
    (fake / "_engines" / "registry.py").write_text('X = ("dense", "gpu")\n')
    (fake / "mod.py").write_text('"""dense and gpu in a docstring."""\nE = ("dense", "gpu")\n')
    (fake / "ok.py").write_text('"""dense, gpu."""\nMSG = "use engine=\'dense\' or \'gpu\'"\n')
    monkeypatch.setattr(sys.modules[__name__], "SRC", fake)
    assert engine_name_holders() == {"mod.py": ["dense", "gpu"]}
