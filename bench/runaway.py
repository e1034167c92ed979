"""Runaway patterns beside unrelated calls: how promptly the other calls are answered, and when the searches stop.

    python bench/runaway.py [--limit SECONDS] [--rounds N] [--skip-mcp]

In-process: two threads each search ``(a+)+$`` over a 6,000-byte line of a's ending in ``b`` (exponential
backtracking) in a store with ``pattern_timeout=--limit``, while the main thread calls ``scratch_list`` and a
2-byte range read every 10 ms. Over MCP: the same two searches as concurrent ``read_handle`` calls to
``python -m scratchfs mcp`` (its default 5 s limit), while ``scratch_list`` calls go to the same server every 20 ms.
Prints, per round, the p99 and the worst latency of the unrelated calls, and each search's end (seconds from its
call) against its limit, with the machine's load average. Exit status 0 when every round met p99 < 0.5 s and every
search ended within 1.5x its limit.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scratchfs import PatternTimeout, ScratchStore
from scratchfs.engine.patterns import DEFAULT_TIMEOUT

RUNAWAY = r"(a+)+$"
LINE = b"a" * 6000 + b"b\n"


def p99(latencies: list[float]) -> float:
    ordered = sorted(latencies)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def in_process(limit: float) -> tuple[list[float], list[float]]:
    """Latencies of the unrelated calls, and the two searches' ends (seconds)."""
    with tempfile.TemporaryDirectory() as root, ScratchStore(root, pattern_timeout=limit) as store:
        scope = store.scope("r", "a")
        handle = scope.spill(b"x\n" * 100 + LINE * 3, source_tool="t").handle
        scope.scratch_write("note", "unrelated")
        ends: list[float] = []

        def runaway() -> None:
            began = time.monotonic()
            try:
                scope.read_handle(handle, pattern=RUNAWAY)
            except PatternTimeout:
                pass
            ends.append(time.monotonic() - began)

        threads = [threading.Thread(target=runaway) for _ in range(2)]
        for thread in threads:
            thread.start()
        latencies = []
        while any(thread.is_alive() for thread in threads):
            due = time.monotonic() + 0.01  # a call is due every 10 ms: a stalled thread's wait counts too
            time.sleep(0.01)
            scope.scratch_list()
            scope.read_handle(handle, 0, 2)
            latencies.append(time.monotonic() - due)
        for thread in threads:
            thread.join()
    return latencies, ends


def over_mcp() -> tuple[list[float], list[float]]:
    """The same over ``python -m scratchfs mcp`` (stdio, the official client)."""
    from mcp import ClientSession, StdioServerParameters, stdio_client

    latencies: list[float] = []
    ends: list[float] = []
    with tempfile.TemporaryDirectory() as root:
        with ScratchStore(root) as store:
            scope = store.scope("r", "a")
            handle = scope.spill(LINE * 2, source_tool="t").handle
            scope.scratch_write("note", "unrelated")
        params = StdioServerParameters(command=sys.executable, args=["-m", "scratchfs", "mcp", "--root", root,
                                                                     "--run", "r", "--agent", "a"],
                                       env=dict(os.environ))

        async def body() -> None:
            async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                await session.call_tool("scratch_list", {})

                async def runaway() -> None:
                    began = time.monotonic()
                    await session.call_tool("read_handle", {"handle": handle, "pattern": RUNAWAY})
                    ends.append(time.monotonic() - began)

                async with anyio.create_task_group() as group:
                    group.start_soon(runaway)
                    group.start_soon(runaway)
                    await anyio.sleep(0.2)
                    while len(ends) < 2:
                        began = time.monotonic()
                        await session.call_tool("scratch_list", {})
                        latencies.append(time.monotonic() - began)
                        await anyio.sleep(0.02)

        anyio.run(body)
    return latencies, ends


def report(name: str, limit: float, latencies: list[float], ends: list[float]) -> bool:
    ok = p99(latencies) < 0.5 and max(ends) <= 1.5 * limit
    searches = ", ".join(f"{end:.2f}" for end in sorted(ends))
    print(f"{name:<11} calls {len(latencies):4d}  p99 {p99(latencies) * 1000:7.1f} ms  "
          f"max {max(latencies) * 1000:7.1f} ms  searches ended {searches} s (limit {limit:g} s, "
          f"{max(ends) / limit:.2f}x)  load {os.getloadavg()[0]:.1f}  {'ok' if ok else 'MISSED'}")
    return ok


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=float, default=2.0, help="pattern_timeout in process [2 s]")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--skip-mcp", action="store_true")
    args = parser.parse_args(argv)
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} cores")
    ok = True
    for _ in range(args.rounds):
        ok &= report("in-process", args.limit, *in_process(args.limit))
        if not args.skip_mcp:
            ok &= report("over MCP", DEFAULT_TIMEOUT, *over_mcp())
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
