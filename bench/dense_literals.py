"""A pattern that crosses lines and whose required literal is dense, counted over 2.6 MB of ``grep -rn`` output
(``fixtures/workspace-grep-stdlib-defs.txt`` five times), against Python's ``re`` over the same bytes.

    python bench/dense_literals.py [--root CHECKOUT] [PATTERN ...]

``(?:class|def) [A-Z]\\w*Error\\b[^\\n]*\\n\\./``'s required literal is its space, up to 5 bytes after a match's
start: each space cost an anchored engine call at each of the 6 bytes before it. At 05:22-05:30 UTC, 2026-12-06
(branch open10, load 3.6): ``re`` 0.02-0.04 s, 175 matches; a ``count=true`` read cut at its time bound after 4.47 s
(119 of 175 lines counted, next_offset 1802240) before (``--root`` an extract of ``git archive ba32627 scratchfs``),
0.04-0.13 s and all 175 after (one search a match where the literal is dense, ``patterns.DENSE_SHARE``);
``def \\w+\\(self\\):\\n\\./`` 0.31-0.49 s before, 0.24-0.26 s after.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
PATTERNS = [r"(?:class|def) [A-Z]\w*Error\b[^\n]*\n\./", r"def \w+\(self\):\n\./", r"\berror\b[\s\S]{0,40}\n"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=str(HERE), help="the checkout whose scratchfs is measured")
    parser.add_argument("patterns", nargs="*", default=PATTERNS)
    args = parser.parse_args()
    sys.path.insert(0, args.root)
    from scratchfs import ScratchStore
    from scratchfs.api.contract import ScratchTools

    data = (HERE / "fixtures" / "workspace-grep-stdlib-defs.txt").read_bytes() * 5
    with tempfile.TemporaryDirectory() as root, ScratchStore(root=root) as store:
        scope = store.scope("bench", "dense")
        handle = scope.spill(data, source_tool="grep").handle
        tools = ScratchTools(scope)
        for pattern in args.patterns:
            began = time.perf_counter()
            matches = sum(1 for _ in re.finditer(pattern.encode(), data, re.MULTILINE))
            plain = time.perf_counter() - began
            began = time.perf_counter()
            reply = tools.read_handle(handle, pattern=pattern, count=True)
            took = time.perf_counter() - began
            print(f"{pattern!r}: re {matches} matches {plain:.3f} s; count=true {reply.get('lines')} lines, "
                  f"next_offset {reply.get('next_offset')}, {took:.3f} s")


if __name__ == "__main__":
    main()
