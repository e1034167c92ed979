"""The time of a search of an HTML page's text view that finds nothing, the hint's search again included (the same
search ignoring case; for a needle of several words, its words with any white space between them:
``scratchfs.api.miss_hints.spaced_pattern``), in this checkout or in another (``git archive COMMIT | tar -x -C DIR``,
then DIR as the argument: its code is imported instead).

    python bench/view_miss_hint.py [DIR] [MIB]    # default 25 MiB of the Rust book's print page, repeated

Each figure is the best of 5 searches, the view rendered and kept by a first one.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
if len(sys.argv) > 1 and sys.argv[1] != "-":
    sys.path.insert(0, sys.argv[1])

from scratchfs import ScratchStore  # noqa: E402
from scratchfs.api.contract import ScratchTools  # noqa: E402


def main() -> None:
    mib = int(sys.argv[2]) if len(sys.argv) > 2 else 25
    book = (HERE / "fixtures" / "browser-rust-book.html").read_bytes()
    page = book * max(1, (mib << 20) // len(book))
    with ScratchStore(tempfile.mkdtemp(prefix="view-miss-")) as store:
        scope = store.scope("r", "a")
        tools = ScratchTools(scope)
        handle = scope.spill(page, source_tool="browser").handle
        size = tools.read_handle(handle, match="warm the view", view="text")["size"]
        for needle in ("zebraquux", "zebra crossing quux"):
            took = []
            for _ in range(5):
                start = time.perf_counter()
                tools.read_handle(handle, match=needle, view="text")
                took.append(time.perf_counter() - start)
            print(f"page {len(page) / 2**20:.1f} MiB (view {size / 2**20:.1f} MiB), miss {needle!r}: "
                  f"{min(took) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
