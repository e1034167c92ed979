"""What an HTML page's stub costs and gives since its preview is the start of its text view
(:mod:`scratchfs.api.html_preview`): for every HTML page of ``fixtures/`` and ``/work/shared/realdata`` and for
hostile pages of 512 KiB (the tag-dense fills of ``tests/test_hostile26_cost.py`` and more), the thread's CPU of the
shape and the stub (``describe`` + ``build_stub``, as a spill makes them from its 512 KiB sample) with the byte
preview (``before``) and with the text view's start (``after``), and the preview's bytes each way; the bound, 10
times 512 KiB of grep output's ``describe`` and 5 ms (``tests/test_text_kinds_cost.py``). Best of ``REPS`` (5).

    python bench/html_preview.py [REPS]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scratchfs.api import stub as stub_module
from scratchfs.api.shape import SAMPLE_BYTES, describe
from scratchfs.api.stub import build_stub
from scratchfs.foundation.limits import PREVIEW_BYTES

ROOT = Path(__file__).resolve().parent.parent
SIZE = 512 * 1024


def fill(unit: bytes, size: int = SIZE) -> bytes:
    return (unit * (size // len(unit) + 1))[:size]


HOSTILE = {
    "<a ": fill(b"<a "), "<b>": fill(b"<b>"), "<a href=x></a>": fill(b"<a href=x></a>"), "<p>": fill(b"<p>"),
    "<li>": fill(b"<li>"), "<div ": fill(b"<div "), "body, then <a ": b"<html><body>" + fill(b"<a "),
    "<ul><li>x</li></ul>": fill(b"<ul><li>x</li></ul>\n"), "<ul>": fill(b"<ul>"), "<ul>x": fill(b"<ul>x"),
    "<p>word word</p>": fill(b"<p>word word</p>\n"),
    "sqlite3 -html rows": fill(b"<TR><TD>1</TD>\n<TD>ab</TD>\n</TR>\n"),
    "<h1>x</h1>": fill(b"<h1>x</h1>"), "&#1;": b"<html>" + fill(b"&#1;"), "&amp;": b"<html>" + fill(b"&amp;"),
    "<div>x</div>": b"<html><body>" + fill(b"<div>x</div>"), "<div> nested": b"<html><body>" + fill(b"<div>"),
    "<table><tr><td> nested": b"<html><body>" + fill(b"<table><tr><td>"),
    "<span>x</span>": b"<html><body>" + fill(b"<span>x</span>"), "<br>": b"<html><body>" + fill(b"<br>"),
    "<td>x</td> one row": b"<html><body><table><tr>" + fill(b"<td>x</td>"),
    "head of 200 KiB <script>": b"<html><head><script>" + b"x" * 200_000 + b"</script></head><body>"
    + fill(b"<p>word word</p>\n", 300_000),
}


def cost(page: bytes, reps: int) -> tuple[float, str]:
    """Best thread CPU (s) of describe + build_stub of ``page`` (its first SAMPLE_BYTES), and the stub's preview."""
    head, size = page[:SAMPLE_BYTES], len(page)
    lines = page.count(b"\n") + (not page.endswith(b"\n"))
    best, preview = float("inf"), ""
    for _ in range(reps):
        started = time.thread_time()
        shape = describe(head, size, lines)
        stub = build_stub("h_" + "a" * 24, head, page[-4096:], size, lines, shape.content_type, shape.text, "t",
                          PREVIEW_BYTES, "head", next_read=shape.next_read, top=shape.top)
        best, preview = min(best, time.thread_time() - started), stub.preview
    return best, preview


def main(reps: int) -> None:
    from scratchfs.engine.structure import html_worker  # noqa: F401  (lxml, inscriptis: imported once, not timed)

    grep = (ROOT / "fixtures/workspace-grep-stdlib-defs.txt").read_bytes()[:SIZE]
    plain = float("inf")
    for _ in range(reps):
        started = time.thread_time()
        describe(grep, SIZE, grep.count(b"\n"))
        plain = min(plain, time.thread_time() - started)
    print(f"bound: 10 x {plain * 1e3:.1f} ms + 5 ms = {(10 * plain + 0.005) * 1e3:.1f} ms")
    pages = {path.name if "realdata" not in str(path) else "realdata/" + path.name: path.read_bytes()
             for path in sorted([*ROOT.glob("fixtures/**/*.htm*"), *Path("/work/shared/realdata").glob("*.htm*")])}
    print(f"{'page':32} {'bytes':>9} {'before ms':>9} {'after ms':>9} {'preview B before':>16} {'after':>6}  type")
    for name, page in {**pages, **HOSTILE}.items():
        after, shown = cost(page, reps)
        view_head, stub_module.view_head = stub_module.view_head, lambda *_: None
        try:
            before, old = cost(page, reps)
        finally:
            stub_module.view_head = view_head
        kind = "text" if shown != old else "bytes"
        print(f"{name:32} {len(page):>9,} {before * 1e3:9.1f} {after * 1e3:9.1f} {len(old.encode()):>16} "
              f"{len(shown.encode()):>6}  {kind}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
