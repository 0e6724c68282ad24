"""Write the intersphinx inventories in ``docs/_inventories`` (the docs build offline).

``docs/conf.py`` links to seven projects' documentation through Sphinx inventories
(``objects.inv``: each documented object's name, role and address) committed here,
so that the build reads no network. This script says where each comes from and
writes or refreshes them.

Where they come from
--------------------
``python.inv``, ``scipy.inv``, ``sklearn.inv``, ``dask.inv``
    The ``objects.inv`` that Sphinx wrote when Debian built the projects' own
    documentation, copied unchanged from Debian 12's packages ``python3.11-doc``
    (3.11.2), ``python-scipy-doc`` (1.10.1), ``python-sklearn-doc`` (1.2.1) and
    ``python-dask-doc`` (2022.12.1): ``python docs/make_inventories.py --debian``
    downloads them with ``apt-get download`` and extracts the files. They are
    older than the versions kgroups runs with, but the addresses of the objects
    the docs name have not moved on the projects' ``stable`` sites.

``numpy.inv``, ``networkx.inv``, ``matplotlib.inv``
    Debian 12 packages no documentation of NumPy, NetworkX or Matplotlib, and we
    found no package that ships their inventories, so this script writes them
    (the default, no option): only the objects of the ``WRITTEN`` table below,
    the ones the kgroups docs refer to, each with the address at which the
    project's ``stable`` site documents it (``numpy.ndarray`` at
    ``reference/generated/numpy.ndarray.html#numpy.ndarray``...), following the
    layout of their generated API pages; ``--download`` replaces them with the
    real files, and a link whose address changed then resolves again. A reference to
    an object of these projects that the table lacks fails the build (nitpicky):
    add the object to the table with its documented address and run the script.

Refreshing them from the real sites
-----------------------------------
On a machine with internet, ``python docs/make_inventories.py --download``
replaces all seven files with the ``objects.inv`` that each project publishes
at the base address of ``intersphinx_mapping`` in ``docs/conf.py`` (they are
larger: every object of the project). Build the docs afterwards
(``make docs``): nitpicky mode shows a reference that no longer resolves.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import urllib.request
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "_inventories"

# project -> base address (the same as intersphinx_mapping in conf.py)
BASES = {
    "python": "https://docs.python.org/3/",
    "numpy": "https://numpy.org/doc/stable/",
    "scipy": "https://docs.scipy.org/doc/scipy/",
    "sklearn": "https://scikit-learn.org/stable/",
    "dask": "https://docs.dask.org/en/stable/",
    "networkx": "https://networkx.org/documentation/stable/",
    "matplotlib": "https://matplotlib.org/stable/",
}

# project -> (Debian 12 package, path of objects.inv inside it)
DEBIAN = {
    "python": ("python3.11-doc", "usr/share/doc/python3.11/html/objects.inv"),
    "scipy": ("python-scipy-doc", "usr/share/doc/python-scipy-doc/html/objects.inv"),
    "sklearn": ("python-sklearn-doc", "usr/share/doc/python-sklearn-doc/html/objects.inv"),
    "dask": ("python-dask-doc", "usr/share/doc/python-dask-doc/html/objects.inv"),
}

# project -> (project name, version, entries); an entry is
# (name, "domain:role", address relative to the base, text shown or "-" for the name).
# "$" at the end of an address stands for the name (Sphinx's inventory shorthand).
WRITTEN = {
    "numpy": ("NumPy", "2.4", [
        ("numpy", "py:module", "reference/index.html#module-$", "-"),
        ("numpy.ndarray", "py:class", "reference/generated/numpy.ndarray.html#$", "-"),
        ("numpy.dtype", "py:class", "reference/generated/numpy.dtype.html#$", "-"),
        ("numpy.memmap", "py:class", "reference/generated/numpy.memmap.html#$", "-"),
        ("numpy.asarray", "py:function", "reference/generated/numpy.asarray.html#$", "-"),
        ("numpy.linalg.eigh", "py:function",
         "reference/generated/numpy.linalg.eigh.html#$", "-"),
        ("numpy.random.Generator", "py:class", "reference/random/generator.html#$", "-"),
        ("numpy.random.default_rng", "py:function",
         "reference/random/generator.html#$", "-"),
        ("numpy.random.RandomState", "py:class", "reference/random/legacy.html#$", "-"),
        ("numpy.random.SeedSequence", "py:class",
         "reference/random/bit_generators/generated/numpy.random.SeedSequence.html#$",
         "-"),
        ("numpy.inf", "py:data", "reference/constants.html#$", "-"),
        ("numpy.nan", "py:data", "reference/constants.html#$", "-"),
        ("array_like", "std:term", "glossary.html#term-array_like", "array_like"),
        ("arrays.scalars", "std:label", "reference/arrays.scalars.html", "Scalars"),
    ]),
    "networkx": ("NetworkX", "3.6", [
        ("networkx.Graph", "py:class", "reference/classes/graph.html#$", "-"),
        ("networkx.DiGraph", "py:class", "reference/classes/digraph.html#$", "-"),
        ("networkx.MultiGraph", "py:class", "reference/classes/multigraph.html#$", "-"),
        ("networkx.algorithms.community.quality.modularity", "py:function",
         "reference/algorithms/generated/"
         "networkx.algorithms.community.quality.modularity.html#$", "-"),
        ("networkx.algorithms.community.quality.partition_quality", "py:function",
         "reference/algorithms/generated/"
         "networkx.algorithms.community.quality.partition_quality.html#$", "-"),
    ]),
    "matplotlib": ("Matplotlib", "3.11", [
        ("matplotlib.axes.Axes", "py:class",
         "api/_as_gen/matplotlib.axes.Axes.html#$", "-"),
        ("matplotlib.figure.Figure", "py:class",
         "api/_as_gen/matplotlib.figure.Figure.html#$", "-"),
        ("matplotlib.pyplot", "py:module", "api/pyplot_summary.html#module-$", "-"),
        ("matplotlib.pyplot.subplots", "py:function",
         "api/_as_gen/matplotlib.pyplot.subplots.html#$", "-"),
    ]),
}


def inventory_bytes(project: str, version: str, entries) -> bytes:
    """A Sphinx inventory, format version 2: four header lines, then zlib lines."""
    header = (f"# Sphinx inventory version 2\n# Project: {project}\n"
              f"# Version: {version}\n"
              "# The remainder of this file is compressed using zlib.\n")
    lines = []
    for name, role, uri, shown in sorted(entries):
        priority = "-1" if role.startswith("std:") else "1"
        lines.append(f"{name} {role} {priority} {uri} {shown}\n")
    return header.encode() + zlib.compress("".join(lines).encode(), 9)


def write_tables() -> None:
    for key, (project, version, entries) in WRITTEN.items():
        path = OUT / f"{key}.inv"
        path.write_bytes(inventory_bytes(project, version, entries))
        print(f"wrote {path.relative_to(HERE.parent)} ({len(entries)} objects)")


def copy_debian() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for key, (package, member) in DEBIAN.items():
            subprocess.run(["apt-get", "download", package], cwd=tmp, check=True)
            deb = next(Path(tmp).glob(f"{package}_*.deb"))
            subprocess.run(["dpkg-deb", "-x", str(deb), "x"], cwd=tmp, check=True)
            shutil.copyfile(Path(tmp) / "x" / member, OUT / f"{key}.inv")
            print(f"copied {member} of {deb.name} to _inventories/{key}.inv")


def download() -> None:
    for key, base in BASES.items():
        with urllib.request.urlopen(base + "objects.inv", timeout=60) as response:
            data = response.read()
        if not data.startswith(b"# Sphinx inventory version"):
            sys.exit(f"{base}objects.inv is not a Sphinx inventory")
        (OUT / f"{key}.inv").write_bytes(data)
        print(f"downloaded {base}objects.inv to _inventories/{key}.inv")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--debian", action="store_true",
                       help="copy python/scipy/sklearn/dask from Debian's doc packages")
    group.add_argument("--download", action="store_true",
                       help="fetch all seven from the projects' sites (needs internet)")
    args = parser.parse_args(argv)
    OUT.mkdir(exist_ok=True)
    if args.download:
        download()
    elif args.debian:
        copy_debian()
    else:
        write_tables()


if __name__ == "__main__":
    main()
