"""Smoke test of the whole harness: ``kgroups reproduce all --quick`` in a fresh process.

It runs the command as a user would (``python -m kgroups.cli``), once, and then
reads what it wrote (the run is the ``quick_reproduction`` fixture of
``conftest.py``, which the tests of each item's quick report read too). It checks
that every experiment module imports, that the registry finds it, that every report
and figure is written, and what the reports say:

* every number is finite (no ``nan``/``inf`` anywhere in a report);
* every number in a table column of scores lies in its range: accuracy, NMI,
  coverage, performance, spreads and fractions in [0, 1]; ARI, modularity,
  overlaps and differences in [-1, 1]; columns that are not scores (n, D, k,
  lambda, seconds, cluster sizes, ...) are only checked to be finite;
* every claims table says "reproduced" or "not reproduced" for each claim;
* the paper's values are beside ours: each number of the module's ``PAPER``
  appears in its report (to the printed precision; for a grid the quick run
  shortens, the grid values it ran), and a report whose ``PAPER`` holds only
  statements (orderings) checks them (a claims table or holds/FAILS verdicts).
  An item the paper does not have (``PAPER = {"note": "not in the paper..."}``)
  is exempt.

Its time is not asserted (the quick harness takes about a minute on 2 cores;
benchmarks, not tests, judge speed).
"""

import math
import re

import pytest

from kgroups.experiments import registry

from tests._helpers import PNG_MAGIC

NUMBER = re.compile(r"(?<![\w.])[-+−]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w.])")
NON_FINITE = re.compile(r"(?<![A-Za-z])(nan|inf|infinity)(?![A-Za-z])", re.IGNORECASE)

# Table columns that hold no score: labels, sizes, grid values, counts, times,
# free text. Matched against the whole header cell.
NOT_A_SCORE = re.compile(
    r"(m|n|D|k|λ|lambda|dimension D|# points n|# clusters l|m \(n1 = .*\)|"
    r"data|dataset|network|side|panel|method|metric|seconds|"
    r"n \(paper\)|k \(paper\)|D \(paper\)|paper k|eigengap k \(ours\)|"
    r"cluster sizes.*|sizes.*|five largest communities|misclassified nodes|giant component|moved by .*|"
    r"best.*|paper says.*|ours|evidence|.*≥ paper k-groups|"
    r"paper's best also best .*)")
# Scores that can be negative: ARI, modularity, differences, and the overlap of
# community detection, (accuracy - 1/k) / (1 - 1/k), below chance.
SIGNED = re.compile(r"ARI|modularity|difference|−|paired|overlap|w = [1d]|Bethe")


def _numbers(text):
    return [float(t.replace("−", "-")) for t in NUMBER.findall(text)]


def _tables(text):
    """Markdown tables of ``text`` as (header cells, rows of cells)."""
    tables, current = [], None
    for line in text.splitlines():
        if line.startswith("|") and line.rstrip().endswith("|"):
            cells = [c.strip() for c in line.strip()[1:-1].split("|")]
            if current is None:
                current = (cells, [])
                tables.append(current)
            elif not all(set(c) <= set("-: ") for c in cells):
                current[1].append(cells)
        else:
            current = None
    return tables


def _range(header):
    """(low, high) of the scores of a column, or None if it holds no score."""
    if NOT_A_SCORE.fullmatch(header):
        return None
    if SIGNED.search(header):
        return -1.0, 1.0
    return 0.0, 1.0


def _paper_numbers(paper, table_numbers):
    """Numbers of a module's PAPER the report must print, and whether PAPER has text.

    A dict keyed by grid values (lambda of Table I, Fig. 4) contributes the entries
    whose key the report's tables print: ``--quick`` runs part of such a grid.
    """
    nums, text = [], False
    stack = [paper]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, value in item.items():
                numeric_key = isinstance(key, (int, float)) and not isinstance(key, bool)
                if not numeric_key or _printed(float(key), table_numbers):
                    stack.append(value)
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
        elif isinstance(item, bool) or item is None:
            continue
        elif isinstance(item, (int, float)):
            nums.append(float(item))
        elif isinstance(item, str):
            text = True
    return nums, text


def _not_in_the_paper(paper):
    """An item the paper does not have (an ablation): PAPER is a note saying so."""
    return (isinstance(paper, dict) and len(paper) == 1
            and str(next(iter(paper.values()))).startswith("not in the paper"))


def _printed(value, numbers):
    """Whether ``value`` is among ``numbers`` to the precision the report prints."""
    return any(math.isclose(value, x, abs_tol=5e-4 + 1e-12) for x in numbers)


def check_report(name, text, paper):
    """Every content check of one report; returns a list of problems (empty: fine)."""
    problems = []
    if not (text.startswith("# ") and len(text) > 200):
        problems.append("no title or too short")
    bad = NON_FINITE.findall(text)
    if bad:
        problems.append(f"non-finite numbers: {bad[:5]}")
    tables = _tables(text)
    if not tables:
        problems.append("no table")
    # Verdicts: rows of a claims table, or bullets "- **holds** — ..." / "- **FAILS** — ...".
    claims = len(re.findall(r"^- \*\*(?:holds|FAILS)\*\* — ", text, re.MULTILINE))
    for header, rows in tables:
        for row in rows:
            if len(row) != len(header):
                problems.append(f"row of {len(row)} cells under {len(header)} headers: {row}")
                continue
            if header[:2] == ["paper says (ordering / shape)", "ours"]:
                claims += 1
                if row[1] not in ("reproduced", "**not reproduced**"):
                    problems.append(f"claim verdict {row[1]!r}")
                continue
            for head, cell in zip(header, row):
                span = _range(head)
                values = _numbers(cell)
                if not all(math.isfinite(v) for v in values):
                    problems.append(f"{head!r}: non-finite {cell!r}")
                if span and not all(span[0] - 1e-9 <= v <= span[1] + 1e-9 for v in values):
                    problems.append(f"{head!r} = {cell!r} outside {list(span)}")
    for label in ("Bayes accuracy", "Bayes"):
        for match in re.finditer(rf"{label}[^0-9\n]{{0,40}}?(\d+\.\d+)", text):
            if not 0.5 <= float(match.group(1)) <= 1.0:
                problems.append(f"{label} {match.group(1)} outside [0.5, 1]")
    if _not_in_the_paper(paper):
        return problems
    cells = [_numbers(cell) for _, rows in tables for row in rows for cell in row]
    nums, statements = _paper_numbers(paper, [x for c in cells if len(c) == 1 for x in c])
    if "paper" not in text.lower():
        problems.append("the report never mentions the paper")
    found = _numbers(text)
    missing = [v for v in nums if not _printed(v, found)]
    if missing:
        problems.append(f"paper values not in the report: {missing[:8]}")
    if statements and not nums and not claims:
        problems.append("the paper states orderings only, and the report has no claims table")
    return problems


def _is_figure(name):
    # TPAMI Table II (Fig. 6), Table III (Fig. 7), ICML Table 1 (Fig. 4) and
    # TPAMI Table V (Fig. 8) draw a figure too; their reports name the PNG.
    return "fig" in name


def test_reproduce_all_quick_writes_every_report_and_figure(quick_reproduction):
    out, proc = quick_reproduction.out, quick_reproduction.proc
    assert proc.returncode == 0, proc.stderr[-3000:]
    names = list(registry())
    assert len(names) >= 14
    for name in names:
        assert f"== {name}:" in proc.stdout, name
        md = out / f"{name}.md"
        assert md.is_file(), f"{name}: no {md.name}"
        text = md.read_text()
        pngs = sorted(set(re.findall(r"[A-Za-z0-9_]+\.png", text)))
        if _is_figure(name):
            assert pngs, f"{name}: the report names no PNG"
        for png in pngs:
            data = (out / png).read_bytes()
            assert data[:8] == PNG_MAGIC and len(data) > 5000, f"{name}: {png}"


def test_reproduce_all_quick_reports_are_finite_in_range_and_beside_the_paper(
        quick_reproduction):
    out, proc = quick_reproduction.out, quick_reproduction.proc
    assert proc.returncode == 0, proc.stderr[-3000:]
    problems = {}
    for name, module in registry().items():
        found = check_report(name, (out / f"{name}.md").read_text(), module.PAPER)
        if found:
            problems[name] = found
    assert not problems, problems


# The checker itself must be able to fail: planted defects, no subprocess.
GOOD = """# Item

Paper values beside ours. Bayes accuracy 0.884.

| n | kernel k-groups | GMM |
|---|---|---|
| 10 | 0.770 ± 0.189 | 0.750 ± 0.165 |

| method | accuracy | ARI | seconds | paper accuracy |
|---|---|---|---|---|
| k-means | 0.738 | -0.020 | 12.40 | 0.738 |

| paper says (ordering / shape) | ours | evidence |
|---|---|---|
| GMM best | **not reproduced** | GMM 0.750 at n=10 |
"""


@pytest.mark.parametrize("defect, paper, expected", [
    (None, {"k-means": 0.738}, None),
    (("0.770 ± 0.189", "nan ± nan"), {}, "non-finite"),
    (("0.770 ± 0.189", "1.770 ± 0.189"), {}, "outside [0.0, 1.0]"),
    (("| -0.020 |", "| -1.500 |"), {}, "outside [-1.0, 1.0]"),
    (("0.884", "0.284"), {}, "Bayes accuracy 0.284"),
    (("**not reproduced**", "maybe"), {}, "claim verdict"),
    (("| 10 | 0.770 ± 0.189 |", "| 10 |"), {}, "row of 2 cells"),
    (None, {"k-means": 0.703}, "paper values not in the report: [0.703]"),
    (None, {10: (0.770, 0.189), 20: (0.999,)}, None),  # grid value 20 not run (quick)
    (None, {10: (0.771,), 20: (0.999,)}, "paper values not in the report: [0.771]"),
    (None, {"note": "not in the paper; an ablation"}, None),
    (("| paper says (ordering / shape) | ours | evidence |", "| a | b | c |"),
     {"ordering": ["GMM best"]}, "no claims table"),
])
def test_check_report_finds_planted_defects(defect, paper, expected):
    text = GOOD if defect is None else GOOD.replace(*defect)
    problems = check_report("x", text, paper)
    if expected is None:
        assert problems == []
    else:
        assert any(expected in p for p in problems), problems
