"""Shape detection of this checkout against another's, alternating in one process (issue 16).

    python bench/describe_ab.py OTHER_CHECKOUT [REPS]     # e.g. a `git worktree` of main; default 15 repetitions
    python bench/describe_ab.py OTHER_CHECKOUT --diff     # every answer of both compared, no timing
    python bench/describe_ab.py OTHER_CHECKOUT --payloads [REPS]   # T2's 8 samples one by one, best of REPS (21)
    python bench/describe_ab.py OTHER_CHECKOUT [REPS] --time-only  # timed only: answers may differ (an older commit)
    python bench/describe_ab.py OTHER_CHECKOUT [REPS] --best   # each slice alternated, best of REPS (loaded machines)

``OTHER_CHECKOUT``'s whole ``scratchfs`` package is imported beside this checkout's (its modules removed from
``sys.modules`` while the other's load, then put back: the other's ``describe`` runs the other's shape, table and
text modules throughout). Both describe the same contents, whose answers must be equal, alternating which goes first
in each repetition: 2,000 slices of 4 KiB and of 16 KiB and 300 of 64 KiB cut from the corpus as ``spill_loop.py``
cuts them (whole contents), and the 512 KiB samples of T2's 8 payloads of 4 MiB (cut from a larger content). Printed
per size: the medians in µs of CPU (the thread's, which a loaded machine's waits do not swell) per describe and the
median of the per-repetition ratios (this / other), with the load average.

``--time-only`` times both without asserting their answers equal: for a checkout whose answers differ (one from
before kinds were added, say a ``git archive`` of 8017c41 of 2026-12-04), what its shape detection cost then against
this one's now.

``--best`` alternates the two checkouts slice by slice (which goes first alternating too) and keeps each slice's
best thread CPU of ``REPS``, printing the ratio of their sums (4, 16 and 64 KiB): at load 3-9 on 2 cores the median
of per-repetition ratios of the same code ranged 0.85-1.01 at 4 KiB, where this figure repeated within 0.001
(shapecost3) -- the one that can tell a cut of 2-5%.

``--diff`` compares every field of both ``describe`` answers (content type, shape, next read, top) and the compact
JSON of both stubs (``build_stub`` as a spill calls it: preview, lines, note) over slices of every file of
``fixtures/`` (``tools/`` too) and of ``/work/shared/realdata/`` when it exists, each also with CRLF line ends:
sizes from 1 byte to 64 KiB at 61 offsets (whole contents, and 64 KiB samples of a larger content), and prints each
difference (none is the requirement) with the count of slices compared.
"""

from __future__ import annotations

import importlib
import os
import statistics
import sys
import time
from pathlib import Path
from types import ModuleType

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import benchlib

from scratchfs.api import shape, stub

MIB = 1024 * 1024


def other_modules(root: Path) -> tuple[ModuleType, ModuleType]:
    """``root``'s ``scratchfs.api.shape`` and ``scratchfs.api.stub``, each with all it imports from ``root``."""
    def ours() -> dict[str, ModuleType]:
        return {name: module for name, module in sys.modules.items() if name.split(".")[0] == "scratchfs"}

    saved = ours()
    for name in saved:
        del sys.modules[name]
    sys.path.insert(0, str(root))
    try:
        found = importlib.import_module("scratchfs.api.shape"), importlib.import_module("scratchfs.api.stub")
        assert all(Path(m.__file__).resolve().is_relative_to(root) for m in found), "not the other checkout's"
        return found
    finally:
        sys.path.remove(str(root))
        for name in ours():
            del sys.modules[name]
        sys.modules.update(saved)


def contents(corpus: bytes, size: int) -> list[tuple[bytes, int, int]]:
    if size == 4 * MIB:
        payloads = [benchlib.repeated(corpus, size, start=i * 1_000_003) for i in range(8)]
    else:
        count = 2000 if size < 65536 else 300
        payloads = [benchlib.repeated(corpus, size, start=i * size + i * 7) for i in range(count)]
    return [(p[: shape.SAMPLE_BYTES], len(p), p.count(b"\n") + (p[-1:] != b"\n")) for p in payloads]


def main(argv: list[str]) -> int:
    time_only, best = "--time-only" in argv, "--best" in argv
    argv = [a for a in argv if a not in ("--time-only", "--best")]
    other, other_stub = other_modules(Path(argv[0]).resolve())
    if argv[1:] == ["--diff"]:
        return diff(other, other_stub)
    if argv[1:2] == ["--payloads"]:
        return payloads(other, int(argv[2]) if len(argv) > 2 else 21)
    reps = int(argv[1]) if len(argv) > 1 else 15
    corpus = benchlib.corpus()
    if best:
        return best_of(other, corpus, reps, time_only)
    print(f"load average {os.getloadavg()[0]:.2f}; this checkout against {argv[0]}")
    for size in (4096, 16384, 65536, 4 * MIB):
        args = contents(corpus, size)
        for a in [] if time_only else args:
            assert _answer(shape, a) == _answer(other, a), a[0][:80]
        times: dict[str, list[float]] = {"this": [], "other": []}
        for rep in range(reps):
            for name, module in [("this", shape), ("other", other)][:: 1 if rep % 2 else -1]:
                start = time.thread_time()
                for a in args:
                    module.describe(*a)
                times[name].append((time.thread_time() - start) / len(args) * 1e6)
        ratio = statistics.median(t / o for t, o in zip(times["this"], times["other"], strict=True))
        label = "512 KiB samples of 4 MiB" if size == 4 * MIB else f"{size // 1024} KiB"
        print(f"{label:>24s}: this {statistics.median(times['this']):8.1f} µs, other "
              f"{statistics.median(times['other']):8.1f} µs, this/other {ratio:.3f}")
    print(f"load average {os.getloadavg()[0]:.2f} after")
    return 0



def best_of(other: ModuleType, corpus: bytes, reps: int, time_only: bool) -> int:
    """``--best``: each slice described by both checkouts in turn (the first alternating by slice and repetition),
    the best thread CPU of ``reps`` kept a slice and checkout; printed per size, the means in µs and their ratio."""
    print(f"load average {os.getloadavg()[0]:.2f}; best of {reps} a slice, alternating slice by slice")
    for size in (4096, 16384, 65536):
        args = contents(corpus, size)
        for a in [] if time_only else args:
            assert _answer(shape, a) == _answer(other, a), a[0][:80]
        least = {"this": [1.0] * len(args), "other": [1.0] * len(args)}
        for rep in range(reps):
            for i, a in enumerate(args):
                for name, module in [("this", shape), ("other", other)][:: 1 if (rep + i) % 2 else -1]:
                    start = time.thread_time()
                    module.describe(*a)
                    least[name][i] = min(least[name][i], time.thread_time() - start)
        mine, theirs = sum(least["this"]), sum(least["other"])
        print(f"{size // 1024:>21d} KiB: this {mine / len(args) * 1e6:8.1f} µs, other "
              f"{theirs / len(args) * 1e6:8.1f} µs, this/other {mine / theirs:.3f}")
    print(f"load average {os.getloadavg()[0]:.2f} after")
    return 0


def payloads(other: ModuleType, reps: int) -> int:
    """Each of T2's 8 samples described by both checkouts in turn, alternating which goes first: the best thread
    CPU of ``reps`` per sample and checkout."""
    args = contents(benchlib.corpus(), 4 * MIB)
    best = {"this": [1.0] * len(args), "other": [1.0] * len(args)}
    for rep in range(reps):
        for name, module in [("this", shape), ("other", other)][:: 1 if rep % 2 else -1]:
            for i, a in enumerate(args):
                start = time.thread_time()
                module.describe(*a)
                best[name][i] = min(best[name][i], time.thread_time() - start)
    print(f"load average {os.getloadavg()[0]:.2f}; best of {reps}, ms of thread CPU")
    for i, a in enumerate(args):
        print(f"payload {i} (starts {a[0][:12]!r}): other {best['other'][i] * 1e3:.2f}, "
              f"this {best['this'][i] * 1e3:.2f}")
    return 0


def _answer(module: ModuleType, args: tuple[bytes, int, int]) -> tuple:
    found = module.describe(*args)
    return found.content_type, found.text, found.next_read, found.top


def _stub(module: ModuleType, head: bytes, size: int, lines: int, found: tuple) -> str:
    """The stub's compact JSON as a spill builds it (the whole content when it is all in ``head``)."""
    made = module.build_stub("h_" + "a" * 24, head, head[-8192:], size, lines, found[0], found[1], "bench.ab", 1024,
                             next_read=found[2], top=found[3])
    return made.to_json()


def _slices(data: bytes) -> list[tuple[bytes, int, int]]:
    """Slices of ``data``: whole contents of 1 byte to 64 KiB at many offsets, and 64 KiB samples of 256 KiB."""
    sizes = (1, 2, 7, 100, 1000, 1024, 2048, 4095, 4096, 4097, 8192, 12_000, 16_384, 32_768, 50_000, 65_536)
    step = max(1, len(data) // 61 + 7)  # (61 offsets a size, none a multiple of a power of two)
    found = []
    for size in sizes:
        for start in range(0, max(1, len(data) - size + 1), step):
            piece = data[start : start + size]
            found.append((piece, len(piece), piece.count(b"\n") + (piece[-1:] not in (b"", b"\n"))))
    for start in range(0, max(1, len(data) - 262_144), step * 3):  # (a sample of a larger content)
        piece = data[start : start + 262_144]
        found.append((piece[:65_536], len(piece), piece.count(b"\n") + (piece[-1:] not in (b"", b"\n"))))
    return found


def _forms(data: bytes) -> tuple[bytes, ...]:
    """A file's bytes as they are and, when they hold lines ended by ``\\n`` alone, with each ended by ``\\r\\n``."""
    return (data, data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")) if b"\n" in data else (data,)


def diff(other: ModuleType, other_stub: ModuleType) -> int:
    roots = [Path(__file__).resolve().parent.parent / "fixtures", Path("/work/shared/realdata")]
    files = sorted(p for root in roots if root.is_dir() for p in root.rglob("*") if p.is_file()
                   and p.suffix not in (".py", ".gz") and ".git" not in p.parts and "store-" not in str(p))
    compared = differences = 0
    for path, data in ((file, form) for file in files for form in _forms(file.read_bytes())):
        for args in _slices(data):
            mine, theirs = _answer(shape, args), _answer(other, args)
            stubs = (_stub(stub, args[0], args[1], args[2], mine), _stub(other_stub, args[0], args[1], args[2], theirs))
            compared += 1
            if mine != theirs or stubs[0] != stubs[1]:
                differences += 1
                print(f"DIFFERENT {path} size {args[1]}: {mine!r} against {theirs!r}" if mine != theirs else
                      f"DIFFERENT stub {path} size {args[1]}")
    print(f"{compared:,} slices of {len(files)} files compared: {differences} differences")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
