"""Progress of a fit: verbose lines per restart and sweep, no bar off a terminal."""

import numpy as np
import pytest

from kgroups import EnergyHierarchical, KernelKGroups, KernelKMeans


X = np.random.default_rng(3).normal(size=(60, 2))


def test_verbose_reports_engine_restarts_and_sweeps(capsys):
    est = KernelKGroups(3, n_init=2, verbose=1, random_state=0).fit(X)
    out, err = capsys.readouterr()
    assert "KernelKGroups: engine='dense'" in out
    for r in (1, 2):
        assert f"restart {r}/2: starting" in out
        assert f"restart {r}/2, sweep 1:" in out
    last = [line for line in out.splitlines() if "restart 2/2, sweep" in line][-1]
    assert last.split(": ")[2].startswith("0 moves")  # the last sweep moves nothing
    assert f"Q = {est.objective_:.10g} after" in out  # the best restart's end line
    assert err == ""  # stderr is not a terminal here: no progress bar


def test_quiet_by_default(capsys):
    KernelKMeans(3, random_state=0).fit(X)
    out, err = capsys.readouterr()
    assert out == "" and err == ""


def test_kernel_kmeans_verbose_counts_iterations(capsys):
    est = KernelKMeans(3, n_init=1, verbose=1, random_state=0).fit(X)
    out, _ = capsys.readouterr()
    assert out.count("restart 1/1, sweep") == est.n_iter_


def test_verbose_prints_sweeps(capsys):
    X = np.random.default_rng(0).normal(size=(30, 2))
    KernelKGroups(2, init="random", verbose=1, random_state=0).fit(X)
    assert "sweep 1:" in capsys.readouterr().out


def test_restarts_in_lockstep_report_each_restart(capsys):
    """Matrix-free restarts sweep together: every restart still gets its starting
    line, one line per sweep (numbered from 1, the last moving nothing) and an end
    line with its own sweep count."""
    Xb = np.random.default_rng(4).normal(size=(300, 3))
    KernelKGroups(3, init="random", n_init=3, engine="matrix-free", verbose=1,
                  random_state=0).fit(Xb)
    out = capsys.readouterr().out
    for r in (1, 2, 3):
        assert f"restart {r}/3: starting" in out
        sweeps = [line for line in out.splitlines() if f"restart {r}/3, sweep" in line]
        assert [int(line.split("sweep ")[1].split(":")[0]) for line in sweeps] == list(
            range(1, len(sweeps) + 1))
        assert sweeps[-1].split(": ")[2].startswith("0 moves")
        assert f"after {len(sweeps)} sweeps" in [line for line in out.splitlines()
                                                 if f"restart {r}/3: Q =" in line][0]


class Terminal:
    """A stderr that says it is a terminal and keeps what is written to it."""

    def __init__(self):
        self.text = []

    def isatty(self):
        return True

    def write(self, text):
        self.text.append(text)

    def flush(self):
        pass


def test_a_bar_on_a_terminal_only(monkeypatch, capsys):
    """On a terminal the fit keeps a tqdm bar (shown after its delay) and the verbose
    lines still reach stdout; off a terminal there is no bar object at all."""
    from kgroups._progress import FitProgress, draws_on

    assert not draws_on(object()) and not draws_on(None)  # no isatty: no bar
    assert FitProgress("KernelKGroups", 2, verbose=0).bar is None
    term = Terminal()
    monkeypatch.setattr("sys.stderr", term)
    progress = FitProgress("KernelKGroups", 2, verbose=1)
    assert progress.bar is not None and progress.bar.total == 2   # it counts restarts
    progress.start(0)
    progress(1, 5, -1.0)
    assert progress.bar.postfix == "restart 1/2: sweep 1, 5 moves" and progress.bar.n == 0
    progress.end(-1.0)
    assert progress.bar.n == 1
    with progress.waiting("restarts 1-2/2: summing the clusters"):   # two in lockstep:
        pass                                                   # their sweep as one
    progress.sweep_of(0, 1, 5, -1.0)
    progress.sweep_of(1, 1, 7, -1.0)
    assert progress.bar.postfix == "restarts 1-2/2: sweep 1, 12 moves"
    progress.sweep_of(1, 2, 3, -1.0)     # the first converged: the second sweeps on
    assert progress.bar.postfix == "restart 2/2: sweep 2, 3 moves"
    progress.close()
    out = capsys.readouterr().out
    assert "restart 1/2, sweep 1: 5 moves" in out and "restart 1/2: Q = -1 after 1" in out


def test_choose_k_on_a_sample_shows_the_fit_of_all_rows_on_a_terminal(monkeypatch):
    """Past its sample, choose_k labels every row by a fit of all of them, whose sums over
    every pair come before the first sweep: on a terminal its bar shows, named, while
    they run (at a million rows that start alone takes minutes on two cores); off one,
    nothing."""
    import io
    import sys

    import kgroups._choose_k.core as core
    from kgroups import choose_k

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.setattr(core, "SAMPLE_N", 200)
    monkeypatch.setattr("kgroups._progress.BAR_DELAY", 0.0)  # as if its sums took long
    Y = np.vstack([np.random.default_rng(4).normal(c, 0.5, (300, 2)) for c in (0, 6)])
    monkeypatch.setattr(sys, "stderr", Terminal())
    assert choose_k(Y).k == 2
    shown = sys.stderr.getvalue()
    assert "choose_k: fit of all 600 rows:   0%" in shown
    assert "restart 1/1: summing the clusters" in shown
    monkeypatch.setattr(sys, "stderr", io.StringIO())  # a file, a pipe: no bar
    assert choose_k(Y).k == 2 and sys.stderr.getvalue() == ""


def test_a_long_start_keeps_the_bar_alive_and_says_what_runs(monkeypatch):
    """The start of runs sums their clusters over every pair before any sweep: from the
    bar's delay on, a thread redraws it (its clock runs) with what is running, then
    with what follows, until the bar is closed; already past the delay, the bar says
    it at once."""
    import threading
    import time

    from kgroups._progress import FitProgress

    monkeypatch.setattr("kgroups._progress.BAR_DELAY", 0.05)
    monkeypatch.setattr("kgroups._progress.TICK", 0.02)
    term = Terminal()
    monkeypatch.setattr("sys.stderr", term)
    progress = FitProgress("KernelKGroups", 2, verbose=0)
    with progress.waiting("restart 1/2: summing the clusters", "restart 1/2: sweeping"):
        time.sleep(0.4)
        assert any(t.name == "kgroups progress" for t in threading.enumerate())
    drawn = [t for t in term.text if "restart 1/2: summing the clusters" in t]
    assert len(drawn) >= 3   # at the delay, then every TICK: not one frozen frame
    before = len(term.text)
    time.sleep(0.2)    # a sweep that takes long: the clock still runs, saying what runs
    assert len([t for t in term.text[before:] if "restart 1/2: sweeping" in t]) >= 3
    before = len(term.text)
    with progress.waiting("restart 2/2: summing the clusters"):   # past the delay: at once
        assert any("restart 2/2" in t for t in term.text[before:])
    progress.close()    # the clock's thread ends with the bar
    assert not any(t.name == "kgroups progress" for t in threading.enumerate())


def test_a_long_sweep_keeps_the_bar_s_clock_running(monkeypatch):
    """A sweep of large data takes seconds, and a fit often has one or two: between the
    ends of sweeps the bar is redrawn (its clock runs) and says that the run sweeps,
    not what ran before it."""
    import time

    from kgroups._engines.engine import Engine

    monkeypatch.setattr("kgroups._progress.BAR_DELAY", 0.0)
    monkeypatch.setattr("kgroups._progress.TICK", 0.02)
    sweep = Engine.sweep

    def slow_sweep(self, state):
        time.sleep(0.3)
        return sweep(self, state)

    monkeypatch.setattr(Engine, "sweep", slow_sweep)
    term = Terminal()
    monkeypatch.setattr("sys.stderr", term)
    KernelKGroups(3, n_init=1, engine="dense", random_state=0).fit(X)
    sweeping = [t for t in term.text if "restart 1/1: sweeping" in t]
    assert len(sweeping) >= 5   # frames while the first sweep ran (0.3 s, a frame a TICK)


def test_a_fit_on_a_terminal_says_its_start(monkeypatch):
    """The estimator's fit (one driver for every engine) shows its bar while the engine
    is prepared (a dense engine's n x n matrix), then names the restarts whose sums are
    being built, before their first sweep; the bar counts the restarts."""
    monkeypatch.setattr("kgroups._progress.BAR_DELAY", 0.0)
    for engine, said in [("dense", ["restarts 1-2/2"]), ("matrix-free", ["restarts 1-2/2"]),
                         ("low-rank", ["restart 1/2", "restart 2/2"])]:  # started together
        term = Terminal()
        monkeypatch.setattr("sys.stderr", term)
        KernelKGroups(3, n_init=2, engine=engine, random_state=0).fit(X)
        shown = "".join(term.text)
        assert all(f"{runs}: summing the clusters" in shown for runs in said), engine
        assert "preparing the engine" in shown and "/2 [" in shown, engine  # restarts


def test_the_choice_of_k_on_a_terminal_says_it_runs(monkeypatch):
    """The choice of k has nothing to count (its scan stops where its rule decides), nor
    have the tree of EnergyHierarchical (one kernel call), a graph's eigenvectors and
    the energy statistics' pass over the pairs: a line of its own says what runs, with
    its clock; the choice's reporter of lines draws no bar of its own."""
    import networkx as nx

    from kgroups import choose_k, energy_distance
    from kgroups._progress import FitProgress
    from kgroups.graph import CommunityKGroups

    monkeypatch.setattr("kgroups._progress.BAR_DELAY", 0.0)
    Y = np.vstack([np.random.default_rng(4).normal(c, 0.5, (40, 2)) for c in (0, 6)])
    for call, said in [(lambda: KernelKGroups("auto", random_state=0).fit(Y),
                        "KernelKGroups: choosing k ["),
                       (lambda: choose_k(Y, range(1, 4)), "choose_k: choosing k ["),
                       (lambda: choose_k(Y, range(1, 4), method="gap", n_refs=2),
                        "choose_k: choosing k (gap) ["),
                       (lambda: EnergyHierarchical(2).fit(Y),   # its merges: one kernel
                        "EnergyHierarchical: the tree of 80 points ["),
                       (lambda: CommunityKGroups(random_state=0).fit(nx.barbell_graph(8, 0)),
                        "CommunityKGroups: the Bethe Hessian's eigenvectors ["),
                       (lambda: energy_distance(Y[:40], Y[40:]),   # one pass over the pairs
                        "energy_distance: summing the pairs [")]:
        term = Terminal()
        monkeypatch.setattr("sys.stderr", term)
        call()
        assert said in "".join(term.text)
    assert FitProgress("KernelKGroups", 1, 1, bar=False).bar is None


def test_a_permutation_test_on_a_terminal_counts_its_permutations(monkeypatch):
    """energy_test and disco draw their relabellings in batches: a bar named after the
    function counts them, after a line while the pooled matrix is built (and nothing
    off a terminal)."""
    import io
    import sys

    from kgroups import disco, energy_test

    monkeypatch.setattr("kgroups._progress.BAR_DELAY", 0.0)
    rng = np.random.default_rng(2)
    A, B = rng.normal(size=(30, 2)), rng.normal(1, 1, (30, 2))
    for call, said in [(lambda: energy_test(A, B, n_permutations=99, random_state=0),
                        "energy_test: permutations"),
                       (lambda: disco(np.vstack([A, B]), np.repeat([0, 1], 30),
                                      n_permutations=99, random_state=0),
                        "disco: permutations")]:
        term = Terminal()
        monkeypatch.setattr("sys.stderr", term)
        call()
        assert said in "".join(term.text) and "/99 [" in "".join(term.text)
        assert said.replace("permutations", "the pooled matrix [") in "".join(term.text)
        monkeypatch.setattr("sys.stderr", io.StringIO())
        call()
        assert sys.stderr.getvalue() == ""


def test_predict_transform_and_score_on_a_terminal_count_their_rows(monkeypatch):
    """New rows are scored block by block: past one block a bar counts them."""
    monkeypatch.setattr("kgroups._progress.BAR_DELAY", 0.0)
    monkeypatch.setattr("kgroups._engines.engine.PREDICT_BLOCK_PAIRS", 600)  # 10 rows
    est = KernelKGroups(3, engine="matrix-free", random_state=0).fit(X)
    for method in ("predict", "transform", "score"):
        term = Terminal()
        monkeypatch.setattr("sys.stderr", term)
        getattr(est, method)(X[:50])
        assert f"KernelKGroups: {method}:" in "".join(term.text) and "/50 [" in "".join(
            term.text), method
    term = Terminal()   # W of the scored rows: one line named after the estimator,
    monkeypatch.setattr("sys.stderr", term)   # not one of within_energy's per cluster
    est.score(X[:50])
    shown = "".join(term.text)
    assert "KernelKGroups: score: the clusters' pairs [" in shown
    assert "within_energy" not in shown
    da = pytest.importorskip("dask.array")   # its chunks run at once: no bar each
    term = Terminal()
    monkeypatch.setattr("sys.stderr", term)
    est.predict(da.from_array(X[:50], chunks=25)).compute(scheduler="threads")
    assert "predict" not in "".join(term.text)
