"""The package's layers: imports only go down (estimators -> driver -> engines ->
kernels), with no cycle, as DESIGN section 2 asks. Every import statement counts,
also those inside functions (a lazy import is still a dependency)."""

import ast
import pathlib

import pytest

SRC = pathlib.Path(__file__).resolve().parents[1] / "src"

# Highest layer first. A module may import modules of its own layer or below.
LAYERS = [
    ("applications", ["kgroups", "kgroups.cli", "kgroups.experiments*",
                      "kgroups._cli_options"]),
    ("estimators and statistics", [
        "kgroups._base", "kgroups._kgroups", "kgroups._kernel_kmeans", "kgroups._init",
        "kgroups._input", "kgroups._spectral", "kgroups._onedim", "kgroups._energy",
        "kgroups._disco", "kgroups._hierarchical", "kgroups._choose_k", "kgroups.metrics",
        "kgroups.graph*", "kgroups.datasets*"]),
    ("driver", ["kgroups._driver"]),
    ("engines", ["kgroups._backends*"]),
    ("semimetrics", ["kgroups._semimetrics"]),
    ("kernels", ["kgroups._engine*"]),
    ("foundation", ["kgroups._validation", "kgroups._progress", "kgroups._memory",
                    "kgroups._reprs"]),
]


def modules():
    """name -> path of every module of the package."""
    out = {}
    for path in (SRC / "kgroups").rglob("*.py"):
        parts = path.relative_to(SRC).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def imports(name, path, known):
    """The package's modules that module ``name`` imports (anywhere in its code)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
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
    return found


def layer_of(name):
    for rank, (_, patterns) in enumerate(LAYERS):
        for pat in patterns:
            if name == pat or (pat.endswith("*") and (name == pat[:-1]
                                                     or name.startswith(pat[:-1] + "."))):
                return rank
    raise AssertionError(f"{name} is in no layer of tests/test_layers.py: place it")


MODULES = modules()
GRAPH = {name: imports(name, path, MODULES) for name, path in MODULES.items()}


def test_every_module_has_a_layer():
    for name in MODULES:
        layer_of(name)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_imports_only_go_down(name):
    up = [f"{dep} ({LAYERS[layer_of(dep)][0]})" for dep in sorted(GRAPH[name])
          if layer_of(dep) < layer_of(name)]
    assert not up, f"{name} ({LAYERS[layer_of(name)][0]}) imports a higher layer: {up}"


def test_no_import_cycle():
    """Depth-first search for a cycle; the message shows one."""
    state = {}

    def visit(node, path):
        state[node] = "open"
        for dep in sorted(GRAPH[node]):
            if state.get(dep) == "open":
                raise AssertionError(" -> ".join(path[path.index(dep):] + [dep]))
            if dep not in state:
                visit(dep, path + [dep])
        state[node] = "done"

    for node in sorted(GRAPH):
        if node not in state:
            visit(node, [node])


def test_the_check_finds_a_cycle_and_an_upward_import():
    """The checks above can fail: a cycle and an import from below are found."""
    global GRAPH
    saved = GRAPH
    try:
        GRAPH = {**saved, "kgroups._driver": saved["kgroups._driver"] | {"kgroups._base"}}
        with pytest.raises(AssertionError, match="kgroups._base -> kgroups._driver"):
            test_no_import_cycle()
        with pytest.raises(AssertionError, match="imports a higher layer"):
            test_imports_only_go_down("kgroups._driver")
    finally:
        GRAPH = saved
