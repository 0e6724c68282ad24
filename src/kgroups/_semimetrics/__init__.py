"""The semimetrics: the closed-form ones of the papers (:mod:`.closed_form`: names,
pairwise blocks, the kernel's scale and range checks) and the one built from the data
(:mod:`.neighbors`: the neighbourhood graph of the points, its kernel as feature
columns and the placement of new points), with the rule of ``semimetric="auto"``
(:mod:`.auto`) and what a fit prepares from its semimetric (:mod:`.prepare`: the
data's scale, the parameters in its units, the spectral start's Gram matrix)."""

from .closed_form import (  # noqa: F401  (the names the rest of the package imports)
    BLOCK_BYTES,
    SEMIMETRICS,
    centred_sq_norm_max,
    check_semimetric,
    check_semimetric_range,
    diameter_sq,
    pairwise,
    pairwise_unchecked,
    rho_max,
    rho_to_origin,
    robust_center,
)

#: The semimetrics built from the data (their values depend on every point): their
#: module, :mod:`.neighbors`, needs SciPy's sparse solvers and is imported when one is used.
DATA_BUILT = ("nearest_neighbors",)
