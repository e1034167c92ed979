"""The per-call CPU of shape detection (``describe``) and the stub (``build_stub``) on small contents (issue 16's
"shapefast"): 3,000 slices of 4 KiB and 2,000 of 16 KiB of the bench corpus, and the real small outputs of
``fixtures/tools/`` (each whole, up to 64 KiB), for two checkouts alternated in back-to-back processes (the same
module names cannot be loaded twice in one), best of 5 loops per process (process CPU time, not wall: the machine is
shared), medians over the rounds.

    python bench/shape_calls.py [BEFORE_ROOT] [ROUNDS]     # default: /work/main, 3 rounds; AFTER is this checkout
    python bench/shape_calls.py --one ROOT                 # one process's figures for ROOT (what the rounds run)
"""

from __future__ import annotations

import inspect
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import benchlib

HERE = Path(__file__).resolve().parent


def _best(function, items, loops: int = 5) -> float:
    best = float("inf")
    for _ in range(loops):
        start = time.process_time()
        for item in items:
            function(item)
        best = min(best, (time.process_time() - start) / len(items) * 1e6)
    return best


def one(root: str) -> dict[str, float]:
    """Per-call µs of each case, with ``scratchfs`` imported from ``root``."""
    sys.path.insert(0, str(HERE))
    sys.path.insert(0, root)
    import benchlib

    from scratchfs.api.shape import describe
    from scratchfs.api.stub import build_stub

    corpus = benchlib.corpus()
    contents = {f"{size // 1024} KiB slices": [benchlib.repeated(corpus, size, start=i * size + i * 7)
                                               for i in range(count)] for size, count in ((4096, 3000), (16384, 2000))}
    tools = sorted(p for p in (benchlib.FIXTURES / "tools").iterdir() if p.suffix in (".txt", ".csv", ".tsv", ".xml",
                                                                                     ".html", ".json"))
    contents["fixtures/tools (whole)"] = [p.read_bytes()[:65536] for p in tools]
    figures: dict[str, float] = {}
    stub = _stub_of(build_stub)
    _by_kind(contents["fixtures/tools (whole)"], describe, stub, figures)
    for name, payloads in contents.items():
        lines = [p.count(b"\n") + (p[-1:] != b"\n") for p in payloads]
        shapes = [describe(p, len(p), n) for p, n in zip(payloads, lines, strict=True)]
        items = range(len(payloads))
        figures[f"describe, {name}"] = _best(lambda i, p=payloads, n=lines: describe(p[i], len(p[i]), n[i]), items)
        figures[f"build_stub, {name}"] = _best(lambda i, p=payloads, n=lines, s=shapes: stub(p[i], n[i], s[i]), items)
    return figures


def _stub_of(build_stub):
    """``build_stub`` of a payload, its line count and its shape, as a spill calls it: the shape's ``next_read`` and
    ``top`` handed over where the checkout's ``build_stub`` takes them (an older one reads the shape's words)."""
    taken = [name for name in ("next_read", "top") if name in inspect.signature(build_stub).parameters]

    def stub(payload: bytes, lines: int, found) -> object:
        return build_stub("h_" + "a" * 24, payload, b"", len(payload), lines, found.content_type, found.text,
                          "bench.loop", 1024, "head", **{name: getattr(found, name) for name in taken})

    return stub


def _by_kind(payloads: list[bytes], describe, stub, figures: dict[str, float]) -> None:
    """``build_stub``'s per-call CPU (``stub``: :func:`_stub_of`'s) on the fixtures of each kind whose note depends
    on more than the shape: CSV tables and tables aligned by spaces (their rows read starts after the preview), JSON
    lines, JSON (a kind no payload holds has no figure: ``fixtures/tools/`` holds no JSON lines)."""
    groups: dict[str, list[tuple[bytes, int, object]]] = {}
    for payload in payloads:
        lines = payload.count(b"\n") + (payload[-1:] != b"\n")
        found = describe(payload, len(payload), lines)
        kind = "aligned" if "aligned by spaces" in (found.text or "") and "no header" not in found.text else \
            found.content_type
        if kind in ("csv", "aligned", "jsonl", "json"):
            groups.setdefault(kind, []).append((payload, lines, found))
    for kind, items in sorted(groups.items()):
        figures[f"build_stub, fixtures/tools {kind} ({len(items)})"] = _best(lambda item: stub(*item), items)


def main(argv: list[str]) -> int:
    pair = benchlib.checkout_pair(__file__, argv, one, 3)
    if pair is None:
        return 0
    before, after, runs = pair
    for case in runs[after][0]:
        if case not in runs[before][0]:  # (a kind's group whose count differs: the checkouts tell kinds apart)
            print(f"{case}: (after only) {statistics.median(run[case] for run in runs[after]):,.1f} µs a call")
            continue
        was = statistics.median(run[case] for run in runs[before])
        now = statistics.median(run[case] for run in runs[after])
        print(f"{case}: {was:,.1f} -> {now:,.1f} µs a call ({was / now:.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
