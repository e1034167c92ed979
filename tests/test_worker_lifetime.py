"""Worker processes do not outlive their parent, even in the middle of a call that runs away: a worker caps its own
CPU time at each request's time limit plus a slack (``RLIMIT_CPU``), and every worker, busy or idle, is killed at
the parent's exit."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from scratchfs.engine.worker_pipe import CPU_SLACK_SECONDS

_CHILD = """
import os, sys, threading, time
from scratchfs.engine.structure.jq_worker import run_jq
limit = float(sys.argv[1])
threading.Thread(target=lambda: run_jq("last(range(1e10))", "records", (["1"], False), time.monotonic() + limit),
                 daemon=True).start()
time.sleep(1.5)
print(os.getpid(), flush=True)
sys.stdin.readline()  # the test has seen the worker
if sys.argv[2] == "exit":
    sys.exit(0)
time.sleep(600)
"""


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def _start(limit: float, how: str) -> tuple[subprocess.Popen, list[int]]:
    child = subprocess.Popen([sys.executable, "-c", _CHILD, str(limit), how], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    with child.stdout:
        assert int(child.stdout.readline()) == child.pid
    workers = _children(child.pid)
    assert workers and all(_running(pid) for pid in workers)
    with child.stdin:
        child.stdin.write("go\n")
    return child, workers


def _gone_within(workers: list[int], seconds: float) -> float:
    began = time.monotonic()
    while any(_running(pid) for pid in workers):
        if time.monotonic() - began > seconds:
            for pid in workers:  # ours: do not leave a runaway behind a failing test
                if _running(pid):
                    os.kill(pid, signal.SIGKILL)
            raise AssertionError(f"a worker still runs {seconds} s after its parent died")
        time.sleep(0.1)
    return time.monotonic() - began


def test_a_busy_worker_whose_parent_is_killed_ends_within_its_limit_and_the_slack():
    limit = 3.0
    child, workers = _start(limit, "sleep")
    os.kill(child.pid, signal.SIGKILL)
    child.wait(5)
    # CPU time is at most the wall time since the request; the parent was killed 1.5 s into the call
    _gone_within(workers, limit + CPU_SLACK_SECONDS + 3)


def test_a_busy_worker_is_killed_when_its_parent_exits():
    child, workers = _start(60.0, "exit")
    assert child.wait(10) == 0
    assert _gone_within(workers, 5) < 5
