"""The package's layers: imports only go down (estimators -> driver -> engines ->
kernels; statistics -> pair-sum layer -> kernels), with no cycle. Every import counts:
import statements anywhere in a module (a lazy import is still a dependency) and
imports by string (``importlib.import_module`` and the tables that feed it, such as the
lazy names of ``kgroups/__init__.py`` and the pair-sum implementations)."""

import ast
import pathlib

import pytest

SRC = pathlib.Path(__file__).resolve().parents[1] / "src"

# Highest layer first. A module may import modules of its own layer or below.
LAYERS = [
    ("applications", ["kgroups", "kgroups.cli", "kgroups.experiments*",
                      "kgroups._cli_options", "kgroups._cli_csv", "kgroups._cli_parser",
                      "kgroups._cli_datasets"]),
    ("estimators", [
        "kgroups._base", "kgroups._fitting", "kgroups._kgroups",
        "kgroups._kernel_kmeans", "kgroups._init", "kgroups._starts", "kgroups._predict",
        "kgroups._placement", "kgroups._noise*",
        "kgroups._spectral", "kgroups._onedim", "kgroups._hierarchical", "kgroups._choose_k*",
        "kgroups._input*",
        "kgroups.metrics", "kgroups.graph*", "kgroups.datasets*"]),
    ("driver", ["kgroups._driver"]),
    ("engines and statistics", ["kgroups._engines*", "kgroups._stats*"]),
    ("semimetrics", ["kgroups._semimetrics*"]),
    ("kernels", ["kgroups._kernels*"]),
    ("input and settings", ["kgroups._dask_io", "kgroups._reprs", "kgroups._config",
                            "kgroups._validation", "kgroups._errors", "kgroups._arrays",
                            "kgroups._random_state", "kgroups._scales", "kgroups._rescale",
                            "kgroups._rows"]),
    ("foundation", ["kgroups._progress", "kgroups._memory", "kgroups._sparse",
                    "kgroups.exceptions"]),
]
# Side by side in one layer, these never import each other: the engines serve the
# driver, the statistics serve the energy functions.
APART = (("kgroups._engines", "kgroups._stats"),)


def modules():
    """name -> path of every module of the package."""
    out = {}
    for path in (SRC / "kgroups").rglob("*.py"):
        parts = path.relative_to(SRC).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def docstrings(tree):
    """The ids of the string constants that are docstrings (not code)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                             ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


# The public subpackages kgroups/__init__.py imports by their bare names.
known_subpackages = ("datasets", "exceptions", "experiments", "graph", "metrics")


def string_imports(tree, package, known, bare=()):
    """Modules named by string constants in code: absolute (``"kgroups._stats.energy"``)
    or relative to the module's package (``"._stats.energy"``, ``"_stats.energy"``,
    or ``__package__ + ".pairsum_dask"``), and the bare names ``bare`` of subpackages
    that a package's ``__init__`` imports by name."""
    skip = docstrings(tree)
    found = set()
    for node in ast.walk(tree):
        if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                and id(node) not in skip and node.value.strip(".").replace("_", "a")
                .replace(".", "a").isalnum()):
            text = node.value
            cands = [text] if "." in text.strip(".") else []
            if text.startswith((".", "_")) or text in bare:
                cands.append(f"{package}.{text.lstrip('.')}")
            for cand in cands:
                if cand in known:
                    found.add(cand)
    return found


def imports(name, path, known):
    """The package's modules that module ``name`` imports (anywhere in its code)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text())
    bare = known_subpackages if name == "kgroups" else ()
    found = string_imports(tree, package, known, bare)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            candidates = [mod] + [f"{mod}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            candidates = [a.name for a in node.names]
        else:
            continue
        found.update(c for c in candidates if c in known and c != name)
    found.discard(name)
    return found


def layer_of(name):
    """The rank of ``name``'s layer: a pattern is a module's name, or ends in ``*``
    (``kgroups._stats*``: the package and everything in it; ``kgroups._choose_k*``:
    also the modules whose names start so)."""
    for rank, (_, patterns) in enumerate(LAYERS):
        for pat in patterns:
            if name == pat or (pat.endswith("*") and name.startswith(pat[:-1])):
                return rank
    raise AssertionError(f"{name} is in no layer of tests/test_layers.py: place it")


MODULES = modules()
_GRAPH = {}


def graph():
    """Each module -> the package's modules it imports; parsed at the first test that
    reads it, not when the tests are collected (every worker collects them)."""
    if not _GRAPH:
        _GRAPH.update({name: imports(name, path, MODULES) for name, path in MODULES.items()})
    return _GRAPH


def test_every_module_has_a_layer():
    for name in MODULES:
        layer_of(name)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_imports_only_go_down(name):
    up = [f"{dep} ({LAYERS[layer_of(dep)][0]})" for dep in sorted(graph()[name])
          if layer_of(dep) < layer_of(name)]
    assert not up, f"{name} ({LAYERS[layer_of(name)][0]}) imports a higher layer: {up}"


def test_no_import_cycle():
    """Depth-first search for a cycle; the message shows one."""
    state = {}

    def visit(node, path):
        state[node] = "open"
        for dep in sorted(graph()[node]):
            if state.get(dep) == "open":
                raise AssertionError(" -> ".join(path[path.index(dep):] + [dep]))
            if dep not in state:
                visit(dep, path + [dep])
        state[node] = "done"

    for node in sorted(graph()):
        if node not in state:
            visit(node, [node])


def test_the_check_finds_a_cycle_and_an_upward_import(monkeypatch):
    """The checks above can fail: a cycle and an import from below are found."""
    monkeypatch.setitem(graph(), "kgroups._driver",
                        graph()["kgroups._driver"] | {"kgroups._fitting"})
    with pytest.raises(AssertionError, match="kgroups._driver -> kgroups._fitting"):
        test_no_import_cycle()
    with pytest.raises(AssertionError, match="imports a higher layer"):
        test_imports_only_go_down("kgroups._driver")


def within(name, package):
    return name == package or name.startswith(package + ".")


@pytest.mark.parametrize("pair", APART, ids="-".join)
def test_engines_and_statistics_stay_apart(pair):
    for a, b in (pair, pair[::-1]):
        bad = sorted(f"{m} -> {d}" for m, deps in graph().items() if within(m, a)
                     for d in deps if within(d, b))
        assert not bad, f"{a} and {b} must not import each other: {bad}"


def test_string_imports_count():
    """The lazy public names and the pair-sum implementations are imports by string:
    the graph sees them (so an upward or cyclic import by string fails above)."""
    assert "kgroups._stats.energy" in graph()["kgroups"]
    assert "kgroups._stats.pairsum_dask" in graph()["kgroups._stats.dispatch"]
    assert "kgroups._stats.pairsum_cuda" in graph()["kgroups._stats.dispatch"]
    tree = ast.parse('"""kgroups._driver, a docstring"""\nX = "kgroups._driver"\n')
    assert string_imports(tree, "kgroups", MODULES) == {"kgroups._driver"}
    tree = ast.parse('"""kgroups._driver, a docstring"""\n')
    assert string_imports(tree, "kgroups", MODULES) == set()
