"""What a ``pattern=`` search costs a model the first time it writes a pattern and when it repeats it: the compile
and analysis of a new pattern (kept for the last 32 after: ``engine.patterns.compiled_pattern``) plus the search,
against the search alone -- the figures behind the unmerged branches unitext1/unitext2 (``.``, ``\\w``, ``\\b``,
negated classes as whole UTF-8 characters), whose rewrite made every new pattern slower.

    python bench/pattern_first_use.py [FILE]   # default fixtures/workspace-grep-stdlib-defs.txt (512 KiB, ASCII)

Spills ``FILE`` into a fresh store, then for each of eight patterns of the kinds a model writes reads
``read_handle(pattern=..., max_matches=3)`` twice through the model's tool, printing each call's wall milliseconds,
the windows found and the bytes of the first reply the model receives (``api.views.reply_text``). One process:
a pattern's first use includes what it is the first to load (the first ``\\w`` of a process, on a branch that
derives Unicode sets, pays that too).

2026-12-08, 03:00 UTC (load 1-2), first / again in ms on main: ``\\bdef \\w+`` 1.2 / 0.6, ``class \\w+\\(``
0.9 / 0.7, ``\\bStraße\\b`` 18.7 / 12.4, ``\\b\\w+\\b\\s+\\d+`` 152 / 127; unitext1: 102 / 1.0, 31 / 0.8, 542 / 168,
921 / 566; unitext2: 1.6 / 0.7, 1.6 / 0.7, 10.2 / 8.2, 139 / 130 (run from each branch's checkout)."""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scratchfs import ScratchStore
from scratchfs.api.contract import ScratchTools
from scratchfs.api.views import reply_text

PATTERNS = (r"error.*timeout", r"\bdef \w+", r"\d+\.\d+", r"class \w+\(", r"[^:]+:\d+:", r"\bStraße\b",
            r"\b\w+\b\s+\d+", r"foo|bar.baz")


def main(argv: list[str]) -> None:
    """Print the table (see the module docstring); ``argv``: ``[FILE]``. Raises OSError for a file not read."""
    path = Path(argv[0]) if argv else Path(__file__).resolve().parent.parent / "fixtures/workspace-grep-stdlib-defs.txt"
    with tempfile.TemporaryDirectory() as root, ScratchStore(root=root) as store:
        scope = store.scope("bench", "patterns")
        tools = ScratchTools(scope)
        handle = scope.spill(path.read_bytes(), source_tool="bench").handle
        print(f"{'pattern':26} {'first ms':>9} {'again ms':>9} {'windows':>8} {'reply B':>8}")
        for pattern in PATTERNS:
            times, replies = [], []
            for _ in range(2):
                start = time.perf_counter()
                replies.append(tools.call("read_handle", {"handle": handle, "pattern": pattern, "max_matches": 3}))
                times.append(1000 * (time.perf_counter() - start))
            size = len(reply_text(replies[0]).encode("utf-8"))
            print(f"{pattern!r:26} {times[0]:9.1f} {times[1]:9.1f} {len(replies[0].get('windows') or []):8} {size:8}")


if __name__ == "__main__":
    main(sys.argv[1:])
