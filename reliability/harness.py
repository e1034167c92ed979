"""The SIGKILL harness: worker processes that run scratchfs operations and report each one through a pipe, and a
checker that reopens the store in a new process and verifies what survived.

``tests/test_crash.py`` runs a short version; ``reliability/run.py`` the long one. Run as a script it is the worker
(``harness.py worker ROOT WID SEED``) or the checker (``harness.py check ROOT MODEL.json``).

Worker protocol: one JSON object per line on stdout, each written with a single ``os.write`` to the pipe *before* the
worker goes on, so a line the parent has read is a fact that happened before any later kill::

    {"t": "start", "pid": ...}                   the store is open
    {"t": "begin", "seq": n, "op": ..., ...}     the operation is about to run (what it will write)
    {"t": "ack", "seq": n, ...}                  it returned: acknowledged
    {"t": "err", "seq": n, "error": ..., ...}    it raised: an error that reached a caller
    {"t": "read", "seq": n}                      a read (op "read") returned the right bytes
    {"t": "bad", "seq": n, "what": ...}          a read of a live entry failed or returned wrong bytes

Every content is self-describing (:func:`make_content`: a header with its seed and size, then bytes derived from the
seed), so any bytes read back can be checked against the only right answer.

Each worker owns its runs (``delete_run`` of one worker never touches another's data) but all workers share one root:
one index, one sweep lock, one ``locks/`` directory, and sweeps that see every worker's files in flight. Sweeps run
with ``orphan_grace=0``, so only the writers' ``flock`` protects their in-flight files.

The parent (:func:`crash_round`) keeps a model of what each worker's runs must hold, applies the acknowledged
operations to it, leaves the one operation in flight at the kill (if any) open, and hands the model to the checker
(:func:`check`) in a new process, which verifies every entry, then sweeps and looks for leftovers. The checker's view
of the store becomes the model for the next round.
"""

from __future__ import annotations

import json
import os
import random
import re
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

HARNESS = Path(__file__).resolve()
FRAME_BYTES = 16 * 1024  # small frames: most contents span several
LONG_TTL = 3600.0
SHORT_TTL = 1.0  # the shortest TTL a store takes (scratchfs.foundation.limits.MIN_TTL)
HEADER_RE = re.compile(rb"scratchfs-harness seed=(\d+) size=(\d+)\n")
_TEXTISH = bytes(b"abcdefghij klm\n\t"[i % 16] for i in range(256))  # byte -> one of 16 characters


# -- contents -----------------------------------------------------------------------------------------------------

def make_content(seed: int, size: int) -> bytes:
    """The content of ``seed``: a header naming seed and size, then ``size`` bytes in all (``size`` >= 64).

    Even seeds give text-like bytes (compressible), odd seeds random bytes (incompressible)."""
    header = b"scratchfs-harness seed=%d size=%d\n" % (seed, size)
    body = random.Random(seed).randbytes(max(0, size - len(header)))
    if seed % 2 == 0:
        body = body.translate(_TEXTISH)
    return (header + body)[:size]


def content_seed(data: bytes) -> int | None:
    """The seed of a content made by :func:`make_content`, or ``None`` if ``data`` is not exactly such a content."""
    m = HEADER_RE.match(data)
    if m is None:
        return None
    seed, size = int(m.group(1)), int(m.group(2))
    if len(data) != size or data != make_content(seed, size):
        return None
    return seed


_DUMP_LINE_RE = re.compile(r"[0-9a-f]{8}  ((?:[0-9a-f]{2} ?)+?)\s*\|")


def preview_seed(preview: str) -> tuple[int, int] | None:
    """``(seed, size)`` from the header at the start of an entry's preview: its text, or the hex dump a binary
    entry's listing preview is (``00000000  73 63 72 ...  |scr...|``, a line of 16 bytes)."""
    m = HEADER_RE.match(preview.encode("utf-8", "replace"))
    if m is None and preview.startswith("00000000  "):
        dumped = b"".join(bytes.fromhex(found.group(1)) for found in _DUMP_LINE_RE.finditer(preview))
        m = HEADER_RE.match(dumped)
    return (int(m.group(1)), int(m.group(2))) if m else None


def worker_names(wid: int) -> tuple[list[str], list[str]]:
    """Run ids and agent ids of worker ``wid``: a plain one and some that are hostile as path parts."""
    runs = [f"w{wid}-r0", f"w{wid}/../r1 é", f"W{wid}\\..\\r2"]
    agents = ["a0", "agent ü/1"]
    return runs, agents


def pick_size(rng: random.Random) -> int:
    roll = rng.random()
    if roll < 0.7:
        return rng.randrange(64, 4096)
    if roll < 0.93:
        return rng.randrange(4096, 64 * 1024)
    return rng.randrange(64 * 1024, 320 * 1024)


# -- the worker ---------------------------------------------------------------------------------------------------

def _emit(obj: dict) -> None:
    os.write(1, (json.dumps(obj, ensure_ascii=True) + "\n").encode())


OPS = ("spill", "scratch_write", "read", "scratch_delete", "sweep", "delete_run", "delete_agent")
WEIGHTS = (30, 24, 30, 4, 5, 4, 3)


def _warm_up() -> None:
    """Load the modules a store loads at its first write or read (shape detection, the stub, the read path: loaded
    when first used, so that a command that needs none of them never pays for them) before the worker reports its
    start: its random kill, timed from that report, then lands on operations, not on their imports (a first write
    took 0.3-0.4 s of imports, longer than most kills' 0.01-0.8 s: 12 operations were acknowledged in 30 kills at
    a load of 5, where a warm worker acknowledges thousands). Kills during start-up are the ``early`` share's."""
    import importlib

    for name in ("scratchfs.api.shape", "scratchfs.api.stub", "scratchfs.api.json_part", "scratchfs.api.views"):
        importlib.import_module(name)


def worker(root: str, wid: int, seed: int, kill_point: str | None = None) -> None:
    """Run random operations on worker ``wid``'s runs until killed (see the module docstring).

    ``kill_point`` (deterministic crash tests): run a short fixed script, then arm a SIGKILL at that point of the
    code (see :data:`KILL_POINTS`) and run the operation that reaches it.
    """
    from scratchfs import ScratchError, ScratchStore

    _warm_up()
    rng = random.Random(seed)
    runs, agents = worker_names(wid)
    lag = [0.0]  # (scripted: seconds the store's clock runs behind, see _scripted; else the store's own clock)
    now = time.time if kill_point is None else lambda: time.time() - lag[0]
    store = ScratchStore(root, orphan_grace=0.0, frame_bytes=FRAME_BYTES, busy_timeout=60.0, clock=now)
    handles: dict[str, tuple[str, str, int, int]] = {}  # handle -> run, agent, seed, size (long TTL only)
    keys: dict[tuple[str, str, str], tuple[int, int]] = {}  # (run, agent, key) -> seed, size (long TTL only)
    for run in runs:
        for e in store.list_entries_for_run(run):
            found = preview_seed(e.preview)
            if found is None or e.ttl < 60:
                continue
            if e.kind == "handle":
                handles[e.key] = (run, e.agent_id, *found)
            else:
                keys[(run, e.agent_id, e.key)] = found
    _emit({"t": "start", "pid": os.getpid(), "handles": len(handles), "keys": len(keys)})
    seq = 0

    def run_op(op: str, **params) -> tuple[bool, object]:
        """Run one mutating operation between its begin and ack lines; return (it returned, its result)."""
        nonlocal seq
        seq += 1
        content = params.pop("content", None)
        _emit({"t": "begin", "seq": seq, "op": op, "time": now(), **params})
        scope = store.scope(params["run"], params["agent"]) if "agent" in params else None
        try:
            if op == "spill":
                result = scope.spill(content, source_tool="harness", ttl=params["ttl"]).handle
            elif op == "scratch_write":
                scope.scratch_write(params["key"], content, ttl=params["ttl"])
                result = None
            elif op == "scratch_delete":
                result = scope.scratch_delete(params["key"])
            elif op == "sweep":
                r = store.sweep()
                result = [r.rows_deleted, r.files_deleted, r.orphans_removed, r.missing_files]
            elif op == "delete_run":
                result = store.delete_run(params["run"])
            elif op == "delete_agent":
                result = store.delete_agent(params["run"], params["agent"])
            else:  # pragma: no cover
                raise AssertionError(op)
        except ScratchError as exc:
            _emit({"t": "err", "seq": seq, "error": type(exc).__name__, "message": str(exc)})
            return False, None
        _emit({"t": "ack", "seq": seq, "result": result, "time": now()})
        return True, result

    def verify_read(what: str, got: bytes, want: bytes) -> None:
        if got != want:
            _emit({"t": "bad", "seq": seq, "what": f"wrong bytes from {what}"})

    def do_read() -> None:
        nonlocal seq
        seq += 1
        pool = [("h", h) for h in handles] + [("k", k) for k in keys]
        if not pool:
            return
        kind, name = rng.choice(pool)
        _emit({"t": "begin", "seq": seq, "op": "read", "time": time.time()})
        try:
            if kind == "h":
                run, agent, cseed, size = handles[name]
                data = make_content(cseed, size)
                scope = store.scope(run, agent)
                if rng.random() < 0.8:
                    offset = rng.randrange(size + 1)
                    length = rng.choice((1, 100, 4096, 65536, 10**9))
                    sl = scope.read_handle(name, offset, length)
                    verify_read("a range read", sl.data, data[offset : offset + min(length, 65536)])
                    if sl.size != size:
                        _emit({"t": "bad", "seq": seq, "what": "wrong size from a range read"})
                else:
                    at = rng.randrange(max(1, size - 6))
                    needle = data[at : at + 6]
                    m = scope.read_handle(name, match=needle, context=8, max_matches=4)
                    hits = [h.offset for w in m.windows for h in w.matches]
                    want, pos = [], data.find(needle)
                    while pos >= 0 and len(want) < len(hits):
                        want.append(pos)
                        pos = data.find(needle, pos + len(needle))
                    if hits != want or not hits or any(
                        w.data != data[w.offset : w.offset + len(w.data)] for w in m.windows
                    ):
                        _emit({"t": "bad", "seq": seq, "what": "wrong windows from a search"})
            else:
                run, agent, key = name
                cseed, size = keys[name]
                verify_read("scratch_read", store.scope(run, agent).scratch_read(key), make_content(cseed, size))
        except ScratchError as exc:
            _emit({"t": "bad", "seq": seq, "what": f"{type(exc).__name__} reading a live entry: {exc}"})
            return
        _emit({"t": "read", "seq": seq})

    if kill_point is not None:
        _scripted(store, rng, runs, agents, run_op, kill_point, lag)
        return

    while True:
        op = rng.choices(OPS, WEIGHTS)[0]
        run, agent = rng.choice(runs), rng.choice(agents)
        if op == "read":
            do_read()
        elif op in ("spill", "scratch_write"):
            cseed, size = rng.getrandbits(40), pick_size(rng)
            ttl = LONG_TTL if rng.random() < 0.9 else rng.uniform(SHORT_TTL, 2.0)
            params = {"run": run, "agent": agent, "seed": cseed, "size": size, "ttl": ttl}
            if op == "scratch_write":
                params["key"] = f"k{rng.randrange(4)}"
            ok, result = run_op(op, content=make_content(cseed, size), **params)
            if op == "spill" and ok and ttl == LONG_TTL:
                handles[result] = (run, agent, cseed, size)
            elif op == "scratch_write":
                k = (run, agent, params["key"])
                keys.pop(k, None)
                if ok and ttl == LONG_TTL:
                    keys[k] = (cseed, size)
        elif op == "scratch_delete":
            key = f"k{rng.randrange(4)}"
            live = (run, agent, key) in keys
            ok, result = run_op(op, run=run, agent=agent, key=key)
            keys.pop((run, agent, key), None)
            if live and ok and result is False:
                _emit({"t": "bad", "seq": seq, "what": "scratch_delete of a live key returned False"})
        elif op == "sweep":
            run_op(op)
        elif op == "delete_run":
            run_op(op, run=run)
            handles = {h: v for h, v in handles.items() if v[0] != run}
            keys = {k: v for k, v in keys.items() if k[0] != run}
        else:
            run_op(op, run=run, agent=agent)
            handles = {h: v for h, v in handles.items() if v[:2] != (run, agent)}
            keys = {k: v for k, v in keys.items() if k[:2] != (run, agent)}


# -- deterministic crash points -----------------------------------------------------------------------------------

_BLOBS = "scratchfs.engine.local_blobs"
_SEGMENTS = "scratchfs.engine.segment_writer"
_WRITE_BEHIND = "scratchfs.engine.write_behind"
KILL_POINTS = {
    # name: (module path, class, method, "before"/"after", the operation that reaches it)
    "spill: blob half written": ("scratchfs.engine.seekable", None, "_write_all", "after", "spill"),
    "spill: blob written, row not committed": ("scratchfs.engine.sqlite_index", "Index", "put", "before", "spill"),
    "overwrite: row committed, old blob still there": (_BLOBS, "PendingBlob", "release", "before",
                                                       "scratch_write"),
    "delete_run: before the directory moves": (_BLOBS, "Blobs", "move_to_trash", "before",
                                               "delete_run"),
    "delete_run: directory moved to trash": (_BLOBS, "Blobs", "move_to_trash", "after", "delete_run"),
    "delete_agent: directory moved to trash": (_BLOBS, "Blobs", "move_to_trash", "after",
                                               "delete_agent"),
    "sweep: expired rows deleted, files not removed": (_BLOBS, "Blobs", "unlink", "before", "sweep"),
    "sweep: removing orphans": ("scratchfs.engine.sweeper", None, "check_orphan", "before", "sweep"),
    # a small spill's one write: its segment record (safe_fs.write_all at the segment's end)
    "spill: segment record written, row not committed": ("scratchfs.engine.safe_fs", None, "write_all", "after",
                                                         "spill"),
    "overwrite: row committed, segment write not released": (_SEGMENTS, "SegmentPending", "release", "before",
                                                             "scratch_write"),
    "sweep: judging a segment": ("scratchfs.engine.segment_sweep", None, "_judge", "before", "sweep"),
    "scratch_delete: row deleted, file not removed": (_BLOBS, "Blobs", "unlink", "before",
                                                      "scratch_delete"),
    # small spills acknowledged with their rows queued (engine.write_behind, the flush held back by the script);
    # the sweep's first use of the index commits them: killed as that commit starts (recovery restores them)
    "spill acknowledged, row queued, not yet committed": (_WRITE_BEHIND, "WriteBehind", "_commit", "before",
                                                          "sweep"),
}


def _arm(point: str) -> str:
    import importlib

    module_name, cls_name, method, when, op = KILL_POINTS[point]
    module = importlib.import_module(module_name)
    owner = getattr(module, cls_name) if cls_name else module
    original = getattr(owner, method)

    def wrapper(*args, **kwargs):
        if when == "before":
            os.kill(os.getpid(), signal.SIGKILL)
        result = original(*args, **kwargs)
        os.kill(os.getpid(), signal.SIGKILL)
        return result

    setattr(owner, method, wrapper)
    return op


def _scripted(store, rng, runs, agents, run_op, point: str, lag: list[float]) -> None:
    """A fixed history (spills, scratch writes, an expired entry, an orphan), then the operation that reaches
    ``point`` with a SIGKILL armed there. The expired entry is written with the store's clock (and the times the
    worker reports) ``lag[0]`` seconds behind: made a TTL and a little ago, as a sleep past its TTL made it, without
    the sleep (1.05 s of each kill point's round)."""
    run, agent = runs[1], agents[1]
    if KILL_POINTS[point][0] == _WRITE_BEHIND:  # rows queued stay queued until the index is used (no flusher timer)
        from scratchfs.engine import write_behind

        write_behind.FLUSH_DELAY = 3600.0
    for i in range(3):
        cseed, size = rng.getrandbits(40), pick_size(rng)
        run_op("spill", content=make_content(cseed, size), run=run, agent=agents[i % 2], seed=cseed, size=size,
               ttl=LONG_TTL)
    for key in ("k0", "k1"):
        cseed, size = rng.getrandbits(40), 70_000
        run_op("scratch_write", content=make_content(cseed, size), run=run, agent=agent, seed=cseed, size=size,
               key=key, ttl=LONG_TTL)
    other = runs[0]
    cseed = rng.getrandbits(40)
    run_op("spill", content=make_content(cseed, 5000), run=other, agent=agent, seed=cseed, size=5000, ttl=LONG_TTL)
    cseed = rng.getrandbits(40)
    lag[0] = SHORT_TTL + 0.05  # the short-TTL entry has expired by the time the clock is back
    run_op("spill", content=make_content(cseed, 3000), run=other, agent=agent, seed=cseed, size=3000, ttl=SHORT_TTL)
    lag[0] = 0.0
    # an orphan: a file with no row (as a crash mid-write leaves one)
    orphan = store.blobs.agent_dir(other, agent) / "aaaaaaaaaaaaaaaaaaaaaaaa.zst"
    orphan.write_bytes(b"orphan")
    store.blobs.segments.close()  # its segments are left, unlocked, for the sweep to judge (as at a writer's exit)
    op = _arm(point)
    cseed, size = rng.getrandbits(40), 2_000 if "segment" in point else 200_000  # small ones go to a segment
    if op == "spill":
        run_op(op, content=make_content(cseed, size), run=run, agent=agent, seed=cseed, size=size, ttl=LONG_TTL)
    elif op == "scratch_write":
        run_op(op, content=make_content(cseed, size), run=run, agent=agent, seed=cseed, size=size, key="k0",
               ttl=LONG_TTL)
    elif op == "scratch_delete":
        run_op(op, run=run, agent=agent, key="k1")
    elif op == "delete_run":
        run_op(op, run=run)
    elif op == "delete_agent":
        run_op(op, run=run, agent=agent)
    else:
        run_op(op)
    os.kill(os.getpid(), signal.SIGKILL)  # the point was not reached: still die, the checks say what happened


# -- the model the parent keeps -----------------------------------------------------------------------------------

@dataclass
class Item:
    """One entry a worker's runs must hold: ``exp_lo <= expires_at <= exp_hi`` (epoch seconds)."""

    kind: str
    run: str
    agent: str
    key: str
    seed: int
    size: int
    exp_lo: float
    exp_hi: float

    @property
    def ident(self) -> tuple[str, str, str, str]:
        return (self.kind, self.run, self.agent, self.key)


@dataclass
class WorkerModel:
    items: dict[tuple, Item] = field(default_factory=dict)
    pending: dict | None = None  # the operation in flight at the kill, or one that raised (effect unknown)


def apply_events(model: WorkerModel, events: list[dict], kill_time: float) -> Counter:
    """Apply a worker's reported events to its model; return counts (acks, reads, errors, bad reads)."""
    counts: Counter = Counter()
    begun: dict[int, dict] = {}
    model.pending = None
    for ev in events:
        t = ev["t"]
        if t == "begin":
            begun[ev["seq"]] = ev
            model.pending = dict(ev, t_kill=kill_time)
            counts["begun" if ev["op"] != "read" else "reads begun"] += 1
        elif t == "read":
            counts["reads"] += 1
            model.pending = None
        elif t == "bad":
            counts["bad"] += 1
            counts["bad: " + ev["what"][:60]] += 1
            if model.pending and model.pending["op"] == "read":
                model.pending = None
        elif t == "err":
            counts["errors"] += 1
            counts[f"error: {ev['error']}: {ev['message'][:80]}"] += 1
            # the contract says a failed operation changed nothing; the checker holds it to "either way"
            model.pending = dict(begun[ev["seq"]], t_kill=kill_time, failed=True)
        elif t == "ack":
            counts["acks"] += 1
            op = begun[ev["seq"]]
            _apply(model, op, ev)
            model.pending = None
    return counts


def _apply(model: WorkerModel, op: dict, ack: dict) -> None:
    name = op["op"]
    if name in ("spill", "scratch_write"):
        kind = "handle" if name == "spill" else "scratch"
        key = ack["result"] if name == "spill" else op["key"]
        item = Item(kind, op["run"], op["agent"], key, op["seed"], op["size"], op["time"] + op["ttl"],
                    ack["time"] + op["ttl"])
        model.items[item.ident] = item
    elif name == "scratch_delete":
        model.items.pop(("scratch", op["run"], op["agent"], op["key"]), None)
    elif name == "delete_run":
        model.items = {i: v for i, v in model.items.items() if v.run != op["run"]}
    elif name == "delete_agent":
        model.items = {i: v for i, v in model.items.items() if (v.run, v.agent) != (op["run"], op["agent"])}


def model_to_json(models: dict[int, WorkerModel]) -> dict:
    return {
        str(wid): {"items": [vars(i) for i in m.items.values()], "pending": m.pending}
        for wid, m in models.items()
    }


def models_from_observed(observed: dict) -> dict[int, WorkerModel]:
    out = {}
    for wid, items in observed.items():
        m = WorkerModel()
        for d in items:
            item = Item(**d)
            m.items[item.ident] = item
        out[int(wid)] = m
    return out


# -- the checker (runs in a new process) --------------------------------------------------------------------------

def _read_whole(store, kind: str, run: str, agent: str, key: str) -> bytes:
    scope = store.scope(run, agent)
    if kind == "scratch":
        return scope.scratch_read(key)
    parts, offset = [], 0
    while offset is not None:
        sl = scope.read_handle(key, offset, 65536)
        parts.append(sl.data)
        offset = sl.next_offset
    return b"".join(parts)


def check(root: str, model_json: dict) -> dict:
    """Verify a store against the model after a kill (see the module docstring); return a JSON-ready report:
    counts of every kind of violation, and the observed state (the next round's model)."""
    from scratchfs import CorruptBlob, NotFound, ScratchStore
    from scratchfs.engine.local_blobs import BLOB_NAME_RE
    from scratchfs.engine.segments import SEGMENT_NAME_RE

    report: Counter = Counter()
    observed: dict[str, list] = {}
    problems: list[str] = []
    with ScratchStore(root, orphan_grace=0.0) as store:
        integrity = store.integrity_check()
        if integrity != "ok":
            report["integrity failures"] += 1
            problems.append(f"integrity_check: {integrity[:200]}")
        for wid, wm in model_json.items():
            runs, _ = worker_names(int(wid))
            pending = wm["pending"]
            expected = {(d["kind"], d["run"], d["agent"], d["key"]): d for d in wm["items"]}
            seen: dict[tuple, dict] = {}
            t_before = time.time()
            for run in runs:
                for e in store.list_entries_for_run(run):
                    ident = (e.kind, run, e.agent_id, e.key)
                    try:
                        data = _read_whole(store, e.kind, run, e.agent_id, e.key)
                    except NotFound:
                        if e.expires_at > time.time():
                            report["missing blobs"] += 1
                            problems.append(f"listed but NotFound: {ident}")
                        continue
                    except CorruptBlob as exc:
                        report["corrupt blobs"] += 1
                        problems.append(f"corrupt: {ident}: {exc}")
                        continue
                    report["entries checked"] += 1
                    seed = content_seed(data)
                    if seed is None or e.size != len(data):
                        report["wrong bytes"] += 1
                        problems.append(f"wrong bytes: {ident} ({len(data)} bytes)")
                        continue
                    seen[ident] = {"kind": e.kind, "run": run, "agent": e.agent_id, "key": e.key, "seed": seed,
                                   "size": e.size, "exp_lo": e.expires_at, "exp_hi": e.expires_at}
            t_after = time.time()
            _compare(expected, seen, pending, t_before, t_after, report, problems)
        # after one full sweep: no orphan, no in-flight file (every writer is dead), no trash left
        result = store.sweep(full=True)
        report["orphans reclaimed by the sweep"] += result.orphans_removed
        rows = store.index.blobs()
        named_segments = {blob.split(":")[1] for blob in rows if ":" in blob}  # segment entries' locations
        for dirpath, _dirs, files in os.walk(store.root / "runs"):
            for name in files:
                m = BLOB_NAME_RE.match(name) or SEGMENT_NAME_RE.match(name)
                if m is None or (m.group(1) not in rows and m.group(1) not in named_segments):
                    report["orphans left"] += 1
                    problems.append(f"left after a sweep: {os.path.join(dirpath, name)}")
        trash = store.root / "trash"
        if trash.exists() and any(trash.iterdir()):
            report["trash left"] += 1
            problems.append("trash/ not empty after a sweep")
        now = time.time()
        for wid in model_json:
            runs, _ = worker_names(int(wid))
            observed[wid] = [
                {"kind": e.kind, "run": run, "agent": e.agent_id, "key": e.key,
                 "seed": _seed_of(store, run, e), "size": e.size, "exp_lo": e.expires_at,
                 "exp_hi": e.expires_at}
                for run in runs for e in store.list_entries_for_run(run) if e.expires_at > now + 0.5
            ]
    return {"report": dict(report), "problems": problems[:50], "observed": observed}


def _seed_of(store, run: str, e) -> int | None:
    """The seed of a live entry: from its preview, else (a preview too short for the header) from its first bytes."""
    found = preview_seed(e.preview)
    if found is not None:
        return found[0]
    scope = store.scope(run, e.agent_id)
    head = scope.read_range(e.key, 0, 128).data if e.kind == "handle" else scope.scratch_read(e.key)[:128]
    m = HEADER_RE.match(head)
    return int(m.group(1)) if m else None


def _compare(expected: dict, seen: dict, pending: dict | None, t_before: float, t_after: float, report: Counter,
             problems: list[str]) -> None:
    p = pending or {}
    pop = p.get("op")

    def excused_absent(ident: tuple) -> bool:
        _kind, run, agent, _key = ident
        if pop == "delete_run" and run == p["run"]:
            return True
        if pop == "delete_agent" and (run, agent) == (p["run"], p["agent"]):
            return True
        return pop == "scratch_delete" and ident == ("scratch", p["run"], p["agent"], p["key"])

    def pending_wrote(ident: tuple, seed: int) -> bool:
        kind, run, agent, _key = ident
        if pop == "spill" and kind == "handle" and (run, agent) == (p["run"], p["agent"]) and seed == p["seed"]:
            return True
        return (pop == "scratch_write" and ident == ("scratch", p["run"], p["agent"], p["key"])
                and seed == p["seed"])

    for ident, want in expected.items():
        got = seen.get(ident)
        must_be_there = t_after < want["exp_lo"]
        must_be_gone = t_before >= want["exp_hi"]
        if got is None:
            if must_be_there and not excused_absent(ident):
                report["entries lost"] += 1
                problems.append(f"lost: {ident}")
            continue
        if got["seed"] != want["seed"]:
            if not pending_wrote(ident, got["seed"]):
                report["wrong bytes"] += 1
                problems.append(f"another value than acknowledged: {ident}")
            continue  # the write in flight at the kill replaced it: its own expiry is not in the model
        if must_be_gone:
            report["expired entries visible"] += 1
            problems.append(f"expired but visible: {ident} (expired by {t_before - want['exp_hi']:.3f} s; "
                            f"in flight: {pop})")
    for ident, got in seen.items():
        if ident not in expected and not pending_wrote(ident, got["seed"]):
            report["unexplained entries"] += 1
            problems.append(f"unexplained: {ident}")
    if pop in ("delete_run", "delete_agent"):
        # one transaction: the scope's entries are all there or all gone
        scope = [i for i, w in expected.items() if excused_absent(i) and t_after < w["exp_lo"]]
        there = sum(1 for i in scope if i in seen)
        if 0 < there < len(scope):
            report["half-done deletes"] += 1
            problems.append(f"{pop} half done: {there} of {len(scope)} entries left")


# -- the parent: one round of workers killed at random moments ------------------------------------------------------

@dataclass
class RoundResult:
    kills: int = 0
    processes: int = 0
    counts: Counter = field(default_factory=Counter)
    interrupted: Counter = field(default_factory=Counter)
    report: dict = field(default_factory=dict)
    problems: list = field(default_factory=list)


def _spawn(args: list[str]) -> subprocess.Popen:
    env = dict(os.environ, PYTHONHASHSEED="0")
    return subprocess.Popen([sys.executable, str(HARNESS), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env)


def _parse(buffer: bytes) -> list[dict]:
    lines = buffer.split(b"\n")
    return [json.loads(line) for line in lines[:-1] if line]  # a last line cut by the kill is not a fact


def run_workers(root: str, specs: list[tuple[int, int, float, bool, str | None]]) -> tuple[dict, dict, dict]:
    """Start one worker per ``(wid, seed, kill_after, early, kill_point)`` and SIGKILL it ``kill_after`` seconds
    after it reported its start (``early``: after it was spawned, so during start-up); ``kill_point`` workers kill
    themselves. Returns ``(events, kill_times, returncodes)`` by wid."""
    procs = {}
    buffers: dict[int, bytearray] = {}
    stderr: dict[int, bytearray] = {}
    sel = selectors.DefaultSelector()
    start = time.monotonic()
    deadline: dict[int, float] = {}
    after_start: dict[int, float] = {}
    for wid, seed, kill_after, early, point in specs:
        args = ["worker", root, str(wid), str(seed)] + ([point] if point else [])
        p = _spawn(args)
        procs[wid] = p
        buffers[wid], stderr[wid] = bytearray(), bytearray()
        if early:
            deadline[wid] = start + kill_after
        else:
            after_start[wid] = kill_after
            deadline[wid] = start + 600.0  # until it reports its start
        os.set_blocking(p.stdout.fileno(), False)
        os.set_blocking(p.stderr.fileno(), False)
        sel.register(p.stdout, selectors.EVENT_READ, (wid, buffers))
        sel.register(p.stderr, selectors.EVENT_READ, (wid, stderr))
    kill_times: dict[int, float] = {}
    open_streams = 2 * len(procs)
    try:
        while open_streams:
            now = time.monotonic()
            for wid, p in procs.items():
                if wid not in kill_times and now >= deadline[wid]:
                    if p.poll() is None:
                        p.send_signal(signal.SIGKILL)
                    kill_times[wid] = time.time()
            pending = [d for w, d in deadline.items() if w not in kill_times]
            timeout = max(0.0, min(pending) - now) if pending else 0.5
            for key, _ in sel.select(timeout):
                wid, target = key.data
                chunk = os.read(key.fileobj.fileno(), 1 << 16)
                if chunk:
                    target[wid] += chunk
                    if wid in after_start and target is buffers and b'"t": "start"' in target[wid]:
                        deadline[wid] = time.monotonic() + after_start.pop(wid)
                else:
                    sel.unregister(key.fileobj)
                    open_streams -= 1
        codes = {wid: p.wait() for wid, p in procs.items()}
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.kill()
                p.wait()
            p.stdout.close()
            p.stderr.close()
        sel.close()
    for wid in procs:
        kill_times.setdefault(wid, time.time())
        if codes.get(wid) != -signal.SIGKILL and stderr[wid]:
            sys.stderr.write(f"worker {wid} exited with {codes.get(wid)}:\n{stderr[wid].decode(errors='replace')}")
    return {wid: _parse(bytes(b)) for wid, b in buffers.items()}, kill_times, codes


def run_check(root: str, models: dict[int, WorkerModel]) -> dict:
    """Run :func:`check` in a new process and return its result."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(model_to_json(models), f)
        path = f.name
    try:
        p = _spawn(["check", root, path])
        out, err = p.communicate(timeout=600)
    finally:
        os.unlink(path)
    if p.returncode != 0:
        raise RuntimeError(f"the checker failed ({p.returncode}):\n{err.decode(errors='replace')}")
    return json.loads(out)


def crash_round(root: str, models: dict[int, WorkerModel], rng: random.Random, max_life: float = 0.8,
                early: float = 0.1) -> RoundResult:
    """Start a worker for each model, kill each at a random moment (a share ``early`` of them during start-up),
    check the store in a new process, and replace ``models`` with what the checker observed."""
    specs = []
    for wid in models:
        if rng.random() < early:
            specs.append((wid, rng.getrandbits(48), rng.uniform(0.0, 0.4), True, None))
        else:
            specs.append((wid, rng.getrandbits(48), rng.uniform(0.01, max_life), False, None))
    return _finish_round(root, models, specs)


def _finish_round(root: str, models: dict[int, WorkerModel], specs: list) -> RoundResult:
    events, kill_times, codes = run_workers(root, specs)
    result = RoundResult(processes=len(specs) + 1)
    for wid, evs in events.items():
        result.counts += apply_events(models[wid], evs, kill_times[wid])
        if codes[wid] == -signal.SIGKILL:
            result.kills += 1
        else:
            result.counts["workers that died otherwise"] += 1
        pending = models[wid].pending
        result.interrupted[pending["op"] if pending else ("start-up" if not evs else "between operations")] += 1
    checked = run_check(root, models)
    result.report, result.problems = checked["report"], checked["problems"]
    models.clear()
    models.update(models_from_observed(checked["observed"]))
    return result


def kill_point_round(root: str, point: str, seed: int = 1) -> RoundResult:
    """One worker runs the scripted history and dies at ``point``; then the check."""
    models = {0: WorkerModel()}
    return _finish_round(root, models, [(0, seed, 60.0, True, point)])


if __name__ == "__main__":
    if sys.argv[1] == "worker":
        worker(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] if len(sys.argv) > 5 else None)
    elif sys.argv[1] == "check":
        with open(sys.argv[3]) as fh:
            model = json.load(fh)
        print(json.dumps(check(sys.argv[2], model)))
    else:
        sys.exit(f"usage: {sys.argv[0]} worker ROOT WID SEED [KILL_POINT] | check ROOT MODEL.json")
