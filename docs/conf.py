"""Sphinx configuration of the kgroups documentation (``make docs``)."""

import os
import sys
import warnings
from pathlib import Path

import kgroups

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).parent))  # docs/sphinxext helpers, if any

project = "kgroups"
author = "kgroups developers"
copyright = "kgroups developers; methods of França, Rizzo & Vogelstein"
version = release = kgroups.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx-mathjax-offline",  # MathJax 3 (from PyPI) copied into _static: equations render offline
    "sphinx.ext.viewcode",
    "sphinx_design",  # the cards of the front page
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]

# --- intersphinx -----------------------------------------------------------------
# Links to numpy/scipy/scikit-learn/networkx need their objects.inv, fetched from the
# internet at build time. CI reaches only the package registries, and an unreachable
# inventory is a warning (an error under -W), so intersphinx is off by default. Set
# KGROUPS_DOCS_INTERSPHINX=1 on a machine with internet to turn the links on.
if os.environ.get("KGROUPS_DOCS_INTERSPHINX") == "1":
    extensions.append("sphinx.ext.intersphinx")
    intersphinx_mapping = {
        "python": ("https://docs.python.org/3", None),
        "numpy": ("https://numpy.org/doc/stable/", None),
        "scipy": ("https://docs.scipy.org/doc/scipy/", None),
        "sklearn": ("https://scikit-learn.org/stable/", None),
        "networkx": ("https://networkx.org/documentation/stable/", None),
        "matplotlib": ("https://matplotlib.org/stable/", None),
    }

templates_path = ["_templates"]
exclude_patterns = ["_build", "auto_examples/*.ipynb", "auto_examples/*.py",
                    "auto_examples/*.zip", "auto_examples/*.md5", "sg_execution_times.rst"]
root_doc = "index"
default_role = "obj"

# --- autodoc / autosummary / numpydoc --------------------------------------------
autosummary_generate = True
autodoc_default_options = {"members": False, "inherited-members": False}
autodoc_typehints = "none"  # numpydoc's Parameters section says the types
numpydoc_show_class_members = False  # the class template lists the methods
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
numpydoc_xref_param_type = False  # would need intersphinx for numpy/scipy types

# --- sphinx-gallery ----------------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",  # run every plot_*.py
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "doc_module": ("kgroups",),
    "backreferences_dir": "api/generated/backreferences",
    "reference_url": {"kgroups": None},
    "abort_on_example_error": True,
    "matplotlib_animations": False,
    "show_memory": False,
    "min_reported_time": 1,
}
# The examples draw with the non-interactive backend; numba prints nothing.
os.environ.setdefault("MPLBACKEND", "Agg")
warnings.filterwarnings("ignore", category=UserWarning,
                        message="Matplotlib is currently using agg")

# --- HTML --------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"kgroups {release}"
html_static_path = ["_static"]
html_css_files = ["kgroups.css"]
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "icon_links": [],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
    "secondary_sidebar_items": ["page-toc"],
}
html_sidebars = {"index": []}
html_show_sourcelink = False
html_copy_source = False

# Module constants carry no docstring of their own; their API pages say this.
autosummary_context = {"data_docs": {
    "kgroups.SEMIMETRICS": (
        "The names accepted by ``semimetric=``: ``SEMIMETRICS`` is\n"
        "``('energy', 'laplacian', 'gaussian', 'localized', 'sinusoidal')``.\n"
        "A callable ``rho(X_block, Y_block)`` or ``\"precomputed\"`` is accepted too.\n"
        "See :doc:`/user_guide/semimetrics` (TPAMI eqs. 52-54)."),
    "kgroups.datasets.DATA_DIR": (
        "A :class:`pathlib.Path`: the folder of the bundled data files and of\n"
        "``MANIFEST.md`` (sources, SHA-256 sums, class counts, the paper's preprocessing)."),
    "kgroups.datasets.USER_DATASETS": (
        "A dict: for each Table III dataset that cannot be shipped (``covertype``,\n"
        "``epileptic``, ...), where to get the file and how the paper preprocessed it.\n"
        "Read such a file with :func:`load_user_file`; ``kgroups reproduce\n"
        "tpami-table3`` reads it from ``KGROUPS_DATA_<NAME>``."),
    "kgroups.datasets.SIGMA_TILDE_10": (
        "The diagonal of the 10 x 10 block of :math:`\\Sigma_2` in TPAMI eq. (57)\n"
        "(ICML eq. (27)): ``(1.367, 3.175, 3.247, 4.403, 1.249, 1.969, 4.035, 4.237,\n"
        "2.813, 3.637)``, used by :func:`make_unequal_covariance_gaussians`."),
}}
