"""Cost of search_reply.matches_reply (fitting a search into its budget): two versions of the module, alternated in
one process, the median of 7 calls each.

    git show <commit>:scratchfs/api/search_reply.py > /tmp/old_search_reply.py
    python bench/search_reply_cost.py scratchfs/api/search_reply.py /tmp/old_search_reply.py

The last case is a terminal view's search (``view="text"`` over ``grep --color=always`` output), whose windows are
drawn off the escape sequences of the window each was cut from (``_drawn``).
"""

from __future__ import annotations

import importlib.util
import sys
import tempfile
import time
from pathlib import Path

from scratchfs import ScratchStore

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "workspace-grep-stdlib-defs.txt"


def load(path: str, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    new, old = load(sys.argv[1], "new_reply"), load(sys.argv[2], "old_reply")
    with tempfile.TemporaryDirectory() as root, ScratchStore(root) as store:
        scope = store.scope("bench", "reply")
        ones = scope.spill(b"x\n" * 5000, source_tool="t").handle
        grep = scope.spill(FIXTURE.read_bytes(), source_tool="t").handle
        cases = [
            ("5,000 one-byte matches, context 0, 1000 a reply, 64 KiB", ones, "x", 0, 1000, 65536),
            ("grep fixture 'def ', context 200, 8 KiB", grep, "def ", 200, 20, 8192),
            ("grep fixture 'def ', context 900, 8 KiB", grep, "def ", 900, 20, 8192),
            ("grep fixture 'self', context 80, 1000 a reply, 64 KiB", grep, "self", 80, 1000, 65536),
        ]
        lines = [line for line in FIXTURE.read_bytes().splitlines(keepends=True) if b"def " in line]
        coloured = b"".join(b"\x1b[32m\x1b[K%d\x1b[m\x1b[K:" % n + line.replace(b"def ", b"\x1b[01;31m\x1b[Kdef "
                                                                               b"\x1b[m\x1b[K")
                            for n, line in enumerate(lines, 1))  # (grep --color=always, as tests/ draws it)
        cases.append(("colour grep's view, 'def ', context 0, 1000 a reply, 16 KiB", scope.spill(
            coloured, source_tool="t").handle, "def ", 0, 1000, 16384))
        for name, handle, needle, context, matches, budget in cases:
            view = "text" if name.startswith("colour") else None  # (windows drawn off the view's escapes)
            found = scope.search(handle, match=needle, context=context, max_matches=matches, cap=budget, view=view)
            a, b = [], []
            for rep in range(7):
                for module, times in ((new, a), (old, b)) if rep % 2 else ((old, b), (new, a)):
                    began = time.perf_counter()
                    module.matches_reply(found, budget)
                    times.append(time.perf_counter() - began)
            a.sort()
            b.sort()
            print(f"{name}: new {a[3] * 1e3:.2f} ms, old {b[3] * 1e3:.2f} ms, ratio {a[3] / b[3]:.2f}")


if __name__ == "__main__":
    main()
