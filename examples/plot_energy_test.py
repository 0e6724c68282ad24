"""
The energy test of equal distributions
======================================

The k-sample energy test (Székely & Rizzo 2004) compares samples through the energy
distance :math:`\\mathcal{E}` (TPAMI eqs. 2 and 4). Its statistic is
:math:`\\sum_{i<j} \\frac{n_i n_j}{n_i + n_j} \\mathcal{E}(X_i, X_j)` and the p-value is
found by permuting the pooled sample. Here two samples of 40 points are compared as
the second one's mean moves away from the first: the p-value falls as the shift grows.
"""

import matplotlib.pyplot as plt
import numpy as np

from kgroups import energy_distance, energy_test

rng = np.random.default_rng(0)
shifts = np.linspace(0.0, 1.5, 7)
pvalues, distances = [], []
for shift in shifts:
    x = rng.normal(size=(40, 2))
    y = rng.normal(size=(40, 2)) + [shift, 0.0]
    distances.append(energy_distance(x, y))
    pvalues.append(energy_test(x, y, n_permutations=199, random_state=0).pvalue)

res = energy_test(x, y, n_permutations=499, random_state=0)
print(f"shift 1.5: E = {res.statistic:.3f}, p = {res.pvalue:.3f}")

fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(9, 3.6))
ax0.plot(shifts, distances, "o-")
ax0.set(xlabel="shift of the mean", ylabel="energy distance E", title="E(X, Y)")
ax1.semilogy(shifts, pvalues, "o-", color="C3")
ax1.axhline(0.05, color="gray", ls="--", lw=1)
ax1.set(xlabel="shift of the mean", ylabel="p-value (199 permutations)",
        title="energy test")
fig.tight_layout()

# %%
# The permutation distribution of the last test, and its observed statistic.
fig, ax = plt.subplots(figsize=(6, 3.4))
ax.hist(res.permutation_statistics, bins=30, color="C0", alpha=0.7,
        label="permuted samples")
ax.axvline(res.statistic, color="C3", lw=2, label="observed")
ax.set(xlabel="E statistic", ylabel="count")
ax.legend()
fig.tight_layout()
plt.show()
