"""The generated parts of the engine and internals pages, made at every docs build.

* ``docs/_generated/engines.inc``: the table of engines by what they take, read from
  the engine registry (:mod:`kgroups._engines.registry`) and each engine's declared
  capabilities, so the page cannot disagree with the code;
* ``docs/_generated/choose_k_constants.inc``: the table of the constants of the choice
  of k, read from ``kgroups._choose_k.constants`` (their values, sources and the half
  of the batteries each was decided on), so the user guide cannot drift from the code;
* ``docs/_generated/layers.png``: the package's layers, the folders and modules of
  each, with the imports between layers counted from the source (the same reading as
  ``tests/test_layers.py``, whose table of layers it draws).

Run by ``docs/conf.py``; ``python docs/make_internals.py`` writes them by hand.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
OUT = DOCS / "_generated"
ROOT = DOCS.parent

SEMIMETRICS = ("energy", "laplacian", "gaussian", "localized", "sinusoidal")
COLUMNS = [("raw data", s, f"``{s}``") for s in SEMIMETRICS] + [
    ("raw data", len, "callable"),
    ("dense matrix", "precomputed", "dense matrix"),
    ("sparse matrix", "precomputed", "sparse matrix"),
    ("feature columns", "nearest_neighbors", "``nearest_neighbors``"),
]


def engine_table():
    """reST of a list-table: one row per registered engine, one column per input."""
    from kgroups._engines import registry

    head = ["``engine=``", "exact", "device", *(c[2] for c in COLUMNS), "memory"]
    rows = []
    for name, cls in registry.engines().items():
        caps = cls.capabilities
        takes = ["✓" if caps.takes(form, semi) else "–" for form, semi, _ in COLUMNS]
        kinds = [k for k in caps.array_kinds if k != "numpy"]
        arrays = f" ({' and '.join(kinds)} arrays)" if kinds else ""
        exact = "yes" if caps.exact else (
            "on " + ", ".join(caps.exact_on) if caps.exact_on else "no")
        rows.append([f"``\"{name}\"``", exact, caps.device + arrays,
                     *takes, caps.memory])
    lines = [".. list-table::", "   :header-rows: 1", ""]
    for row in [head] + rows:
        lines.append(f"   * - {row[0]}")
        lines += [f"     - {cell}" for cell in row[1:]]
    return "\n".join(lines) + "\n"


def constants_table():
    """reST of a list-table of the choice of k's constants (name, value, what it does,
    source, decided on)."""
    from kgroups._choose_k.constants import CONSTANTS

    rows = [".. list-table::", "   :header-rows: 1", "   :widths: 18 8 30 30 14", "",
            "   * - constant", "     - value", "     - what it does", "     - source",
            "     - decided on"]
    for name, c in CONSTANTS.items():
        rows += [f"   * - ``{name}``", f"     - {c.value:g}", f"     - {c.meaning}",
                 f"     - {c.source}", f"     - {c.decided_on}"]
    return "\n".join(rows) + "\n"


def _layer_test():
    spec = importlib.util.spec_from_file_location("test_layers", ROOT / "tests" / "test_layers.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def layers_figure(path):
    """The layers as stacked boxes, top to bottom, each listing its folders and modules,
    and the count of imports from each layer to the ones below."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    lt = _layer_test()
    ranks = {name: lt.layer_of(name) for name in lt.MODULES}
    members = [[] for _ in lt.LAYERS]
    src = ROOT / "src"
    for pat_list, out in zip((p for _, p in lt.LAYERS), members):
        for p in pat_list:
            name = p.rstrip("*")
            if p == "kgroups":
                out.append("kgroups (the public names)")
            elif p.endswith("*") and (src / name.replace(".", "/")).is_dir():
                out.append(name.replace("kgroups.", "") + "/")
            else:
                out.append(p.replace("kgroups.", ""))
    edges = {}
    for name, deps in lt.graph().items():
        for dep in deps:
            a, b = ranks[name], ranks[dep]
            if a != b:
                edges[(a, b)] = edges.get((a, b), 0) + 1
    n = len(lt.LAYERS)
    fig, ax = plt.subplots(figsize=(8.0, 0.9 * n + 0.4))
    ax.set_xlim(0, 10)
    ax.set_ylim(-0.2, n)
    ax.axis("off")
    for i, ((title, _), mods) in enumerate(zip(lt.LAYERS, members)):
        y = n - 1 - i
        ax.add_patch(plt.Rectangle((0.1, y + 0.1), 9.8, 0.7, fc="#eef3fb", ec="#4a6fa5"))
        ax.text(0.25, y + 0.62, title, fontsize=10, weight="bold", va="center")
        ax.text(0.25, y + 0.32, ",  ".join(mods), fontsize=7.2, va="center", wrap=True)
        below = sum(c for (a, b), c in edges.items() if a == i)
        if i < n - 1:
            ax.text(9.85, y + 0.03, f"\u2193 {below} imports into the layers below",
                    fontsize=6.5, ha="right", va="center", color="#4a6fa5")
    ax.set_title("kgroups, layer by layer: a module imports its own layer or those below",
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main():
    OUT.mkdir(exist_ok=True)
    (OUT / "engines.inc").write_text(engine_table(), encoding="utf-8")
    (OUT / "choose_k_constants.inc").write_text(constants_table(), encoding="utf-8")
    layers_figure(OUT / "layers.png")


if __name__ == "__main__":
    sys.exit(main())
