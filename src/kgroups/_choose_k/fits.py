r"""The fits the choice of k judges: :class:`Fits`, X in one geometry (validated by the
caller) and its kernel k-groups fit of every k, the engine built once, every k run by the one
run loop (:func:`kgroups._driver.run_starts`, TPAMI Algorithm 2) with the user's parameters
(:class:`Setting`), the fit of lowest within energy :math:`W_k` (TPAMI eq. 13) kept."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .._driver import run_starts
from .._engines.build import EngineRequest, build_engine
from .._engines.engine import TRIMMED_RULES  # noqa: F401  (the choice's)
from .._engines.select import (candidate_engines, check_engine_input,  # noqa: F401
                               choose_engine, engine_for)
from .._input import IN_MEMORY
from .._memory import available_memory
from .._placement import insertion_scores, predict_rows
from .._semimetrics import DATA_BUILT, pairwise_unchecked
from .._semimetrics.prepare import objective_unit, origin_gram, scaled_params
from .._starts import named_starts
from .._stats.criteria import contingency
from .._stats.dip import dip_test, margins, path_margins
from .._stats.silhouette import paired_se, silhouettes
from .._validation import InvalidParameterError
from .constants import SPLIT_MIN, SPLIT_N_INIT


@dataclass(frozen=True)
class Setting:
    """The estimator's parameters the choice's fits run with (``n_init`` an integer), and
    the ``owner`` their errors are named after (``choose_k``, or the estimator)."""

    semimetric: object = "energy"
    alpha: float = 1.0
    sigma: float = 1.0
    theta: float = 1.0
    n_neighbors: int = 10
    n_components: int = 256
    landmarks: str = "k-means++"
    init: str = "kernel-k-means++"
    n_init: int = 5
    max_iter: int = 300
    tol: float = 0.0
    engine: str = "auto"
    owner: str = "choose_k"

    @property
    def data_built(self):
        """Whether the semimetric is built from the data (the graph's: feature columns of k)."""
        return isinstance(self.semimetric, str) and self.semimetric in DATA_BUILT

    @property
    def rho(self):
        """The keywords of :func:`~kgroups.pairwise` (``pairwise_unchecked``)."""
        return {"semimetric": self.semimetric, "alpha": self.alpha, "sigma": self.sigma,
                "theta": self.theta}

    def but(self, **changes):
        return replace(self, **changes)

    @classmethod
    def of(cls, est, **changes):
        """The parameters of the estimator ``est``, with ``changes``."""
        return cls(**{f: getattr(est, f) for f in cls.__dataclass_fields__ if f != "owner"}
                   | {"owner": est._owner()} | changes)


def rho_matrix(Z, setting):
    """The n x n matrix of :math:`\rho`, None where it does not fit in a quarter of the
    available memory (or the semimetric is a callable: blocks of rows as needed)."""
    if callable(setting.semimetric) or 8 * Z.shape[0] ** 2 > 0.25 * available_memory():
        return None
    return pairwise_unchecked(Z, **setting.rho, owner=setting.owner)


class Fits:
    """X in one geometry, its fit of every k made once, its dips on ``T`` (Z where None);
    ``seed`` keys each random stream (:meth:`rng`): a k's fit does not depend on the k before."""

    def __init__(self, Z, w, setting, seed, matrix=True, T=None):
        self.Z, self.w, self.setting, self.seed, self.T = Z, w, setting, seed, Z if T is None else T
        self.D = rho_matrix(Z, setting) if matrix else None
        self._built, self.fits, self.runs, self.sil, self.grown = {}, {}, {}, {}, set()

    def rng(self, *key):
        """A random stream of its own for each key (k, purpose)."""
        return np.random.default_rng([self.seed, *key])

    def built(self, k):
        """The engine, built once (per k for the graph's k feature columns) from the
        estimator's request in float64 with Hartigan's rule; ``engine="auto"``: the dense
        engine where ``self.D`` is held, its kernel serving every start of every k."""
        s, features = self.setting, self.setting.data_built
        key = int(k) if features else 0
        if key not in self._built:
            dense = s.engine == "auto" and self.D is not None and not features
            request = EngineRequest.of(
                s, engine="dense" if dense else s.engine, semimetric=s.semimetric,
                kernel=None, dtype="float64", n_clusters=max(key, 2),
                n_starts=lambda n, max_auto=None: s.n_init, init=s.init, rule="hartigan",
                random_state=self.seed, features=features, owner=s.owner)
            self._built[key] = build_engine(self.Z, self.w, IN_MEMORY, request)
        return self._built[key]

    def run(self, k, starts, progress=None):
        """The best run from ``starts``: ``(labels, W in the data's units, run)``;
        ``progress``: a :class:`~kgroups._progress.FitProgress` told of its sweeps."""
        b, s = self.built(k), self.setting
        best = run_starts(b.engine, starts, int(k), rule="hartigan", max_iter=s.max_iter,
                          tol=s.tol, owner=s.owner, progress=progress)
        unit = objective_unit(s.semimetric, s.alpha, b.scale)
        return np.asarray(best.labels, dtype=np.int64), -float(best.objective) * unit, best

    def predict(self, k, X_new):
        """The estimator's ``predict`` of the kept fit of k: the cluster where each row
        raises the within energy least (the insertion rule, TPAMI eqs. 47-51)."""
        b, run = self.built(k), self.runs[k]
        return predict_rows(X_new if b.scale == 1.0 else X_new * b.scale, b.engine.predictor(
            b.X, run), run.s, run.q, insertion_scores, desc=f"{self.setting.owner}: predict")

    def named(self, k):
        """The setting's ``n_init`` starts of its named ``init`` for k clusters."""
        b, s = self.built(k), self.setting
        closed = not (callable(s.semimetric) or s.data_built)
        gram = origin_gram(b.X, b.engine.gram, s.semimetric if closed else None,
                           scaled_params(s.alpha, s.sigma, s.theta, b.scale))
        return named_starts(s.init, b.engine, b.X, b.w, IN_MEMORY, n_clusters=int(k),
                            n_init=s.n_init, random_state=self.rng(k, 0), input_space=True,
                            gram=gram, fit_sample=None, semimetric=s.semimetric)

    def crossfit(self, k, labels, geo=None):
        """``[(rows, labels)]``: each half of the rows labelled by the ``predict`` of a fit of
        k on the other (in the geometry ``geo`` maps them to), its clusters named as those
        of ``labels`` they overlap most: ``labels`` tested on rows no fit of theirs saw."""
        rng, Z = self.rng(k, 8), self.Z if geo is None else geo(self.Z)
        perm = rng.permutation(self.w.size)
        halves = (np.sort(perm[:perm.size // 2]), np.sort(perm[perm.size // 2:]))
        parts = []
        for own, other in (halves, halves[::-1]) if halves[0].size >= k else ():
            half = Fits(Z[own], self.w[own], self.setting, int(rng.integers(2**31 - 1)),
                        matrix=False)
            half.fit(k)
            L = half.predict(k, Z[other])
            parts.append((other, contingency(L, labels[other], self.w[other]).argmax(axis=1)[L]))
        return parts

    def within_one(self):
        r""":math:`W_1`: with the matrix :math:`w^\top D w / (2 s)` (TPAMI eq. 13)."""
        if self.D is not None:
            return float(self.w @ self.D @ self.w) / (2.0 * self.w.sum())
        return self.run(1, [np.zeros(self.w.size, dtype=np.int64)])[1]

    def within(self, k):
        r""":math:`W_k`, refused where it is not positive (no :math:`\log W_k`)."""
        W, sem = self.within_one() if k == 1 else self.fit(int(k))[1], self.setting.semimetric
        if W > 0:
            return float(W)
        if W == 0 and k > 1:
            why = "use a smaller k_range (more clusters than the data hold)"
        elif W == 0:
            why = f"semimetric={sem!r} is 0 on every pair of rows" + (
                ": its sigma is far beyond X's distances; choose sigma near them"
                if sem in ("gaussian", "laplacian") else "")
        else:
            why = (f"semimetric={sem!r} takes negative values on X (it is not of negative "
                   "type there); use one that is ('energy', 'gaussian', 'laplacian')")
        raise InvalidParameterError(f"{self.setting.owner}: the within energy of the fit "
                                    f"with k={k} is {float(W)!r}; log W_k needs W_k > 0: {why}")

    def fit_from(self, k, starts):
        """``(labels, W)`` of k clusters from ``starts`` only, kept as k's fit (a fit given
        its labels: the user's ``init``, a choice's answer)."""
        labels, W, self.runs[k] = self.run(k, starts)
        self.fits[k] = labels, W
        self.sil.pop(k, None)
        return self.fits[k]

    def fit(self, k, start=None):
        """``(labels, W)`` of k clusters: the named starts (none when k was fitted
        before) and ``start`` when given; the lowest W found so far is kept."""
        have = self.fits.get(k)
        starts = [] if start is None or np.unique(start).size != k else [start]
        if have is None:
            starts += self.named(k)
        if starts:
            labels, W, run = self.run(k, starts)
            if have is None or W < have[1]:
                have, self.runs[k] = (labels, W), run
                self.sil.pop(k, None)
        self.fits[k] = have
        return have

    def grow(self, k):
        """The fit of k, also started from k - 1's with its heaviest cluster split
        (:meth:`bisect`) where k - 1 was fitted."""
        if k in self.grown:
            return self.fits[k]
        prev, start = self.fits.get(k - 1), None
        if prev is not None:
            j = int(np.argmax(np.bincount(prev[0], weights=self.w)))
            start = self.bisect(prev[0], j, self.rng(k, 2), test=False)[1]
        self.grown.add(k)
        return self.fit(k, start)

    def point_silhouettes(self, k):
        """The silhouette of every point in the kept fit of k (k >= 2)."""
        if k not in self.sil:
            self.sil[k] = silhouettes(self.Z, self.w, self.D, self.setting.rho,
                                      [self.fits[k][0]], [k])[0]
        return self.sil[k]

    def silhouette(self, k):
        """Weighted mean silhouette of the kept fit of k."""
        return float(self.w @ self.point_silhouettes(k) / self.w.sum())

    def silhouette_se(self, k, best):
        """Standard error of the mean silhouette of k minus ``best``'s, paired over points."""
        return paired_se(self.point_silhouettes(k) - self.point_silhouettes(best), self.w)

    def bisect(self, labels, j, rng, test=True, gap=False):
        r"""Split cluster j: ``(p, start)``, the dip p-value of each half projected on the
        line of a 2-cluster fit of the other half (a line drawn on the points it projects
        makes any cut look bimodal), combined by Fisher's method, :math:`q (1 - \ln q)`,
        :math:`q` their product; ``start``: the labels cut at the first line's midpoint.
        ``gap``: the larger of that and the dip p-value of the sides'
        :func:`~kgroups._stats.dip.margins` (a valley and a gap: half a ring is bimodal along
        a line, its quarters not apart); ``gap="path"``: the largest of it and each half's
        :func:`~kgroups._stats.dip.path_margins` at the other half's line (a gap along the
        data in both halves, an intersection-union test: a ring cut in two has none).
        ``(1.0, None)`` for a cluster too small to test or a fit of one."""
        idx = np.flatnonzero(labels == j)
        if idx.size < SPLIT_MIN:
            return 1.0, None
        perm = rng.permutation(idx)
        halves, lines = (np.sort(perm[:idx.size // 2]), np.sort(perm[idx.size // 2:])), []
        for own in halves[:1 + bool(test)]:
            half = Fits(self.Z[own], self.w[own], self.setting.but(n_init=SPLIT_N_INIT),
                        int(rng.integers(2**31 - 1)), matrix=False).fit(2)[0]
            means = [np.average(self.Z[own][half == h], axis=0, weights=self.w[own][half == h])
                     for h in (0, 1) if np.any(half == h)]
            if len(means) < 2 or not np.any(v := means[1] - means[0]):
                return 1.0, None
            lines.append((v, 0.5 * (means[0] + means[1]) @ v))
        (v, mid), start = lines[0], labels.copy()
        start[idx[self.Z[idx] @ v > mid]] = labels.max() + 1
        if not test:
            return 1.0, start
        q = float(np.prod([dip_test(self.T[other] @ line, self.w[other])[1]
                           for (line, _), other in zip(lines, halves[::-1])]))
        p = q * (1.0 - np.log(q))                # dip p-values are > 0: so is q
        if gap == "path":            # each half's margins at the other half's line
            for (line, m), other in zip(lines, halves[::-1]):
                side = self.Z[other] @ line > m
                if side.all() or not side.any():
                    return 1.0, start
                p = max(p, dip_test(path_margins(self.T[other][~side], self.T[other][side],
                                                 n_neighbors=self.setting.n_neighbors),
                                    np.r_[self.w[other][~side], self.w[other][side]])[1])
        elif gap:
            side = start[idx] != j
            if side.all() or not side.any():
                return 1.0, start
            w = self.w[idx]
            p = max(p, dip_test(margins(self.T[idx][~side], self.T[idx][side]),
                                np.r_[w[~side], w[side]])[1])
        return p, start
