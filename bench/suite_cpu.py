"""Where the test suite's CPU and waits go: a pytest plugin that records each test's CPU and wall seconds, and the
summary of a run of it (what the evening session of 2026-12-07 quotes for the suite's ~10 minute aim):

    SCRATCHFS_SUITE_CPU=/tmp/suite-cpu PYTHONPATH=bench .venv/bin/python -m pytest -p suite_cpu -q
    .venv/bin/python bench/suite_cpu.py /tmp/suite-cpu

The plugin (loaded by every pytest-xdist worker, as ``-p`` options are) appends one line a test to
``$SCRATCHFS_SUITE_CPU/<pid>.tsv``: its node id, the seconds of CPU its protocol (set-up, call, teardown) took --
the worker's own (``RUSAGE_SELF``: every thread) plus the children it waited for (``RUSAGE_CHILDREN``: the CLI runs,
jq and CSS workers, servers stopped within the test), not the PostgreSQL and S3 servers a worker starts once --, its
wall seconds, and whether it is marked ``alone`` (tests/alone.py: its set-up books the wait for the other worker).
The summary prints the totals, the 20 files that take most CPU, the 15 that wait most (wall less CPU: subprocesses,
servers, sleeps, timeouts), and the ``alone`` tests' share.

What it showed for a run at 20:34 UTC on 2026-12-07 (``-n 2``, one helper session running, 10,185 tests recorded):
894 s of CPU and 1,417 s of wall summed over both workers; ``alone`` tests 252 s of wall, 178 s of it waiting;
the most CPU ``test_mcp_proxy.py`` 32 s, the most waiting ``test_structure_reads.py`` 46 s (PostgreSQL and S3
round trips)."""

from __future__ import annotations

import collections
import os
import resource
import sys
import time
from pathlib import Path

import pytest

OUT_ENV = "SCRATCHFS_SUITE_CPU"
"""The variable naming the directory the plugin writes to (it records nothing without it)."""


def _cpu() -> float:
    """Seconds of CPU of this process's threads and of the children it waited for."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    folder = os.environ.get(OUT_ENV)
    cpu, wall = _cpu(), time.monotonic()
    yield
    if folder:
        alone = item.get_closest_marker("alone") is not None
        with open(Path(folder) / f"{os.getpid()}.tsv", "a", encoding="utf-8") as out:
            out.write(f"{item.nodeid}\t{_cpu() - cpu:.4f}\t{time.monotonic() - wall:.4f}\t{int(alone)}\n")


def pytest_configure(config: pytest.Config) -> None:
    folder = os.environ.get(OUT_ENV)
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)


def main(folder: str) -> None:
    cpu: collections.Counter[str] = collections.Counter()
    waits: collections.Counter[str] = collections.Counter()
    tests = alone_cpu = alone_wall = total_wall = 0.0
    for path in Path(folder).glob("*.tsv"):
        for line in path.read_text(encoding="utf-8").splitlines():
            node, used, took, alone = line.rsplit("\t", 3)
            name, used, took = node.split("::", 1)[0], float(used), float(took)
            tests += 1
            total_wall += took
            cpu[name] += used
            waits[name] += max(0.0, took - used)
            if alone == "1":
                alone_cpu, alone_wall = alone_cpu + used, alone_wall + took
    print(f"{tests:,.0f} tests: {sum(cpu.values()):,.0f} s of CPU, {total_wall:,.0f} s of wall summed over the "
          f"workers; alone tests {alone_wall:,.0f} s of wall, {alone_wall - alone_cpu:,.0f} s of it waiting")
    print("\nmost CPU (seconds):")
    for name, used in cpu.most_common(20):
        print(f"  {used:7.1f}  {name}")
    print("\nmost waiting, wall less CPU (seconds):")
    for name, waited in waits.most_common(15):
        print(f"  {waited:7.1f}  {name}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python bench/suite_cpu.py FOLDER  (the $SCRATCHFS_SUITE_CPU of a run with -p suite_cpu)")
    main(sys.argv[1])
