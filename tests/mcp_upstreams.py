"""The real upstream MCP servers of the end-to-end tests, and what they serve: a git repository with history, and a
SQLite database of the CSV fixture.

``mcp-server-git`` works beside mcp 2.x and comes with the test extra. ``mcp-server-sqlite`` still uses mcp 1.x, so it
runs from its own virtual environment: :func:`sqlite_server_venv` builds it (once, under a lock) in the suite's
cache folder outside the checkout (``tests/env_cache.py``), so that the README's test command is all CI needs. Run
``python -m tests.mcp_upstreams`` to build it ahead.
"""

from __future__ import annotations

import csv
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from tests.env_cache import built, pip_for

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
SQLITE_REQUIREMENTS = ["mcp>=1.2,<2", "mcp-server-sqlite==2025.4.25"]


def sqlite_server_venv() -> Path:
    """The virtual environment holding ``mcp-server-sqlite`` (built with pip if missing or stale: kept between runs
    and clones, ``tests/env_cache.py``); returns its path.

    Raises:
        subprocess.CalledProcessError: venv or pip failed (the output is in the exception).
    """
    def build(venv: Path) -> None:
        pip = pip_for(venv / "bin" / "python")
        subprocess.run([sys.executable, "-m", "venv", "--clear", *(["--without-pip"] if pip else []), str(venv)],
                       check=True, capture_output=True, timeout=300)
        subprocess.run([*(pip or [str(venv / "bin" / "python"), "-m", "pip"]), "install", "-q",
                        "--disable-pip-version-check", *SQLITE_REQUIREMENTS], check=True, capture_output=True,
                       timeout=900)

    # (keyed on the base interpreter, not this one: a clone's own .venv -- .ci/run makes one each run -- builds the
    # same venv, of the base's Python)
    return built("mcp-sqlite-venv", {"python": sys.version, "base": sys.base_prefix,
                                     "requirements": SQLITE_REQUIREMENTS}, build)


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
