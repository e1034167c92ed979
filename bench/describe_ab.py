"""Shape detection of this checkout against another's, alternating in one process (issue 16).

    python bench/describe_ab.py OTHER_CHECKOUT [REPS]     # e.g. a `git worktree` of main; default 15 repetitions

``OTHER_CHECKOUT``'s ``scratchfs/api/shape.py`` is loaded beside this checkout's, with its own
``scratchfs/foundation/text.py`` (the rest of the package is this checkout's). Both describe the same contents,
whose answers must be equal, alternating which goes first in each repetition: 2,000 slices of 4 KiB and of 16 KiB
and 300 of 64 KiB cut from the corpus as ``spill_loop.py`` cuts them (whole contents), and the 512 KiB samples of
T2's 8 payloads of 4 MiB (cut from a larger content). Printed per size: the medians in µs per describe and the
median of the per-repetition ratios (this / other), with the load average.
"""

from __future__ import annotations

import importlib.util
import os
import statistics
import sys
import time
from pathlib import Path
from types import ModuleType

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import benchlib

from scratchfs.api import shape

MIB = 1024 * 1024


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # (dataclasses look their module up)
    spec.loader.exec_module(module)
    return module


def other_shape(root: Path) -> ModuleType:
    """``root``'s shape module, importing ``root``'s text helpers in place of this checkout's while it loads."""
    saved = sys.modules["scratchfs.foundation.text"]
    sys.modules["scratchfs.foundation.text"] = _load(root / "scratchfs/foundation/text.py", "other_text")
    try:
        return _load(root / "scratchfs/api/shape.py", "other_shape")
    finally:
        sys.modules["scratchfs.foundation.text"] = saved


def contents(corpus: bytes, size: int) -> list[tuple[bytes, int, int]]:
    if size == 4 * MIB:
        payloads = [benchlib.repeated(corpus, size, start=i * 1_000_003) for i in range(8)]
    else:
        count = 2000 if size < 65536 else 300
        payloads = [benchlib.repeated(corpus, size, start=i * size + i * 7) for i in range(count)]
    return [(p[: shape.SAMPLE_BYTES], len(p), p.count(b"\n") + (p[-1:] != b"\n")) for p in payloads]


def main(argv: list[str]) -> int:
    other = other_shape(Path(argv[0]).resolve())
    reps = int(argv[1]) if len(argv) > 1 else 15
    corpus = benchlib.corpus()
    print(f"load average {os.getloadavg()[0]:.2f}; this checkout against {argv[0]}")
    for size in (4096, 16384, 65536, 4 * MIB):
        args = contents(corpus, size)
        for a in args:
            mine, theirs = shape.describe(*a), other.describe(*a)
            assert (mine.content_type, mine.text) == (theirs.content_type, theirs.text), a[:1]
        times: dict[str, list[float]] = {"this": [], "other": []}
        for rep in range(reps):
            for name, module in [("this", shape), ("other", other)][:: 1 if rep % 2 else -1]:
                start = time.perf_counter()
                for a in args:
                    module.describe(*a)
                times[name].append((time.perf_counter() - start) / len(args) * 1e6)
        ratio = statistics.median(t / o for t, o in zip(times["this"], times["other"], strict=True))
        label = "512 KiB samples of 4 MiB" if size == 4 * MIB else f"{size // 1024} KiB"
        print(f"{label:>24s}: this {statistics.median(times['this']):8.1f} µs, other "
              f"{statistics.median(times['other']):8.1f} µs, this/other {ratio:.3f}")
    print(f"load average {os.getloadavg()[0]:.2f} after")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
