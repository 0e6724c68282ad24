r"""Step 1 of the energy rule: does X show any structure? And the geometries tried if not.

Structure when **any** yardstick finds it: **modes**, two dip tests (Hartigan & Hartigan 1985) at
``STRUCTURE_ALPHA`` / 2 each, of X along a cross-fitted line and of the distances from the mean;
**a group apart** of 2 to ``n_neighbors`` rows (the neighbourhood graph's
``separated_groups``), too few to move a dip; **references**, the gain over one cluster against
``n_refs`` uniform samples over X's principal box (Tibshirani, Walther & Hastie 2001, (b)), in
standard errors, above ``STRUCTURE_Z`` at some k of 2..``STRUCTURE_KMAX`` (past
``STRUCTURE_MAX_N`` rows the median of up to ``STRUCTURE_SAMPLES`` disjoint samples). Where X's
units show none (:func:`rescaled`): the **multimodal axes** of X sphered, then X
**standardized** where its columns' variances differ (energy only).
"""

from __future__ import annotations

import numpy as np

from .._progress import progress_bar
from .._random_state import stream
from .._rescale import sphering, standardizing
from .._semimetrics.neighbors import in_separated_groups
from .._stats.criteria import equal_variances_p, gap_gain_z, reference_sampler
from .._stats.dip import dip_test, effective_size
from .constants import (STRUCTURE_ALPHA, STRUCTURE_KMAX, STRUCTURE_MAX_N, STRUCTURE_SAMPLES,
                        STRUCTURE_Z)
from .fits import Fits
from .trace import close

RESCALED = ("multimodal axes", "standardized")


def modes(f):
    """The p-values of the two dip tests of geometry ``f`` (split and radial)."""
    split = f.bisect(np.zeros(f.w.size, dtype=np.int64), 0, f.rng(0, 5))[0]
    radial = dip_test(np.linalg.norm(f.T - f.w @ f.T / f.w.sum(), axis=1), f.w)[1]
    return {"split": float(split), "radial": float(radial)}


def references(f, ks, n_refs, reference):
    """``(z, z of each sample, log W* of each sample's references)``: the gain of each k
    of ``ks`` (1 first) of the module docstring, NaN past the first k above ``STRUCTURE_Z``."""
    n, m = f.w.size, min(STRUCTURE_SAMPLES, f.w.size // STRUCTURE_MAX_N)
    samples = [f] if n <= STRUCTURE_MAX_N else [
        Fits(f.Z[p], f.w[p], f.setting, stream(f.seed, "structure sample", i))
        for i, p in enumerate(
            np.sort(np.split(f.rng(0, 4).permutation(n)[:m * STRUCTURE_MAX_N], m), axis=1))]
    draws = [reference_sampler(s.Z, s.w, reference) for s in samples]
    refs = [[Fits(draw(s.rng(0, 1, b)), s.w, f.setting.but(n_init=1),
                  stream(s.seed, "reference", b)) for b in range(n_refs)]
            for s, draw in zip(samples, draws)]
    log_w, ref = (np.full((len(samples), b, ks.size), np.nan) for b in (1, n_refs))
    bar = progress_bar(total=len(samples) * n_refs * (ks.size - 1), unit="fit", delay=2.0,
                       desc=f"{f.setting.owner}: reference fits")
    for i, k in enumerate(int(k) for k in ks):
        for j, s in enumerate(samples):
            log_w[j, 0, i] = np.log(s.within(k))
            for b, r in enumerate(refs[j]):
                ref[j, b, i] = np.log(r.within(k))
                bar.update(int(k > 1))
        z = gap_gain_z(ref, log_w)
        if np.median(z[:, i]) > STRUCTURE_Z:
            break
    bar.close()
    return np.median(z, axis=0), z, ref


def find_structure(f, ks, n_refs, reference, trace):
    """Step 1 on geometry ``f`` (references at k = 1..STRUCTURE_KMAX up to the top of ``ks``,
    whatever else it holds): structure or not, steps in ``trace``, ``z`` by k (None: a dip)."""
    p, level = modes(f), STRUCTURE_ALPHA / 2
    found = (least := min(p.values())) < level
    trace.add("structure", "dip p-values (each half along the other half's line; distances "
              "from the mean)", p, level, "modes: structure" if found else "no modes",
              close(least, level))
    if found:
        return True, None
    if apart := int(in_separated_groups(f.Z, f.setting.n_neighbors).sum()):
        trace.add("structure", "rows in tight groups apart from the rest (the neighbourhood "
                  "graph's separated groups)", apart, None, "a group apart: structure")
        return True, None
    sk = np.arange(1, min(STRUCTURE_KMAX, int(ks[-1])) + 1)
    z, each, _ = references(f, sk, n_refs, reference)
    found = (top := float(np.nanmax(z[1:], initial=-np.inf))) > STRUCTURE_Z
    on = "" if f.w.size <= STRUCTURE_MAX_N else (
        f" (on a sample of {STRUCTURE_MAX_N} rows)" if len(each) == 1 else
        f" (the median of {len(each)} samples of {STRUCTURE_MAX_N} rows)")
    gains = {int(k): v for k, v in zip(sk[1:], z[1:]) if not np.isnan(v)}
    trace.add("structure", f"gain over one cluster against {n_refs} uniform references, in "
              f"standard errors, by k{on}", gains, STRUCTURE_Z, "structure" if found else
              "no structure", close(top, STRUCTURE_Z))
    return found, dict(zip(sk.tolist(), z.tolist()))


def rescaled(name, X, w, setting, T):
    """X's map to geometry ``name`` (``"multimodal axes"`` or ``"standardized"``), or
    why it is not tried: ``(Rescaling, None)`` or ``(None, why)``; the dips read ``T``."""
    if setting.semimetric != "energy":
        return None, f"semimetric={setting.semimetric!r} depends on the units"
    if name == "standardized":
        m = standardizing(X, w)
        p = equal_variances_p(m.scale, effective_size(w))
        return (m, None) if p < STRUCTURE_ALPHA else (None, (
            "its columns' variances are equal but for sampling error (F test of the largest "
            f"over the smallest, p-value {p:.2g}, at least {STRUCTURE_ALPHA:g}): X "
            "standardized is X again"))
    if (r := (m := sphering(X, w)).scale.size) >= X.shape[0] - 1:
        return None, (f"X has {r} axes of variance for {X.shape[0]} points, so sphered "
                      "every two points are the same distance apart")
    keep = np.flatnonzero([dip_test(c, w)[1] < STRUCTURE_ALPHA / r for c in m(T).T])
    if not keep.size:
        return None, "no axis of X sphered is multimodal (dip test)"
    return m.columns(keep), None
