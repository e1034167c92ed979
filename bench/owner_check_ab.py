#!/usr/bin/env python3
"""The cost of a fleet store's ownership check (scratchfs.engine.pairing.OwnerCheck) per spill, A/B in one process.

    python bench/owner_check_ab.py [--rounds 5] [--spills 40]

Starts a private PostgreSQL server and moto's S3 API server as bench/fleet.py does (an emulator on loopback: its
request costs are not a real object store's; the count of requests carries over). One store over them spills 64 KiB
(real outputs from fixtures/, repeated) ``--spills`` times per round in each of three modes, alternated round by
round: ``none`` (no check, as before), ``cached`` (as shipped: a write checks when the last check is older than
OWNER_CHECK_SECONDS, 5 s: within a round, about none), ``every`` (a HEAD of the marker before every spill -- since
the takeover window was cut to 5 s (RELIABILITY.md, "A fleet host after a takeover"), before its upload and again
before its row: two --; what a delete-run, an overwrite's or a delete's object removal pays once). Prints the
median spill time per mode, the ratios, and the median of one check alone.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import benchlib  # noqa: E402
from benchlib import KIB  # noqa: E402

from scratchfs import ScratchStore  # noqa: E402
from scratchfs.engine.pairing import unchecked  # noqa: E402
from tests.services import PostgresServer, pg_bin, postgres_url  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--spills", type=int, default=40)
    args = parser.parse_args(argv)
    server = PostgresServer(pg_bin())
    server.start()
    s3, bucket = benchlib.s3_emulator()
    try:
        with tempfile.TemporaryDirectory() as work, ScratchStore(
                Path(work) / "fleet", index=postgres_url(server.dsn, "bench_owner"),
                blobs=f"s3://{bucket}/bench") as store:
            data = benchlib.repeated(benchlib.corpus(), 64 * KIB)
            scope = store.scope("bench", "agent")
            check = store.blobs.owned
            modes = {"none": unchecked, "cached": check, "every": lambda max_age=0.0: check(0.0)}
            times: dict[str, list[float]] = {mode: [] for mode in modes}
            scope.spill(data)  # warm up
            for _ in range(args.rounds):
                for mode, owned in modes.items():
                    store.blobs.owned = owned
                    for _ in range(args.spills):
                        started = time.perf_counter()
                        scope.spill(data)
                        times[mode].append(time.perf_counter() - started)
            store.blobs.owned = check
            alone = []
            for _ in range(100):
                started = time.perf_counter()
                check(0.0)
                alone.append(time.perf_counter() - started)
    finally:
        s3.stop()
        server.remove()
    med = {mode: statistics.median(t) * 1000 for mode, t in times.items()}
    for mode, ms in med.items():
        print(f"{mode:>7}: median spill of 64 KiB {ms:.2f} ms  ({ms / med['none']:.3f}x none)")
    print(f"one check (HEAD of the marker): median {statistics.median(alone) * 1000:.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
