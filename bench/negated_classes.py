"""The scans of shape detection whose negated pairs became bitmaps (describecost_classes), each pattern alone:
another checkout's against this one's, alternating in one process.

    python bench/negated_classes.py OTHER_CHECKOUT [REPS]    # e.g. a `git archive` of main before; default 7

For each pattern, ``finditer`` over the slices ``describe_ab.py`` describes (500 of 4 KiB, 300 of 16 KiB, T2's 8
samples of 512 KiB; decoded for the ``str`` patterns), consumed whole: the best thread CPU of ``REPS`` per slice, both
checkouts' in turn, and their ratio (this / other). The matches of both are compared on every slice first. A scan
matches at every position here, more than the shapes ask of some (``match`` at a line's start): the ratio is the
figure, not the time.
"""

from __future__ import annotations

import importlib
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import benchlib
import describe_ab

PATTERNS = ["api.shape_diagnostics._BLOCK_RE", "api.shape_diagnostics._COMMAND_RE", "api.shape_log._EXCEPTION_RE",
            "api.shape_log._V8_TOP_RE", "api.shape_markdown._SETTING_RE", "api.shape_testrun._NODE_ID_RE",
            "foundation.text._GREP_RUN_RE", "api.shape_pipes._NO_PIPE", "api.shape_terminal._FIRST_LINE"]


def patterns(root: Path | None) -> list:
    """The compiled ``PATTERNS`` of ``root``'s ``scratchfs`` (``None``: this checkout's)."""
    saved = {name: module for name, module in sys.modules.items() if name.split(".")[0] == "scratchfs"}
    if root is not None:
        for name in saved:
            del sys.modules[name]
        sys.path.insert(0, str(root))
    try:
        found = []
        for name in PATTERNS:
            module, attribute = name.rsplit(".", 1)
            found.append(getattr(importlib.import_module("scratchfs." + module), attribute))
        return found
    finally:
        if root is not None:
            sys.path.remove(str(root))
            for name in [n for n in sys.modules if n.split(".")[0] == "scratchfs"]:
                del sys.modules[name]
            sys.modules.update(saved)


def main(argv: list[str]) -> int:
    other = patterns(Path(argv[0]).resolve())
    this = patterns(None)
    reps = int(argv[1]) if len(argv) > 1 else 7
    corpus = benchlib.corpus()
    sets = {size: [a[0] for a in describe_ab.contents(corpus, size)[:count]]
            for size, count in ((4096, 500), (16384, 300), (4 * describe_ab.MIB, 8))}
    print(f"load average {os.getloadavg()[0]:.2f}; µs of thread CPU a slice, best of {reps}: other -> this (ratio)")
    for name, old, new in zip(PATTERNS, other, this, strict=True):
        cells = []
        for size, texts in sets.items():
            if isinstance(new.pattern, str):
                texts = [t.decode("utf-8", "replace") for t in texts]
            for t in texts:
                assert [(m.span(), m.groups()) for m in old.finditer(t)] == [
                    (m.span(), m.groups()) for m in new.finditer(t)], name
            best = [float("inf"), float("inf")]
            for rep in range(reps):
                for which in (0, 1) if rep % 2 else (1, 0):
                    start = time.thread_time()
                    for t in texts:
                        for _ in (old, new)[which].finditer(t):
                            pass
                    best[which] = min(best[which], (time.thread_time() - start) / len(texts) * 1e6)
            label = "512K" if size > 65536 else f"{size // 1024}K"
            cells.append(f"{label} {best[0]:7.1f} -> {best[1]:7.1f} ({best[1] / best[0]:.2f})")
        print(f"{'.'.join(name.split('.')[-2:]):<31s} " + " | ".join(cells), flush=True)
    print(f"load average {os.getloadavg()[0]:.2f} after")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
