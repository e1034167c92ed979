"""Growth figures (issue 13): one store measured at 1k, 10k, 100k (and with ``--growth-1m``, 1M) entries.

At each size: spill, 4 KiB range read and scratch_read latency (p50 and p99 of :data:`SAMPLES` calls each, on the
real-data corpus), the idle sweep (median of 5, nothing expired), and the first page of ``ls`` (50 entries, in
process; and the whole ``scratchfs ls --limit 50 --json`` command once). At the largest size: ``delete_run`` of a
50k-entry run, with the longest write transaction it ran and the worst spill latency of another process spilling
all the while (against that process's own baseline max before the delete).

The store is grown through the public API: :data:`GROW_WORKERS` processes each spill their share of the entries
(4 KiB slices of the real-data corpus at random offsets, each its own entry and blob file exactly as the store
writes them, readable and checked by ``fsck``), 10,000 to a run and 1,000 to an agent directory
(``runs/grow-<n>/a<m>/``). The growing is timed (``build_s``) but not measured otherwise; everything measured runs in
this process afterwards, with the workers gone.
"""

from __future__ import annotations

import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchlib import percentile  # bench/ is on the path: run.py imports this module

from scratchfs import ScratchStore
from scratchfs.api.inspector import iter_entries

SAMPLES = 300
DELETE_RUN_ENTRIES = 50_000
GROW_WORKERS = 4
FILES_PER_DIR = 1000
REPO = Path(__file__).resolve().parent.parent

SPILLER = """
import json, sys, time
from scratchfs import ScratchStore
root, seconds = sys.argv[1], float(sys.argv[2])
data = b"x" * 16384
lat = []
with ScratchStore(root) as store:
    scope = store.scope("other", "spiller")
    print("ready", flush=True)
    sys.stdin.readline()
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        t = time.perf_counter()
        scope.spill(data, source_tool="bench")
        lat.append((time.monotonic(), time.perf_counter() - t))
    txns = store.index.txn_log.summary()
print(json.dumps({"lat": lat, "txns": txns}))
"""


def ms(samples: list[float], q: float) -> float | None:
    """The ``q`` quantile of ``samples`` (seconds) in milliseconds (:func:`benchlib.percentile`)."""
    return percentile(samples, q, 1000)


GROW_WORKER = """
import json, os, random, sys
os.nice(5)  # growing is scaffolding: it yields to the machine's other work
sys.path.insert(0, sys.argv[1])
from benchlib import corpus
from scratchfs import ScratchStore
root, prefix, per_run, files_per_dir, first, last, seed = sys.argv[2:9]
per_run, files_per_dir, first, last = int(per_run), int(files_per_dir), int(first), int(last)
data, rng = corpus(), random.Random(int(seed))
scopes = {}
with ScratchStore(root, default_ttl=30 * 86400) as store:
    for i in range(first, last):
        where = (f"{prefix}-{i // per_run}", f"a{(i % per_run) // files_per_dir}")
        scope = scopes.get(where) or scopes.setdefault(where, store.scope(*where))
        start = rng.randrange(len(data) - 4096)
        scope.spill(data[start:start + 4096], source_tool="bench")
print(json.dumps({"spilled": last - first}))
"""


class Grower:
    """Grows one store through the public API: :data:`GROW_WORKERS` processes, each spilling its share of the
    entries (see the module docstring)."""

    def __init__(self, store: ScratchStore, workers: int = GROW_WORKERS) -> None:
        self.store = store
        self.workers = workers
        self.count = 0
        self.made: dict[str, int] = {}
        self.seed = 0

    def grow(self, n: int, run_prefix: str = "grow", per_run: int = 10 * FILES_PER_DIR) -> None:
        """Add ``n`` entries (4 KiB spills of the corpus, TTL 30 days), ``per_run`` to a run
        (``<run_prefix>-<n>``), :data:`FILES_PER_DIR` to an agent directory."""
        if n <= 0:
            return
        first = self.made.get(run_prefix, 0)
        bounds = [first + n * w // self.workers for w in range(self.workers + 1)]
        children = []
        for w in range(self.workers):
            self.seed += 1
            children.append(subprocess.Popen(
                [sys.executable, "-c", GROW_WORKER, str(REPO / "bench"), str(self.store.root), run_prefix,
                 str(per_run), str(FILES_PER_DIR), str(bounds[w]), str(bounds[w + 1]), str(self.seed)],
                cwd=REPO, stdout=subprocess.PIPE, text=True))
        for child in children:
            out, _ = child.communicate()
            assert child.returncode == 0, f"a grow worker failed ({child.returncode})"
            self.count += json.loads(out)["spilled"]
        self.made[run_prefix] = first + n


def latencies(store: ScratchStore, corpus: bytes, rng: random.Random) -> dict:
    """Spill, range read and scratch_read p50/p99 (ms)."""
    scope = store.scope("bench", f"main-{rng.randrange(10**9)}")
    spill, read, sread = [], [], []
    handles = []
    for i in range(SAMPLES):
        start = rng.randrange(len(corpus) - 16384)
        t = time.perf_counter()
        handles.append(scope.spill(corpus[start:start + 16384], source_tool="bench").handle)
        spill.append(time.perf_counter() - t)
        if i < 20:
            scope.scratch_write(f"k{i}", corpus[start:start + 2048])
    for _ in range(SAMPLES):
        handle, offset = rng.choice(handles), rng.randrange(16384 - 4096)
        t = time.perf_counter()
        scope.read_handle(handle, offset, 4096)
        read.append(time.perf_counter() - t)
    for i in range(SAMPLES):
        t = time.perf_counter()
        scope.scratch_read(f"k{i % 20}")
        sread.append(time.perf_counter() - t)
    return {"spill_p50_ms": ms(spill, 0.5), "spill_p99_ms": ms(spill, 0.99), "read_p50_ms": ms(read, 0.5),
            "read_p99_ms": ms(read, 0.99), "scratch_read_p50_ms": ms(sread, 0.5),
            "scratch_read_p99_ms": ms(sread, 0.99)}


def run_queue_seconds() -> float:
    """Seconds this thread has waited for a core (``/proc/thread-self/schedstat``; 0.0 where there is none)."""
    try:
        with open("/proc/thread-self/schedstat") as f:
            return int(f.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return 0.0


def idle_sweep(store: ScratchStore) -> dict:
    """Median wall and CPU milliseconds of 5 sweeps with nothing to sweep (CPU: this process's, so the figure of a
    machine shared with other work is visible apart from the waiting), and the median time spent waiting for a core
    (run queue); what is left of the wall time is waiting for locks or the disk."""
    store.sweep()  # a first one may find the filler's leftovers (none expected)
    wall, cpu, queued = [], [], []
    for _ in range(5):
        t, c, q = time.perf_counter(), time.process_time(), run_queue_seconds()
        result = store.sweep()
        wall.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
        queued.append(run_queue_seconds() - q)
        assert result.rows_deleted == 0, result
    return {"idle_sweep_ms": 1000 * statistics.median(wall), "idle_sweep_cpu_ms": 1000 * statistics.median(cpu),
            "idle_sweep_runq_ms": 1000 * statistics.median(queued),
            "idle_sweep_max_ms": 1000 * max(wall)}


def ls_page(store: ScratchStore) -> dict:
    t = time.perf_counter()
    page = list(iter_entries(store, store.now(), limit=50))
    in_process = time.perf_counter() - t
    assert len(page) == 50
    t = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "scratchfs", "ls", "--root", str(store.root), "--limit", "50",
                           "--json"], check=False, capture_output=True, cwd=REPO, timeout=600)
    command = time.perf_counter() - t
    assert done.returncode == 0, done.stderr
    return {"ls_first_page_ms": 1000 * in_process, "ls_command_s": command}


def delete_run_figure(store: ScratchStore, grower: Grower, seconds: float = 6.0) -> dict:
    """delete_run of a 50k-entry run while another process spills; every write transaction of the delete (this
    process) and of the other process's spills counted by duration (:class:`scratchfs.engine.batches.TxnLog`)."""
    grower.grow(DELETE_RUN_ENTRIES, run_prefix="doomed", per_run=DELETE_RUN_ENTRIES)  # one run: doomed-0
    child = subprocess.Popen([sys.executable, "-c", SPILLER, str(store.root), str(seconds)], cwd=REPO,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline() == "ready\n"
    child.stdin.write("go\n")
    child.stdin.flush()
    time.sleep(seconds / 3)
    started = time.monotonic()
    store.index.txn_log.reset()
    count = store.delete_run("doomed-0")  # hide, move the directory, remove the files, drain the rows in batches
    txns = store.index.txn_log.summary()
    ended = time.monotonic()
    out, _ = child.communicate(timeout=120)
    child_out = json.loads(out)
    lat = child_out["lat"]
    before = [s for at, s in lat if at < started]
    during = [s for at, s in lat if started <= at <= ended + 0.05]
    return {"delete_run_entries": count, "delete_run_s": ended - started,
            "delete_longest_transaction_ms": txns["longest_ms"], "delete_transactions": txns,
            "other_process_transactions": child_out["txns"],
            "other_spill_baseline_max_ms": 1000 * max(before, default=0.0),
            "other_spill_baseline_p99_ms": ms(before, 0.99) if before else None,
            "other_spill_max_during_delete_ms": 1000 * max(during, default=0.0),
            "other_spill_p99_during_delete_ms": ms(during, 0.99) if during else None}


def run_growth(workdir: Path, corpus: bytes, sizes: list[int], seed: int = 3) -> dict:
    """Measure at each size (entries in the store), on one store; return the figures and the targets met."""
    rng = random.Random(seed)
    out: dict = {"sizes": {},
                 "grown": f"spilled through the public API by {GROW_WORKERS} processes (4 KiB corpus slices)"}
    with ScratchStore(workdir / "growth", default_ttl=30 * 86400) as store:
        grower = Grower(store)
        for size in sizes:
            t = time.perf_counter()
            grower.grow(size - grower.count)
            built = time.perf_counter() - t
            figures = {"entries": grower.count, "build_s": built}
            store.index.txn_log.reset()  # the grower's bulk inserts are scaffolding, not the store's transactions
            figures.update(latencies(store, corpus, rng))
            figures.update(idle_sweep(store))
            figures.update(ls_page(store))
            figures["transactions"] = store.index.txn_log.summary()
            out["sizes"][str(size)] = figures
            print(f"  growth {size:,}: {json.dumps(figures)}", file=sys.stderr, flush=True)
        out["delete_run"] = delete_run_figure(store, grower)
        print(f"  growth delete_run: {json.dumps(out['delete_run'])}", file=sys.stderr, flush=True)
    out["targets"] = targets(out)
    return out


def targets(out: dict) -> dict:
    sizes = sorted(out["sizes"], key=int)
    small, large = out["sizes"][sizes[0]], out["sizes"][sizes[-1]]
    spill_ratio = large["spill_p50_ms"] / small["spill_p50_ms"]
    read_ratio = large["read_p50_ms"] / small["read_p50_ms"]
    d = out["delete_run"]
    longest = max([d["delete_transactions"]["longest_ms"], d["other_process_transactions"]["longest_ms"]]
                  + [f["transactions"]["longest_ms"] for f in out["sizes"].values()])
    return {
        "at": sizes[-1],
        "spill_growth_ratio": spill_ratio, "spill_growth_met": spill_ratio <= 1.5,
        "read_growth_ratio": read_ratio, "read_growth_met": read_ratio <= 1.5,
        "idle_sweep_ms": large["idle_sweep_ms"], "idle_sweep_met": large["idle_sweep_ms"] <= 50,
        "longest_transaction_ms": longest,
        "longest_transaction_met": longest <= 50,
        "ls_first_page_ms": large["ls_first_page_ms"], "ls_first_page_met": large["ls_first_page_ms"] <= 500,
    }


def table(out: dict) -> str:
    keys = ["spill_p50_ms", "spill_p99_ms", "read_p50_ms", "read_p99_ms", "scratch_read_p50_ms",
            "scratch_read_p99_ms", "idle_sweep_ms", "idle_sweep_cpu_ms", "idle_sweep_runq_ms", "idle_sweep_max_ms",
            "ls_first_page_ms", "ls_command_s", "build_s"]
    sizes = sorted(out["sizes"], key=int)
    lines = ["| figure | " + " | ".join(f"{int(s):,}" for s in sizes) + " |",
             "|---|" + "---|" * len(sizes)]
    for k in keys:
        lines.append(f"| {k} | " + " | ".join(f"{out['sizes'][s][k]:.3f}" for s in sizes) + " |")
    lines.append("")
    lines.append("| delete_run | value |")
    lines.append("|---|---|")
    for k, v in out["delete_run"].items():
        if not isinstance(v, dict):
            lines.append(f"| {k} | {v:.3f} |" if isinstance(v, float) else f"| {k} | {v} |")
    lines.append("")
    lines.append("| write transactions | count | longest (ms) | its CPU (ms) | longest does | its rows | most rows | "
                 "histogram |")
    lines.append("|---|---|---|---|---|---|---|---|")
    logs = [(f"measuring at {int(s):,} (spills, sweeps, ls)", out["sizes"][s]["transactions"]) for s in sizes]
    logs += [("delete_run (this process)", out["delete_run"]["delete_transactions"]),
             ("the other process's spills during it", out["delete_run"]["other_process_transactions"])]
    for name, t in logs:
        hist = ", ".join(f"{k}: {n}" for k, n in t["histogram"].items())
        lines.append(f"| {name} | {t['transactions']} | {t['longest_ms']:.1f} | {t.get('longest_cpu_ms', 0):.1f} | "
                     f"{t['longest_doing']} | "
                     f"{t['longest_rows']} | {t['most_rows']} | {hist} |")
    lines.append("")
    lines.append("| target | value | met |")
    lines.append("|---|---|---|")
    t = out["targets"]
    for name, bound in (("spill_growth_ratio", "≤ 1.5×"), ("read_growth_ratio", "≤ 1.5×"),
                        ("idle_sweep_ms", "≤ 50 ms"), ("longest_transaction_ms", "≤ 50 ms"),
                        ("ls_first_page_ms", "≤ 500 ms")):
        met = t[name.replace("_ratio", "_met").replace("_ms", "_met")]
        lines.append(f"| {name} ({bound}) at {int(t['at']):,} | {t[name]:.3f} | {'yes' if met else 'NO'} |")
    return "\n".join(lines)


__all__ = ["run_growth", "table"]
