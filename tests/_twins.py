"""Plain NumPy twins of the numba kernels, written for clarity, used by the tests.

They recompute the objective from scratch instead of using the incremental
formulas, so agreement checks the algebra as well as the compilation.
"""

import numpy as np


def objective_twin(B, labels, w, k):
    """``Q = sum_l (1 / s_l) sum_{x, y in C_l} B[x, y]`` by brute force."""
    total = 0.0
    for l in range(k):
        idx = np.flatnonzero(labels == l)
        if idx.size:
            total += B[np.ix_(idx, idx)].sum() / w[idx].sum()
    return total


def build_m_twin(B, labels, k):
    """``M = Z^T B`` with ``Z`` the n x k indicator matrix."""
    Z = np.zeros((B.shape[0], k))
    Z[np.arange(B.shape[0]), labels] = 1.0
    return Z.T @ B


def sweep_twin(B, w, labels, k, rtol=1e-12):
    """One Hartigan sweep where every candidate move is scored by recomputing Q."""
    labels = labels.copy()
    moves = 0
    for i in range(B.shape[0]):
        j = labels[i]
        if np.count_nonzero(labels == j) <= 1:
            continue
        base = objective_twin(B, labels, w, k)
        gains = np.full(k, -np.inf)
        for l in range(k):
            if l != j:
                trial = labels.copy()
                trial[i] = l
                gains[l] = objective_twin(B, trial, w, k) - base
        l = int(np.argmax(gains))
        if gains[l] > rtol * max(1.0, abs(base)):
            labels[i] = l
            moves += 1
    return labels, moves


def lloyd_assign_twin(B, w, labels, k):
    """Kernel k-means assignment by explicit distances to the weighted means."""
    K = B / np.outer(w, w)
    d = np.full((B.shape[0], k), np.inf)
    for l in range(k):
        idx = np.flatnonzero(labels == l)
        if idx.size:
            wl = w[idx]
            s = wl.sum()
            d[:, l] = (
                np.diag(K)
                - 2.0 * K[:, idx] @ wl / s
                + wl @ K[np.ix_(idx, idx)] @ wl / s**2
            )
    return np.argmin(d, axis=1)


def rho_of_distances(name, params):
    """``rho`` of an array of distances ``r``: the kernels' scalar definition of the
    semimetric (``kgroups._kernels.semimetric``, in place over the squared distances),
    one call per array."""
    from kgroups._kernels.semimetric import kernel_args, rho_inplace

    args = kernel_args(name, params)

    def rho(r):
        buf = np.ascontiguousarray(r * r)
        rho_inplace(buf, buf.size, *args)
        return buf
    return rho


def build_m_pairs_twin(X, w, labels, k, rho):
    """``M[l, i] = -w_i / 2 sum_{y in C_l} w_y rho(|x_i - y|)``, one point pair at a time.

    Twin of the symmetric matrix-free build: visits each unordered pair
    ``i < j`` once and adds it to both ``M[labels[j], i]`` and ``M[labels[i], j]``;
    ``rho`` maps a distance array to the semimetric.
    """
    n = X.shape[0]
    M = np.zeros((k, n))
    for i in range(n):
        r = rho(np.sqrt(((X[i + 1:] - X[i]) ** 2).sum(axis=1)))
        b = -0.5 * w[i] * w[i + 1:] * r
        np.add.at(M, (labels[i + 1:], np.full(n - i - 1, i)), b)
        M[labels[i], i + 1:] += b
    return M


def energy_hclust_twin(rho, w):
    """Energy hierarchical clustering by brute force: at each step merge the pair of
    clusters of least e-distance, recomputed from its definition,
    ``e(A, B) = s_A s_B / (s_A + s_B) (2 g(A, B) - g(A, A) - g(B, B))``, with
    ``g`` the weighted mean of ``rho`` (no Lance-Williams recursion). Returns the
    merged pairs (node ids as in scipy: leaves ``0..n-1``, step ``t`` makes
    ``n + t``, smaller id first) and the heights."""
    n = rho.shape[0]
    clusters = {i: [i] for i in range(n)}
    children, heights = [], []

    def g(a, b):
        return w[a] @ rho[np.ix_(a, b)] @ w[b] / (w[a].sum() * w[b].sum())

    for t in range(n - 1):
        best = None
        ids = sorted(clusters)
        for x in range(len(ids)):
            for y in range(x + 1, len(ids)):
                a, b = clusters[ids[x]], clusters[ids[y]]
                sa, sb = w[a].sum(), w[b].sum()
                e = sa * sb / (sa + sb) * (2 * g(a, b) - g(a, a) - g(b, b))
                if best is None or e < best[0]:
                    best = (e, ids[x], ids[y])
        e, u, v = best
        clusters[n + t] = clusters.pop(u) + clusters.pop(v)
        children.append((u, v))
        heights.append(e)
    return np.array(children), np.array(heights)


# -- trimmed kernel k-groups (points set aside: label -1) ------------------------------
def trimmed_W(K, w, labels, k):
    """Within energy of the kept points, ``W = sum_l [sum_{i in C_l} w_i K_ii - w_l^T K
    w_l / s_l]`` (``inf`` when a cluster is empty), from the unweighted kernel ``K``."""
    total = 0.0
    for l in range(k):
        idx = np.flatnonzero(labels == l)
        if not idx.size:
            return np.inf
        wl = w[idx]
        total += wl @ np.diag(K)[idx] - wl @ K[np.ix_(idx, idx)] @ wl / wl.sum()
    return total


def trimmed_W_all(K, w, k, budget):
    """``(W, labels)`` of every labelling in ``{-1, 0..k-1}^n`` whose set-aside weight
    is within ``budget`` and whose clusters are non-empty: the brute force."""
    n = w.shape[0]
    grid = np.array(np.meshgrid(*[np.arange(-1, k)] * n, indexing="ij")).reshape(n, -1).T
    grid = grid[(w[None, :] * (grid == -1)).sum(1) <= budget]
    A = (grid[:, None, :] == np.arange(k)[None, :, None]) * w[None, None, :]  # N x k x n
    s = A.sum(-1)
    grid, A, s = grid[(s > 0).all(1)], A[(s > 0).all(1)], s[(s > 0).all(1)]
    q = np.einsum("Nli,ij,Nlj->Nl", A, K, A)
    W = (A.sum(1) * np.diag(K)[None, :]).sum(1) - (q / s).sum(1)
    return W, grid


def trimmed_neighbours(labels, w, k, budget):
    """Every single move of the trimmed search from ``labels``: ``(kind, point, new
    labels)``, the point being the one moved, set aside, or (swap) the kept point set
    aside; a point alone in its cluster never leaves it."""
    cnt = np.bincount(labels[labels >= 0], minlength=k)
    out = []
    for i in range(labels.shape[0]):
        if labels[i] >= 0 and cnt[labels[i]] >= 2:
            for l in range(k):
                if l != labels[i]:
                    m = labels.copy()
                    m[i] = l
                    out.append(("move", i, m))
            m = labels.copy()
            m[i] = -1
            if w[m == -1].sum() <= budget:
                out.append(("aside", i, m))
            for t in np.flatnonzero(labels == -1):
                for l in range(k):
                    m = labels.copy()
                    m[i], m[t] = -1, l
                    if w[m == -1].sum() <= budget:
                        out.append(("swap", i, m))
        elif labels[i] == -1:
            for l in range(k):
                m = labels.copy()
                m[i] = l
                out.append(("bring", i, m))
    return out


def trimmed_improving(K, w, labels, k, budget, rtol=1e-9):
    """The points with a single move of the trimmed search that lowers W (by more than
    ``rtol`` relative), by recomputing W for every move."""
    base = trimmed_W(K, w, labels, k)
    return sorted({i for _, i, m in trimmed_neighbours(labels, w, k, budget)
                   if trimmed_W(K, w, m, k) < base - rtol * (1.0 + abs(base))})


def concentrate_twin(K, w, labels, k, budget):
    """One concentration step by explicit distances to the kept clusters' weighted means:
    nearest mean, then the farthest points set aside (-1), largest first, while their
    weight fits (a stable order)."""
    n = w.shape[0]
    d = np.full((n, k), np.inf)
    for l in range(k):
        idx = np.flatnonzero(labels == l)
        if idx.size:
            wl = w[idx]
            d[:, l] = (np.diag(K) - 2.0 * K[:, idx] @ wl / wl.sum()
                       + wl @ K[np.ix_(idx, idx)] @ wl / wl.sum() ** 2)
    out = np.argmin(d, axis=1)
    order = np.argsort(d.min(axis=1), kind="stable")
    taken = 0.0
    for i in order[::-1]:
        if taken + w[i] > budget:
            break
        taken += w[i]
        out[i] = -1
    return out
