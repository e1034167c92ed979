"""A cancelled read is given up at once, and a server whose input ends with only cancelled requests left exits at
once: a real ``scratchfs mcp`` (and ``scratchfs mcp-proxy``, whose own ``read_handle`` runs the same way) driven line
by line through pipes (:class:`tests.test_mcp_wire.Wire`).

Before, a cancelled request got no reply (as MCP says) but its pattern search or jq read ran on in its thread, its
worker process busy, until its time limit; a client that cancelled a runaway search and closed stdin kept the server
alive until then (3.9 s for one search at ``--pattern-timeout 5``, 5 s for three at a load of 10): here, with a limit
of :data:`LIMIT` seconds, the worker lived on and the server took about that long to exit.
"""

from __future__ import annotations

import json
import sys
import time

import psutil
import pytest

from scratchfs import ScratchStore

from .test_mcp_wire import PLAIN_UPSTREAM, REPLY_SECONDS, Wire, call, req

LIMIT = 60
"""The servers' ``--pattern-timeout``: how long a runaway read runs when nothing stops it."""
SLACK_SECONDS = 1.0
"""How much longer than a server with nothing running a server may take to exit once only cancelled reads are left."""
WORKER_FILES = {"pattern": "pattern_worker.py", "jq": "jq_worker.py"}


def command(face: str, root, limit: float = LIMIT) -> list[str]:
    tail = ["--", *PLAIN_UPSTREAM] if face == "proxy" else []  # (its own read_handle runs the reads)
    return [sys.executable, "-m", "scratchfs", "--root", str(root), f"mcp{'-proxy' if face == 'proxy' else ''}",
            "--run", "r", "--agent", "a", "--sweep-interval", "0", "--pattern-timeout", str(limit), *tail]


def runaway(kind: str, rid, root) -> bytes:
    """A read_handle call that runs until its time limit: a backtracking pattern search, or a jq filter that never
    ends; both move to a worker process (the search after its first slice in the thread)."""
    with ScratchStore(root) as store:
        scope = store.scope("r", "a")
        if kind == "pattern":
            handle = scope.spill(("a" * 3000 + "\n") * 20, source_tool="t").handle
            return call(rid, "read_handle", {"handle": handle, "pattern": "(a|aa)+b"})
        handle = scope.spill(json.dumps({"items": list(range(3000))}), source_tool="t").handle
        return call(rid, "read_handle", {"handle": handle, "jq": "last(range(1e15))"})


def workers(proc, kind: str) -> list:
    """The server's worker processes of ``kind`` (alive, not zombies)."""
    found = []
    for child in psutil.Process(proc.pid).children(recursive=True):
        try:
            if child.status() != psutil.STATUS_ZOMBIE and any(WORKER_FILES[kind] in part
                                                              for part in child.cmdline()):
                found.append(child)
        except psutil.NoSuchProcess:
            pass
    return found


def wait_for(condition, seconds: float) -> float:
    """Poll ``condition`` until it holds (then the seconds it took) or ``seconds`` passed (``inf``)."""
    began = time.monotonic()
    while time.monotonic() - began < seconds:
        if condition():
            return time.monotonic() - began
        time.sleep(0.02)
    return float("inf")


def exit_seconds(wire: Wire) -> float:
    """Close the server's input; the seconds until it exited (cleanly)."""
    wire.proc.stdin.close()
    began = time.monotonic()
    assert wire.proc.wait(REPLY_SECONDS) == 0
    return time.monotonic() - began


@pytest.mark.alone  # (a bound of wall-clock time)
@pytest.mark.parametrize("face", ["mcp", "proxy"])
def test_a_cancelled_read_stops_at_once_and_the_server_exits_at_once_when_stdin_ends(face, tmp_path):
    """The runaway read's worker is killed as soon as the cancel arrives (before: it ran on for the whole time
    limit), the server answers on meanwhile, and once stdin closes it exits within :data:`SLACK_SECONDS` of the
    exit of the same server with nothing running (measured here first, for the machine's load), never answering
    the cancelled request. Each kind of read (a pattern search, a jq filter) in turn on one server (a server each
    cost two start-ups more): a worker of either left running fails its own wait, and a cancelled read of either
    still awaited at the end fails the exit's."""
    idle = Wire(command(face, tmp_path))
    try:
        idle.initialize()
        baseline = exit_seconds(idle)
    finally:
        idle.kill()
    lines = {kind: runaway(kind, f"runaway-{kind}", tmp_path) for kind in WORKER_FILES}
    wire = Wire(command(face, tmp_path))
    try:
        wire.initialize()
        for kind, line in lines.items():
            wire.send(line)
            assert wait_for(lambda kind=kind: workers(wire.proc, kind), 30) < 30, f"the {kind} read had no worker"
            wire.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled",
                                  "params": {"requestId": f"runaway-{kind}"}}).encode())
            gone = wait_for(lambda kind=kind: not workers(wire.proc, kind), LIMIT / 2)
            assert gone < SLACK_SECONDS + baseline, f"the cancelled {kind} read's worker lived on {gone:.1f} s"
            wire.send(req(f"after-{kind}", "ping"))
            assert wire.replies(f"after-{kind}", 0) == []
        took = exit_seconds(wire)
        assert took < baseline + SLACK_SECONDS, (took, baseline)
        wire.read_to_end()
        assert wire.lines.empty() and wire.garbage == []  # no reply to a cancelled request
    finally:
        wire.kill()


@pytest.mark.parametrize("face", ["mcp", "proxy"])
def test_a_runaway_read_not_cancelled_is_still_answered_when_stdin_ends(face, tmp_path):
    """Giving up is for cancelled reads alone: a search still running, not cancelled, when the input ends is
    answered before the server exits (its time limit's error), as the drain of scratchfs.mcp.stdio says."""
    line = runaway("pattern", 9, tmp_path)
    wire = Wire(command(face, tmp_path, limit=2))
    try:
        wire.initialize()
        wire.send(line)
        wire.send(req("running", "ping"))
        assert wire.replies("running", 0) == []
        assert exit_seconds(wire) > 0
        wire.read_to_end()
        (reply,) = list(wire.lines.queue)
        assert reply["id"] == 9 and "result" in reply, reply
        text = reply["result"]["content"][0]["text"]  # (the tool error of a search stopped at its time limit)
        assert reply["result"]["isError"] and "ran past its time limit of 2 s" in text, reply
    finally:
        wire.kill()
