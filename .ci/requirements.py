"""Print kgroups' requirements and those of the extras named on the command line, one a
line, from pyproject.toml: `make test-oldest` installs them (under .ci/oldest.txt)
before kgroups itself, so that its venv downloads beside the main venv's install."""

import sys
import tomllib
from pathlib import Path

project = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())["project"]
extras = project["optional-dependencies"]
unknown = [name for name in sys.argv[1:] if name not in extras]
if unknown:
    sys.exit(f"requirements.py: no extra {unknown[0]!r} in pyproject.toml "
             f"(it has {', '.join(extras)})")
print("\n".join(project["dependencies"] + [r for name in sys.argv[1:] for r in extras[name]]))
