"""The long reliability run: hundreds of SIGKILLs across concurrent worker processes, every deterministic crash
point, and every hostile input, summed up in one table.

    python reliability/run.py [--kills 500] [--workers 8] [--seed 1] [--root DIR]

Each round starts ``--workers`` processes on one shared root, kills each at a random moment with SIGKILL (a tenth
of them during start-up), then a new process reopens the store and checks every entry against what the workers
acknowledged through their pipes, runs ``PRAGMA integrity_check``, sweeps, and counts what is left
(``reliability/harness.py``). Rounds go on until ``--kills`` workers have been killed. Then each crash point of
``harness.KILL_POINTS`` is hit three times, and the hostile-input catalogs (``reliability/hostile.py``) are tried.
Exit status 0 only if every violation count is zero.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from reliability import harness, hostile

VIOLATIONS = ("integrity failures", "missing blobs", "corrupt blobs", "wrong bytes", "entries lost",
              "unexplained entries", "expired entries visible", "half-done deletes", "orphans left", "trash left")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=500, help="random SIGKILLs to deliver (default 500)")
    parser.add_argument("--workers", type=int, default=8, help="worker processes per round (default 8)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--root", help="directory for the stores (default: a new temporary directory)")
    args = parser.parse_args()
    base = Path(args.root or tempfile.mkdtemp(prefix="scratchfs-reliability-"))
    rng = random.Random(args.seed)
    started = time.monotonic()

    models = {wid: harness.WorkerModel() for wid in range(args.workers)}
    kills = rounds = processes = 0
    counts, interrupted, report = Counter(), Counter(), Counter()
    problems: list[str] = []
    root = str(base / "random")
    while kills < args.kills:
        result = harness.crash_round(root, models, rng)
        rounds += 1
        kills += result.kills
        processes += result.processes
        counts += result.counts
        interrupted += result.interrupted
        report.update(result.report)
        problems += result.problems
        print(f"\rround {rounds}: {kills} kills, {counts['acks']} operations acknowledged", end="", file=sys.stderr)
    print(file=sys.stderr)

    point_kills, point_report, point_counts = 0, Counter(), Counter()
    for n, point in enumerate(harness.KILL_POINTS):
        for i in range(3):
            result = harness.kill_point_round(str(base / f"point-{n}-{i}"), point, seed=i)
            point_kills += result.kills
            processes += result.processes
            point_counts += result.counts
            point_report.update(result.report)
            problems += [f"{point}: {p}" for p in result.problems]

    hostile_rows = hostile.tally(str(base / "hostile"))
    elapsed = time.monotonic() - started

    errors = counts["errors"] + counts["bad"] + point_counts["errors"] + point_counts["bad"]
    rows = [
        ("random SIGKILLs survived", f"{kills} in {rounds} rounds of {args.workers} concurrent processes"),
        ("kills that hit an operation in flight",
         ", ".join(f"{op} {n}" for op, n in interrupted.most_common()
                   if op not in ("start-up", "between operations"))),
        ("kills during start-up / between operations",
         f"{interrupted['start-up']} / {interrupted['between operations']}"),
        ("operations acknowledged", f"{counts['acks']} (+ {counts['reads']} verified reads)"),
        ("deterministic crash points", f"{len(harness.KILL_POINTS)} points x 3 = {point_kills} kills"),
        ("processes started", str(processes)),
        ("entries checked byte for byte after kills",
         str(report["entries checked"] + point_report["entries checked"])),
        ("errors reaching callers", str(errors)),
    ]
    for name in VIOLATIONS:
        rows.append((name, str(report[name] + point_report[name])))
    rows.append(("orphans reclaimed by the checker's sweeps",
                 str(report["orphans reclaimed by the sweep"] + point_report["orphans reclaimed by the sweep"])))
    hostile_wrong = 0
    for what, tried, answers, wrong in hostile_rows:
        hostile_wrong += wrong
        rows.append((f"hostile {what}",
                     f"{tried} tried: " + ", ".join(f"{a} {n}" for a, n in answers.most_common())
                     + f"; wrong answers {wrong}"))
    rows.append(("wall time", f"{elapsed:.0f} s on {os.cpu_count()} cores, Python {platform.python_version()}"))

    width = max(len(r[0]) for r in rows)
    vwidth = max(len(r[1]) for r in rows)
    print(f"| {'figure'.ljust(width)} | {'value'.ljust(vwidth)} |")
    print(f"|{'-' * (width + 2)}|{'-' * (vwidth + 2)}|")
    for name, value in rows:
        print(f"| {name.ljust(width)} | {value.ljust(vwidth)} |")
    failed = errors + sum(report[n] + point_report[n] for n in VIOLATIONS) + hostile_wrong
    for p in problems[:20]:
        print("problem:", p)
    for k in sorted(k for k in counts + point_counts if k.startswith(("error:", "bad:"))):
        print("caller saw:", k)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
