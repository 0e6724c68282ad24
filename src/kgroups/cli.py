"""The ``kgroups`` command.

``kgroups cluster FILE.csv -k K``
    Cluster the rows of a CSV file with kernel k-groups and print sizes, W, Q,
    sweeps and time (and accuracy, NMI, ARI when ``--label-column`` is given).
``kgroups demo``
    The dermatology dataset as in the TPAMI paper (Table II, Fig. 6): kernel
    k-groups beside k-means, GMM, spectral clustering and kernel k-means.
``kgroups reproduce NAME|all|list``
    Regenerate a table or figure of the papers (see :mod:`kgroups.experiments`).
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import time

import numpy as np

from . import KernelKGroups, SEMIMETRICS
from ._init import INIT_NAMES


class CSVError(ValueError):
    """A CSV file that does not parse."""


def _is_number(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def read_csv(path):
    """Rows of a CSV file as strings, and the header (``None`` if the first row is numeric)."""
    if not os.path.isfile(path):
        raise CSVError(f"{path}: no such file")
    with open(path, newline="") as fh:
        sample = fh.read(4096)
        fh.seek(0)
        try:
            dialect = csv.Sniffer().sniff(sample, delimiters=",;\t ")
        except csv.Error:
            dialect = csv.excel
        rows = [r for r in csv.reader(fh, dialect) if any(f.strip() for f in r)]
    if not rows:
        raise CSVError(f"{path}: the file is empty")
    header = None
    if not all(_is_number(f) for f in rows[0]):
        header, rows = [f.strip() for f in rows[0]], rows[1:]
    if not rows:
        raise CSVError(f"{path}: the file has a header but no data rows")
    width = len(header) if header else len(rows[0])
    for i, r in enumerate(rows):
        if len(r) != width:
            line = i + 1 + (header is not None)
            raise CSVError(f"{path}, line {line}: {len(r)} fields, expected {width}")
    return header, rows


def _column_index(spec, header, width, path):
    if header and spec in header:
        return header.index(spec)
    if spec.lstrip("-").isdigit() and -width <= int(spec) < width:
        return int(spec) % width
    raise CSVError(f"{path}: no column {spec!r} (columns: {header or list(range(width))})")


def _to_float(rows, cols, path, offset):
    X = np.empty((len(rows), len(cols)))
    for i, r in enumerate(rows):
        for j, c in enumerate(cols):
            try:
                X[i, j] = float(r[c])
            except ValueError:
                raise CSVError(f"{path}, line {i + 1 + offset}, column {c + 1}: "
                               f"{r[c]!r} is not a number") from None
    if not np.all(np.isfinite(X)):
        i, j = np.argwhere(~np.isfinite(X))[0]
        raise CSVError(f"{path}, line {i + 1 + offset}, column {cols[j] + 1}: "
                       f"{X[i, j]} is not finite")
    return X


def load_table(path, weights=None, label_column=None):
    """Features, weights (or None) and labels (or None) from a CSV file."""
    header, rows = read_csv(path)
    width = len(rows[0])
    offset = header is not None
    special = {}
    for name, spec in (("weights", weights), ("labels", label_column)):
        if spec is not None:
            special[name] = _column_index(spec, header, width, path)
    cols = [c for c in range(width) if c not in special.values()]
    if not cols:
        raise CSVError(f"{path}: no feature columns left")
    X = _to_float(rows, cols, path, offset)
    w = _to_float(rows, [special["weights"]], path, offset)[:, 0] if "weights" in special else None
    y = None
    if "labels" in special:
        raw = [r[special["labels"]].strip() for r in rows]
        y = np.unique(raw, return_inverse=True)[1]
    return X, w, y


def _cluster(args):
    X, w, y = load_table(args.file, args.weights, args.label_column)
    est = KernelKGroups(args.k, semimetric=args.semimetric, alpha=args.alpha, sigma=args.sigma,
                        theta=args.theta, init=args.init, n_init=args.n_init,
                        max_iter=args.max_iter, random_state=args.seed, engine=args.engine)
    start = time.perf_counter()
    est.fit(X, sample_weight=w)
    seconds = time.perf_counter() - start
    sizes = np.bincount(est.labels_, minlength=args.k)
    print(f"kernel k-groups: n={X.shape[0]} D={X.shape[1]} k={args.k} "
          f"semimetric={args.semimetric}")
    print(f"cluster sizes: {' '.join(map(str, sizes))}")
    print(f"W (within energy): {est.within_energy_:.6g}")
    print(f"Q (objective):     {est.objective_:.6g}")
    print(f"sweeps: {est.n_iter_}   moves per sweep: {est.n_moves_}")
    print(f"time: {seconds:.3f} s")
    if y is not None:
        from .metrics import accuracy, ari, nmi

        print(f"accuracy: {accuracy(y, est.labels_):.4f}   NMI: {nmi(y, est.labels_):.4f}   "
              f"ARI: {ari(y, est.labels_):.4f}")
    if args.output:
        np.savetxt(args.output, est.labels_, fmt="%d", header="label", comments="")
        print(f"labels written to {args.output}")


def _demo(args):
    from .experiments import table2

    print("Dermatology (UCI; TPAMI 2020 Table II): n=366, D=34, k=6, energy alpha=1/2, "
          f"n_init={args.n_init}, seed={args.seed}\n")
    table = table2.run(args.out, seed=args.seed, n_init=args.n_init)
    print(table)
    print(f"\nmembership heatmap (Fig. 6): {os.path.join(args.out, 'fig6_dermatology_heatmap.png')}")


def _reproduce(args):
    from .experiments import registry

    experiments = registry()
    if args.name == "list":
        for name, module in experiments.items():
            print(f"{name:24s} {module.TITLE}")
        return
    if args.name != "all" and args.name not in experiments:
        raise ValueError(f"no experiment {args.name!r}; choose 'all', 'list' or one of "
                         f"{', '.join(experiments)}")
    names = list(experiments) if args.name == "all" else [args.name]
    for name in names:
        print(f"== {name}: {experiments[name].TITLE}")
        start = time.perf_counter()
        table = experiments[name].run(args.out, trials=args.trials, quick=args.quick,
                                      seed=args.seed)
        print(table)
        print(f"({time.perf_counter() - start:.1f} s; written under {args.out})\n")


def build_parser():
    parser = argparse.ArgumentParser(prog="kgroups", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("cluster", help="cluster the rows of a CSV file")
    c.add_argument("file", help="CSV file (header optional)")
    c.add_argument("-k", type=int, required=True, help="number of clusters")
    c.add_argument("--semimetric", default="energy", choices=SEMIMETRICS)
    c.add_argument("--alpha", type=float, default=1.0, help="energy exponent in (0, 2]")
    c.add_argument("--sigma", type=float, default=1.0, help="gaussian/laplacian scale")
    c.add_argument("--theta", type=float, default=1.0, help="sinusoidal scale")
    c.add_argument("--weights", help="name or index of a column of sample weights")
    c.add_argument("--label-column", help="name or index of a column of true labels")
    c.add_argument("--init", default="k-means++", choices=INIT_NAMES)
    c.add_argument("--n-init", type=int, default=5)
    c.add_argument("--max-iter", type=int, default=100)
    c.add_argument("--engine", default="auto")
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("-o", "--output", help="write the labels to this CSV file")
    c.set_defaults(func=_cluster)
    d = sub.add_parser("demo", help="dermatology: kernel k-groups beside the baselines")
    d.add_argument("--out", default="kgroups_demo", help="folder for the table and PNG")
    d.add_argument("--n-init", type=int, default=5)
    d.add_argument("--seed", type=int, default=0)
    d.set_defaults(func=_demo)
    r = sub.add_parser("reproduce", help="regenerate a table or figure of the papers")
    r.add_argument("name", help="experiment name, 'all', or 'list'")
    r.add_argument("--trials", type=int, default=None, help="default: the paper's count")
    r.add_argument("--quick", action="store_true", help="about a minute per item")
    r.add_argument("--out", default="reproduction", help="folder for tables and PNGs")
    r.add_argument("--seed", type=int, default=0)
    r.set_defaults(func=_reproduce)
    return parser


def main(argv=None):
    """Entry point of the ``kgroups`` command."""
    args = build_parser().parse_args(argv)
    try:
        args.func(args)
    except ValueError as err:
        print(f"kgroups: error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
