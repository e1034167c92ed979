"""``build_stub`` alone: the spilling thread's CPU per stub, by content type, of this checkout and another, replayed on
the very calls a spill loop made (issue 16, stubcost1).

    python bench/stub_kinds.py [OTHER_CHECKOUT] [--size BYTES] [--count N] [--rounds R]   # default 4096, 1300, 3

The payloads are the corpus repeated (``benchlib.repeated``, as ``spill_loop.py`` cuts them); this checkout spills
them into a fresh store with ``build_stub`` wrapped to keep each call's arguments, then one process per checkout
(alternating, ``R`` rounds) replays every call once untimed and 5 times timed (the least kept), and times each call by
itself 3 times for the per-kind means. Replayed warm, a stub costs less than inside a spill loop (there describe and
the rest evict its caches, and a first HTML stub imports lxml and inscriptis, ~45 ms: 45 us a spill of 1,000): the
figure compares checkouts, it is not a spill's share. ``OTHER_CHECKOUT``: a ``git archive`` of main, say; an older
one whose ``build_stub`` takes fewer arguments is called with as many as it takes.
"""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

_WORKER = r"""
import inspect, json, pickle, sys, time
from collections import defaultdict
root, calls_path = sys.argv[1], sys.argv[2]
sys.path.insert(0, root)
from scratchfs.api.stub import build_stub
taken = len(inspect.signature(build_stub).parameters)
calls = [(args[:taken], kwargs) for args, kwargs in pickle.load(open(calls_path, "rb"))]
for args, kwargs in calls:
    build_stub(*args, **kwargs)
passes = []
for _ in range(5):
    start = time.thread_time()
    for args, kwargs in calls:
        build_stub(*args, **kwargs)
    passes.append((time.thread_time() - start) / len(calls) * 1e6)
kinds = defaultdict(list)
for args, kwargs in calls:
    start = time.thread_time()
    for _ in range(3):
        build_stub(*args, **kwargs)
    kinds[str(args[5])].append((time.thread_time() - start) / 3 * 1e6)
print(json.dumps([min(passes), {kind: [len(spent), sum(spent) / len(spent)] for kind, spent in kinds.items()}]))
"""


def _calls(size: int, count: int) -> list[tuple[tuple[object, ...], dict[str, object]]]:
    """The arguments of each ``build_stub`` call of ``count`` spills of ``size`` bytes in this checkout."""
    sys.path[:0] = [str(HERE / "bench"), str(HERE)]
    import benchlib

    import scratchfs.api.stub as stub_module
    from scratchfs import ScratchStore

    corpus = benchlib.corpus()
    kept: list[tuple[tuple[object, ...], dict[str, object]]] = []
    built = stub_module.build_stub

    def keeping(*args: object, **kwargs: object) -> object:
        kept.append((args, kwargs))
        return built(*args, **kwargs)

    stub_module.build_stub = keeping  # (api.entries imports it from the module at its first use)
    with tempfile.TemporaryDirectory(prefix="stub-kinds-") as directory, ScratchStore(directory) as store:
        scope = store.scope("bench", "stubs")
        for i in range(1, count + 1):
            scope.spill(benchlib.repeated(corpus, size, start=i * size + i * 7), source_tool="bench.stubs")
    stub_module.build_stub = built
    return kept


def main(argv: list[str]) -> int:
    options = {"--size": 4096, "--count": 1300, "--rounds": 3}
    roots: list[str] = []
    args = iter(argv)
    for arg in args:
        if arg in options:
            options[arg] = int(next(args))
        else:
            roots.append(arg)
    roots = [str(HERE), *roots]
    calls = _calls(options["--size"], options["--count"])
    with tempfile.NamedTemporaryFile(suffix=".pickle") as saved:
        pickle.dump(calls, saved)
        saved.flush()
        for round_number in range(options["--rounds"]):
            for root in roots if round_number % 2 == 0 else roots[::-1]:
                out = subprocess.run([sys.executable, "-c", _WORKER, root, saved.name], capture_output=True,
                                     text=True, check=True).stdout
                best, kinds = json.loads(out)
                per_kind = ", ".join(f"{kind} {n} x {mean:,.1f}" for kind, (n, mean) in kinds.items())
                load = Path("/proc/loadavg").read_text().split()[0] if Path("/proc/loadavg").exists() else "?"
                print(f"{root}: {best:,.1f} us a stub (load {load}); by kind, calls x us: {per_kind}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
