"""Compare the spilling thread's CPU of two copies of scratchfs, interleaved: one process per copy, rounds of spills
alternating between them, so that both see the same load (issue 16; two copies of the same code differ by ~0.3%).

    python bench/spill_ab.py SIZE_BYTES ROUNDS PER_ROUND BASE_ROOT [OTHER_ROOT] [--no-shape]

``BASE_ROOT`` and ``OTHER_ROOT`` (default: this checkout) are checkouts (``git worktree`` or ``git archive`` of a
commit); each process imports scratchfs and ``bench/benchlib.py`` from its own. The store is made in ``/dev/shm``
(else the temp directory) with the environment as it is (set ``SCRATCHFS_SEGMENT_ENTRY_BYTES`` for segments). Prints
the median thread CPU and wall time per spill of each, and in how many rounds the other copy was lower.
``--no-shape``: both stores with ``detect_shape=False`` (what the rest of a small spill costs, issue 16's S2).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

_WORKER = r"""
import shutil, sys, tempfile, time
root, size, per, detect = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
sys.path[:0] = [root + "/bench", root]
import benchlib
from scratchfs import ScratchStore
corpus = benchlib.corpus()
where = "/dev/shm" if __import__("os").path.isdir("/dev/shm") else None
directory = tempfile.mkdtemp(prefix="spill-ab-", dir=where)
count = 0
def payload():
    global count
    count += 1
    return benchlib.repeated(corpus, size, start=count * size + count * 7)
try:
    with ScratchStore(directory, detect_shape=detect) as store:
        scope = store.scope("bench", "ab")
        scope.spill(payload(), source_tool="bench.ab")
        print("ready", flush=True)
        for line in sys.stdin:
            payloads = [payload() for _ in range(per)]
            cpu, wall = time.thread_time(), time.perf_counter()
            for p in payloads:
                scope.spill(p, source_tool="bench.ab")
            print((time.thread_time() - cpu) / per * 1e6, (time.perf_counter() - wall) / per * 1e6, flush=True)
finally:
    shutil.rmtree(directory, ignore_errors=True)
"""


def main(argv: list[str]) -> int:
    detect = "0" if "--no-shape" in argv else "1"
    argv = [a for a in argv if a != "--no-shape"]
    if len(argv) not in (4, 5):
        print(__doc__.strip().splitlines()[3].strip(), file=sys.stderr)
        return 2
    size, rounds, per = int(argv[0]), int(argv[1]), int(argv[2])
    roots = {"base": argv[3], "other": argv[4] if len(argv) == 5 else str(HERE)}
    procs = {name: subprocess.Popen([sys.executable, "-c", _WORKER, root, str(size), str(per), detect],
                                    stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, text=True) for name, root in roots.items()}
    try:
        for proc in procs.values():
            if proc.stdout.readline().strip() != "ready":
                raise SystemExit("a worker failed to start")
        results: dict[str, list[tuple[float, float]]] = {name: [] for name in procs}
        for r in range(rounds):
            for name in (("base", "other") if r % 2 == 0 else ("other", "base")):
                procs[name].stdin.write("go\n")
                procs[name].stdin.flush()
                cpu, wall = map(float, procs[name].stdout.readline().split())
                results[name].append((cpu, wall))
    finally:
        for proc in procs.values():
            proc.stdin.close()
            proc.wait()
    cpu = {name: statistics.median(c for c, _ in rows) for name, rows in results.items()}
    wall = {name: statistics.median(w for _, w in rows) for name, rows in results.items()}
    lower = sum(o < b for (b, _), (o, _) in zip(results["base"], results["other"], strict=True))
    print(f"{size:,} B, {rounds} rounds x {per}: thread CPU per spill base {cpu['base']:.1f} µs, other "
          f"{cpu['other']:.1f} µs ({(cpu['other'] - cpu['base']) / cpu['base'] * 100:+.1f}%), other lower in "
          f"{lower}/{rounds} rounds; wall {wall['base']:.0f} / {wall['other']:.0f} µs; load {os.getloadavg()[0]:.2f}"
          f"{'' if detect == '1' else ' [no shape]'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
