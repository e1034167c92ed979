"""The fork tests' child runner (tests/test_hostile21_fork.py, tests/test_hostile38_fork_locks.py and, through the
latter, tests/test_forklocks1_fork_locks.py): fork, run a function in the child under an alarm, and bring its report
back as JSON through a pipe; and their runner of a scenario in a fresh interpreter (``isolated``)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

_ROOT = Path(__file__).resolve().parent.parent


def in_child(work: Callable[[], dict], alarm: int, hung: dict | None = None) -> dict:
    """Fork; run ``work()`` in the child and return what it reports (a dict; an exception it raised as
    ``{"raised": "Type: message"}``). A child that hangs ends at its ``alarm`` (seconds) with nothing written: its
    report is then ``hung`` when given, else the empty output fails to parse (``json.JSONDecodeError``)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        signal.alarm(alarm)  # (a child that hangs ends: its pipe closes, and the scenario fails instead of waiting)
        try:
            report = work()
        except BaseException as exc:  # (everything the child meets is the report)
            report = {"raised": f"{type(exc).__name__}: {exc}"}
        os.write(write, json.dumps(report).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        got = pipe.read()
    os.waitpid(pid, 0)
    return hung if not got and hung is not None else json.loads(got)


def isolated(module: str, scenario: str) -> None:
    """Run ``module``'s function ``scenario`` (no arguments) in a fresh Python (a fork's state is the process's: no
    other test's threads or at-fork hooks in it); fail the test with its output when it exits non-zero or runs past
    120 s."""
    code = f"import {module} as t; t.{scenario}()"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(_ROOT), os.environ.get("PYTHONPATH")]))}
    try:
        done = subprocess.run([sys.executable, "-c", code], cwd=_ROOT, env=env, capture_output=True, text=True,
                              timeout=120)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"{scenario} ran past 120 s: {exc.stdout!r} {exc.stderr!r}")
    assert done.returncode == 0, done.stdout + done.stderr


def holding(lock) -> Callable:
    """A ``hold(inside, go_on)`` for the fork tests' ``_held_while`` (tests/test_hostile38_fork_locks.py) that holds
    ``lock`` -- as a thread in the middle of its work does -- from setting ``inside`` until ``go_on`` is set (10 s at
    most)."""
    def hold(inside, go_on):
        with lock:
            inside.set()
            go_on.wait(10)
    return hold
