"""TPAMI Table II (``table2``): the spectral column."""

from kgroups.datasets import load_dermatology
from kgroups.experiments import table2
from kgroups.experiments._methods import run_methods


def test_table2_spectral_is_sklearn_on_the_x0_kernel():
    # Paper Table II prints spectral 0.956 / 0.920 / 0.917 (accuracy, ARI, NMI);
    # scikit-learn's SpectralClustering on the x0 = 0 kernel of rho_1/2 gives them.
    X, y = load_dermatology()
    spectral = next(m for m in table2.methods() if m.label == "spectral")
    got = run_methods(X, y, 6, (spectral,), seed=0)[0]
    assert (round(got.accuracy, 3), round(got.ari, 3), round(got.nmi, 3)) == (0.956, 0.920,
                                                                             0.917)
