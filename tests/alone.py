"""The ``alone`` marker under pytest-xdist: the call of a test marked ``alone`` (a bound of wall-clock time, or of
work done in it) runs while no other worker runs a test.

Two lock files in the run's temporary directory (which every worker's own is in): the run lock, held shared by
every test from its set-up to its teardown, and exclusively by an ``alone`` test from the end of its set-up to the
start of its teardown (those run beside other tests: they bound nothing); and a gate taken before the run lock. A
worker waiting at the gate for the run lock holds the gate, so the other worker starts no test meanwhile: it waits
for the test running there alone. (``flock`` grants a shared lock while an exclusive one is waited for: without the
gate the other worker could start test after test meanwhile, as a loop of 50 ms holders did in a standalone trial;
pytest's pause between tests let the waiter in every time it was measured.)

Under pytest-xdist the ``alone`` tests run last (:func:`pytest_collection_modifyitems`): each one waited at its start
for the test running on the other worker, idle meanwhile, and strewn among the others a wait each cost 474 s of
worker time in a run of 219 of them (2,166 s at a load of 7, ``--durations=0``: their set-up, which books the wait),
more than their calls' 350 s. Run last, they mostly wait for each other's calls, which had to run one at a time
anyway.

An ``alone`` test whose call mostly waits (a timeout, a sleep, a stopped server: its processes use a fraction of
one core), marked ``@pytest.mark.alone(waits=True)``, may run beside another such call, never beside any other test:
it takes the run lock exclusively (no other test runs), then a third lock, the waits lock, shared, and lets the
run lock go (all under the gate), holding the waits lock alone until the start of its teardown. A test not marked
``alone`` takes the waits lock exclusively once it holds its run lock, and lets it go at once: it waits there for the
waits calls running (holding the gate: nothing else starts meanwhile); another ``alone`` test takes it exclusively
after its exclusive run lock, and holds it as long. The waits tests run after the other ``alone`` ones, so that both
workers reach them together: one at a time, 29 of them took 78 s of wall time (5.7 s of CPU) of the 154 s the
``alone`` calls took (``-m alone -n 0`` at a load of 3, 2026-12-07).

A bound of CPU time is no reason for the mark: a test on the other worker runs on the other core (2 cores, no SMT)
and leaves this thread's CPU time as it is -- a ratio to plain text's measured in the same test
(tests/test_text_kinds_cost.py ``cpu``), or an absolute bound many times what the work takes (1 s of a describe
that takes milliseconds: tests/test_hostile20_shapes.py); 148 such tests lost the mark, which kept the other worker
idle through their 63 s (``-n 0``, load 11, 2026-12-07). A test with no bound of time at all needs none.
Nor does a wall-clock bound many times what the work takes (5 s on a refusal of milliseconds, 60 s on an exit of a
second), or one of bytes, counts or an error's type: 88 more calls lost the mark, 60 s of the alone phase's wall
(``-m alone -n 0``, load 2-6, 2026-12-08). The mark stays where the property is wall time under contention: a
deadline or a timeout whose bound is near what it allows (tests/test_fleet_outages.py), a race against another
process (a daemon hopping pids), or CPU time seen to grow beside another test (tests/test_mcp_give_up.py)."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

import pytest

_LOCKS = pytest.StashKey[tuple[int, int, int]]()


def _locks(config: pytest.Config) -> tuple[int, int, int] | None:
    """``(gate, run lock, waits lock)``: the descriptors of this run's lock files, opened once per worker; ``None``
    in a run without workers."""
    if not hasattr(config, "workerinput"):
        return None
    if _LOCKS not in config.stash:
        folder = Path(config.option.basetemp).parent
        config.stash[_LOCKS] = tuple(os.open(folder / name, os.O_RDWR | os.O_CREAT, 0o600)
                                     for name in ("alone.gate", "alone.lock", "alone.waits"))
    return config.stash[_LOCKS]


def _take(locks: tuple[int, int, int], mode: int, waits: int | None = None, keep: bool = True) -> None:
    """The run lock in ``mode`` (``fcntl.LOCK_SH`` or ``LOCK_EX``), taken through the gate, then the waits lock in
    mode ``waits`` if one is given, kept if ``keep`` (else let go at once: the waits calls running waited for); a
    waits lock kept shared lets the run lock go."""
    gate, run, waits_lock = locks
    fcntl.flock(gate, fcntl.LOCK_EX)
    try:
        fcntl.flock(run, mode)
        if waits is not None:
            fcntl.flock(waits_lock, waits)
            if not keep:
                fcntl.flock(waits_lock, fcntl.LOCK_UN)
            elif waits == fcntl.LOCK_SH:
                fcntl.flock(run, fcntl.LOCK_UN)
    finally:
        fcntl.flock(gate, fcntl.LOCK_UN)


def _waits(item: pytest.Item) -> bool:
    """Whether ``item`` is marked ``alone(waits=True)``."""
    marker = item.get_closest_marker("alone")
    return marker is not None and bool(marker.kwargs.get("waits"))


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under pytest-xdist, the ``alone`` tests after all the others and the waits ones last, each part in its order
    (every worker collects the same order, as pytest-xdist requires); a run without workers keeps the files'
    order."""
    if hasattr(config, "workerinput"):
        items[:] = sorted(items, key=lambda item: (item.get_closest_marker("alone") is not None, _waits(item)))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    locks = _locks(item.config)
    if locks is None:
        yield
        return
    if item.get_closest_marker("alone") is None:
        _take(locks, fcntl.LOCK_SH, fcntl.LOCK_EX, keep=False)
    else:
        _take(locks, fcntl.LOCK_SH)
    try:
        yield
    finally:
        fcntl.flock(locks[1], fcntl.LOCK_UN)


def _alone(item: pytest.Item) -> tuple[int, int, int] | None:
    """The run's locks if ``item`` is marked ``alone`` and runs under pytest-xdist, else ``None``."""
    return None if item.get_closest_marker("alone") is None else _locks(item.config)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item: pytest.Item):
    """Once an ``alone`` test's set-up is done, the run lock turns exclusive and the waits lock is taken exclusively
    (a waits test's: shared, and the run lock let go; the wait is booked as set-up, so a call's duration stays its
    own)."""
    outcome = yield
    locks = _alone(item)
    if locks is not None and outcome.excinfo is None:
        fcntl.flock(locks[1], fcntl.LOCK_UN)
        _take(locks, fcntl.LOCK_EX, fcntl.LOCK_SH if _waits(item) else fcntl.LOCK_EX)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None):
    locks = _alone(item)
    if locks is not None:
        fcntl.flock(locks[2], fcntl.LOCK_UN)
        fcntl.flock(locks[1], fcntl.LOCK_UN)
        _take(locks, fcntl.LOCK_SH)
    yield
