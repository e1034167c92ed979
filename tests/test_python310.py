"""scratchfs on the oldest Python that ``pyproject.toml`` allows (``requires-python = ">=3.10"``): the package imported
whole and the model's replies to real outputs byte for byte those of the suite's own Python
(``tests/python310_smoke.py``), in a fresh virtual environment of a Python 3.10 interpreter with the package installed
from this checkout (its dependencies installed by pip for 3.10 once a day: :func:`dependencies_310`); and every module
parsed as Python 3.10's grammar. Until 2026-12-06 a regular expression with a possessive quantifier (3.11's ``re``)
made every import fail on 3.10, unseen by a suite run on 3.11.

The interpreter: ``$SCRATCHFS_PYTHON310``, else ``python3.10`` on the PATH, else pyenv's
(``~/.pyenv/versions/3.10.*``). Without one the test skips, except where ``SCRATCHFS_REQUIRE_SERVICES`` is set (CI):
there it fails."""

from __future__ import annotations

import ast
import datetime
import glob
import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from filelock import FileLock

from tests.env_cache import CACHE, built, pip_for

if sys.version_info >= (3, 11):
    from re import _parser

ROOT = Path(__file__).resolve().parent.parent


def python310() -> str | None:
    """The path of a Python 3.10 interpreter that runs (pyenv's shim of one not selected does not), or ``None``."""
    pyenv = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.10*/bin/python")))
    for path in (os.environ.get("SCRATCHFS_PYTHON310"), *pyenv, shutil.which("python3.10")):
        if path and subprocess.run([path, "-c", "import sys; sys.exit(sys.version_info[:2] != (3, 10))"],
                                   capture_output=True, timeout=60).returncode == 0:
            return path
    return None


@pytest.fixture(scope="session")
def python_310(tmp_path_factory, request) -> Path:
    """The Python of a fresh venv of a 3.10 interpreter with this checkout installed in it by pip (editable), its
    dependencies from a folder kept between runs (:func:`dependencies_310`): built once a run, in the run's
    temporary folder that every pytest-xdist worker's own is in, under a lock (the other worker waits for it, then
    uses it). Built once a module before: twice a run (tests/test_hostile28_py310_pattern.py uses it too), 3.3 s of
    set-up each (``-n 0``, load 5)."""
    exe = python310()
    if exe is None:
        why = "no Python 3.10 interpreter ($SCRATCHFS_PYTHON310, python3.10 on the PATH, ~/.pyenv/versions/3.10.*)"
        if os.environ.get("SCRATCHFS_REQUIRE_SERVICES"):
            pytest.fail(why)
        pytest.skip(why)
    shared = tmp_path_factory.getbasetemp()
    if hasattr(request.config, "workerinput"):  # (a worker's basetemp is in the run's, shared by the workers)
        shared = shared.parent
    home = shared / "python310"
    python = home / "bin" / "python"
    with FileLock(str(shared / "python310.lock"), timeout=1200):
        if not (home / ".scratchfs-built").exists():  # (marked last: a build cut short is redone)
            shutil.rmtree(home, ignore_errors=True)
            _venv_310(exe, home)
            (home / ".scratchfs-built").touch()
    return python


def _venv_310(exe: str, home: Path) -> None:
    """A venv of ``exe`` at ``home`` with the checkout installed in it (editable) and its dependencies on its path."""
    subprocess.run([exe, "-m", "venv", "--without-pip", str(home)], check=True, timeout=120)
    python = home / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          capture_output=True, text=True, check=True, timeout=60).stdout.strip()
    Path(site, "scratchfs-test-dependencies.pth").write_text(f"{dependencies_310(exe)}\n", encoding="utf-8")
    done = subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                           "--no-index", "-e", str(ROOT)], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]


def dependencies_310(exe: str) -> Path:
    """A folder of this checkout's dependencies installed by pip for ``exe`` (``pip install --target``: resolved
    for 3.10 from ``pyproject.toml``), with pip and setuptools to install the checkout itself; kept between runs and
    clones (``tests/env_cache.py``) while ``pyproject.toml`` and the interpreter are the same, for a day at most (a
    release of a dependency that drops 3.10 is seen the next day). A fresh venv and pip's install of the
    dependencies took 45 s of set-up at load 10 (``--durations=0``, 2026-12-06 23:42 UTC); reading them from here
    leaves pip only the checkout's editable install.

    Raises:
        subprocess.CalledProcessError: pip failed to install them (its output is in the exception).
    """
    version = subprocess.run([exe, "-c", "import sys; print(sys.version)"], capture_output=True, text=True,
                             check=True, timeout=60).stdout

    def build(folder: Path) -> None:
        pip = pip_for(exe)
        if pip is None:  # (a venv of 3.10's own pip to install with)
            subprocess.run([exe, "-m", "venv", str(folder / "pip-venv")], check=True, capture_output=True,
                           timeout=300)
            pip = [str(folder / "pip-venv" / "bin" / "python"), "-m", "pip"]
        subprocess.run([*pip, "install", "-q", "--target", str(folder / "site"), "pip", "setuptools>=68", str(ROOT)],
                       check=True, capture_output=True, timeout=900)
        for installed in (folder / "site").glob("scratchfs*"):  # the checkout itself: each run installs its own
            shutil.rmtree(installed)

    key = {"python": exe, "version": version, "pyproject": (ROOT / "pyproject.toml").read_text(encoding="utf-8"),
           "day": datetime.date.today().isoformat()}
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]
    for marker in CACHE.glob("python310-dependencies-*/.scratchfs-built"):  # (built three days ago: another day's,
        if time.time() - marker.stat().st_mtime > 3 * 86400:               # no run's today)
            shutil.rmtree(marker.parent, ignore_errors=True)
    return built(f"python310-dependencies-{digest}", key, build) / "site"


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


REFUSALS_SCRIPT = """  # (a 3.10 interpreter's refusal of each pattern of its stdin, as JSON lines)
import json, re, sys
import sre_parse
from scratchfs.engine.pattern_advice import unparsed
for pattern in json.loads(sys.stdin.read()):
    try:
        sre_parse.parse(pattern.encode(), re.MULTILINE)
    except re.error as exc:
        refused = unparsed(exc, pattern.encode(), re.MULTILINE)
        print(json.dumps([pattern, [exc.msg, exc.pos], str(refused), refused.rewrite]))
"""
_PIECES = ["a", "b", "*", "+", "?", "{2}", "{1,2}", "{,}", "{", "}", "2", ",", "(", ")", "(?>", "(?:", "\\", "[a]", "]"]


def test_python_310_tells_an_atomic_group_or_possessive_quantifier_as_python_311s_syntax(python_310):
    """On 3.10 ``(?>a)`` was refused as 'unknown extension ?>', advised 'write ? as \\? to keep it a pattern' (a group
    of the text ``?>a``), and ``a*+`` as 'multiple repeat', with no word of either being 3.11's syntax: 3.10's
    refusals of both now say so and write the same match without it. Checked on 3000 random patterns against this
    Python's own parser when it is 3.11 or later: a 3.10 refusal tells 3.11's syntax exactly where 3.11's parser
    refuses otherwise than 3.10's (it parses, or refuses elsewhere or for another fault), and an atomic group's names
    no escape."""
    pieces = random.Random(310)
    patterns = ["(?>a+)b", "a*+b", "a{2}+", "a*?+", "a??+", "a{2}?+", "a}?+", "\\??+", "[+]++", "(?x)a* +"] + [
        "".join(pieces.choices(_PIECES, k=pieces.randint(1, 7))) for _ in range(3000)]
    done = subprocess.run([str(python_310), "-c", REFUSALS_SCRIPT], input=json.dumps(patterns), capture_output=True,
                          text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    refused = {pattern: (at, said, rewrite) for pattern, at, said, rewrite in map(json.loads, done.stdout.splitlines())}
    told = {pattern for pattern, (_, said, _) in refused.items() if "Python 3.11's syntax; this is 3.10" in said}
    assert {"(?>a+)b", "a*+b", "a{2}+", "a}?+", "\\??+", "[+]++"} <= told
    assert not told & {"a*?+", "a??+", "a{2}?+", "(?x)a* +"}  # (3.11 refuses these as 3.10 does)
    assert refused["(?>a+)b"][1:] == ("pattern does not compile: unknown extension ?> at position 1 (an atomic group: "
                                      "Python 3.11's syntax; this is 3.10): write (?>X) as (?=(X))\\N, the same "
                                      "match, N the new group's number (later groups one more)", None)
    assert refused["a*+b"][2] == "as written" and refused["a*+b"][1].endswith("or write + as \\+ to keep it a pattern")
    if sys.version_info < (3, 11):
        return
    for pattern, (fault, said, _) in refused.items():
        try:
            _parser.parse(pattern.encode(), re.MULTILINE)
            otherwise = True
        except re.error as exc:
            otherwise = [exc.msg, exc.pos] != fault and not _requantified_311(pattern, fault)
        assert (pattern in told) == otherwise, (pattern, fault, said)


def _requantified_311(pattern: str, fault: list) -> bool:
    """Whether 3.11 refuses ``pattern`` (3.10's ``fault``: "multiple repeat" at a ``+``) one quantifier on, as
    "multiple repeat": a possessive quantifier followed by another (``a+++``, ``a++?``; helper hostile28), no 3.11
    syntax either -- told by 3.11's parse of the pattern up to that quantifier (its whole pattern may be refused
    first for a fault its tokenizer reads ahead to: ``a++?\\``'s escape at the end)."""
    if fault[0] != "multiple repeat":
        return False
    after = fault[1] + 1
    gap = re.match(r"(?:\s|#[^\n]*(?:\n|\Z)|\(\?#[^)]*\))*", pattern[after:]).end()
    quantifier = re.match(r"\{\d*,?\d*\}|.", pattern[after + gap:], re.DOTALL)
    if quantifier is None:
        return False
    try:
        _parser.parse(pattern[: after + gap + quantifier.end()].encode(), re.MULTILINE)
    except re.error as again:
        return again.msg == "multiple repeat" and again.pos == after + gap
    return False
