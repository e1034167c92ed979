"""Environments the suite builds for itself with pip (the mcp 1.x upstream's virtual environment, Python 3.10's
installed dependencies), kept between runs and between clones in a folder outside the checkout:
``$SCRATCHFS_TEST_CACHE``, else ``$XDG_CACHE_HOME/scratchfs-tests`` (``~/.cache/scratchfs-tests``). A clean clone
built both again in every run, though neither is under test: ``mcp-server-sqlite``'s took 62 s of a worker's set-up
(load 10), Python 3.10's pip install 45 s with its venv (``--durations=0``, 2026-12-06 23:42 UTC). Point the variable
at an empty folder to build them afresh.

Each entry is built in place under a lock (:func:`built`), a marker of what it was built from written last: an entry
cut short, or built from anything else, is built again."""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

from filelock import FileLock
from packaging.version import Version

CACHE = Path(os.environ.get("SCRATCHFS_TEST_CACHE")
             or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "scratchfs-tests")
"""The folder of the cached environments (read once, at import: tests that set ``HOME`` change nothing here)."""
_MARKER = ".scratchfs-built"


def built(name: str, key: object, build: Callable[[Path], None]) -> Path:
    """The folder ``CACHE/name``, built by ``build(folder)`` (into the empty folder) unless it was built from the same
    ``key`` (any JSON value: what the build depends on) and finished; returns its path. A lock holds other runs off
    while it is checked and built (up to 900 s).

    Raises:
        subprocess.CalledProcessError, subprocess.TimeoutExpired: from ``build`` (the entry is left unmarked).
        filelock.Timeout: another run held the lock 900 s.
    """
    want = json.dumps(key, sort_keys=True)
    folder = CACHE / name
    CACHE.mkdir(parents=True, exist_ok=True)
    with FileLock(str(CACHE / f"{name}.lock"), timeout=900):
        marker = folder / _MARKER
        if marker.exists() and marker.read_text() == want:
            return folder
        shutil.rmtree(folder, ignore_errors=True)  # missing, stale or half built: start over
        folder.mkdir()
        build(folder)
        marker.write_text(want)  # last: a build cut short has no marker and is redone
    return folder


def pip_for(python: Path | str) -> list[str] | None:
    """The command of a pip that installs for ``python`` without one of its own: this interpreter's with
    ``--python`` (pip 22.3 and later), else ``None``. (``python3 -m venv`` took 37.7 s with pip, 1.3 s without, at
    load 10.)"""
    try:
        found = importlib.metadata.version("pip")
    except importlib.metadata.PackageNotFoundError:
        return None
    if Version(found) < Version("22.3"):  # (packaging: pytest's own dependency)
        return None
    return [sys.executable, "-m", "pip", "--python", str(python)]
