"""What the attribute-flood scan (``engine.structure.html_tags.check_attributes``, run before every HTML read's
parse) costs beside that parse (``lxml.html.document_fromstring``), on the fixtures' real pages: the thread's CPU,
best of 21, ms.

    python bench/html_tags_cost.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import lxml.html

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scratchfs.engine.structure.html_tags import check_attributes

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def best(work, page: str) -> float:
    times = []
    for _ in range(21):
        start = time.thread_time()
        work(page)
        times.append(time.thread_time() - start)
    return min(times) * 1e3


def main() -> int:
    for path in [FIXTURES / "browser-rust-book.html", *sorted((FIXTURES / "tools").glob("*.html"))]:
        page = path.read_text(encoding="utf-8", errors="replace")
        scan, parse = best(check_attributes, page), best(lxml.html.document_fromstring, page)
        print(f"{path.name:>36s} {len(page):>8,} chars: scan {scan:6.2f} ms, parse {parse:6.2f} ms "
              f"({scan / parse:.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
