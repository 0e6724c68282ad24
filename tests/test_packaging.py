"""The package as a user gets it: the sdist and wheel that ``python -m build`` makes.

They are built from a copy of the project's sources (no build isolation, so nothing
is downloaded), checked by ``twine check --strict`` (the metadata renders on a
package index), opened to see that every module, the bundled data sets and
``py.typed`` are inside, and the wheel is installed with ``pip --no-deps`` into a
new venv whose dependencies are those of the running interpreter (a ``.pth``
file), where the README's first example runs and imports kgroups from the venv,
not from ``src``. The wheel is installed by the README's own line (``pip install
dist/kgroups-<version>-py3-none-any.whl``, also on the Install page), offline.

build, twine and setuptools >= 77 (pyproject's dependency group ``dist``) run from
their own venv: ``$KGROUPS_DIST_PYTHON``, else ``.venv/dist-tools/bin/python``, which
``make test`` creates. Outside CI the module is skipped when it is missing;
``-m "not packaging"`` leaves it out.
"""

import ast
import importlib.util
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile

import pytest

import kgroups

pytestmark = pytest.mark.packaging

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "kgroups"
# What a build needs from the project: every file an sdist of it holds comes from here.
SOURCES = ("pyproject.toml", "README.md", "CITATION.cff", "LICENSE", "LICENSE.txt")
# The modules the installed wheel's dependencies are found with.
DEPENDENCIES = ("numpy", "scipy", "numba", "llvmlite", "sklearn", "networkx", "tqdm",
                "threadpoolctl", "joblib")


def _tools_python():
    """The interpreter with build, twine and setuptools >= 77 (skip or, in CI, fail)."""
    given = os.environ.get("KGROUPS_DIST_PYTHON") or ".venv/dist-tools/bin/python"
    python = str(ROOT / given)  # a relative path is taken from the project's root
    probe = ("import build, twine, setuptools; "
             "assert int(setuptools.__version__.split('.')[0]) >= 77, setuptools.__version__")
    problem = None
    if not os.path.exists(python):
        problem = f"no {python}; 'make test' creates it (pip install --group dist)"
    else:
        done = subprocess.run([python, "-c", probe], capture_output=True, text=True,
                              check=False)
        if done.returncode:
            problem = f"{python} lacks build, twine or setuptools>=77: {done.stderr[-300:]}"
    if problem:
        if os.environ.get("CI"):
            pytest.fail(problem)
        pytest.skip(problem)
    return python


def _run(args, **kwargs):
    """Run a command; on failure, fail with its output."""
    done = subprocess.run(args, capture_output=True, text=True, check=False, **kwargs)
    assert done.returncode == 0, (args, done.stdout[-3000:], done.stderr[-3000:])
    return done


def _declared_version():
    """``kgroups.__version__`` as written in the source (the one place it is written)."""
    tree = ast.parse((PACKAGE / "__init__.py").read_text())
    return next(node.value.value for node in tree.body if isinstance(node, ast.Assign)
                and [t.id for t in node.targets if isinstance(t, ast.Name)] == ["__version__"])


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    """``{"sdist": path, "wheel": path}`` built from a copy of the sources."""
    tools = _tools_python()
    work = tmp_path_factory.mktemp("build")
    tree = work / "project"
    tree.mkdir()
    for name in SOURCES:
        if (ROOT / name).exists():
            shutil.copy2(ROOT / name, tree / name)
    shutil.copytree(ROOT / "src", tree / "src",
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "*.pyc"))
    out = work / "dist"
    _run([tools, "-m", "build", "--no-isolation", "--outdir", str(out), str(tree)])
    wheels, sdists = list(out.glob("*.whl")), list(out.glob("*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, list(out.iterdir())
    return {"wheel": wheels[0], "sdist": sdists[0], "tools": tools}


def test_twine_check_passes(dist):
    done = _run([dist["tools"], "-m", "twine", "check", "--strict",
                 str(dist["wheel"]), str(dist["sdist"])])
    assert done.stdout.count("PASSED") == 2, done.stdout


def test_names_carry_the_declared_version(dist):
    version = _declared_version()
    assert version == kgroups.__version__
    assert dist["wheel"].name == f"kgroups-{version}-py3-none-any.whl"
    assert dist["sdist"].name == f"kgroups-{version}.tar.gz"


def test_metadata_has_the_spdx_license_and_the_version(dist):
    with zipfile.ZipFile(dist["wheel"]) as whl:
        meta = whl.read(f"kgroups-{kgroups.__version__}.dist-info/METADATA").decode()
        entry_points = whl.read(f"kgroups-{kgroups.__version__}.dist-info/entry_points.txt")
    assert "\nLicense-Expression: BSD-3-Clause\n" in meta
    assert f"\nVersion: {kgroups.__version__}\n" in meta
    assert not re.search(r"^License: ", meta, re.MULTILINE)  # the deprecated free-text field
    assert b"kgroups = kgroups.cli:console" in entry_points


def _package_files():
    """Paths relative to src/ of every module, data file and py.typed of the package."""
    found = set()
    for path in PACKAGE.rglob("*"):
        rel = path.relative_to(PACKAGE.parent).as_posix()
        if path.is_file() and "__pycache__" not in rel and (
                path.suffix == ".py" or "/datasets/data/" in rel or path.name == "py.typed"):
            found.add(rel)
    return found


def test_wheel_and_sdist_hold_every_module_and_data_file(dist):
    expected = _package_files()
    assert "kgroups/py.typed" in expected and "kgroups/datasets/data/iris.data" in expected
    with zipfile.ZipFile(dist["wheel"]) as whl:
        in_wheel = set(whl.namelist())
    with tarfile.open(dist["sdist"]) as sdist:
        prefix = f"kgroups-{kgroups.__version__}/src/"
        in_sdist = {n[len(prefix):] for n in sdist.getnames() if n.startswith(prefix)}
    assert sorted(expected - in_wheel) == []
    assert sorted(expected - in_sdist) == []


README_CHECK = """
import importlib.metadata, json, pathlib, re
text = pathlib.Path({readme!r}).read_text(encoding="utf-8")
block = re.search(r"```python\\n(.*?)```", text, re.S).group(1)
ns = {{}}
exec(compile(block, "README.md", "exec"), ns)
import kgroups
from kgroups.datasets import DATA_DIR
print(json.dumps({{"file": kgroups.__file__, "version": kgroups.__version__,
                  "dist": importlib.metadata.version("kgroups"), "data": str(DATA_DIR),
                  "accuracy": round(float(ns["accuracy"](ns["y"], ns["km"].labels_)), 3)}}))
"""


WHEEL_LINE = re.compile(r"^\s*(pip install (dist/kgroups-[^\s]+\.whl))\s*$", re.MULTILINE)


def _wheel_install_line(path):
    """The one ``pip install dist/kgroups-...whl`` line of ``path``: (line, wheel path)."""
    found = WHEEL_LINE.findall(path.read_text(encoding="utf-8"))
    assert len(found) == 1, (path.name, found)
    return found[0]


def test_readme_and_install_page_give_the_wheel_that_make_dist_builds(dist):
    readme = _wheel_install_line(ROOT / "README.md")
    page = _wheel_install_line(ROOT / "docs" / "install.rst")
    assert readme == page
    assert readme[1] == f"dist/{dist['wheel'].name}"


@pytest.fixture(scope="module")
def venv(dist, tmp_path_factory):
    """A new venv with the wheel installed (no dependencies: those of this interpreter)."""
    env_dir = tmp_path_factory.mktemp("venv") / "env"
    _run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)])
    python = env_dir / "bin" / "python"
    purelib = _run([str(python), "-c", ("import sysconfig; "
                                         "print(sysconfig.get_paths()['purelib'])")]).stdout.strip()
    places = {str(pathlib.Path(importlib.util.find_spec(m).origin).parents[1])
              for m in DEPENDENCIES if importlib.util.find_spec(m) is not None}
    pathlib.Path(purelib, "kgroups_test_dependencies.pth").write_text("\n".join(sorted(places)))
    # the README's line, run offline from a folder holding dist/ as make dist leaves it
    line, wheel = _wheel_install_line(ROOT / "README.md")
    here = tmp_path_factory.mktemp("checkout")
    (here / "dist").mkdir()
    shutil.copy2(dist["wheel"], here / wheel)
    args = line.split()[2:]   # after "pip install"
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", *args,
          "--no-deps", "--no-index", "--no-cache-dir", "--disable-pip-version-check"],
         cwd=here)
    environ = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    return {"dir": env_dir, "python": python, "env": environ}


def test_the_readme_example_runs_from_the_installed_wheel(venv, tmp_path):
    script = tmp_path / "readme_example.py"
    script.write_text(README_CHECK.format(readme=str(ROOT / "README.md")))
    done = _run([str(venv["python"]), str(script)], cwd=tmp_path, env=venv["env"])
    found = json.loads(done.stdout.strip().splitlines()[-1])
    installed = pathlib.Path(found["file"]).resolve()
    assert venv["dir"].resolve() in installed.parents, found["file"]
    assert ROOT / "src" not in installed.parents
    assert pathlib.Path(found["data"], "dermatology.data").is_file()
    assert found["version"] == found["dist"] == kgroups.__version__
    assert found["accuracy"] == 0.962  # the README's comment (paper: 0.962)


def test_the_installed_command_runs(venv, tmp_path):
    kg = str(venv["dir"] / "bin" / "kgroups")
    done = _run([kg, "--version"], cwd=tmp_path, env=venv["env"])
    assert done.stdout.strip() == f"kgroups {kgroups.__version__}"
    code = "from kgroups.datasets import DATA_DIR; print(DATA_DIR)"
    iris = _run([str(venv["python"]), "-c", code], cwd=tmp_path, env=venv["env"]).stdout.strip()
    done = _run([kg, "cluster", os.path.join(iris, "iris.data"), "-k", "3", "--label-column",
                 "5", "--seed", "0", "-o", "-"], cwd=tmp_path, env=venv["env"])
    labels = done.stdout.splitlines()
    assert labels[0] == "label" and len(labels) == 151
    assert "accuracy: " in done.stderr


def test_citation_cff_names_the_version_license_and_paper():
    yaml = pytest.importorskip("yaml")
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert cff["cff-version"] == "1.2.0" and cff["type"] == "software"
    assert cff["version"] == kgroups.__version__
    assert cff["license"] == "BSD-3-Clause"
    paper = cff["preferred-citation"]
    assert paper["doi"] == "10.1109/TPAMI.2020.2998120"
    assert (paper["volume"], paper["issue"], paper["start"], paper["end"], paper["year"]) == \
        (43, 12, 4411, 4425, 2021)
    assert [a["family-names"] for a in paper["authors"]] == ["França", "Rizzo", "Vogelstein"]
