#!/usr/bin/env python3
"""Peak-RSS figures of scratchfs's streaming paths, each measured in a fresh subprocess.

    python bench/memory.py                   # the full figures: a 1 GiB stream (about 30 s)
    python bench/memory.py --size-mib 256    # smaller
    python bench/memory.py child KIND --root DIR --size BYTES [--handle H]   # one measurement, JSON on stdout

Targets (issue 3): spilling a 1 GiB stream raises the process's peak RSS by at most 64 MiB; ``read_handle(match=...)``
over a large blob by at most 32 MiB.

Each child imports everything, opens the store and prepares its input (the real fixtures, generated as a stream of
chunks or a file object, never held whole), then takes its baseline: the current RSS, with the peak reset to it
(``benchlib.reset_peak_rss``). It runs the one step and reports ``growth = peak RSS after - RSS before``, in bytes.
``control`` allocates and touches ``size`` bytes instead: it shows the probe does see an allocation.

Kinds: ``spill-chunks`` (an iterable of 1 MiB chunks), ``spill-file`` (a binary file object), ``match`` (a search
for a needle that is absent, so every frame of the blob ``--handle`` is read) and ``control``.
"""

from __future__ import annotations

import argparse
import gc
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import benchlib
from benchlib import MIB

SPILL_LIMIT = 64 * MIB
"""Most peak-RSS growth allowed while spilling a stream, in bytes."""
MATCH_LIMIT = 32 * MIB
"""Most peak-RSS growth allowed while searching a blob, in bytes."""
ABSENT_NEEDLE = b"scratchfs: a needle that is in no fixture"
RUN_ID, AGENT_ID = "memory", "bench"
KINDS = ("spill-chunks", "spill-file", "match", "control")


def child(kind: str, root: str, size: int, handle: str | None) -> dict:
    """Run one measurement in this process and return its figures (see the module docstring)."""
    from scratchfs import ScratchStore

    source = benchlib.corpus()
    with ScratchStore(root) as store:
        scope = store.scope(RUN_ID, AGENT_ID)
        content: object = None
        if kind == "spill-chunks":
            content = benchlib.repeated_chunks(source, size)
        elif kind == "spill-file":
            content = benchlib.RepeatedReader(source, size)
        elif kind == "match" and not handle:
            raise SystemExit("match needs --handle")
        gc.collect()
        before = benchlib.rss_bytes()
        exact = benchlib.reset_peak_rss()
        start = time.perf_counter()
        result: dict = {}
        if kind in ("spill-chunks", "spill-file"):
            stub = scope.spill(content, source_tool="bench.memory")
            result = {"handle": stub.handle, "size": stub.size}
        elif kind == "match":
            found = scope.read_handle(handle, match=ABSENT_NEEDLE)
            result = {"handle": handle, "size": found.size, "windows": len(found.windows)}
        else:
            block = bytearray(size)
            block[::4096] = b"\x01" * len(range(0, size, 4096))  # touch every page
            result = {"size": len(block)}
        seconds = time.perf_counter() - start
        peak = benchlib.peak_rss_bytes()
        if isinstance(content, benchlib.RepeatedReader):
            content.close()
    return {"kind": kind, **result, "seconds": seconds, "rss_before": before, "peak": peak,
            "growth": peak - before, "exact": exact}


def measure(kind: str, root: str | Path, size: int = 0, handle: str | None = None, timeout: float = 600.0) -> dict:
    """Run :func:`child` in a fresh interpreter and return its figures.

    Raises:
        subprocess.CalledProcessError: the child failed (its stderr is in the exception).
    """
    command = [sys.executable, str(Path(__file__).resolve()), "child", kind, "--root", str(root), "--size", str(size)]
    if handle:
        command += ["--handle", handle]
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def run_all(size: int, root: Path) -> list[dict]:
    """Spill a stream of ``size`` bytes as chunks and as a file object, then search the first blob."""
    chunks = measure("spill-chunks", root, size)
    return [chunks, measure("spill-file", root, size), measure("match", root, handle=chunks["handle"]),
               measure("control", root, 64 * MIB)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command")
    one = sub.add_parser("child", help="one measurement in this process; JSON on stdout")
    one.add_argument("kind", choices=KINDS)
    one.add_argument("--root", required=True)
    one.add_argument("--size", type=int, default=0, help="bytes to spill (or to allocate, for control)")
    one.add_argument("--handle")
    parser.add_argument("--size-mib", type=int, default=1024, help="size of the stream, MiB (default 1024)")
    args = parser.parse_args(argv)
    if args.command == "child":
        print(json.dumps(child(args.kind, args.root, args.size, args.handle)))
        return 0
    root = Path(tempfile.mkdtemp(prefix="scratchfs-memory-"))
    try:
        results = run_all(args.size_mib * MIB, root)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    limits = {"spill-chunks": SPILL_LIMIT, "spill-file": SPILL_LIMIT, "match": MATCH_LIMIT}
    print(f"| step ({args.size_mib} MiB of the real fixtures, streamed) | peak RSS growth | limit | met | seconds |")
    print("|---|---|---|---|---|")
    for r in results:
        limit = limits.get(r["kind"])
        met = "-" if limit is None else ("yes" if r["growth"] <= limit else "NO")
        label = r["kind"] if r["kind"] != "control" else "control: allocate and touch 64 MiB"
        print(f"| {label} | {r['growth'] / MIB:.1f} MiB | {'-' if limit is None else f'{limit // MIB} MiB'} | "
              f"{met} | {r['seconds']:.2f} |")
    return 0 if all(r["growth"] <= limits[r["kind"]] for r in results if r["kind"] in limits) else 1


if __name__ == "__main__":
    sys.exit(main())
