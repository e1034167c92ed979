"""The real upstream MCP servers of the end-to-end tests, and what they serve: a git repository with history, and a
SQLite database of the CSV fixture.

``mcp-server-git`` works beside mcp 2.x and comes with the test extra. ``mcp-server-sqlite`` still uses mcp 1.x, so it
runs from its own virtual environment: :func:`sqlite_server_venv` builds it (once, under a lock) in the repository's
ignored ``.cache/`` folder, so that the README's test command is all CI needs. Run this file to build it ahead.
"""

from __future__ import annotations

import csv
import importlib.metadata
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

from filelock import FileLock
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
CACHE = ROOT / ".cache"
SQLITE_REQUIREMENTS = ["mcp>=1.2,<2", "mcp-server-sqlite==2025.4.25"]
SQLITE_VENV = CACHE / "mcp-sqlite-venv"
_MARKER = ".scratchfs-built"


def sqlite_server_venv() -> Path:
    """The virtual environment holding ``mcp-server-sqlite`` (built with pip if missing or stale); returns its path.

    Raises:
        subprocess.CalledProcessError: venv or pip failed (the output is in the exception).
    """
    want = json.dumps({"python": sys.version, "requirements": SQLITE_REQUIREMENTS})
    marker = SQLITE_VENV / _MARKER
    CACHE.mkdir(exist_ok=True)
    with FileLock(str(CACHE / "mcp-sqlite-venv.lock"), timeout=900):
        if marker.exists() and marker.read_text() == want and (SQLITE_VENV / "bin" / "mcp-server-sqlite").exists():
            return SQLITE_VENV
        shutil.rmtree(SQLITE_VENV, ignore_errors=True)  # missing, stale or half built: start over
        own_pip = _pip_with_python_option()
        subprocess.run([sys.executable, "-m", "venv", *(["--without-pip"] if own_pip else []), str(SQLITE_VENV)],
                       check=True, capture_output=True, timeout=300)
        pip = [sys.executable, "-m", "pip", "--python", str(SQLITE_VENV / "bin" / "python")] if own_pip else [
            str(SQLITE_VENV / "bin" / "python"), "-m", "pip"]
        subprocess.run([*pip, "install", "-q", "--disable-pip-version-check", *SQLITE_REQUIREMENTS],
                       check=True, capture_output=True, timeout=900)
        marker.write_text(want)  # last: a build cut short has no marker and is redone
    return SQLITE_VENV


def _pip_with_python_option() -> bool:
    """Whether this interpreter's pip installs into another environment (``pip --python``, pip 22.3 and later): then
    the venv is made without pip of its own: ``python3 -m venv`` took 37.7 s with pip, 1.3 s without (load 10)."""
    try:
        found = importlib.metadata.version("pip")
    except importlib.metadata.PackageNotFoundError:
        return False
    return Version(found) >= Version("22.3")  # (packaging: pytest's own dependency)


def build_packages_db(path: Path) -> int:
    """A SQLite database with table ``packages(name, version, month, summary)`` from the CSV fixture; returns rows."""
    with open(FIXTURES / "query-packages-by-month.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE packages (name TEXT, version TEXT, month TEXT, summary TEXT)")
        conn.executemany("INSERT INTO packages VALUES (:name, :version, :month, :summary)", rows)
    conn.close()
    return len(rows)


def sqlite_answer(path: Path, query: str) -> str:
    """What ``mcp-server-sqlite``'s ``read_query`` returns for ``query``: the ``str`` of a list of row dicts."""
    conn = sqlite3.connect(path)
    try:
        conn.row_factory = sqlite3.Row
        return str([dict(row) for row in conn.execute(query).fetchall()])
    finally:
        conn.close()


GIT_ENV = {"GIT_AUTHOR_NAME": "Ada Lovelace", "GIT_AUTHOR_EMAIL": "ada@example.org",
           "GIT_COMMITTER_NAME": "Ada Lovelace", "GIT_COMMITTER_EMAIL": "ada@example.org",
           "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def build_git_repo(path: Path, commits: int = 300, files: int = 10) -> list[str]:
    """A git repository with ``commits`` commits (one ``git fast-import``), each appending 20 real lines (from the
    grep fixture) to one of ``files`` files, with non-ASCII commit messages; returns the commit ids, newest first."""
    lines = (FIXTURES / "workspace-grep-stdlib-defs.txt").read_text(encoding="utf-8").splitlines(keepends=True)
    contents = [""] * files
    stream = bytearray()
    for i in range(commits):
        k = i % files
        contents[k] += "".join(lines[(i * 20) % len(lines) : (i * 20) % len(lines) + 20])
        message = f"Commit {i}: touch mod_{k}.py — naïve café ✓\n".encode()
        body = contents[k].encode()
        stream += f"commit refs/heads/main\nmark :{i + 1}\n".encode()
        stream += f"author Ada Lovelace <ada@example.org> {1_700_000_000 + 3600 * i} +0000\n".encode()
        stream += f"committer Ada Lovelace <ada@example.org> {1_700_000_000 + 3600 * i} +0000\n".encode()
        stream += f"data {len(message)}\n".encode() + message
        if i:
            stream += f"from :{i}\n".encode()
        stream += f"M 100644 inline src/mod_{k}.py\ndata {len(body)}\n".encode() + body + b"\n"
    env = {**os.environ, **GIT_ENV}
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True, env=env)
    subprocess.run(["git", "-C", str(path), "fast-import", "--quiet"], input=bytes(stream), check=True, env=env)
    subprocess.run(["git", "-C", str(path), "reset", "-q", "--hard", "main"], check=True, env=env)
    out = subprocess.run(["git", "-C", str(path), "rev-list", "main"], check=True, capture_output=True, env=env)
    return out.stdout.decode().split()


if __name__ == "__main__":
    print(sqlite_server_venv())
