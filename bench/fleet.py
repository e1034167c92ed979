#!/usr/bin/env python3
"""Fleet figures: the local store and PostgreSQL + S3 side by side, in one run, on the same data (issue 14).

    pip install -e '.[test,bench]'       # psycopg, boto3, moto
    python bench/fleet.py [--reps 200] [--results-dir bench/results]

Starts what it needs as the tests do (``tests/services.py``): a private PostgreSQL server from the Debian binaries
(or ``$SCRATCHFS_TEST_POSTGRES_DSN``) and moto's S3 API server on loopback (an emulator, in this process: its
request costs are not a real object store's, only the request counts carry over). For each store: the p50 of a
spill of 64 KiB and of 1 MiB (real outputs from ``fixtures/``, repeated), of a 4 KiB read at a random offset of a
2 MiB blob, and of a substring search (20 windows) in it; for PostgreSQL + S3 also the number of HTTP requests per
4 KiB read, cold (first open) and warm (tail cached). Prints one table and writes ``fleet-latest.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import benchlib  # noqa: E402
from benchlib import KIB, MIB, percentile  # noqa: E402

from scratchfs import ScratchStore  # noqa: E402
from tests.services import PostgresServer, pg_bin, postgres_url  # noqa: E402


def timed(fn, reps: int) -> float:
    samples = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return percentile(samples, 0.5, 1000)


def measure(store: ScratchStore, reps: int, rng: random.Random) -> dict:
    corpus = benchlib.corpus()
    scope = store.scope("bench", "agent")
    small, large = benchlib.repeated(corpus, 64 * KIB), benchlib.repeated(corpus, MIB)
    blob = benchlib.repeated(corpus, 2 * MIB)
    handle = scope.spill(blob).handle
    offsets = [rng.randrange(0, len(blob) - 4096) for _ in range(reps)]
    reads = iter(offsets)
    needle = benchlib.pick_needle(corpus, 4)
    return {
        "spill 64 KiB": timed(lambda: scope.spill(small), max(5, reps // 4)),
        "spill 1 MiB": timed(lambda: scope.spill(large), max(5, reps // 10)),
        "read 4 KiB": timed(lambda: scope.read_handle(handle, offset=next(reads), length=4096), reps),
        "search 20 windows": timed(lambda: scope.read_handle(handle, match=needle, max_matches=20),
                                   max(5, reps // 10)),
    }


def requests_per_read(store: ScratchStore, rng: random.Random) -> dict:
    scope = store.scope("bench", "requests")
    data = benchlib.repeated(benchlib.corpus(), 2 * MIB)
    handle = scope.spill(data).handle
    sent: list[str] = []
    store.blobs.client().meta.events.register("before-send.s3", lambda request, **kw: sent.append(request.method))
    counts = []
    for _ in range(20):
        sent.clear()
        offset = rng.randrange(0, len(data) - 4096)
        offset -= offset % (128 * KIB) - 16  # within one frame
        scope.read_handle(handle, offset=offset, length=4096)
        counts.append(len(sent))
    return {"cold": counts[0], "warm (max)": max(counts[1:]), "all": counts}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--results-dir", type=Path, default=ROOT / "bench" / "results")
    args = parser.parse_args(argv)
    server = None
    dsn = os.environ.get("SCRATCHFS_TEST_POSTGRES_DSN")
    if not dsn:
        bindir = pg_bin()
        if bindir is None:
            print("no PostgreSQL binaries (apt-get install postgresql) and no $SCRATCHFS_TEST_POSTGRES_DSN",
                  file=sys.stderr)
            return 2
        server = PostgresServer(bindir)
        server.start()
        dsn = server.dsn
    s3, bucket = benchlib.s3_emulator()
    results: dict = {}
    try:
        with tempfile.TemporaryDirectory() as work:
            stores = {
                "local (SQLite + files)": ScratchStore(Path(work) / "local"),
                "PostgreSQL + S3": ScratchStore(Path(work) / "fleet", index=postgres_url(dsn, "bench_fleet"),
                                                blobs=f"s3://{bucket}/bench"),
            }
            for name, store in stores.items():
                results[name] = measure(store, args.reps, random.Random(14))
            requests = requests_per_read(stores["PostgreSQL + S3"], random.Random(15))
            for store in stores.values():
                store.close()
    finally:
        s3.stop()
        if server is not None:
            server.remove()
    names = list(results)
    print(f"{'figure (p50, ms)':<22}" + "".join(f"{n:>26}" for n in names) + f"{'ratio':>10}")
    for figure in results[names[0]]:
        local, fleet = results[names[0]][figure], results[names[1]][figure]
        print(f"{figure:<22}{local:>26.3f}{fleet:>26.3f}{fleet / local:>9.1f}x")
    print(f"HTTP requests per 4 KiB read within one frame: first {requests['cold']}, then at most "
          f"{requests['warm (max)']} (target: <= 2 once the seek table is cached); all: {requests['all']}")
    report = {"when": datetime.now(timezone.utc).isoformat(timespec="seconds"), "reps": args.reps,
              "machine": benchlib.machine(), "p50_ms": results, "requests_per_read": requests,
              "note": "S3 is moto's emulator in this process and PostgreSQL a local server: latencies are loopback"}
    args.results_dir.mkdir(parents=True, exist_ok=True)
    (args.results_dir / "fleet-latest.json").write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
