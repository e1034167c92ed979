#!/usr/bin/env python3
"""What the new index's sweep does with an old host's writes after a takeover (scratchfs.engine.takeover).

    python bench/takeover_adopt.py [--writes 200] [--without]

Starts a private PostgreSQL server and moto's S3 API server as bench/owner_check_ab.py does (an emulator on
loopback: request costs are not a real object store's). Schema A spills ``--writes`` 64 KiB entries and writes as
many scratchpad keys; ``fsck --rebuild-index`` into schema B takes the prefix over; A, its last ownership check
still fresh (the window, ``OWNER_CHECK_SECONDS``, stretched here so that every write lands in it), spills and
writes as many again, overwriting its keys. Then B's sweep (``orphan_grace=0``): how many of A's acknowledged writes
B reads back with A's bytes, its time, and the objects left; then the time of the next sweep (no orphan: nothing
is looked up; on a store never taken over, a sweep that finds orphans looks for previous owners once a minute).
``--without``: no adoption, as before (A's writes removed as orphans).
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import benchlib  # noqa: E402
from benchlib import KIB  # noqa: E402

from scratchfs import NotFound, ScratchStore  # noqa: E402
from scratchfs.api.rebuild import open_for_rebuild, rebuild_index  # noqa: E402
from scratchfs.engine import s3_blobs  # noqa: E402
from tests.services import PostgresServer, pg_bin, postgres_url  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--writes", type=int, default=200)
    parser.add_argument("--without", action="store_true", help="no adoption (as before: the writes swept away)")
    args = parser.parse_args(argv)
    if args.without:
        from scratchfs.engine import fleet_sweeper

        fleet_sweeper.adopt_named = lambda *args: []
    logging.getLogger("scratchfs").setLevel(logging.ERROR)
    s3_blobs.OWNER_CHECK_SECONDS = 3600.0  # (every write of A within the window)
    server = PostgresServer(pg_bin())
    server.start()
    s3, bucket = benchlib.s3_emulator()
    blobs, data = f"s3://{bucket}/bench", benchlib.repeated(benchlib.corpus(), 64 * KIB)
    try:
        with tempfile.TemporaryDirectory() as work:
            work_dir = Path(work)
            with ScratchStore(work_dir / "a", index=postgres_url(server.dsn, "bench_a"), blobs=blobs) as a:
                scope = a.scope("run", "agent")
                for i in range(args.writes):
                    scope.spill(data)
                    scope.scratch_write(f"key-{i}", f"before {i}\n".encode())
                with open_for_rebuild(work_dir / "rebuild", index=postgres_url(server.dsn, "bench_b"),
                                      blobs=blobs) as rebuilt:
                    restored = rebuild_index(rebuilt).restored
                late = [scope.spill(data + str(i).encode()).handle for i in range(args.writes)]
                for i in range(args.writes):
                    scope.scratch_write(f"key-{i}", f"after {i}\n".encode())
            with ScratchStore(work_dir / "b", index=postgres_url(server.dsn, "bench_b"), blobs=blobs,
                              orphan_grace=0) as b:
                time.sleep(1.1)
                started = time.perf_counter()
                swept = b.sweep(full=True)
                adopting = time.perf_counter() - started
                scope = b.scope("run", "agent")
                spills = sum(_read(scope, h) == data + str(i).encode() for i, h in enumerate(late))
                keys = sum(_read(scope, f"key-{i}", "scratch") == f"after {i}\n".encode() for i in range(args.writes))
                started = time.perf_counter()
                b.sweep(full=True)
                again = time.perf_counter() - started
                objects = len(b.blobs.list_objects())
    finally:
        s3.stop()
        server.remove()
    print(f"rebuild restored {restored}; A then wrote {args.writes} spills and overwrote {args.writes} keys")
    mode = " (--without)" if args.without else ""
    print(f"B's sweep{mode}: {spills}/{args.writes} spills and {keys}/{args.writes} keys read back with A's bytes; "
          f"{swept.orphans_removed} orphans removed; {adopting * 1000:.0f} ms; {objects} objects left")
    print(f"B's next sweep (no orphan: nothing looked up): {again * 1000:.0f} ms")
    return 0


def _read(scope, key: str, kind: str = "handle") -> bytes | None:
    try:
        return b"".join(scope.iter_content(kind, key))
    except NotFound:
        return None


if __name__ == "__main__":
    sys.exit(main())
