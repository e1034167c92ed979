"""Runaway patterns stop near their time limit and never stall the process's other calls (in-process, over MCP)."""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import anyio
import pytest

from scratchfs import PatternTimeout, ScratchStore
from scratchfs.engine.pattern_worker import MAX_WORKERS, workers
from scratchfs.engine.patterns import PatternMatcher

from .mcp_support import connect, error_of, payload, run, scratchfs_params
from .reference import regex_spans
from .test_patterns import FIXTURE_PATTERNS, as_tuples, run_search

RUNAWAY = r"(a+)+$"  # backtracks exponentially on a long line of a's that does not end the way it needs
LINE = b"a" * 6000 + b"b\n"


def p99(latencies: list[float]) -> float:
    ordered = sorted(latencies)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


@contextmanager
def earlier_objects_frozen() -> Iterator[None]:
    """The objects this process holds on entry -- the test runner's and every earlier test's -- kept out of the
    garbage collector's scans until exit (:func:`gc.freeze`). A full collection scans every object the collector
    tracks holding the GIL: every thread stops. Late in a pytest-xdist run a worker holds hundreds of thousands of
    objects or more (250,000 after 326 tests of four files; a full collection of them took 0.6 s at a load of 9),
    and one falling due among the latencies measured stalls a call by its whole length: the likely cause of a p99 of
    1.50 s in a clean-clone CI run (0.01-0.2 s in 15 runs here), not the store's. What the store, its calls and its
    searches allocate is still scanned, and its cost counted; a search holding the GIL stalls the calls as before."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


@pytest.mark.alone
@earlier_objects_frozen()
def test_two_runaway_searches_stop_in_time_and_other_calls_answer_promptly(tmp_path):
    limit = 2.0
    with ScratchStore(tmp_path, pattern_timeout=limit) as store:
        scope = store.scope("r", "a")
        handle = scope.spill(b"x\n" * 100 + LINE * 3, source_tool="t").handle
        scope.scratch_write("note", "unrelated")
        ended: list[tuple[float, BaseException | None]] = []

        def runaway() -> None:
            began = time.monotonic()
            try:
                scope.read_handle(handle, pattern=RUNAWAY)
            except BaseException as exc:  # the test checks what it was
                ended.append((time.monotonic() - began, exc))
            else:
                ended.append((time.monotonic() - began, None))

        threads = [threading.Thread(target=runaway) for _ in range(2)]
        for thread in threads:
            thread.start()
        latencies = []
        while any(thread.is_alive() for thread in threads):
            due = time.monotonic() + 0.01  # a call is due every 10 ms: a stalled thread's wait counts too
            time.sleep(0.01)
            assert [e.key for e in scope.scratch_list()] == ["note"]
            assert scope.read_handle(handle, 0, 2).data == b"x\n"
            latencies.append(time.monotonic() - due)
        for thread in threads:
            thread.join()
    assert len(latencies) >= 20
    assert p99(latencies) < 0.5
    assert [type(exc) for _, exc in ended] == [PatternTimeout, PatternTimeout]
    assert all(exc.resume_offset == 0 for _, exc in ended)  # where the search stood when the engine ran away
    assert max(seconds for seconds, _ in ended) <= 1.5 * limit


MCP_LIMIT = 3.0
"""The MCP server's ``--pattern-timeout`` below: the two runaway searches run that long while ``scratch_list`` is
timed (at the default of 5 s, the test's 7 s were mostly theirs; 3 s still gives the calls' latencies 50 or more
samples)."""


@pytest.mark.alone
@earlier_objects_frozen()  # (this process's collections stall the client's calls as much)
def test_a_runaway_search_over_mcp_leaves_scratch_list_prompt(tmp_path):
    # the server runs each tool call in a worker thread; the regex engine releases the GIL while it matches
    with ScratchStore(tmp_path) as store:
        scope = store.scope("r", "a")
        handle = scope.spill(LINE * 2, source_tool="t").handle
        scope.scratch_write("note", "unrelated")
    ended: list[tuple[float, str]] = []
    latencies: list[float] = []

    async def body():
        params = scratchfs_params("mcp", "--root", str(tmp_path), "--run", "r", "--agent", "a",
                                  "--pattern-timeout", f"{MCP_LIMIT:g}")
        async with connect(params, "2025-11-25") as client:
            assert payload(await client.call_tool("scratch_list", {}))["entries"][0]["key"] == "note"  # warm

            async def runaway():
                began = time.monotonic()
                result = await client.call_tool("read_handle", {"handle": handle, "pattern": RUNAWAY})
                ended.append((time.monotonic() - began, error_of(result)))

            async with anyio.create_task_group() as group:
                group.start_soon(runaway)
                group.start_soon(runaway)
                await anyio.sleep(0.2)
                while len(ended) < 2:
                    began = time.monotonic()
                    listing = payload(await client.call_tool("scratch_list", {}))
                    latencies.append(time.monotonic() - began)
                    assert listing["entries"][0]["key"] == "note"
                    await anyio.sleep(0.02)

    run(body)
    assert len(latencies) >= 20
    assert p99(latencies) < 0.5
    assert all(text.startswith("pattern timeout: ") or "time limit" in text for _, text in ended), ended
    assert max(seconds for seconds, _ in ended) <= 1.5 * MCP_LIMIT + 1.0  # + the server's start-up share


@pytest.mark.parametrize("limit", [0.5, 1.0])
@pytest.mark.alone
def test_a_search_alone_stops_within_its_limit(tmp_path, limit):
    """A runaway search stops at its limit: the wall clock within half the limit past it. A worker is started first:
    a worker started for the call moves its deadline on by the start (``worker_pipe.Pool.run``: an interpreter and
    its imports), which the earlier runaway tests' killed workers left to this one -- 0.15 to 0.36 s past the limit
    at a load of 8, against 0.25 s allowed for a limit of 0.5 s (it failed so); 0.01 to 0.13 s with a worker idle."""
    warm = PatternMatcher("b+")
    warm.engine.remote, warm.engine.slice = True, 0.0  # (every call in a worker, which is then kept idle)
    run_search(tmp_path, b"abba\n" * 10, warm, 0, 10, 5)
    assert workers()[1] >= 1
    with ScratchStore(tmp_path / "root", pattern_timeout=limit) as store:
        scope = store.scope("r", "a")
        handle = scope.spill(LINE, source_tool="t").handle
        cpu_began, wall_began = time.thread_time(), time.monotonic()
        with pytest.raises(PatternTimeout) as caught:
            scope.read_handle(handle, pattern=RUNAWAY)
        cpu, wall = time.thread_time() - cpu_began, time.monotonic() - wall_began
    assert caught.value.resume_offset == 0
    assert cpu <= 1.5 * limit
    assert limit * 0.9 <= wall <= 1.5 * limit


@pytest.mark.parametrize(("name", "pattern"), FIXTURE_PATTERNS)
def test_matches_found_in_a_worker_equal_those_found_in_the_thread(tmp_path, fixture_data, name, pattern):
    data = fixture_data[name][:300_000]
    in_thread = run_search(tmp_path, data, PatternMatcher(pattern), 0, 20, 400)
    remote = PatternMatcher(pattern)
    remote.engine.remote = True  # as after a call outlasted its slice: calls go to a worker process ...
    remote.engine.slice = 0.0  # ... and, no call being quicker than half of no time, every one of them
    got = run_search(tmp_path, data, remote, 0, 20, 400)
    assert as_tuples(got) == as_tuples(in_thread)
    found = [(h.offset, h.offset + h.length) for w in got.windows for h in w.matches]
    assert found and found == regex_spans(data, pattern)[: len(found)]


def test_stopped_workers_are_replaced_and_never_more_than_the_cap_run(tmp_path):
    with ScratchStore(tmp_path, pattern_timeout=0.4) as store:
        scope = store.scope("r", "a")
        handle = scope.spill(LINE, source_tool="t").handle
        for _ in range(MAX_WORKERS + 2):  # each runaway search ends by stopping its worker
            with pytest.raises(PatternTimeout):
                scope.read_handle(handle, pattern=RUNAWAY)
            assert workers()[0] <= MAX_WORKERS
        found = scope.read_handle(handle, pattern=r"a{5}b$", context=0)
    assert [(h.offset, h.length) for w in found.windows for h in w.matches] == [(5995, 6)]
    alive, idle = workers()
    assert alive == idle  # nothing is left running a call


def test_a_search_goes_back_to_its_thread_after_a_quick_call_in_a_worker(tmp_path, fixture_data):
    data = fixture_data["workspace-grep-stdlib-defs.txt"][:100_000]
    matcher = PatternMatcher(r"def __\w+__\(self")
    matcher.engine.remote = True
    got = run_search(tmp_path, data, matcher, 0, 0, 5)
    assert matcher.engine.remote is False
    assert [h.offset for w in got.windows for h in w.matches] == [b for b, _ in regex_spans(data, matcher.pattern)][:5]


def test_a_pattern_that_runs_the_regex_engine_out_of_memory_is_a_pattern_timeout(tmp_path):
    """helper hostile10: ``(?:(a?)?)*z`` over 3 MB of "a" (its finder backtracks a repeated group that can match empty
    text) ran ``regex`` out of memory in 1-2 s -- in the thread, or in a worker, which died of it, and the call was run
    again in the thread --: an untyped MemoryError reached the caller (a traceback over MCP), the process at 650 MB. It
    is a PatternTimeout, its message saying so and how to go on; a worker tells it and lives."""
    with ScratchStore(tmp_path) as store:
        scope = store.scope("r", "a")
        handle = scope.spill(b"a" * 3_000_000 + b"\n", source_tool="t").handle
        for pattern in (r"(?:(a?)?)*z", r"((((a?)?)?)?)*z"):
            with pytest.raises(PatternTimeout, match=r"(ran out of the regex engine's memory backtracking over|ran "
                                                     r"past its time limit of 5 s deciding) the matches that start in "
                                                     r"bytes 0-"):  # (a loaded machine reaches the time limit first)
                scope.read_handle(handle, pattern=pattern)
    matcher = PatternMatcher(r"(?:(a?)?)*z", False, timeout=30.0)
    matcher.finder.remote = True  # (its calls go to a worker)
    alive = workers()[0]
    with pytest.raises(MemoryError):
        matcher.finder.first(bytearray(b"a" * 3_000_000), 0, 3_000_000, False, 3_000_000)
    assert workers()[0] >= max(1, alive)
