#!/usr/bin/env python3
"""The scratchfs benchmark: scratchfs and the anchors on the same data in one run, as one table (issue 3).

    pip install -e '.[bench]'
    python bench/run.py                  # every figure (under 2 minutes on 2 cores; needs ~1 GiB of free disk)
    python bench/run.py --skip-large     # without the 1 GiB blob (T4 skipped; memory figures on 256 MiB)
    python bench/run.py --quick          # every figure, tiny (seconds): a smoke test, not a measurement
    python bench/run.py --only T3,T5     # some figures
    python bench/run.py --profile T1,T3  # also profile scratchfs's side of these figures (pyinstrument)
    python bench/run.py --sync-rows      # stores with index_write_behind=False (each spill's row committed at once)

Each figure runs scratchfs and its anchor side by side, alternating which goes first, ``--reps`` times (at least 5);
the table shows the median over the repetitions (for a latency, the median of the per-repetition p50s). Scratchfs
is driven through its public API (``ScratchStore``, ``Scope``) only. Data: the real tool outputs in ``fixtures/``
(see ``bench/benchlib.py``), repeated to size. The table goes to stdout and, as JSON, to ``bench/results/``
(``<UTC time>.json`` and ``latest.json``; a quick run writes ``quick-latest.json`` instead, and a partial,
profiled or ``--skip-large`` run only its timestamped file).

Adding a figure: write one function ``f(ctx: Ctx) -> list[Row]`` (build each row with :func:`row`) and add one
:class:`Figure` line to :data:`FIGURES`.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import benchlib
import diskcache
import memory
import pyzstd
import zstandard
from benchlib import GIB, KIB, MIB, percentile

from scratchfs import ScratchStore

RESULTS = Path(__file__).resolve().parent / "results"
MIN_REPS = 5


# -- rows and targets ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Target:
    """A target: ``on`` (the ``"ratio"`` or the scratchfs ``"value"``) must be ``op`` (``">="``/``"<="``) ``bound``."""

    op: str
    bound: float
    on: str = "ratio"

    def text(self, unit: str) -> str:
        sign = "≥" if self.op == ">=" else "≤"
        if self.on == "value":
            return f"{sign} {self.bound:,g} {unit}"
        bound = f"{self.bound:g}"
        return f"{sign} {bound if '.' in bound else bound + '.0'}×"

    def miss(self, value: float | None, ratio: float | None) -> float | None:
        """How far off the target is, as a factor (1.0 = exactly met; above 1 = missed by that factor)."""
        x = ratio if self.on == "ratio" else value
        if x is None:
            return None
        if self.op == ">=":
            return self.bound / x if x > 0 else float("inf")
        return x / self.bound if self.bound > 0 else float("inf")


@dataclass
class Row:
    """One line of the table. ``scratchfs`` and ``anchor`` are in ``unit``; ``ratio`` is scratchfs / anchor."""

    id: str
    figure: str
    unit: str
    scratchfs: float | None
    anchor: float | None
    ratio: float | None
    target: str
    met: bool | None
    miss: float | None
    note: str = ""
    detail: dict = field(default_factory=dict)
    target_spec: dict = field(default_factory=dict)


def row(id: str, figure: str, unit: str, ours: float | None, target: Target, anchor: float | None = None,
        note: str = "", **detail) -> Row:
    """Build a row: the ratio (scratchfs / anchor, when there is an anchor) and whether the target is met."""
    ratio = ours / anchor if ours is not None and anchor else None
    miss = target.miss(ours, ratio)
    return Row(id, figure, unit, ours, anchor, ratio, target.text(unit), None if miss is None else miss <= 1.0,
               miss, note, detail, asdict(target))


def skipped(id: str, figure: str, unit: str, target: Target, why: str) -> Row:
    return Row(id, figure, unit, None, None, None, target.text(unit), None, None, why, {}, asdict(target))


def human(size: int) -> str:
    """``4 MiB``, ``256 KiB``, ``1 GiB``."""
    for unit, scale in (("GiB", GIB), ("MiB", MIB), ("KiB", KIB)):
        if size >= scale:
            return f"{size / scale:g} {unit}"
    return f"{size} B"


def fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "—"
    if unit in ("ops/s", "entries/s", "bytes"):
        return f"{value:,.0f} {unit}"
    if unit == "MB/s":
        return f"{value:,.0f} MB/s"
    if unit == "ms":
        return f"{value:.3f} ms" if value < 10 else f"{value:,.1f} ms"
    if unit == "MiB":
        return f"{value:.1f} MiB"
    return f"{value:g} {unit}"


# -- the context every figure gets --------------------------------------------------------------------------------

class FakeClock:
    """A store clock that stands still until moved (epoch seconds)."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


class Ctx:
    """What a figure needs: sizes for full or quick runs, the data, fresh stores, shared blobs, repetitions."""

    def __init__(self, quick: bool, reps: int, workdir: Path, skip_large: bool, profile: set[str], seed: int) -> None:
        self.quick = quick
        self.reps = reps
        self.workdir = workdir
        self.skip_large = skip_large
        self.corpus = benchlib.corpus()
        self.rng = random.Random(seed)
        self.notes: list[str] = []
        self._profile = profile
        self.profilers: dict = {}
        self._shared: dict = {}
        self._cleanup = contextlib.ExitStack()
        self._serial = 0
        self.settings: dict = {}  # every store's settings (--sync-rows: index_write_behind=False)

    def pick(self, full, quick):
        """``full`` in a full run, ``quick`` in a quick one."""
        return quick if self.quick else full

    def tempdir(self) -> Path:
        self._serial += 1
        path = self.workdir / f"d{self._serial}"
        path.mkdir()
        return path

    @contextlib.contextmanager
    def store(self, **settings) -> Iterator[ScratchStore]:
        """A new store in a fresh directory, closed and removed afterwards."""
        path = self.tempdir()
        try:
            with ScratchStore(path, **{**self.settings, **settings}) as store:
                yield store
        finally:
            shutil.rmtree(path, ignore_errors=True)

    def repeat(self, ours: Callable[[], float], anchor: Callable[[], float] | None = None
               ) -> tuple[list[float], list[float]]:
        """Run ``ours`` and ``anchor`` ``reps`` times each, alternating which goes first; return both lists."""
        a: list[float] = []
        b: list[float] = []
        for rep in range(self.reps):
            if anchor is not None and rep % 2:
                b.append(anchor())
                a.append(ours())
            else:
                a.append(ours())
                if anchor is not None:
                    b.append(anchor())
        return a, b

    def repeat_each(self, ours: Callable[[object], float], anchor: Callable[[object], float], inputs: list
                    ) -> tuple[list[float], list[float]]:
        """Like :meth:`repeat`, with ``inputs[rep]`` given to both in repetition ``rep``."""
        a: list[float] = []
        b: list[float] = []
        for rep, item in enumerate(inputs):
            if rep % 2:
                b.append(anchor(item))
                a.append(ours(item))
            else:
                a.append(ours(item))
                b.append(anchor(item))
        return a, b

    @contextlib.contextmanager
    def ours(self, part: str) -> Iterator[None]:
        """Wrap the timed scratchfs part of a figure (``"T8"``, or ``"T8-list"`` for one of its parts): profiled
        with pyinstrument, one profile per part, when ``--profile`` names the figure."""
        if part.split("-", maxsplit=1)[0] not in self._profile:
            yield
            return
        from pyinstrument import Profiler

        profiler = self.profilers.setdefault(part, Profiler(interval=0.0005))
        profiler.start()
        try:
            yield
        finally:
            profiler.stop()

    def shared(self, key: str, make: Callable[[], object]):
        """One object per ``key`` for the whole run (built on first use): blobs that several figures read."""
        if key not in self._shared:
            self._shared[key] = make()
        return self._shared[key]

    def blob(self, size: int) -> tuple:
        """A blob of ``size`` bytes of repeated corpus in a store kept for the run:
        ``(scope, handle, path of its file)``."""

        def make():
            store = self._cleanup.enter_context(self.store())
            scope = store.scope("bench", "blobs")
            stub = scope.spill(benchlib.repeated_chunks(self.corpus, size), source_tool="bench")
            return scope, stub.handle, blob_path(scope, stub.handle)

        return self.shared(f"blob-{size}", make)

    def close(self) -> None:
        self._cleanup.close()


def blob_path(scope, handle: str) -> Path:
    """The file of a spilled handle (for the anchors, which read the same file)."""
    entry = next(e for e in scope.list_entries() if e.key == handle)
    return scope.store.blobs.path(scope.run_id, scope.agent_id, entry.blob)


median = statistics.median


# -- the figures --------------------------------------------------------------------------------------------------

def t1_spill_small(ctx: Ctx) -> list[Row]:
    rows = []
    for kib, count in ((4, 1000), (16, 1000), (64, 500)):
        rows.append(_t1_spill(ctx, kib * KIB, ctx.pick(count, 20), "T1" if kib == 16 else f"T1-{kib}k"))
    return rows


def _t1_spill(ctx: Ctx, size: int, n: int, part: str) -> Row:
    """``n`` spills of distinct ``size``-byte payloads into a fresh store, vs ``diskcache.Cache.set``."""
    payloads = [benchlib.repeated(ctx.corpus, size, start=i * size + i * 7) for i in range(n)]

    def ours() -> float:
        with ctx.store() as store:
            scope = store.scope("bench", "t1")
            with ctx.ours(part):
                start = time.perf_counter()
                for p in payloads:
                    scope.spill(p, source_tool="bench.t1")
                store.flush()  # the rows written behind (issue 16) are part of the spills' cost
                return n / (time.perf_counter() - start)

    def anchor() -> float:
        path = ctx.tempdir()
        try:
            with diskcache.Cache(str(path)) as cache:
                start = time.perf_counter()
                for i, p in enumerate(payloads):
                    cache.set(f"k{i}", p, expire=3600)
                return n / (time.perf_counter() - start)
        finally:
            shutil.rmtree(path, ignore_errors=True)

    a, b = ctx.repeat(ours, anchor)
    return row("T1", f"spill of {human(size)} payloads vs diskcache.Cache.set(expire=3600)", "ops/s", median(a),
               Target(">=", 1.0), median(b), payloads=n, payload_bytes=size)


def t2_spill_large(ctx: Ctx) -> list[Row]:
    n, size = ctx.pick((8, 4 * MIB), (2, 256 * KIB))
    payloads = [benchlib.repeated(ctx.corpus, size, start=i * 1_000_003) for i in range(n)]
    total_mb = n * size / 1e6

    def ours() -> float:
        with ctx.store() as store:
            scope = store.scope("bench", "t2")
            with ctx.ours("T2"):
                start = time.perf_counter()
                for p in payloads:
                    scope.spill(p, source_tool="bench.t2")
                return total_mb / (time.perf_counter() - start)

    def anchor() -> float:
        cctx = zstandard.ZstdCompressor(level=3)
        start = time.perf_counter()
        for p in payloads:
            cctx.compress(p)
        return total_mb / (time.perf_counter() - start)

    a, b = ctx.repeat(ours, anchor)
    # the same one-shot compression on the corpus without repeats, for scale (a payload repeats the 2 MiB corpus, and
    # one frame's 2 MiB window finds those repeats; 256 KiB frames cannot)
    cctx = zstandard.ZstdCompressor(level=3)
    plain = []
    for _ in range(ctx.reps):
        start = time.perf_counter()
        cctx.compress(ctx.corpus)
        plain.append(len(ctx.corpus) / 1e6 / (time.perf_counter() - start))
    ctx.notes.append(f"T2: one-shot level 3 on the 2 MiB corpus without repeats runs at {median(plain):,.0f} MB/s "
                     f"(scratchfs at {median(a) / median(plain):.2f}× that)")
    return [row("T2", f"spill of {human(size)} payloads vs one-shot zstandard level 3",
                "MB/s", median(a), Target(">=", 0.8), median(b), payloads=n, plain_corpus_mb_s=median(plain))]


def _random_reads(ctx: Ctx, size: int, count: int) -> list[int]:
    return [ctx.rng.randrange(0, size - 4096) for _ in range(count)]


def _read_p50(scope, handle: str, offsets: list[int]) -> float:
    samples = []
    clock = time.perf_counter_ns
    for offset in offsets:
        start = clock()
        scope.read_handle(handle, offset=offset, length=4096)
        samples.append(clock() - start)
    return percentile(samples, 0.5, 1e-6)


def t3_read_range(ctx: Ctx) -> list[Row]:
    size, count = ctx.pick((64 * MIB, 500), (2 * MIB, 20))
    scope, handle, path = ctx.blob(size)
    offsets_per_rep = [_random_reads(ctx, size, count) for _ in range(ctx.reps)]
    for offset in offsets_per_rep[0][:20]:  # both read the right bytes
        expected = benchlib.repeated(ctx.corpus, 4096, start=offset)
        assert scope.read_handle(handle, offset=offset, length=4096).data == expected, offset
    with pyzstd.SeekableZstdFile(str(path), "r") as f:
        for offset in offsets_per_rep[0][:20]:
            f.seek(offset)
            assert f.read(4096) == benchlib.repeated(ctx.corpus, 4096, start=offset), offset

        def ours(offsets: list[int]) -> float:
            with ctx.ours("T3"):
                return _read_p50(scope, handle, offsets)

        def anchor(offsets: list[int]) -> float:
            samples = []
            clock = time.perf_counter_ns
            for offset in offsets:
                start = clock()
                f.seek(offset)
                f.read(4096)
                samples.append(clock() - start)
            return percentile(samples, 0.5, 1e-6)

        a, b = ctx.repeat_each(ours, anchor, offsets_per_rep)
    label = f"read_handle, random 4 KiB range, {human(size)} blob, p50"
    return [
        row("T3", f"{label}, vs pyzstd.SeekableZstdFile (open)", "ms", median(a), Target("<=", 1.0), median(b),
            reads=count),
        row("T3", f"{label}, absolute", "ms", median(a), Target("<=", 0.25, on="value")),
    ]


def t4_read_scale(ctx: Ctx) -> list[Row]:
    large, small, count = ctx.pick((GIB, MIB, 500), (8 * MIB, MIB, 20))
    title = f"same read, {human(large)} blob vs {human(small)} blob, p50"
    if ctx.skip_large and not ctx.quick:
        return [skipped("T4", title, "ms", Target("<=", 1.5), "skipped (--skip-large)")]
    with ctx.store() as store:
        scope = store.scope("bench", "t4")
        start = time.perf_counter()
        big = scope.spill(benchlib.repeated_chunks(ctx.corpus, large), source_tool="bench.t4").handle
        spill_s = time.perf_counter() - start
        little = scope.spill(benchlib.repeated(ctx.corpus, small), source_tool="bench.t4").handle
        probe = large // 3
        assert scope.read_handle(big, offset=probe, length=4096).data == benchlib.repeated(ctx.corpus, 4096, probe)
        a, b = [], []
        for rep in range(ctx.reps):
            big_offsets = _random_reads(ctx, large, count)
            small_offsets = _random_reads(ctx, small, count)
            with ctx.ours("T4"):
                if rep % 2:
                    b.append(_read_p50(scope, little, small_offsets))
                    a.append(_read_p50(scope, big, big_offsets))
                else:
                    a.append(_read_p50(scope, big, big_offsets))
                    b.append(_read_p50(scope, little, small_offsets))
    return [row("T4", title, "ms", median(a), Target("<=", 1.5), median(b), reads=count,
                large_spill_mb_s=large / 1e6 / spill_s)]


def t5_search(ctx: Ctx) -> list[Row]:
    size = ctx.pick(64 * MIB, 2 * MIB)
    scope, handle, _path = ctx.blob(size)
    cycles = size / len(ctx.corpus)
    needle = benchlib.pick_needle(ctx.corpus, max(1, round(100 / cycles)))

    def make_one_frame() -> Path:
        one = ctx.tempdir() / "one-frame.zst"
        one.write_bytes(zstandard.ZstdCompressor(level=3).compress(benchlib.repeated(ctx.corpus, size)))
        return one

    one_frame = ctx.shared(f"one-frame-{size}", make_one_frame)
    counts: dict[str, int] = {}

    def ours() -> float:
        with ctx.ours("T5"):
            start = time.perf_counter()
            found, offset = 0, 0
            while offset is not None:
                result = scope.read_handle(handle, offset=offset, match=needle, max_matches=1000)
                found += result.match_count
                offset = result.next_offset
            seconds = time.perf_counter() - start
        counts["scratchfs"] = found
        return size / 1e6 / seconds

    def anchor() -> float:
        start = time.perf_counter()
        data = zstandard.ZstdDecompressor().decompress(one_frame.read_bytes())
        found, i = 0, data.find(needle)
        while i >= 0:
            found += 1
            i = data.find(needle, i + len(needle))
        seconds = time.perf_counter() - start
        counts["anchor"] = found
        return size / 1e6 / seconds

    a, b = ctx.repeat(ours, anchor)
    assert counts["scratchfs"] == counts["anchor"], counts
    return [row("T5", f"read_handle(match=...) over a {human(size)} blob, {counts['anchor']} matches, vs "
                "one-frame decompress + bytes.find loop", "MB/s", median(a), Target(">=", 0.7), median(b),
                needle=needle.decode(), matches=counts["anchor"])]


def t6_compressed_size(ctx: Ctx) -> list[Row]:
    rows = []
    with ctx.store() as store:
        scope = store.scope("bench", "t6")
        listing, listed = benchlib.file_listing(ctx.pick(8 * MIB, 256 * KIB))
        named = [(path.name, path.read_bytes()) for path in benchlib.fixture_files()]
        named.append((f"a find-style listing of {listed} made now", listing))
        for name, data in named:
            handle = scope.spill(data, source_tool="bench.t6").handle
            stored = next(e.stored_size for e in scope.list_entries() if e.key == handle)
            one = len(zstandard.ZstdCompressor(level=3).compress(data))
            rows.append(row("T6", f"compressed size of {name} ({len(data):,} B) vs one-frame zstd level 3",
                            "bytes", stored, Target("<=", 1.15), one))
    return rows


class TransactionTimer:
    """Times every write transaction of an index (``Index.write``, one ``BEGIN IMMEDIATE`` ... ``COMMIT``)."""

    def __init__(self, index) -> None:
        self.index = index
        self.original = index.write
        self.durations: list[float] = []

    def __enter__(self) -> TransactionTimer:
        original, durations = self.original, self.durations

        @contextlib.contextmanager
        def timed(doing: str):
            start = time.perf_counter()
            try:
                with original(doing) as conn:
                    yield conn
            finally:
                durations.append(time.perf_counter() - start)

        self.index.write = timed
        return self

    def __exit__(self, *exc_info) -> None:
        del self.index.write  # back to the class's method


def _populate(scope_of: Callable[[int], object], n: int, corpus: bytes, ttl: float | None = None) -> None:
    for i in range(n):
        scope_of(i).spill(benchlib.repeated(corpus, 16 * KIB, start=i * 9973), source_tool="bench", ttl=ttl)


def t7_sweep(ctx: Ctx) -> list[Row]:
    n = ctx.pick(10_000, 200)
    rates, longest, counts = [], [], []

    for _ in range(ctx.reps):
        clock = FakeClock()
        with ctx.store(clock=clock) as store:
            scopes = [store.scope("bench", f"agent-{k}") for k in range(10)]
            _populate(lambda i, scopes=scopes: scopes[i % 10], n, ctx.corpus, ttl=60.0)
            clock.now += 120.0
            with ctx.ours("T7"), TransactionTimer(store.index) as timer:
                start = time.perf_counter()
                result = store.sweep()
                seconds = time.perf_counter() - start
            # every blob went: its own file, or its agent's segment file (issue 16: one per agent, 10 here)
            assert result.rows_deleted == n and result.files_deleted > 0 and not store.blobs.blob_files(), result
            rates.append(n / seconds)
            longest.append(max(timer.durations) * 1000)
            counts.append(len(timer.durations))
    return [
        row("T7", f"sweep of {n:,} expired entries, incl. file removal", "entries/s", median(rates),
            Target(">=", 5000, on="value")),
        row("T7", "longest write transaction during those sweeps (max of all repetitions)", "ms", max(longest),
            Target("<=", 50, on="value"), transactions_per_sweep=median(counts)),
    ]


def t8_index_reads(ctx: Ctx) -> list[Row]:
    n, reads = ctx.pick((10_000, 1000), (200, 50))
    value = benchlib.repeated(ctx.corpus, KIB, start=12345)
    with ctx.store() as store:
        scopes = [store.scope("bench", f"agent-{k}") for k in range(10)]
        _populate(lambda i: scopes[i % 10], n, ctx.corpus)
        scope = scopes[0]
        scope.scratch_write("value", value)
        assert scope.scratch_read("value") == value
        listed = []
        for _ in range(ctx.reps):
            with ctx.ours("T8-list"):
                start = time.perf_counter()
                entries = store.list_entries_for_run("bench")
                listed.append((time.perf_counter() - start) * 1000)
            assert len(entries) == n + 1

        cache_dir = ctx.tempdir()
        with diskcache.Cache(str(cache_dir)) as cache:
            for i in range(n):
                cache.set(f"k{i}", benchlib.repeated(ctx.corpus, 16 * KIB, start=i * 9973), expire=3600)
            cache.set("value", value, expire=3600)
            assert cache.get("value") == value
            clock = time.perf_counter_ns

            def ours() -> float:
                samples = []
                with ctx.ours("T8-read"):
                    for _ in range(reads):
                        start = clock()
                        scope.scratch_read("value")
                        samples.append(clock() - start)
                return percentile(samples, 0.5, 1e-6)

            def anchor() -> float:
                samples = []
                for _ in range(reads):
                    start = clock()
                    cache.get("value")
                    samples.append(clock() - start)
                return percentile(samples, 0.5, 1e-6)

            a, b = ctx.repeat(ours, anchor)
        shutil.rmtree(cache_dir, ignore_errors=True)
    return [
        row("T8", f"list_entries_for_run with {n:,} live entries", "ms", median(listed), Target("<=", 50, on="value")),
        row("T8", "scratch_read of a 1 KiB value, p50, vs diskcache.Cache.get", "ms", median(a), Target("<=", 1.5),
            median(b), reads=reads),
    ]


def m_memory(ctx: Ctx) -> list[Row]:
    size = ctx.pick(256 * MIB if ctx.skip_large else GIB, 16 * MIB)
    root = ctx.tempdir()
    try:
        spill = memory.measure("spill-chunks", root, size)
        search = memory.measure("match", root, handle=spill["handle"])
    finally:
        shutil.rmtree(root, ignore_errors=True)
    assert spill["size"] == size == search["size"], (spill, search)
    exact = "" if spill["exact"] and search["exact"] else "peak since process start (over-states)"
    return [
        row("M1", f"peak RSS growth, spill of a {human(size)} stream (subprocess)", "MiB", spill["growth"] / MIB,
            Target("<=", memory.SPILL_LIMIT / MIB, on="value"), note=exact),
        row("M2", "peak RSS growth, read_handle(match=...) over that blob (subprocess)", "MiB",
            search["growth"] / MIB, Target("<=", memory.MATCH_LIMIT / MIB, on="value"), note=exact),
    ]


# -- issue 5: reads an agent can steer ------------------------------------------------------------------------------

def l1_line_read(ctx: Ctx) -> list[Row]:
    """Line reads near 90% of a 64 MiB text against byte-range reads of the same bytes at the same offsets."""
    size = ctx.pick(64 * MIB, 2 * MIB)
    scope, handle, _path = ctx.blob(size)
    total = scope.read_handle(handle, line=1, lines=1).total_lines
    lines = [ctx.rng.randrange(int(total * 0.88), int(total * 0.92)) for _ in range(ctx.pick(300, 20))]
    spans = {}
    for n in lines:  # the byte span of each line read, so that the range read returns the very same bytes
        got = scope.read_handle(handle, line=n, lines=20)
        spans[n] = (got.offset, len(got.data))

    def ours() -> float:
        samples = []
        with ctx.ours("L1"):
            for n in lines:
                start = time.perf_counter_ns()
                scope.read_handle(handle, line=n, lines=20)
                samples.append(time.perf_counter_ns() - start)
        return percentile(samples, 0.5, 1e-6)

    def anchor() -> float:
        samples = []
        for n in lines:
            offset, length = spans[n]
            start = time.perf_counter_ns()
            scope.read_handle(handle, offset=offset, length=length)
            samples.append(time.perf_counter_ns() - start)
        return percentile(samples, 0.5, 1e-6)

    a, b = ctx.repeat(ours, anchor)
    mean_bytes = round(sum(length for _, length in spans.values()) / len(spans))
    return [row("L1", f"read_handle(line=N, lines=20) at ~90% of a {human(size)} text ({total:,} lines), p50, vs "
                f"a byte-range read of the same {mean_bytes:,} bytes", "ms", median(a), Target("<=", 2.0),
                median(b), lines=total, mean_bytes=mean_bytes)]


def _search_all(scope, handle: str, **query) -> tuple[float, int]:
    """Seconds to find every match (resuming by ``next_offset``) and the number of matches."""
    start = time.perf_counter()
    found, offset = 0, 0
    while offset is not None:
        result = scope.read_handle(handle, offset=offset, max_matches=1000, context=40, **query)
        found += result.match_count
        offset = result.next_offset
    return time.perf_counter() - start, found


def p1_pattern_search(ctx: Ctx) -> list[Row]:
    """Pattern search over the T5 blob: with a literal part (prefiltered) against the substring search of that
    literal; and without a literal part (reported)."""
    size = ctx.pick(64 * MIB, 2 * MIB)
    scope, handle, _path = ctx.blob(size)
    cycles = size / len(ctx.corpus)
    needle = benchlib.pick_needle(ctx.corpus, max(1, round(100 / cycles)))
    pattern = r"\b" + re.escape(needle.decode()) + r"\w*"
    counts: dict[str, int] = {}

    def timed(name: str, **query) -> Callable[[], float]:
        def run() -> float:
            with ctx.ours("P1"):
                seconds, found = _search_all(scope, handle, **query)
            counts[name] = found
            return size / 1e6 / seconds
        return run

    a, b = ctx.repeat(timed("pattern", pattern=pattern), timed("match", match=needle))
    if counts["pattern"] != counts["match"]:
        raise AssertionError(f"pattern and substring found different counts: {counts}")
    no_literal = r"[0-9a-f]{40}|\d{3}-\d{3}-\d{4}"
    c, _ = ctx.repeat(timed("no-literal", pattern=no_literal))
    return [
        row("P1", f"read_handle(pattern={pattern!r}) over a {human(size)} blob, {counts['match']} matches, vs "
            f"read_handle(match={needle.decode()!r})", "MB/s", median(a), Target(">=", 0.5), median(b),
            pattern=pattern, matches=counts["match"]),
        row("P2", f"read_handle(pattern={no_literal!r}) over the same blob, {counts['no-literal']} matches (no "
            "literal part; reported)", "MB/s", median(c), Target(">=", 0.0, on="value"),
            matches=counts["no-literal"]),
    ]


def s1_shape_cost(ctx: Ctx) -> list[Row]:
    """Spill of a 64 MiB JSON document (an array of copies of the real JSON model) with shape detection on and
    off."""
    model = next(p for p in benchlib.fixture_files() if p.suffix == ".json").read_bytes().strip()
    size = ctx.pick(64 * MIB, 2 * MIB)
    copies = max(1, size // (len(model) + 1))

    def document() -> Iterator[bytes]:
        yield b"["
        for i in range(copies):
            yield model if i == 0 else b"," + model
        yield b"]"

    total = 2 + copies * (len(model) + 1) - 1

    def spill(detect: bool) -> Callable[[], float]:
        def run() -> float:
            with ctx.store(detect_shape=detect) as store:
                scope = store.scope("bench", "s1")
                with ctx.ours("S1" if detect else "S1-off"):
                    start = time.perf_counter()
                    stub = scope.spill(document(), source_tool="bench.s1")
                    seconds = time.perf_counter() - start
            if detect and stub.content_type != "json":
                raise AssertionError(f"the document was detected as {stub.content_type}")
            return total / 1e6 / seconds
        return run

    a, b = ctx.repeat(spill(True), spill(False))
    return [row("S1", f"spill of a {total / MIB:.0f} MiB JSON document with shape detection on, vs off", "MB/s",
                median(a), Target(">=", 0.8), median(b), bytes=total)]


def s2_small_shape_cost(ctx: Ctx) -> list[Row]:
    """T1's spills of distinct 4 KiB slices of the corpus with shape detection on, vs off: what detecting the shape
    costs a small spill. Every kind of text told by its lines adds a gate every small spill pays; this row keeps
    their sum in view (issue 16: it doubled in two days of new kinds unseen, T1 being short anyway)."""
    size, n = 4 * KIB, ctx.pick(1000, 20)
    payloads = [benchlib.repeated(ctx.corpus, size, start=i * size + i * 7) for i in range(n)]

    def spill(detect: bool) -> Callable[[], float]:
        def run() -> float:
            with ctx.store(detect_shape=detect) as store:
                scope = store.scope("bench", "s2")
                with ctx.ours("S2" if detect else "S2-off"):
                    start = time.perf_counter()
                    for p in payloads:
                        scope.spill(p, source_tool="bench.s2")
                    store.flush()
                    return n / (time.perf_counter() - start)
        return run

    a, b = ctx.repeat(spill(True), spill(False))
    return [row("S2", f"spill of {human(size)} payloads with shape detection on, vs off", "ops/s", median(a),
                Target(">=", 0.67), median(b), payloads=n, payload_bytes=size)]


@dataclass(frozen=True)
class Figure:
    id: str
    run: Callable[[Ctx], list[Row]]


FIGURES = [
    Figure("T1", t1_spill_small),
    Figure("T2", t2_spill_large),
    Figure("T3", t3_read_range),
    Figure("T4", t4_read_scale),
    Figure("T5", t5_search),
    Figure("T6", t6_compressed_size),
    Figure("T7", t7_sweep),
    Figure("T8", t8_index_reads),
    Figure("M", m_memory),
    Figure("L1", l1_line_read),
    Figure("P1", p1_pattern_search),
    Figure("S1", s1_shape_cost),
    Figure("S2", s2_small_shape_cost),
]
"""The figures, in table order: issue 3's (T1-T8, M), then issue 5's (L1, P1-P2, S1), then issue 16's S2."""


# -- output -------------------------------------------------------------------------------------------------------

COLUMNS = ("#", "figure", "scratchfs", "anchor", "ratio", "target", "met")


def table(rows: list[Row]) -> str:
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "|".join("---" for _ in COLUMNS) + "|"]
    for r in rows:
        if r.met is None:
            met = r.note or "—"
        elif r.met:
            met = "yes"
        else:
            met = f"NO ({r.miss:.2f}× off)"
        cells = (r.id, r.figure, fmt(r.scratchfs, r.unit), fmt(r.anchor, r.unit),
                 "—" if r.ratio is None else f"{r.ratio:.2f}×", r.target, met)
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def write_results(report: dict, directory: Path, kind: str) -> Path:
    """Write the report as ``<UTC time>[-kind].json``; a full run also replaces ``latest.json``, a quick one
    ``quick-latest.json`` (a partial or profiled run replaces neither)."""
    directory.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    path = directory / f"{stamp}{'' if kind == 'full' else '-' + kind}.json"
    text = json.dumps(report, indent=1, ensure_ascii=False) + "\n"
    path.write_text(text)
    latest = {"full": "latest.json", "quick": "quick-latest.json", "growth": "growth-latest.json"}.get(kind)
    if latest:
        tmp = directory / (latest + ".tmp")
        tmp.write_text(text)
        os.replace(tmp, directory / latest)
    return path


def _load() -> str:
    """The 1-minute load average, as text ("?" where the platform has none)."""
    try:
        return f"{os.getloadavg()[0]:.2f}"
    except (AttributeError, OSError):
        return "?"


def growth_main(args: argparse.Namespace, argv: list[str] | None) -> int:
    """``--growth``: the growth figures of bench/growth.py, printed as tables and written as JSON."""
    import growth

    sizes = [1000, 10_000, 100_000] + ([1_000_000] if args.growth_1m else [])
    if args.growth_sizes:
        sizes = [int(s) for s in args.growth_sizes.split(",")]
    workdir = Path(tempfile.mkdtemp(prefix="scratchfs-bench-", dir=args.workdir))
    load_before = _load()
    started = time.perf_counter()
    try:
        out = growth.run_growth(workdir, benchlib.corpus(), sizes, args.seed)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    seconds = time.perf_counter() - started
    date = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    command = "python bench/run.py" + "".join(f" {a}" for a in (sys.argv[1:] if argv is None else argv))
    load = f"load average {load_before} before, {_load()} after (other processes share these {os.cpu_count()} cores)"
    print(f"scratchfs growth figures, {date}, `{command}`; {load}\n")
    print(growth.table(out))
    report = {"date": date, "command": command, "kind": "growth", "seconds": round(seconds, 1),
              "machine": benchlib.machine(), "load": load, **out}
    path = write_results(report, args.results_dir, "growth")
    print(f"\nJSON: {path}  ({seconds:.0f} s)")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="scratchfs benchmark against the anchors (issue 3)")
    parser.add_argument("--quick", action="store_true", help="every figure, tiny: a smoke test, not a measurement")
    parser.add_argument("--skip-large", action="store_true", help="no 1 GiB blob (T4 skipped, memory on 256 MiB)")
    parser.add_argument("--reps", type=int, default=MIN_REPS, help=f"repetitions per figure (at least {MIN_REPS})")
    parser.add_argument("--only", default="", help="comma-separated figure ids (T1,...,T8,M)")
    parser.add_argument("--profile", default="", help="comma-separated figure ids to profile with pyinstrument")
    parser.add_argument("--results-dir", type=Path, default=RESULTS, help="where the JSON goes (bench/results)")
    parser.add_argument("--workdir", type=Path, default=None, help="where stores are made (default: a temp dir)")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--sync-rows", action="store_true",
                        help="stores with index_write_behind=False: each spill's row committed before it returns")
    parser.add_argument("--growth", action="store_true",
                        help="only the growth figures (issue 13): one store at 1k, 10k and 100k entries")
    parser.add_argument("--growth-1m", action="store_true", help="with --growth: go on to 1M entries")
    parser.add_argument("--growth-sizes", default="", help=argparse.SUPPRESS)  # e.g. 1000,2000 (tests)
    args = parser.parse_args(argv)
    if args.growth or args.growth_1m:
        return growth_main(args, argv)
    if args.reps < MIN_REPS:
        parser.error(f"--reps must be at least {MIN_REPS}")
    only = {s.strip() for s in args.only.split(",") if s.strip()}
    unknown = only - {f.id for f in FIGURES}
    if unknown:
        parser.error(f"unknown figures: {', '.join(sorted(unknown))}")
    profile = {s.strip() for s in args.profile.split(",") if s.strip()}

    workdir = Path(tempfile.mkdtemp(prefix="scratchfs-bench-", dir=args.workdir))
    ctx = Ctx(args.quick, args.reps, workdir, args.skip_large, profile, args.seed)
    if args.sync_rows:
        ctx.settings["index_write_behind"] = False
    rows: list[Row] = []
    load_before = _load()
    started = time.perf_counter()
    try:
        for figure in FIGURES:
            if only and figure.id not in only:
                continue
            t = time.perf_counter()
            rows += figure.run(ctx)
            print(f"  {figure.id}: {time.perf_counter() - t:.1f} s", file=sys.stderr, flush=True)
    finally:
        ctx.close()
        shutil.rmtree(workdir, ignore_errors=True)
    seconds = time.perf_counter() - started
    load = f"load average {load_before} before, {_load()} after (other processes share these {os.cpu_count()} cores)"

    date = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    command = "python bench/run.py" + "".join(f" {a}" for a in (sys.argv[1:] if argv is None else argv))
    print(f"scratchfs benchmark, {date}, `{command}`, median of {args.reps} repetitions"
          f"{' (QUICK: tiny sizes, not a measurement)' if args.quick else ''}; {load}\n")
    print(table(rows))
    for note in ctx.notes:
        print(f"\n{note}")
    if profile:
        print("\n(profiled run: pyinstrument slows the profiled figures; do not quote their numbers)")
    kind = "quick" if args.quick else "partial" if only or profile or args.skip_large or args.sync_rows else "full"
    report = {
        "date": date, "command": command, "kind": kind, "quick": args.quick, "reps": args.reps,
        "seconds": round(seconds, 1),
        "machine": benchlib.machine(), "load": load, "columns": list(COLUMNS), "rows": [asdict(r) for r in rows],
        "notes": ctx.notes, "profiled": sorted(profile),
    }
    path = write_results(report, args.results_dir, kind)
    print(f"\nJSON: {path}  ({seconds:.0f} s)")
    for figure_id, profiler in ctx.profilers.items():
        text = profiler.output_text(unicode=True, color=False, show_all=False)
        out = args.results_dir / f"profile-{figure_id}.txt"
        out.write_text(text)
        print(f"\n== profile of scratchfs in {figure_id} ({out}) ==\n{text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
