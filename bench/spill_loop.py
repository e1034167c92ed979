"""Spill a number of distinct payloads of one size into a fresh store and print spills per second and the CPU time of
the spilling thread per spill: the loop to run under ``strace -f -c`` or ``perf stat`` when counting what one spill
costs (issue 16).

    python bench/spill_loop.py SIZE_BYTES COUNT [DIR] [--steps] [--sync] [--durable] [--no-shape]   # e.g. 16384 1000

The payloads are the real corpus repeated (``benchlib.repeated``), as T1 and T2 use them; the store is made in a new
directory under ``DIR`` (default: the system temp directory) and removed afterwards. One spill before the timed loop
opens the index and the directories, so the counts are those of the steady state plus a fixed start-up.

``--steps`` also prints the spilling thread's CPU per spill by step (µs; each step's own time, the steps it calls
taken out; a large content's frames compressed by worker threads are not the spilling thread's and not counted): the
wrappers cost a few µs a spill themselves, so the total is a little above a run without them.

The timed loop ends with :meth:`ScratchStore.flush` (the rows written behind committed, issue 16), and the process's
CPU per spill (every thread: the write-behind flusher's too) is printed beside the spilling thread's. ``--sync``
opens the store with ``index_write_behind=False`` (each row committed before its spill returns), to compare;
``--durable`` opens it with ``durable=True`` (each segment record ``fsync``-ed before its spill returns, and the
write-behind journal's line the first time a segment is used after the queue drained); ``--no-shape`` opens it with
``detect_shape=False`` (the stub without a shape: what the rest of a spill costs, issue 16's S2).
"""

from __future__ import annotations

import functools
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import benchlib

from scratchfs import ScratchStore

# (step, module, attribute): each wrapped callable's CPU goes to its step, less that of the wrapped callables it calls
STEPS = (
    ("blob write: zstd", "scratchfs.engine.seekable", "compress"),  # (zstd_contexts.compress, as seekable holds it)
    ("blob write: newline count and frame glue (frames of the writer)", "scratchfs.engine.seekable",
     "_compress_frame"),
    ("blob write: binding frame", "scratchfs.engine.seekable", "encode_binding_frame"),
    ("blob write: segment append", "scratchfs.engine.segment_writer", "SegmentWriter.append"),
    ("blob write: the rest (sampling, writer, binding payload, seek table)", "scratchfs.engine.local_blobs",
     "Blobs.write"),
    ("shape (describe)", "scratchfs.api.shape", "describe"),  # (imported by api.describe at its first use)
    ("stub (build_stub)", "scratchfs.api.stub", "build_stub"),  # (imported by api.entries at its first use)
    ("listing preview", "scratchfs.api.describe", "list_preview"),
    ("index put (BEGIN, check, upsert, COMMIT)", "scratchfs.engine.sqlite_index", "Index.put"),
    ("row queued behind (journal, queue)", "scratchfs.engine.write_behind", "WriteBehind.accept"),
    ("index put_many (rows behind, when this thread commits them)", "scratchfs.engine.sqlite_index",
     "Index.put_many"),
    ("delete lock + commit glue", "scratchfs.api.entries", "Entries._commit"),
    ("entry glue (token, checks, row)", "scratchfs.api.entries", "Entries.write"),
)


WARM_PAGE = (b"<!DOCTYPE html><html><head><title>warm</title></head><body>" + b"<p>warm up</p>" * 300
             + b"</body></html>")
"""An HTML page spilled before the timed loop: the first HTML stub of a process imports lxml and inscriptis for its
preview (43-60 ms, stubcost1), which the loop's steps counted as its stub's cost, ~50 us a spill over 1,000."""


class StepTimer:
    """Wraps the callables of :data:`STEPS`; ``own[step]`` is the thread CPU seconds spent in each, exclusive."""

    def __init__(self) -> None:
        self.own: dict[str, float] = {name: 0.0 for name, _, _ in STEPS}
        self._stack: list[float] = []  # CPU seconds of the wrapped callees of each open call
        self._spilling = threading.get_ident()  # the thread that spills (made in it)

    def install(self) -> None:
        import importlib
        for name, module, attr in STEPS:
            owner = importlib.import_module(module)
            *path, last = attr.split(".")
            for part in path:
                owner = getattr(owner, part)
            setattr(owner, last, self._wrap(name, getattr(owner, last)))

    def _wrap(self, name: str, fn):
        own, stack, clock, spilling = self.own, self._stack, time.thread_time, self._spilling

        @functools.wraps(fn)
        def timed(*args, **kwargs):
            if threading.get_ident() != spilling:  # a large content's zstd workers: not the spilling thread's CPU
                return fn(*args, **kwargs)
            stack.append(0.0)
            start = clock()
            try:
                return fn(*args, **kwargs)
            finally:
                spent = clock() - start
                inner = stack.pop()
                own[name] += spent - inner
                if stack:
                    stack[-1] += spent
        return timed


def main(argv: list[str]) -> int:
    steps, sync, durable = "--steps" in argv, "--sync" in argv, "--durable" in argv
    detect = "--no-shape" not in argv
    argv = [a for a in argv if a not in ("--steps", "--sync", "--durable", "--no-shape")]
    if len(argv) not in (2, 3):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    size, count = int(argv[0]), int(argv[1])
    corpus = benchlib.corpus()
    payloads = [benchlib.repeated(corpus, size, start=i * size + i * 7) for i in range(count + 1)]
    timer = StepTimer() if steps else None
    if timer:
        timer.install()
    directory = tempfile.mkdtemp(prefix="spill-loop-", dir=argv[2] if len(argv) == 3 else None)
    try:
        with ScratchStore(directory, index_write_behind=not sync, durable=durable, detect_shape=detect) as store:
            scope = store.scope("bench", "loop")
            scope.spill(payloads[0], source_tool="bench.loop")
            scope.spill(WARM_PAGE, source_tool="bench.loop")  # (the HTML preview's lxml and inscriptis imported)
            if timer:
                timer.own.update(dict.fromkeys(timer.own, 0.0))  # the first spill's opening out
            start, cpu, all_cpu = time.perf_counter(), time.thread_time(), time.process_time()
            for payload in payloads[1:]:
                scope.spill(payload, source_tool="bench.loop")
            store.flush()
            seconds, cpu = time.perf_counter() - start, time.thread_time() - cpu
            all_cpu = time.process_time() - all_cpu
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    print(f"{count / seconds:,.0f} spills/s of {size:,} bytes ({seconds / count * 1e6:,.0f} µs each, "
          f"{cpu / count * 1e6:,.0f} µs of the spilling thread's CPU, {all_cpu / count * 1e6:,.0f} µs of the "
          f"process's){' [sync rows]' if sync else ''}{' [durable]' if durable else ''}"
          f"{'' if detect else ' [no shape]'}")
    if timer:
        named = sum(timer.own.values())
        for name, spent in [*timer.own.items(), ("everything else (scope.spill, the sample's watch)", cpu - named)]:
            print(f"  {spent / count * 1e6:7.1f} µs  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
