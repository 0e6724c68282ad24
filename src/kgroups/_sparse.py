"""Whether a value is a scipy.sparse matrix or array, without importing SciPy.

A value can be a scipy.sparse matrix only once ``scipy.sparse`` has been imported (by
whoever made the matrix, or by unpickling it), so a process that never loaded it, such
as the command line fitting the rows of a CSV file, learns that its NumPy rows are not
sparse without paying SciPy's import.
"""

from __future__ import annotations

import sys


def issparse(value) -> bool:
    """``scipy.sparse.issparse(value)``, False when scipy.sparse was never imported.

    >>> import numpy as np, scipy.sparse as sp
    >>> issparse(sp.csr_matrix(np.eye(2))), issparse(np.eye(2))
    (True, False)
    """
    sparse = sys.modules.get("scipy.sparse")
    return sparse is not None and bool(sparse.issparse(value))
