"""arXiv paper, fig:weird: parallel cigars, two circles and two spirals.

(a) cigars, eq. (cigar), 100 points per class, kernel k-groups with
rho = ||x - y||^{1/2}; (b) two concentric circles with small Gaussian noise, 150
points per class, the localized semimetric eq. (rho_loc) ``||x-y||^2 exp(-||x-y||/2)``;
(c) two spirals with small Gaussian noise, 150 points per class, eq. (rho_sin)
``||x-y||^2 theta sin(||x-y|| / theta)``, theta = 0.9. Radii, turns and noise (0.2)
are not in the paper; the generators follow the authors' code.

"In each case we perform 10 experiments ... The plots show the average results of
10 runs of each experiment (dots), and the maximum and minimum values as well
(shaded area)." Our reading: 10 independent samples (the x axis); on each, every
method is run 10 times from different k-means++ starts (one start per run); dot =
mean accuracy of the 10 runs, band = their min and max. Methods: kernel k-groups
(energy clustering) and kernel k-means with the panel's semimetric, k-means, GMM.
The localized and sinusoidal semimetrics are not of negative type, so kernel
k-means (Lloyd) may oscillate; it is stopped and kept as is.
"""

from __future__ import annotations

import numpy as np

from ..datasets import make_cigars, make_concentric_circles, make_spirals
from . import _methods as _m

NAME = "arxiv-fig-weird"
TITLE = "arXiv fig:weird (a)(b)(c): cigars rho_1/2, circles rho_loc, spirals rho_sin"
PAPER = {
    "ordering": [
        "(a) cigars: k-means fails; energy clustering performs about as well as GMM "
        "(the optimal model)",
        "(b) circles: energy clustering almost perfect in most cases",
        "(c) spirals: energy clustering much better than k-means and GMM",
    ],
}
TRIALS = 10
RUNS = 10
PANELS = {
    "(a) cigars": (lambda rng, q: make_cigars((100 // q, 100 // q), random_state=rng),
                   "energy", {"alpha": 0.5}),
    "(b) circles": (lambda rng, q: make_concentric_circles((150 // q, 150 // q), random_state=rng),
                    "localized", {}),
    "(c) spirals": (lambda rng, q: make_spirals((150 // q, 150 // q), random_state=rng),
                    "sinusoidal", {"theta": 0.9}),
}
EC = "energy clustering"


def methods(semimetric, params):
    return (_m.Method(EC, "kgroups", semimetric, params, n_init=1),
            _m.Method("kernel k-means", "kkmeans", semimetric, params, n_init=1),
            _m.Method("k-means", "kmeans", n_init=1),
            _m.Method("GMM", "gmm", n_init=1))


def _panel(make, ms, trials, runs, seed, q, bar):
    """acc[experiment, run, method] and one sample for the data plot."""
    acc = np.full((trials, runs, len(ms)), np.nan)
    sample = None
    for t in range(trials):
        rng = np.random.default_rng([seed, t])
        X, y = make(rng, q)
        sample = sample or (X, y)
        for r in range(runs):
            acc[t, r] = [_m.score(m, X, y, 2, int(1000 * t + r)) for m in ms]
        bar.update()
    return acc, sample


def claims(acc, ms):
    m = {k: {meth.label: float(np.nanmean(a[:, :, j])) for j, meth in enumerate(ms[k])}
         for k, a in acc.items()}
    a, b, c = (m[k] for k in PANELS)
    med_b = float(np.nanmedian(acc["(b) circles"][:, :, 0]))
    return [
        _m.Claim("(a) k-means fails on the cigars", a["k-means"] < 0.7,
                  f"k-means {a['k-means']:.3f}"),
        _m.Claim("(a) energy clustering about as good as GMM", a[EC] > a["GMM"] - 0.05,
                  f"energy {a[EC]:.3f} vs GMM {a['GMM']:.3f}"),
        _m.Claim("(b) circles: energy clustering almost perfect in most cases", med_b > 0.95,
                  f"median accuracy over all runs {med_b:.3f} (mean {b[EC]:.3f})"),
        _m.Claim("(c) spirals: energy clustering much better than k-means and GMM",
                  c[EC] > max(c["k-means"], c["GMM"]) + 0.1,
                  f"energy {c[EC]:.3f}, k-means {c['k-means']:.3f}, GMM {c['GMM']:.3f}"),
    ]


def _table(acc, ms):
    lines = ["| panel | method | mean | min | max |", "|---|---|---|---|---|"]
    for k, a in acc.items():
        for j, meth in enumerate(ms[k]):
            v = a[:, :, j]
            rho = (_m.rho_label(meth.semimetric, meth.params)
                   if meth.kind in ("kgroups", "kkmeans") else "Euclidean")
            lines.append(f"| {k} | {meth.label} ({rho}) | {np.nanmean(v):.3f} | "
                         f"{np.nanmin(v):.3f} | {np.nanmax(v):.3f} |")
    failed = {f"({k}) {meth.label}": acc[k][:, :, j] for k in acc
              for j, meth in enumerate(ms[k])}
    return "\n".join(lines) + _m.failed_fits_note(failed)


def _figure(out, acc, ms, samples):
    plt = _m.pyplot()
    fig, axes = plt.subplots(2, 3, figsize=(13, 7.5))
    for col, k in enumerate(PANELS):
        X, y = samples[k]
        axes[0, col].scatter(X[:, 0], X[:, 1], c=y, s=4, cmap="coolwarm")
        axes[0, col].set_title(k, fontsize=9)
        axes[0, col].set_aspect("equal", "datalim")
        x = np.arange(1, acc[k].shape[0] + 1)
        for j, meth in enumerate(ms[k]):
            v = acc[k][:, :, j]
            line, = axes[1, col].plot(x, np.nanmean(v, axis=1), "o", ms=4, label=meth.label)
            axes[1, col].fill_between(x, np.nanmin(v, axis=1), np.nanmax(v, axis=1),
                                      color=line.get_color(), alpha=0.2)
        axes[1, col].set_xlabel("experiment")
        axes[1, col].set_ylabel("accuracy")
        axes[1, col].legend(fontsize=7)
    _m.save(fig, out, "arxiv_fig_weird.png")


def run(out, trials=None, quick=False, seed=0):
    """Regenerate the arXiv paper's fig:weird into ``out``; returns the Markdown report."""
    from .._progress import progress_bar as tqdm

    trials = _m.trial_count(trials, quick, TRIALS, quick_default=3)
    runs, q = (3, 2) if quick else (RUNS, 1)
    acc, ms, samples = {}, {}, {}
    with _m.single_thread(), tqdm(total=trials * len(PANELS), desc=NAME) as bar:
        for i, (k, (make, s, p)) in enumerate(PANELS.items()):
            ms[k] = methods(s, p)
            acc[k], samples[k] = _panel(make, ms[k], trials, runs, seed * 100 + i, q, bar)
    _figure(out, acc, ms, samples)
    text = _m.header(TITLE, trials, quick, seed,
                      f"{runs} runs (one k-means++ start each) per experiment"
                      + ("; half the points (quick)" if quick else "") + ".")
    text += ("\nThe paper prints no numbers for this figure; we check the ORDERING it reports.\n\n"
             + _m.claims_markdown(claims(acc, ms)) + "\n\n" + _table(acc, ms))
    text += "\n\nFigure: arxiv_fig_weird.png\n"
    return _m.write_markdown(out, NAME, text)
