"""The command line's CSV reader beside NumPy's and pandas' on one large file: the
seconds and the peak memory of each, each in a process of its own.

The file: ``make_blobs(n, D, centers=5)`` written with six decimals, a header and a
text column of class labels (``c0`` ... ``c4``), as a table from a spreadsheet or a
database export comes. The readers, each from a new interpreter that has imported what
it needs (its import is not timed):

* ``kgroups`` — :func:`kgroups.cli.load_table` with ``label_column="class"``: the
  reader of ``kgroups cluster FILE --label-column class`` (sniffs the separator, the
  header and the decimal mark, checks every row's width, the features as float64, the
  labels as codes);
* ``numpy.loadtxt`` of the feature columns (told the separator and the header);
* ``pandas.read_csv``, then the feature columns as a float64 array (when pandas is
  installed).

Peak memory: the process's largest resident set (``VmHWM`` of ``/proc/self/status``,
Linux), beside the interpreter's own after the imports; the file's size for scale.

Usage: python bench_csv.py [--rows 1000000] [--dims 10] [--out FILE.md]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

from sklearn.datasets import make_blobs

from _report import header, publish

READERS = {
    "kgroups": ("from kgroups.cli import load_table; import numpy",
                "X, w, y = load_table(PATH, label_column='class')"),
    "numpy.loadtxt": ("import numpy",
                      "X = numpy.loadtxt(PATH, delimiter=',', skiprows=1, usecols=range(D))"),
    "pandas.read_csv": ("import pandas, numpy",
                        "f = pandas.read_csv(PATH); X = f.iloc[:, :D].to_numpy(numpy.float64)"),
}

# The peak resident set of this process's memory since its exec (/proc/self/status,
# VmHWM: ru_maxrss would count the parent's memory of the fork), in KiB.
CHILD = """
import sys, time
def peak():
    with open("/proc/self/status") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith("VmHWM:"))
{imports}
PATH, D = sys.argv[1], int(sys.argv[2])
base = peak()
t = time.perf_counter()
{call}
print(time.perf_counter() - t, base, peak(), X.shape[0])
"""


def write_table(path, n, d):
    X, y = make_blobs(n, d, centers=5, random_state=0)
    with open(path, "w") as fh:
        fh.write(",".join([f"x{j}" for j in range(d)] + ["class"]) + "\n")
        for row, c in zip(X, y):
            fh.write(",".join(f"{v:.6f}" for v in row) + f",c{c}\n")


def run(name, path, d):
    imports, call = READERS[name]
    if name.startswith("pandas"):
        try:
            import pandas  # noqa: F401
        except ModuleNotFoundError:
            return None
    out = subprocess.run([sys.executable, "-c", CHILD.format(imports=imports, call=call),
                          path, str(d)], capture_output=True, text=True, check=True)
    seconds, base, peak, rows = out.stdout.split()
    return float(seconds), int(base) / 1024, int(peak) / 1024, int(rows)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--dims", type=int, default=10)
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "table.csv")
        write_table(path, args.rows, args.dims)
        size = os.path.getsize(path) / 2**20
        lines = [*header("bench_csv.py", argv), "",
                 f"A CSV file of {args.rows} rows: {args.dims} columns of numbers (six "
                 f"decimals) and a text column of labels, {size:.0f} MiB. One run of each "
                 "reader, in a process of its own; peak memory is the process's largest "
                 "resident set, after its imports took the second figure.", "",
                 "| reader | seconds | peak memory (MiB) | of which the imports (MiB) | "
                 "peak over the file's size | seconds over kgroups' |",
                 "|---|---|---|---|---|---|"]
        ours = None
        for name in READERS:
            got = run(name, path, args.dims)
            if got is None:
                lines.append(f"| {name} | not installed | | | | |")
                continue
            seconds, base, peak, rows = got
            assert rows == args.rows, (name, rows)
            ours = seconds if name == "kgroups" else ours
            row = (f"| {name} | {seconds:.2f} | {peak:.0f} | {base:.0f} | "
                   f"{(peak - base) / size:.1f}x | {seconds / ours:.2f} |")
            print(row, file=sys.stderr, flush=True)
            lines.append(row)
    publish("\n".join(lines) + "\n", args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
