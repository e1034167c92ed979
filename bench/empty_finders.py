"""Time searches of patterns that can match empty text (and finders without a literal start) over a large text.

    python bench/empty_finders.py [MB] [PATTERN ...]    # default 64 MB and the patterns below

Prints, per pattern, the seconds one read_handle search took and how it ended (matches shown, or the error).
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from pathlib import Path

from scratchfs import ScratchError, ScratchStore
from scratchfs.api.contract import ScratchTools

PATTERNS = [r"(a)?\1", r"(e?)\1q?", r"(b)?(?(1)a|)", r"(e)?(?(1)q|)", r"(?:(a)|b)?(?(1)z|y)", r"(z)?\1zz",
            r"(?:eq)*", r"(?:x*eq)*", r"(?:e\d)*", r"(?:[eE]\d)*", r"(?:\d+x)*", r"(?:[ab]z)*", r"q*"]


def text(megabytes: float) -> bytes:
    """Lines of words, about ``megabytes`` MB (10**6 bytes): many "e", "a", no "eq", no "zz"."""
    rnd = random.Random(7)
    words = [b"alpha", b"beta", b"needle", b"eerie", b"e" * 30, b"ERROR", b"queue"]
    lines, size = [], 0
    while size < megabytes * 1e6:
        line = b" ".join(rnd.choice(words) for _ in range(rnd.randint(1, 20))) + b"\n"
        lines.append(line)
        size += len(line)
    return b"".join(lines)


def main(megabytes: float, patterns: list[str]) -> None:
    data = text(megabytes)
    with tempfile.TemporaryDirectory() as tmp, ScratchStore(Path(tmp) / "root") as store:
        scope = store.scope("run", "agent")
        handle = scope.spill(data, source_tool="bench").handle
        tools = ScratchTools(scope)
        print(f"{len(data):,} bytes")
        for pattern in patterns:
            began = time.perf_counter()
            try:
                reply = tools.call("read_handle", {"handle": handle, "pattern": pattern, "max_matches": 5})
                outcome = f"{len(reply['windows'])} windows, next_call={'yes' if reply['next_call'] else 'no'}"
            except ScratchError as exc:
                outcome = f"{type(exc).__name__}: {str(exc)[:90]}"
            print(f"{pattern:14s} {time.perf_counter() - began:6.2f} s  {outcome}")


if __name__ == "__main__":
    args = sys.argv[1:]
    size = float(args.pop(0)) if args and args[0].replace(".", "").isdigit() else 64.0
    main(size, args or PATTERNS)
