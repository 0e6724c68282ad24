"""Where a benchmark's report goes: printed, and written to its ``--out`` Markdown
and ``--json`` files when given."""

from __future__ import annotations

import json


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
