"""Where a benchmark's report goes: printed, and written to its ``--out`` Markdown
and ``--json`` files when given."""

from __future__ import annotations

import datetime
import json
import os
import platform
import sys
import time


def publish(text, out=None, json_path=None, data=None):
    """Print the Markdown ``text``; write it to ``out`` and ``data`` as JSON to
    ``json_path`` (each when given)."""
    print(text)
    if out:
        with open(out, "w") as fh:
            fh.write(text)
    if json_path:
        with open(json_path, "w") as fh:
            json.dump(data, fh, indent=1)


def header(script, argv=None):
    """A report's first lines: the kgroups measured and where it lives, the machine, the
    date and the command that made it (``argv``: the script's arguments, None: the
    process's)."""
    import kgroups

    return [f"kgroups {kgroups.__version__} from {os.path.dirname(kgroups.__file__)}",
            f"{platform.machine()}, {os.cpu_count()} cores, python "
            f"{platform.python_version()}, {datetime.date.today().isoformat()}",
            f"command: python benchmarks/{script}" + " ".join(
                [""] + (argv if argv is not None else sys.argv[1:]))]


def timed(f):
    """``(f(), its seconds)``."""
    t = time.perf_counter()
    out = f()
    return out, time.perf_counter() - t
