"""Does a long-lived scratchfs process get slower? One process ages itself the way a server does, then times a fixed
set of operations and compares them with the same operations timed in a fresh process (a subprocess).

    python bench/long_lived.py [--calls 3000] [--keep 5000] [--reps 7]
    python bench/long_lived.py --trace [--calls 1500]      # what the aging left alive, host state dropped

Aging (``--calls`` rounds, each in the one scope of a fresh store under the system temp directory): a spill of real
content -- a whole file of ``fixtures/`` or ``fixtures/tools/``, or a slice of one at a varied offset --, a 4 KiB
read and a search of it through the model-facing tools (:class:`~scratchfs.api.contract.ScratchTools`), a jq read of
one of the JSON fixtures every fourth round and a scratchpad write every second. The replies of the last ``--keep``
calls stay alive, as a host keeps its state (an MCP server's session, an agent's transcript).

The timed operations (calling-thread CPU, ``time.thread_time``; median over ``--reps`` of a batch, per call): describe
of a closed 512 KiB JSON array of small arrays (``bench/json_shape_costs.py``'s), a spill of 16 KiB of the corpus, a
4 KiB read, a substring search and a jq read. They run in the fresh process after one warm-up of each, and in the aged
process three times: aged (the host's replies alive), with the replies dropped (``gc.collect()``: what scratchfs
itself keeps), and with the replies alive but frozen (``gc.freeze()``, the guidance for a host with a large heap).
Beside them: the collector's counts and collections (``gc.get_stats``), the tracked objects (``len(gc.get_objects())``),
the time of a ``gc.collect(2)`` and the collections that ran during each timed batch (``gc.callbacks``).

``--trace``: ages with ``--keep 0`` under ``tracemalloc`` and prints the allocation sites whose live memory grew most
(scratchfs's own first) and the object types whose count grew: a cache that grows without bound shows there.
``--transcript N``: a host's transcript of N messages kept alive besides; ``--scatter N``: the host made N small
objects of mixed kinds and freed half of them in a random order (``--ordered``: the same half in the order made).

What it printed on 2026-12-07, 10:43-11:05 UTC (other helpers running, load 3-6; CPython 3.11.7; fresh -> aged):

* 3,000 rounds, 5,000 replies kept (tracked objects 47,000 -> 68,000): every operation 0.97-1.03x; describe
  17.0 -> 17.1 ms. With a transcript of 300,000 messages (1.57 million tracked objects, ``gc.collect(2)`` 335 ms):
  0.88-1.10x, no full collection during the timed batches (CPython 3.11 runs one only once the objects that
  survived since the last reach a quarter of the old ones), and none in describe (the collector is paused for its
  parse, scratchfs/foundation/collector.py).
* ``--scatter 1000000`` (233,000 tracked objects): describe 18.2 -> 52.8 ms (2.90x), 46.3 ms (2.55x) under
  ``gc.freeze()``, 20.8 ms with the host's objects dropped; no collection ran during it. ``--ordered``, the same
  objects alive and the same collector state: 17.7 -> 23.4 ms (1.32x). Again at 11:04 (load 6.7): 2.45x scattered,
  1.40x ordered. The other operations: 0.98-1.15x scattered (a spill's 1.53x of the first run was 0.98x in the
  second), 1.03-1.23x ordered: noise at these loads.
* The describe's parse alone, ``json.loads`` of the same 512 KiB with the collector disabled: parse 12.2 -> 23.2 ms
  and freeing the value 3.2 -> 13.8 ms in the scattered heap; 14.3 -> 10.7 and 4.0 -> 4.0 ms in the ordered one.
* ``--trace --calls 8000``: what scratchfs itself keeps levels off (tracked objects 58,070, 59,898, 61,929, 63,885
  after each quarter): the growth is ``parse_location``'s cache (scratchfs/engine/segments.py, 8,192 entries at most,
  about 470 bytes each), the seek tables (512) and line tables (256); no cache grows without bound.

So a long-lived process slows the describe of JSON of many small containers by where its free memory lies, not by
what scratchfs keeps nor by the collector: a parse's 35,000-40,000 lists land in free blocks scattered over the
host's heap (pymalloc hands out the blocks freed last first). A pytest worker is such a heap: after 2,130 tests of
``tests/test_[a-d]*.py`` run in one process (480,000-560,000 tracked objects, the collector enabled, no trace or
tracemalloc left on), the three documents of tests/test_hostile26_cost.py took 23.7-34.7, 26.9-34.1 and 5.1-7.0 ms
against 18.2, 15.5 and 3.4 ms fresh. ``gc.freeze()`` does not help it; building fewer containers would.
Since a large closed array is parsed in 4 KiB pieces, each dropped before the next (scratchfs/api/json_chunks.py,
jsonsample1, 13:48 UTC, load 12): ``--scatter 1000000`` describe 16.0 -> 20.7 ms (1.29x), against 17.9 -> 45.4 ms
(2.53x) for main at 13:50 UTC.
"""

from __future__ import annotations

import argparse
import collections
import gc
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import benchlib

from scratchfs import ScratchStore
from scratchfs.api.contract import ScratchTools
from scratchfs.api.shape import describe

JSON_FILES = ("tools/ruff-check-sarif.json", "tools/sqlite-json-sizes.json", "tools/jq-pip-list-stream.json")
JQ_FILTERS = ("keys", ".[0]", "length", "[paths] | length", "map(type)? // type")
WORDS = ("error", "the", "def ", "usr", "0", "name", "ERROR", "id")
# name: (calls per batch, what one call does) -- filled by _operations
BATCH = {"describe 512 KiB JSON array of arrays": 2, "spill 16 KiB": 20, "read 4 KiB": 100,
         "search (substring)": 20, "jq read": 10}


def _arrays() -> bytes:
    text = b"[" + b"[[1,2],[3]], " * (512 * 1024 // 13)
    return text[: 512 * 1024 - 20].rsplit(b",", 1)[0] + b"]"


def _real_files() -> list[bytes]:
    folder = benchlib.FIXTURES
    paths = sorted(p for p in [*folder.iterdir(), *(folder / "tools").iterdir()]
                   if p.is_file() and p.suffix not in {".py", ".md"})
    return [p.read_bytes() for p in paths]


class Host:
    """A store, its tools and the handles the timed operations use."""

    def __init__(self, root: str) -> None:
        self.store = ScratchStore(root)
        self.scope = self.store.scope("run-long", "agent-1")
        self.tools = ScratchTools(self.scope)
        corpus = benchlib.corpus()
        self.slices = [corpus[i * 16384:(i + 1) * 16384] for i in range(len(corpus) // 16384)]
        self.grep = self.scope.spill((benchlib.FIXTURES / "workspace-grep-stdlib-defs.txt").read_bytes()).handle
        self.sarif = self.scope.spill((benchlib.FIXTURES / JSON_FILES[0]).read_bytes()).handle
        self.arrays = _arrays()
        self.spills = 0

    def operations(self) -> dict:
        def spill() -> object:
            self.spills += 1
            return self.scope.spill(self.slices[self.spills % len(self.slices)] + b"%d\n" % self.spills)

        return {"describe 512 KiB JSON array of arrays": lambda: describe(self.arrays, len(self.arrays), 1),
                "spill 16 KiB": spill,
                "read 4 KiB": lambda: self.tools.call("read_handle", {"handle": self.grep, "offset": 65536,
                                                                      "length": 4096}),
                "search (substring)": lambda: self.tools.call("read_handle", {"handle": self.grep,
                                                                              "match": "class "}),
                "jq read": lambda: self.tools.call("read_handle", {"handle": self.sarif,
                                                                   "jq": ".runs[0].results | length"})}

    def age(self, calls: int, keep: int, transcript: int = 0) -> collections.deque:
        """``calls`` rounds of server work; the replies of the last ``keep`` calls are returned alive, and beside
        them a transcript of ``transcript`` messages (each a few dicts and lists, as an agent host parses them)."""
        kept: collections.deque = collections.deque(maxlen=keep or None)
        messages: collections.deque = collections.deque(maxlen=transcript or None)
        files = _real_files()
        jsons = [self.scope.spill((benchlib.FIXTURES / name).read_bytes()).handle for name in JSON_FILES]
        for i in range(calls):
            data = files[i % len(files)]
            if i // len(files) % 2 and len(data) > 8192:  # every second pass: a slice at a varied offset
                at = (i * 7919) % (len(data) - 4096)
                data = data[at:at + 4096 + (i * 104729) % 60000]
            stub = self.scope.spill(data, source_tool=f"tool_{i % 37}")
            kept.append(stub.to_dict())
            kept.append(self.tools.call("read_handle", {"handle": stub.handle, "offset": (i * 131) % max(1, stub.size),
                                                        "length": 4096}))
            kept.append(self.tools.call("read_handle", {"handle": stub.handle, "match": WORDS[i % len(WORDS)]}))
            if i % 4 == 0:
                kept.append(self._jq(jsons[i % len(jsons)], JQ_FILTERS[i // 4 % len(JQ_FILTERS)]))
            if i % 2 == 0:
                kept.append(self.tools.call("scratch_write", {"key": f"notes/{i % 500}", "value": f"step {i}: " +
                                                              stub.handle * 20}))
            for n in range(transcript and transcript // calls + 1):
                messages.append({"role": "tool", "id": i * 1000 + n, "content": [
                    {"type": "text", "text": stub.handle, "meta": {"size": stub.size, "tags": [i, n]}}]})
        if transcript:
            kept.append(messages)
        if not keep:
            kept.clear()
        return kept

    def _jq(self, handle: str, jq: str) -> dict:
        try:
            return self.tools.call("read_handle", {"handle": handle, "jq": jq})
        except Exception as exc:  # (a filter that does not fit a fixture is a reply too: an error a model reads)
            return {"error": str(exc)}


def host_heap(count: int, shuffled: bool) -> list:
    """``count`` small objects of mixed kinds and sizes (lists, dicts, tuples, strings), half of them then freed --
    in a random order (``shuffled``: as a long-lived process frees what unrelated calls made) or in the order they
    were made. The same half is freed and the same objects stay alive either way: only the order of pymalloc's free
    blocks differs."""
    rnd = random.Random(1)
    made: list = []
    for i in range(count):
        kind = rnd.randrange(6)
        made.append([i] if kind == 0 else {"a": i} if kind == 1 else (i, str(i)) if kind == 2 else
                    "x" * rnd.randrange(1, 200) if kind == 3 else [i] * rnd.randrange(1, 20) if kind == 4 else
                    {f"k{j}": j for j in range(rnd.randrange(1, 9))})
    freed = [i for i in range(count) if rnd.random() < 0.5]
    if shuffled:
        rnd.shuffle(freed)
    for i in freed:
        made[i] = None
    return made


class Collections:
    """The collector's passes while installed: count and seconds per generation (``gc.callbacks``)."""

    def __init__(self) -> None:
        self.count = [0, 0, 0]
        self.seconds = [0.0, 0.0, 0.0]
        self._start = 0.0

    def __call__(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._start = time.perf_counter()
        else:
            self.count[info["generation"]] += 1
            self.seconds[info["generation"]] += time.perf_counter() - self._start


def timed(host: Host, reps: int) -> dict[str, dict]:
    """Per operation: the median calling-thread CPU of a call (ms) over ``reps`` batches and the collections that ran
    during them (count per generation, ms per call in them)."""
    out = {}
    for name, function in host.operations().items():
        function()  # warm-up
        seen = Collections()
        gc.callbacks.append(seen)
        per_call = []
        try:
            for _ in range(reps):
                start = time.thread_time()
                for _ in range(BATCH[name]):
                    function()
                per_call.append((time.thread_time() - start) / BATCH[name] * 1000)
        finally:
            gc.callbacks.remove(seen)
        calls = reps * BATCH[name]
        out[name] = {"ms": statistics.median(per_call), "gc": seen.count,
                     "gc_ms": [round(s / calls * 1000, 3) for s in seen.seconds]}
    return out


def heap(label: str) -> dict:
    """The collector's state now."""
    stats = gc.get_stats()
    return {"label": label, "count": gc.get_count(), "collections": [s["collections"] for s in stats],
            "tracked": len(gc.get_objects()), "rss_mib": benchlib.rss_bytes() / benchlib.MIB}


def full_collection_ms() -> float:
    start = time.perf_counter()
    gc.collect(2)
    return (time.perf_counter() - start) * 1000


def fresh(reps: int) -> dict[str, dict]:
    root = tempfile.mkdtemp(prefix="longlived-fresh-")
    try:
        host = Host(root)
        result = timed(host, reps)
        host.store.close()
        return result
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _fresh_subprocess(reps: int) -> dict[str, dict]:
    done = subprocess.run([sys.executable, __file__, "--fresh", "--reps", str(reps)], capture_output=True, text=True,
                          check=True)
    return json.loads(done.stdout)


def _print_heap(state: dict) -> None:
    print(f"  {state['label']:28} gc.get_count {state['count']}  collections {state['collections']}  "
          f"tracked objects {state['tracked']:,}  RSS {state['rss_mib']:.0f} MiB")


def _print_table(columns: dict[str, dict[str, dict]]) -> None:
    base = columns["fresh"]
    print(f"{'operation':40}" + "".join(f"{name:>22}" for name in columns))
    for op in base:
        cells = []
        for name, result in columns.items():
            ms = result[op]["ms"]
            cells.append(f"{ms:9.3f} ms" + ("" if name == "fresh" else f" ({ms / base[op]['ms']:4.2f}x)"))
        print(f"{op:40}" + "".join(f"{c:>22}" for c in cells))
    print("collections during the timed batches (gen0, gen1, gen2) and their ms per call:")
    for name, result in columns.items():
        print(f"  {name:10} " + "; ".join(f"{op.split()[0]} {r['gc']} {r['gc_ms']}" for op, r in result.items()))


def aged(calls: int, keep: int, reps: int, transcript: int, scatter: int, ordered: bool) -> None:
    print(f"load average {os.getloadavg()}, python {sys.version.split()[0]}, calls {calls}, replies kept {keep}, "
          f"transcript messages {transcript}, host objects {scatter} (half freed "
          f"{'in the order made' if ordered else 'in a random order'})")
    base = _fresh_subprocess(reps)
    root = tempfile.mkdtemp(prefix="longlived-aged-")
    try:
        host = Host(root)
        timed(host, 1)  # the same warm-up as the fresh process's
        states = [heap("before aging")]
        start = time.perf_counter()
        heap_kept = host_heap(scatter, not ordered)
        kept = host.age(calls, keep, transcript)
        kept.append(heap_kept)
        del heap_kept
        print(f"aged in {time.perf_counter() - start:.1f} s ({len(kept):,} replies alive)")
        states.append(heap("after aging"))
        columns = {"fresh": base, "aged": timed(host, reps)}
        gen2_ms = full_collection_ms()
        frozen_at = heap("after a gc.collect(2)")
        gc.freeze()
        columns["aged+freeze"] = timed(host, reps)
        gc.unfreeze()
        kept.clear()
        gc.collect()
        columns["dropped"] = timed(host, reps)
        states += [frozen_at, heap("replies dropped")]
        for state in states:
            _print_heap(state)
        print(f"  gc.collect(2) in the aged process: {gen2_ms:.1f} ms; after the replies dropped: "
              f"{full_collection_ms():.1f} ms; gc.get_threshold {gc.get_threshold()}")
        columns["fresh2"] = _fresh_subprocess(reps)  # (a second fresh run: the noise of the machine)
        _print_table(columns)
        host.store.close()
    finally:
        shutil.rmtree(root, ignore_errors=True)


def trace(calls: int) -> None:
    """What aging with no host state left alive, by allocation site and by type."""
    import tracemalloc

    root = tempfile.mkdtemp(prefix="longlived-trace-")
    try:
        host = Host(root)
        timed(host, 1)
        host.age(50, 0)  # every path once before the first snapshot
        gc.collect()
        types_before = collections.Counter(type(o).__name__ for o in gc.get_objects())
        tracemalloc.start(8)
        first = tracemalloc.take_snapshot()
        counts = []
        for _ in range(4):  # (a bounded cache stops growing: the tracked objects level off)
            host.age(calls // 4, 0)
            gc.collect()
            counts.append(len(gc.get_objects()))
        second = tracemalloc.take_snapshot()
        tracemalloc.stop()
        types_after = collections.Counter(type(o).__name__ for o in gc.get_objects())
        print(f"load average {os.getloadavg()}; {calls} rounds aged, no replies kept; tracked objects after each "
              f"quarter: {counts}")
        grew = (types_after - types_before).most_common(12)
        print("tracked objects that grew, by type:", ", ".join(f"{n} +{c}" for n, c in grew) or "none")
        stats = second.compare_to(first, "traceback")
        total = sum(s.size_diff for s in stats)
        print(f"live Python memory grew {total / 1024:.1f} KiB; largest growths (an allocation's first frame in "
              "scratchfs):")
        for stat in sorted(stats, key=lambda s: -s.size_diff)[:12]:
            own = next((f for f in stat.traceback if "scratchfs" in f.filename), stat.traceback[0])
            print(f"  {stat.size_diff / 1024:9.1f} KiB  {stat.count_diff:+7d} blocks  {own.filename}:{own.lineno}")
        host.store.close()
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=3000)
    parser.add_argument("--keep", type=int, default=5000)
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--transcript", type=int, default=0, help="messages of a host's transcript kept alive")
    parser.add_argument("--fresh", action="store_true", help="(internal) time the operations in this new process")
    parser.add_argument("--scatter", type=int, default=0, help="small objects a host makes, half then freed")
    parser.add_argument("--ordered", action="store_true", help="--scatter's half freed in the order made")
    parser.add_argument("--trace", action="store_true")
    args = parser.parse_args()
    if args.fresh:
        print(json.dumps(fresh(args.reps)))
    elif args.trace:
        trace(args.calls)
    else:
        aged(args.calls, args.keep, args.reps, args.transcript, args.scatter, args.ordered)


if __name__ == "__main__":
    main()
