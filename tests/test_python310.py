"""scratchfs on the oldest Python that ``pyproject.toml`` allows (``requires-python = ">=3.10"``): the package imported
whole and the model's replies to real outputs byte for byte those of the suite's own Python
(``tests/python310_smoke.py``), in a fresh virtual environment of a Python 3.10 interpreter with the package installed
from this checkout; and every module parsed as Python 3.10's grammar. Until 2026-12-06 a regular expression with a
possessive quantifier (3.11's ``re``) made every import fail on 3.10, unseen by a suite run on 3.11.

The interpreter: ``$SCRATCHFS_PYTHON310``, else ``python3.10`` on the PATH, else pyenv's
(``~/.pyenv/versions/3.10.*``). Without one the test skips, except where ``SCRATCHFS_REQUIRE_SERVICES`` is set (CI):
there it fails."""

from __future__ import annotations

import ast
import glob
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def python310() -> str | None:
    """The path of a Python 3.10 interpreter that runs (pyenv's shim of one not selected does not), or ``None``."""
    pyenv = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.10*/bin/python")))
    for path in (os.environ.get("SCRATCHFS_PYTHON310"), *pyenv, shutil.which("python3.10")):
        if path and subprocess.run([path, "-c", "import sys; sys.exit(sys.version_info[:2] != (3, 10))"],
                                   capture_output=True, timeout=60).returncode == 0:
            return path
    return None


@pytest.fixture(scope="module")
def python_310(tmp_path_factory) -> Path:
    exe = python310()
    if exe is None:
        why = "no Python 3.10 interpreter ($SCRATCHFS_PYTHON310, python3.10 on the PATH, ~/.pyenv/versions/3.10.*)"
        if os.environ.get("SCRATCHFS_REQUIRE_SERVICES"):
            pytest.fail(why)
        pytest.skip(why)
    home = tmp_path_factory.mktemp("python310")
    subprocess.run([exe, "-m", "venv", str(home)], check=True, timeout=120)
    python = home / "bin" / "python"
    done = subprocess.run([str(python), "-m", "pip", "install", "-q", "-e", str(ROOT)], capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return python


def test_the_model_gets_the_same_replies_on_python_310(python_310, tmp_path):
    version = subprocess.run([str(python_310), "-c", "import sys; print(sys.version_info[:2])"], capture_output=True,
                             text=True, check=True).stdout.strip()
    assert version == "(3, 10)"
    replies = {}
    for name, python in (("3.10", python_310), ("this", Path(sys.executable))):
        done = subprocess.run([str(python), str(ROOT / "tests" / "python310_smoke.py"), str(tmp_path / name)],
                              capture_output=True, text=True, timeout=600, cwd=ROOT)
        assert done.returncode == 0, f"{name}: {done.stderr[-3000:]}"
        replies[name] = done.stdout.splitlines()
    assert len(replies["this"]) > 60  # (a dozen outputs, six reads each, the scratchpad's five)
    assert replies["3.10"] == replies["this"]


def test_every_module_parses_as_python_310():
    for path in sorted((ROOT / "scratchfs").rglob("*.py")):
        ast.parse(path.read_text(encoding="utf-8"), str(path), feature_version=(3, 10))  # (3.11's except* fails)
