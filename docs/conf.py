"""Sphinx configuration of the kgroups documentation (``make docs``)."""

import importlib
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
    "matplotlib.sphinxext.plot_directive",  # the figures of the guide, drawn at build time
]

# The figures of ``.. plot::`` in the guide: PNG only, no source or format links.
plot_formats = [("png", 110)]
plot_html_show_formats = False
plot_html_show_source_link = False
plot_include_source = False
plot_rcparams = {"figure.figsize": (6.4, 3.6), "font.size": 9}

# docs/performance.rst is generated from benchmarks/results/ (docs/make_performance.py).
import make_performance  # noqa: E402  (docs/ is on sys.path above)

make_performance.main([])

# docs/_generated/: the engines' table (from the engine registry) and the layers'
# figure (from the source's imports) of the engines and internals pages.
import make_internals  # noqa: E402

make_internals.main()

# --- intersphinx -----------------------------------------------------------------
# Links to Python, NumPy, SciPy, scikit-learn, Dask, NetworkX and Matplotlib resolve
# from inventories committed in docs/_inventories (the build reaches no network).
# docs/make_inventories.py says where each comes from and refreshes them from the
# projects' sites on a machine with internet.
extensions.append("sphinx.ext.intersphinx")
_INV = "_inventories"
intersphinx_mapping = {
    "python": ("https://docs.python.org/3/", f"{_INV}/python.inv"),
    "numpy": ("https://numpy.org/doc/stable/", f"{_INV}/numpy.inv"),
    "scipy": ("https://docs.scipy.org/doc/scipy/", f"{_INV}/scipy.inv"),
    "sklearn": ("https://scikit-learn.org/stable/", f"{_INV}/sklearn.inv"),
    "dask": ("https://docs.dask.org/en/stable/", f"{_INV}/dask.inv"),
    "networkx": ("https://networkx.org/documentation/stable/", f"{_INV}/networkx.inv"),
    "matplotlib": ("https://matplotlib.org/stable/", f"{_INV}/matplotlib.inv"),
}
intersphinx_timeout = 5
# Every cross-reference must resolve (``make docs`` builds with -W).
nitpicky = True

templates_path = ["_templates"]
exclude_patterns = ["_build", "auto_examples/*.ipynb", "auto_examples/*.py",
                    "auto_examples/*.zip", "auto_examples/*.md5", "sg_execution_times.rst",
                    "auto_examples/sg_execution_times.rst"]
root_doc = "index"
default_role = "obj"

# --- autodoc / autosummary / numpydoc --------------------------------------------
autosummary_generate = True
autodoc_default_options = {"members": False, "inherited-members": False}
autodoc_typehints = "none"  # numpydoc's Parameters section says the types
numpydoc_show_class_members = False  # the class template lists the methods
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
# The types of the Parameters/Returns sections link to their documentation: the
# aliases below and numpydoc's own (ndarray, array_like, int, ...); any other word of
# a type ("of", "shape", "optional", a literal) stays plain text.
numpydoc_xref_param_type = True
numpydoc_xref_ignore = "all"
numpydoc_xref_aliases = {
    "Path": "pathlib.Path",
    "path-like": ":term:`python:path-like object`",
    "os.PathLike": "os.PathLike",
    "sparse": ":mod:`sparse <scipy.sparse>`",
    "scipy.sparse": ":mod:`scipy.sparse`",
    "csr_matrix": "scipy.sparse.csr_matrix",
    "scipy.sparse.csr_matrix": "scipy.sparse.csr_matrix",
    "Generator": "numpy.random.Generator",
    "np.random.Generator": "numpy.random.Generator",
    "numpy.random.Generator": "numpy.random.Generator",
    "numpy.random.RandomState": "numpy.random.RandomState",
    "networkx": ":class:`networkx <networkx.Graph>`",  # "networkx graph"
    "dtype": "numpy.dtype",
    "memmap": "numpy.memmap",
    "Graph": "networkx.Graph",
    "networkx.Graph": "networkx.Graph",
    "nx.Graph": "networkx.Graph",
    "Axes": "matplotlib.axes.Axes",
    "dask.array.Array": "dask.array.Array",
    "da.Array": "dask.array.Array",
    "Figure": "matplotlib.figure.Figure",
    "Warning": "Warning",
    "ValueError": "ValueError",
}
# kgroups's own classes, by their short names (``KGroupsResult``, ``GraphData``...).
for _mod in ("kgroups", "kgroups.graph"):
    _module = importlib.import_module(_mod)
    for _name in _module.__all__:
        if isinstance(getattr(_module, _name), type):
            numpydoc_xref_aliases.setdefault(_name, f"{_mod}.{_name}")

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
    # The execution-times page loads jQuery and DataTables from CDNs: not written,
    # the built site loads nothing from outside (MathJax is copied into _static).
    "write_computation_times": False,
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
    # The pages at the top and one folder down get a table of contents on the right;
    # the API page of one object (api/generated/NAME, two down) matches neither
    # pattern: its one-entry table is left out and its signature and examples get
    # the width.
    "secondary_sidebar_items": {"*": ["page-toc"], "*/*": ["page-toc"]},
}
html_sidebars = {"index": []}
html_show_sourcelink = False
html_copy_source = False

# --- the API pages' templates (docs/_templates/autosummary) ------------------------
PUBLIC_MODULES = ("kgroups", "kgroups.graph", "kgroups.datasets", "kgroups.metrics")


def _public_names():
    for modname in PUBLIC_MODULES:
        module = importlib.import_module(modname)
        for name in module.__all__:
            yield modname, name, getattr(module, name)


def _sklearn_methods():
    """``"module.Class"`` -> {method: scikit-learn's name of it} for the public methods
    a class inherits unchanged from scikit-learn (``get_params``, ``set_params``...):
    its page links them to scikit-learn's documentation instead of copying it."""
    out = {}
    for modname, name, cls in _public_names():
        if not isinstance(cls, type):
            continue
        found = {}
        for attr in sorted(dir(cls)):
            if (attr.startswith("_") or attr == "get_metadata_routing"
                    or attr.endswith("_request") or not callable(getattr(cls, attr))):
                continue
            owner = next(k for k in cls.__mro__ if attr in vars(k))
            if owner.__module__.split(".")[0] == "sklearn":
                found[attr] = f"{owner.__module__}.{owner.__qualname__}.{attr}"
        if found:
            out[f"{modname}.{name}"] = found
    return out


def _constant_docs():
    """``"module.NAME"`` -> docstring lines of each public constant (SEMIMETRICS,
    DATA_DIR...): the ``#:`` comment above its assignment in the module that defines
    it. A constant has no ``__doc__`` of its own (autodoc would show that of its
    type, tuple or Path) and the public module that re-exports it has no comment."""
    from sphinx.pycode import ModuleAnalyzer

    out = {}
    for modname, name, value in _public_names():
        if callable(value):
            continue
        for defining in sorted(m for m in sys.modules if m.split(".")[0] == "kgroups"):
            if getattr(sys.modules[defining], name, None) is not value:
                continue
            doc = ModuleAnalyzer.for_module(defining).find_attr_docs().get(("", name))
            if doc:
                out[f"{modname}.{name}"] = list(doc)
                break
        else:
            raise RuntimeError(f"{modname}.{name} needs a '#:' comment where it is defined")
    return out


CONSTANT_DOCS = _constant_docs()
autosummary_context = {"sklearn_methods": _sklearn_methods()}


def _constant_docstring(app, what, name, obj, options, lines):
    if name in CONSTANT_DOCS:
        lines[:] = CONSTANT_DOCS[name]


def setup(app):
    app.connect("autodoc-process-docstring", _constant_docstring)
