"""Tokens from the pooled random bits (helper hostile24): no two alike across threads and ``fork()`` children -- a
process that forks a thousand times (:data:`FORKS`) while another of its threads keeps taking tokens (the pool popped
and refilled across each fork), each child taking tokens of its own. Run in a small process of its own (only the
token's module imported), so that a fork costs about a millisecond, not a test session's copy."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="fork() only")

STRESS = bool(os.environ.get("SCRATCHFS_STRESS"))
FORKS = 1000 if STRESS else 250
"""Forks of the run: a child that took its parent's pool repeats a token at the first fork; 250 forks, each with a
pool's refill racing it in the other thread, by default (2.6 s of CPU at 1,000), 1,000 with ``SCRATCHFS_STRESS=1``."""

_FORKER = r"""
import os, sys, threading, time
from scratchfs.foundation.checks import new_token

taken, forks, stop = [], [0], threading.Event()

def take():
    while not stop.is_set():
        taken.append(new_token())
        if len(taken) > 64 * forks[0] + 256:  # a pool's worth or more a fork, not millions
            time.sleep(0.0005)

thread = threading.Thread(target=take)
thread.start()
children = []
for _ in range(int(sys.argv[1])):
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.write(writer, "".join(new_token() for _ in range(3)).encode())
        os._exit(0)
    os.close(writer)
    data = b""
    while chunk := os.read(reader, 4096):
        data += chunk
    os.close(reader)
    os.waitpid(pid, 0)
    children.append(data.decode())
    taken.append(new_token())
    forks[0] += 1
stop.set()
thread.join()
print("\n".join(children))
print("-")
print("\n".join(taken))
"""


def test_forks_while_another_thread_takes_tokens_never_repeat_a_token():
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run([sys.executable, "-c", _FORKER, str(FORKS)], cwd=root, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": str(root)}, check=True)
    children, taken = done.stdout.split("\n-\n")
    tokens = [text[i : i + 24] for text in children.split("\n") for i in range(0, len(text), 24)]
    every = tokens + taken.split()
    assert len(tokens) == 3 * FORKS and all(len(token) == 24 for token in every)
    assert len(taken.split()) >= FORKS + 64  # the thread took tokens too, a pool's worth at least
    assert len(set(every)) == len(every), "a token handed out twice"
