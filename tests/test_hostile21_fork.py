"""A ``fork()`` while another thread of the parent is inside a use of the store's SQLite index (hostile21).

SQLite's per-file lock records live in the process's memory: a child forked while a parent thread held a write
transaction inherited records saying one of its own connections held the write lock, forever. Each write of the
child waited its busy timeout and failed; a spill's stub named a row never committed (its reads raised
StorageError). Now a fork waits for the uses in flight (:mod:`scratchfs.engine.fork_gate`).

Each scenario runs in a fresh interpreter (:func:`_isolated`): a pytest-xdist worker holds threads of its own (its
channel's, a moto server's) whose locks a fork copies held, which is no part of what these tests ask (one such fork
hung a clean-clone CI run); a child that hangs anyway is ended by an alarm, and the scenario by a timeout."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from scratchfs import ScratchStore
from scratchfs.adapter import Offloader
from scratchfs.engine import fork_gate
from tests.forking import in_child

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="fork() is POSIX")


def _in_child(work) -> dict:
    """Fork; run ``work()`` in the child and return what it reports (a dict, as JSON through a pipe; a child that
    hangs ends at its 30 s alarm, its empty report failing to parse)."""
    return in_child(work, 30)


def _scenario_commit(tmp_path: Path) -> None:
    store = ScratchStore(tmp_path / "s", busy_timeout=1.0)
    offloader = Offloader(store.scope("run", "parent"), default_class="query")
    assert offloader.offload("t", "p" * 9000).stub is not None  # the store opened, its connections made
    inside, go_on = threading.Event(), threading.Event()

    def hold_a_write() -> None:  # a spill's commit, held open: the write lock of the index taken
        with store.index.write("writing an entry"):
            inside.set()
            go_on.wait(10)

    holder = threading.Thread(target=hold_a_write)
    holder.start()
    assert inside.wait(10)
    threading.Timer(0.3, go_on.set).start()  # the commit ends 0.3 s after the fork asked

    def child() -> dict:
        scope = store.scope("run", "child")
        started = time.monotonic()
        obs = Offloader(scope, default_class="query").offload("t", "c" * 9000)
        data = scope.read_range(obs.stub.handle, 0, 10).data if obs.stub else None
        return {"stub": obs.stub is not None, "data": data and data.decode(), "seconds": time.monotonic() - started}

    started = time.monotonic()
    report = _in_child(child)
    holder.join(10)
    assert report.get("data") == "c" * 10, report  # it raised StorageError ("... could not be written ... yet")
    assert report["seconds"] < 0.9, report  # no busy wait in the child: under its 1 s busy timeout
    assert time.monotonic() - started < fork_gate.FORK_WAIT + 5
    assert offloader.offload("t", "q" * 9000).stub is not None  # the parent goes on
    store.close()


def _scenario_own_use(tmp_path: Path) -> None:
    store = ScratchStore(tmp_path / "s")
    with store.index.connections.use():
        started = time.monotonic()
        report = _in_child(lambda: {"ok": True})
        assert time.monotonic() - started < fork_gate.FORK_WAIT / 2
    assert report == {"ok": True}
    store.close()


def _scenario_bound(tmp_path: Path) -> None:
    fork_gate.FORK_WAIT = 0.3  # (a fresh interpreter of its own: nothing else reads it)
    store = ScratchStore(tmp_path / "s")
    inside, go_on = threading.Event(), threading.Event()

    def hold() -> None:
        with store.index.connections.use():
            inside.set()
            go_on.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    assert inside.wait(10)
    started = time.monotonic()
    report = _in_child(lambda: {"ok": True})
    waited = time.monotonic() - started
    go_on.set()
    holder.join(10)
    assert report == {"ok": True} and 0.25 <= waited < 3, waited
    assert Offloader(store.scope("r", "a"), default_class="query").offload("t", "z" * 9000).stub is not None
    store.close()


_ROOT = Path(__file__).resolve().parent.parent


_SILENT_CHILD = "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)"
"""What a scenario's parent says when its forked child wrote no report: the child hung until its 30 s alarm."""


def _isolated(scenario: str, tmp_path: Path) -> None:
    """Run ``scenario`` (a function of this module taking a directory) in a fresh interpreter, failing with its
    output when it fails or runs past 120 s (a child that hung ends at its alarm: :data:`_SILENT_CHILD`)."""
    code = f"import sys, pathlib; import tests.test_hostile21_fork as t; t.{scenario}(pathlib.Path(sys.argv[1]))"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(_ROOT), os.environ.get("PYTHONPATH")]))}
    try:
        done = subprocess.run([sys.executable, "-c", code, str(tmp_path)], cwd=_ROOT, env=env,
                              capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"{scenario} ran past 120 s: {exc.stdout!r} {exc.stderr!r}")
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_child_forked_while_a_parent_thread_commits_spills_and_reads(tmp_path):
    _isolated("_scenario_commit", tmp_path)


def test_a_fork_from_inside_a_use_of_the_index_does_not_wait_for_itself(tmp_path):
    _isolated("_scenario_own_use", tmp_path)


def test_a_fork_waits_no_longer_than_its_bound_for_a_use_that_does_not_end(tmp_path):
    _isolated("_scenario_bound", tmp_path)


def _scenario_use_during_wait(tmp_path: Path) -> None:
    store = ScratchStore(tmp_path / "s")
    inside, go_on, entered = threading.Event(), threading.Event(), []

    def hold() -> None:
        with store.index.connections.use():
            inside.set()
            go_on.wait(10)

    def late_use() -> None:  # starts while the fork waits for ``hold``'s use: it must wait for the fork
        with store.index.connections.use():
            entered.append(time.monotonic())

    holder = threading.Thread(target=hold)
    holder.start()
    assert inside.wait(10)
    started = time.monotonic()
    threading.Timer(0.2, threading.Thread(target=late_use).start).start()
    threading.Timer(0.5, go_on.set).start()  # the fork waits until then
    report = _in_child(lambda: {"ok": True})
    holder.join(10)
    deadline = time.monotonic() + 10
    while not entered and time.monotonic() < deadline:
        time.sleep(0.01)
    assert report == {"ok": True} and entered, entered
    assert entered[0] - started >= 0.45, entered[0] - started  # not in its use while the fork waited (0.2-0.5 s)
    store.close()


def test_a_use_that_starts_while_a_fork_waits_waits_for_the_fork(tmp_path):
    _isolated("_scenario_use_during_wait", tmp_path)


def _scenario_close(tmp_path: Path) -> None:
    """A thread ends as the fork starts: its connection's close (its Hold's finaliser, in no use of the index) runs
    in SQLite, here held there with the log's write lock taken, as a close's checkpoint takes it for a moment."""
    from scratchfs.engine import sqlite_connections

    store = ScratchStore(tmp_path / "s", busy_timeout=1.0)
    assert Offloader(store.scope("run", "parent"), default_class="query").offload("t", "p" * 9000).stub is not None
    closing, go_on, closed = threading.Event(), threading.Event(), []
    real_close = sqlite_connections.Connection.close

    def held_close(conn) -> None:
        if getattr(conn, "held_at_close", False):
            conn.held_at_close = False
            conn.execute("BEGIN IMMEDIATE")  # (the log's write lock: what SQLite's lock records then hold)
            closing.set()
            go_on.wait(10)
            closed.append(True)
        real_close(conn)

    sqlite_connections.Connection.close = held_close

    def ending_thread() -> None:
        with store.index.connections.use() as conn:
            conn.held_at_close = True

    threading.Thread(target=ending_thread).start()
    assert closing.wait(10)
    threading.Timer(0.3, go_on.set).start()  # the close ends 0.3 s after the fork asked

    def child() -> dict:
        scope = store.scope("run", "child")
        obs = Offloader(scope, default_class="query").offload("t", "c" * 9000)
        return {"closed_first": bool(closed), "data": scope.read_range(obs.stub.handle, 0, 10).data.decode()}

    report = _in_child(child)
    assert report == {"closed_first": True, "data": "c" * 10}, report  # its row "could not be written to the index yet"
    store.close()


def test_a_fork_waits_for_a_connection_closing_as_its_thread_ends(tmp_path):
    _isolated("_scenario_close", tmp_path)
