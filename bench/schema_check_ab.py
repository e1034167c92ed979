"""What an opening's schema check costs on a schema at its version: ``REF``'s ``migrate`` (by default ``main``: an
advisory lock, ``CREATE SCHEMA IF NOT EXISTS``, ``CREATE TABLE IF NOT EXISTS``, ``SELECT max(version)``, in one
transaction -- and the ``CREATE`` privilege every time) against this checkout's (two reads, nothing made), on a
private PostgreSQL server (``tests/services.py``), alternated in blocks of 200 checks on one connection.

    python bench/schema_check_ab.py [REF]

Measured (fleetops, 2 shared cores, 2026-12-04): main 556 us, this branch 208 us per check (median of 10 blocks),
2.67x; again 396 and 140 us, 2.82x; 1035 and 381 us, 2.72x (the absolute figures move with the machine's load).
"""

from __future__ import annotations

import importlib.util
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import psycopg  # noqa: E402

from scratchfs.engine import postgres_schema as current  # noqa: E402
from tests.services import PostgresServer, pg_bin  # noqa: E402


def load_ref(ref: str):
    """``scratchfs/engine/postgres_schema.py`` as it is at ``ref``, as a module of its own."""
    text = subprocess.run(["git", "show", f"{ref}:scratchfs/engine/postgres_schema.py"], cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout
    path = Path(tempfile.mkdtemp()) / "ref_schema.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("ref_schema", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(ref: str = "main") -> None:
    old = load_ref(ref)
    server = PostgresServer(pg_bin())
    server.start()
    try:
        with psycopg.connect(server.dsn, autocommit=True) as conn:
            current.migrate(conn, "bench", None)

            def run_ref() -> None:
                with conn.transaction():  # (the old migrate ran inside the opening's transaction)
                    old.migrate(conn, "bench", None)

            times: dict[str, list[float]] = {ref: [], "this checkout": []}
            for _ in range(10):
                for name, check in ((ref, run_ref), ("this checkout", lambda: current.migrate(conn, "bench", None))):
                    started = time.perf_counter()
                    for _ in range(200):
                        check()
                    times[name].append((time.perf_counter() - started) / 200 * 1e6)
        for name, values in times.items():
            print(f"{name}: median {statistics.median(values):.0f} us per schema check (10 blocks of 200)")
        print(f"ratio: {statistics.median(times[ref]) / statistics.median(times['this checkout']):.2f}")
    finally:
        server.remove()


if __name__ == "__main__":
    main(*sys.argv[1:2])
