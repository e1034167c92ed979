"""What shape detection costs inside a spill against the same calls alone (issue 16: the "missing" CPU of S2).

    python bench/describe_context.py [SIZE] [COUNT] [DIR]     # default 4096 2000, a fresh store in the temp directory

Spills ``COUNT`` distinct payloads of ``SIZE`` bytes (cut from the corpus as ``spill_loop.py`` cuts them) with shape
detection on, recording the spilling thread's CPU in ``describe`` and in ``build_stub`` and the arguments of each
call, then with it off (``detect_shape=False``). Then calls ``describe`` and ``build_stub`` again on the very same
arguments, in a loop with nothing between the calls ("alone", as ``t1_bound.py --parts`` times them), and with
256 KiB and 4 MiB of memory written between the calls (what the rest of a spill between two of them may do to the
caches; a level-1 zstd compress of the payload between them, as a spill's frame is made, added only 0-6 µs).
Prints µs of thread CPU a call for each (median of 3 passes of the calls alone), and the spill's thread CPU a spill
with shape detection on and off.

What it showed (2026-12-07 02:13 UTC, load 10, helper describecost_small2): at 4 KiB, ``describe`` 135.7 µs a call
inside the spill against 111.0 alone on the same arguments, 114.6 after 256 KiB written between calls and 292.8
after 4 MiB; ``build_stub`` 58.6 in the spill with the shape against 40.9 alone (32.6 in the spill without one). At
16 KiB, ``describe`` 216.8 against 165.7, ``build_stub`` 101.3 against 48.5. The CPU of "on - off" that
``describe`` and the stub's shape words did not explain alone is theirs: the same calls on cold caches. Nothing else
a spill does only with shape detection on costs anything at 4 KiB (the sample is the whole payload, no JSON is
streamed, and the row's shape text costs the write-behind journal about a µs).
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import benchlib

import scratchfs.api.describe as describe_module
import scratchfs.api.entries as entries_module
from scratchfs import ScratchStore


def _spill(payloads: list[bytes], detect: bool, directory: str | None) -> tuple[float, dict[str, list]]:
    """Spill ``payloads`` (the first one out of the timing); return the thread CPU a spill and, per wrapped
    callable, ``[seconds, [(args, kwargs), ...]]`` of the timed spills."""
    seen: dict[str, list] = {"describe": [0.0, []], "build_stub": [0.0, []]}
    originals = describe_module.describe, entries_module.build_stub

    def wrap(name: str, fn):
        def timed(*args, **kwargs):
            start = time.thread_time()
            try:
                return fn(*args, **kwargs)
            finally:
                seen[name][0] += time.thread_time() - start
                seen[name][1].append((args, kwargs))
        return timed

    describe_module.describe = wrap("describe", originals[0])
    entries_module.build_stub = wrap("build_stub", originals[1])
    root = tempfile.mkdtemp(prefix="describe-context-", dir=directory)
    try:
        with ScratchStore(root, detect_shape=detect) as store:
            scope = store.scope("bench", "context")
            scope.spill(payloads[0], source_tool="bench.context")
            for entry in seen.values():
                entry[0], entry[1] = 0.0, []
            cpu = time.thread_time()
            for payload in payloads[1:]:
                scope.spill(payload, source_tool="bench.context")
            store.flush()
            cpu = time.thread_time() - cpu
    finally:
        describe_module.describe, entries_module.build_stub = originals
        shutil.rmtree(root, ignore_errors=True)
    return cpu / (len(payloads) - 1), seen


def _again(fn, calls: list, churn: int, junk: bytearray) -> float:
    """Thread CPU a call of ``fn`` on ``calls`` (median of 3 passes when nothing runs between them), ``churn``
    bytes of ``junk`` written before each call (outside the timing)."""
    passes = []
    for _ in range(1 if churn else 3):
        spent = 0.0
        for args, kwargs in calls:
            if churn:
                junk[:churn] = bytes(churn)
            start = time.thread_time()
            fn(*args, **kwargs)
            spent += time.thread_time() - start
        passes.append(spent / len(calls))
    return statistics.median(passes)


def main(argv: list[str]) -> int:
    size = int(argv[0]) if argv else 4096
    count = int(argv[1]) if len(argv) > 1 else 2000
    directory = argv[2] if len(argv) > 2 else None
    corpus = benchlib.corpus()
    payloads = [benchlib.repeated(corpus, size, start=i * size + i * 7) for i in range(count + 1)]
    on, seen = _spill(payloads, True, directory)
    off, seen_off = _spill(payloads, False, directory)
    load = Path("/proc/loadavg").read_text().split()[0] if Path("/proc/loadavg").exists() else "?"
    print(f"{count:,} spills of {size:,} bytes (load {load}): thread CPU {on * 1e6:.1f} us a spill with shape "
          f"detection, {off * 1e6:.1f} without (on - off {(on - off) * 1e6:.1f})")
    junk = bytearray(4 << 20)
    originals = {"describe": describe_module.describe, "build_stub": entries_module.build_stub}
    for name, (spent, calls) in seen.items():
        alone = _again(originals[name], calls, 0, junk)
        small = _again(originals[name], calls, 256 << 10, junk)
        large = _again(originals[name], calls, 4 << 20, junk)
        print(f"  {name:<10} in the spill {spent / len(calls) * 1e6:6.1f} us a call; the same calls alone "
              f"{alone * 1e6:6.1f}, after 256 KiB written {small * 1e6:6.1f}, after 4 MiB {large * 1e6:6.1f}")
    stub_off = seen_off["build_stub"]
    print(f"  build_stub in the spill without shape detection {stub_off[0] / len(stub_off[1]) * 1e6:6.1f} us a call")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
