"""Following ``next_call`` over one jq read of a ~3 MB JSON document to its end, against one jq run over it.

    python bench/jq_paging.py [--copies 10] [--budget 8192] [--filter .shapes --filter . ...]

The document is the EC2 service model fixture with its ``shapes`` object ``--copies`` times (keys suffixed), pretty
printed (~3 MB at 10). Each filter is read through ``ScratchTools.read_handle`` (the MCP / web reply, budget
``--budget``) from the first page, following each reply's ``next_call`` cursor to the end. Rows: pages, the whole
read (s), the first page (ms), the median and the slowest later page (ms), jq runs in the worker (calls of
``jsondoc.run_jq``), and ``whole / jq`` -- the read against one jq run over the document in this process (the
``jq`` binding, ``input_text(...).all()`` of the filter's ``tojson`` texts: the anchor). The load average is printed
with the figures (the machine is shared). Runs whichever ``scratchfs`` is on ``PYTHONPATH``, so two checkouts compare
by running it twice.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import tempfile
import time

import jq
from benchlib import FIXTURES

from scratchfs import ScratchStore
from scratchfs.api.contract import ScratchTools
from scratchfs.engine.structure import jsondoc


def document(copies: int) -> bytes:
    """The EC2 service model with ``copies`` copies of its shapes (keys suffixed with the copy's number)."""
    model = json.loads((FIXTURES / "api-ec2-service-model.json").read_text())
    model["shapes"] = {f"{key}{n}": value for n in range(copies) for key, value in model["shapes"].items()}
    return json.dumps(model, indent=1).encode()


def follow(tools: ScratchTools, handle: str, flt: str, budget: int) -> list[float]:
    """Seconds of each page of the read, first to last."""
    times, cursor = [], None
    while True:
        began = time.perf_counter()
        reply = tools.read_handle(handle, jq=flt, budget=budget, cursor=cursor)
        times.append(time.perf_counter() - began)
        if not reply["more"]:
            return times
        cursor = re.search(r'cursor="([^"]+)"', reply["next_call"]).group(1)


def one_jq_run(data: bytes, flt: str) -> float:
    """Seconds of one jq run over the document in this process, every output's JSON text (median of 3)."""
    text = data.decode()
    program = jq.compile(f"{flt} | tojson")
    samples = []
    for _ in range(3):
        began = time.perf_counter()
        program.input_text(text).all()
        samples.append(time.perf_counter() - began)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=10)
    parser.add_argument("--budget", type=int, default=8192)
    parser.add_argument("--filter", action="append", dest="filters")
    args = parser.parse_args()
    data = document(args.copies)
    runs: list[int] = []
    real = jsondoc.run_jq
    jsondoc.run_jq = lambda *a: runs.append(1) or real(*a)
    print(f"document {len(data):,} bytes; budget {args.budget}; load average {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} cores")
    print(f"{'filter':12s} {'pages':>6s} {'whole s':>8s} {'first ms':>9s} {'median ms':>10s} {'max ms':>8s} "
          f"{'jq runs':>8s} {'jq s':>6s} {'whole/jq':>9s}")
    with tempfile.TemporaryDirectory() as tmp, ScratchStore(tmp) as store:
        scope = store.scope("bench", "jq")
        handle = scope.spill(data, source_tool="bench").handle
        tools = ScratchTools(scope)
        for flt in args.filters or [".shapes", ".", ".shapes[]"]:
            runs.clear()
            times = follow(tools, handle, flt, args.budget)
            anchor = one_jq_run(data, flt)
            later = times[1:] or [0.0]
            print(f"{flt:12s} {len(times):6d} {sum(times):8.2f} {times[0] * 1000:9.1f} "
                  f"{statistics.median(later) * 1000:10.2f} {max(later) * 1000:8.1f} {len(runs):8d} {anchor:6.2f} "
                  f"{sum(times) / anchor:8.1f}x")


if __name__ == "__main__":
    main()
