"""CPU of pattern searches whose required bytes hide behind optional groups, conditionals or lazy quantifiers, and of
``^\\w+,\\d+`` over the packages CSV fixture, for this checkout or another (before/after).

    python bench/regex_prefilters.py [--root CHECKOUT] [--lines 200000] [PATTERN ...]

1. Each pattern searched by one ``read_handle`` call (``max_matches=3``) over the text of the time tests
   (``tests/test_patterns.py``'s ``word_lines``: 200,000 lines of words, 20 MB, 58% "e", no digit, no "x", no
   "eq"): CPU seconds of this process and its children (the regex workers), wall seconds, the engine calls made.
2. ``^\\w+,\\d+`` over ``fixtures/query-packages-by-month.csv`` (every match, matcher calls in a loop): engine calls
   and CPU with the calls in this thread, and CPU, wall seconds and bytes sent with every call sent to a worker
   process (as after a call outran its slice on a loaded machine; stopped at 60 s). The workers are stopped before
   the CPU is read: a child's CPU time counts (``RUSAGE_CHILDREN``) once it has ended.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
PATTERNS = [r"(?:(e)|x)?(?(1)\d|)", r"(?:ee?q)*?", r"(e)?(?(1)q|)", r"(?:eq)*", r"(?:e\d)*", r"(?:(a)|b)?(?(1)z|y)",
            r"(?:e(x)?)*?(?(1)q|\d)", r"(b)?(?(1)a|)"]
WORDS = (b"alpha", b"beta", b"needle", b"eerie", b"e" * 30, b"ERROR", b"queue")


def word_lines(lines: int, seed: int = 7) -> bytes:
    """As ``tests/test_patterns.py``'s ``word_lines`` (the same text for the same ``lines``)."""
    rnd = random.Random(seed)
    return b"".join(b" ".join(rnd.choice(WORDS) for _ in range(rnd.randint(1, 20))) + b"\n" for _ in range(lines))


def cpu() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=str(HERE), help="the checkout whose scratchfs is measured")
    parser.add_argument("--lines", type=int, default=200_000)
    parser.add_argument("patterns", nargs="*", default=PATTERNS)
    args = parser.parse_args()
    sys.path.insert(0, args.root)
    from scratchfs import ScratchError, ScratchStore
    from scratchfs.api.contract import ScratchTools
    from scratchfs.engine import pattern_worker, worker_pipe
    from scratchfs.engine.patterns import PatternMatcher

    calls = [0]
    call = pattern_worker.Engine._call

    def counted(self, operation, buf, arguments):
        calls[0] += 1
        return call(self, operation, buf, arguments)

    pattern_worker.Engine._call = counted
    sent = [0]
    send = worker_pipe.Worker.send

    def sized(self, request, deadline):
        sent[0] += len(request)
        return send(self, request, deadline)

    worker_pipe.Worker.send = sized
    import scratchfs
    print(f"scratchfs from {Path(scratchfs.__file__).parent}, load average {os.getloadavg()[0]:.2f}")
    text = word_lines(args.lines)
    with tempfile.TemporaryDirectory() as tmp, ScratchStore(Path(tmp) / "root") as store:
        scope = store.scope("run", "agent")
        handle = scope.spill(text, source_tool="bench").handle
        tools = ScratchTools(scope)
        print(f"{len(text):,} bytes of words")
        for pattern in args.patterns:
            calls[0], began, used = 0, time.perf_counter(), cpu()
            try:
                reply = tools.call("read_handle", {"handle": handle, "pattern": pattern, "max_matches": 3})
                outcome = f"{len(reply['windows'])} windows, next_call={'yes' if reply['next_call'] else 'no'}"
            except ScratchError as exc:
                outcome = f"{type(exc).__name__}"
            print(f"  {pattern:26s} CPU {cpu() - used:5.2f} s  wall {time.perf_counter() - began:5.2f} s  "
                  f"{calls[0]:7,} engine calls  {outcome}")
    data = bytearray((HERE / "fixtures" / "query-packages-by-month.csv").read_bytes())
    for remote in (False, True):
        matcher = PatternMatcher(r"^\w+,\d+", False, timeout=60.0)
        if remote:
            for engine in (matcher.engine, matcher.finder):
                engine.remote, engine.slice = True, 0.0
        worker_pipe.kill_workers()  # (their CPU so far counted before, none after)
        calls[0], sent[0], began, used, pos, found = 0, 0, time.perf_counter(), cpu(), 0, 0
        try:
            while (span := matcher.find(data, pos, len(data), True, 0)) is not None:
                found, pos = found + 1, span[1]
            outcome = f"{found:,} matches"
        except ScratchError as exc:
            outcome = f"{found:,} matches, then {type(exc).__name__} at byte {exc.resume_offset:,}"
        wall = time.perf_counter() - began
        worker_pipe.kill_workers()  # (a child's CPU time counts once it has ended)
        where = "every call in a worker" if remote else "calls in the thread"
        print(f"^\\w+,\\d+ over the packages CSV ({len(data):,} bytes), {where}: CPU {cpu() - used:5.2f} s  wall "
              f"{wall:5.2f} s  {calls[0]:7,} engine calls  {sent[0]:,} bytes sent  {outcome}")


if __name__ == "__main__":
    main()
