"""An HTML page's stub previews the start of its text view, not its ``<head>`` markup (helper htmlpreview1): the
preview is the first bytes of what ``view="text"`` reads from offset 0, told from cuts of the page's start
(:mod:`scratchfs.engine.structure.html_start`), and its note names the text read from where the preview stops. The
property that makes it safe: whatever the cuts tell is the first bytes of the real view (every HTML fixture and
real-data page, Hypothesis over pages of random pieces cut small), or nothing (the byte preview stays)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scratchfs import ScratchStore
from scratchfs.api.contract import ScratchTools
from scratchfs.api.rebuild import open_for_rebuild, rebuild_index
from scratchfs.api.shape import SAMPLE_BYTES, describe
from scratchfs.api.stub import build_stub
from scratchfs.engine.structure import html_worker
from scratchfs.engine.structure.html_start import HEAD_TAG_SHARE, MOST_TAGS, view_start
from scratchfs.foundation.limits import PREVIEW_BYTES
from tests.cpu_time import best_cpu
from tests.test_text_kinds_cost import SIZE, cpu, fill

_ROOT = Path(__file__).resolve().parent.parent
_PAGES = sorted([*_ROOT.glob("fixtures/**/*.htm*"), *Path("/work/shared/realdata").glob("**/*.htm*")])


def _view(page: bytes) -> bytes:
    return html_worker.view_text(page)


def _starts(page: bytes, head: bytes, want: int = 1024, **cuts: int) -> tuple[bytes, bool] | None:
    """What view_start tells from ``head``, checked to be the start of the whole page's view (and all of it when it
    says so)."""
    found = view_start(head, len(page), want, **cuts)
    if found is not None:
        view = _view(page)
        text, whole = found
        assert view.startswith(text), (text[-200:], view[: len(text) + 50][-250:])
        assert text == view or not whole
    return found


_SHORT_STARTS = {"pydoc-json-decoder.html": 160}
"""Pages whose view's start told within the budget of tags is shorter than 1,024 bytes: ``pydoc -w``'s page of a
module whose text after its docstring is one table row holding every class (``tests/test_html_short_start.py``)."""


@pytest.mark.parametrize("path", _PAGES, ids=lambda p: p.name)
def test_every_html_page_s_preview_is_its_view_s_start(path):
    page = path.read_bytes()
    found = _starts(page, page[:SAMPLE_BYTES])
    assert found is not None and len(found[0]) >= min(_SHORT_STARTS.get(path.name, 1024), len(_view(page)))
    for want in (300, 4096):  # (and a cut of its body: the sample's end, a page cut at 64 KiB)
        _starts(page, page[:SAMPLE_BYTES], want)
    _starts(page[:65536], page[:65536])


def test_the_rust_book_s_preview_starts_with_its_text_not_its_head():
    page = (_ROOT / "fixtures/browser-rust-book.html").read_bytes()
    text, whole = view_start(page, len(page), 1024)
    assert text.startswith(b"Keyboard shortcuts\n\nPress \xe2\x86\x90 or \xe2\x86\x92 to navigate") and not whole
    assert b"<meta" not in text and len(text) >= 1024


_TAGS = st.sampled_from([
    "<p>", "</p>", "<div>", "</div>", "<span>", "</span>", "<b>", "</b>", "<br>", "<pre>", "</pre>", "<ul>", "</ul>",
    "<ol>", "</ol>", "<li>", "</li>", "<table>", "</table>", "<tr>", "</tr>", "<td>", "</td>", "<th>", "<h1>",
    "</h1>", "<h2>", "<blockquote>", "</blockquote>", "<dl>", "<dt>", "<dd>", "<sup>", "<s>", "<!-- c -->", "<!--",
    "-->", "<script>x<y</script>", "<style>p{}</style>", "<title>T</title>", "&amp;", "&nbsp;", "&#233;", "&lt;",
    "<a href='x'>", "</a>", "<img alt=i>", "<hr>", "<textarea>", "</textarea>", "<caption>", "<body>", "</body>",
    "</html>", "<", ">", "<tbody>", "<p class=x>", "<div style='display:none'>", "<iframe>", "<noscript>",
])
_PIECES = st.one_of(_TAGS, st.sampled_from(["word", "two words", " ", "\n", "  \n  ", "é", "✓", "🙂", "\t",
                                            "a sentence of several words. "]))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_PIECES, min_size=50, max_size=400), st.integers(8, 200), st.integers(0, 3),
       st.sampled_from([b"", b"<!DOCTYPE html><html><head><title>t</title></head><body>", b"<html><body>"]),
       st.integers(16, 300))
def test_what_cuts_of_a_page_tell_is_its_view_s_start(pieces, first, doublings, start, want):
    page = start + "".join(pieces).encode()
    _starts(page, page, want, first=first, most=first << doublings, whole=0)
    _starts(page, page[: len(page) // 2 + 1], want, first=first, most=first << doublings, whole=0)  # (a sample)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["a", "é", "\u00a0", " ", "<p>", "</p>", "<br>", "x" * 40]), max_size=80),
       st.sampled_from([b"", b'<meta charset="utf-8">', b'<meta charset="latin-1">', b"<meta charset=shift_jis>",
                        b"\xef\xbb\xbf", b"\xff\xfe"]),
       st.sampled_from([b"", b"\xe9 later", b"\xff\xfe", "é".encode()]), st.integers(8, 64))
def test_a_page_decoded_otherwise_past_the_sample_is_told_only_when_it_reads_the_same(pieces, declared, after,
                                                                                      first):
    """The sample is valid UTF-8 (or declares an encoding) and the page past it may not be: the whole page decodes
    as it declares, or as windows-1252 -- told only when that reads the sample's cut the same."""
    body = "".join(pieces).encode("utf-16-le" if declared == b"\xff\xfe" else "utf-8")
    head = declared + b"<html><body>" + body
    page = head + b"<p>" + after
    _starts(page, head, 16, first=first, most=first * 4, whole=0)


def test_a_page_of_no_text_or_too_deep_keeps_its_byte_preview():
    assert view_start(b"<html><head><script>" + b"x" * 70_000 + b"</script></head></html>", 70_050, 1024) is None
    deep = b"<html><body>" + b"<div>" * 3000 + b"text " * 4000
    assert view_start(deep, len(deep), 1024) is None  # (this thread's recursion: the worker renders it)
    rows = b"<html><body><table>" + b"<tr><td>cell</td><td>" + b"words " * 8000 + b"</td></tr>"
    found = _starts(rows + b"<tr><td>x</td></tr></table>", rows)  # (a table whose first row is past the cuts)
    assert found is None


@pytest.fixture
def tools(scratch_scope):
    return ScratchTools(scratch_scope)


def test_the_stub_previews_the_text_and_its_note_reads_on_from_where_it_stops(scratch_scope, tools):
    page = (_ROOT / "fixtures/tools/pydoc-typing.html").read_bytes()  # (no landmark: its text view from its start)
    stub = scratch_scope.spill(page, source_tool="browser.get")
    assert len(stub.to_json().encode()) <= 1536
    covered = len(stub.preview.encode())
    assert (f'; the preview shows bytes 0-{covered} of its text view (view="text"). Next: read_handle('
            f'handle="{stub.handle}", view="text", offset={covered}) | read_handle(handle="{stub.handle}", ') \
        in stub.note  # (modelfollow1: its bytes from the start, read_handle(handle=H), were its <head>'s markup)
    assert stub.note.endswith(f'read_handle(handle="{stub.handle}", view="text", pattern="REGEX").')
    first = tools.call("read_handle", {"handle": stub.handle, "view": "text", "budget": 4096})
    assert first["text"].startswith(stub.preview)
    after = tools.call("read_handle", {"handle": stub.handle, "view": "text", "offset": covered, "budget": 4096})
    assert (stub.preview + after["text"]).encode() == _view(page)[: covered + len(after["text"].encode())]


def test_the_rust_book_s_stub_previews_its_main_content_not_its_menus(scratch_scope, tools):
    page = (_ROOT / "fixtures/browser-rust-book.html").read_bytes()
    stub = scratch_scope.spill(page, source_tool="browser.get")
    assert stub.preview.startswith("The Rust Programming Language\n\nby Steve Klabnik, Carol Nichols, and Chris")
    assert "Keyboard shortcuts" not in stub.preview  # (its help overlay and theme menu: the preview before)
    assert len(stub.to_json().encode()) <= 1536
    assert "of the page's main content (<main>), its navigation before it skipped (12,348 bytes" in stub.note
    assert (f'Next: read_handle(handle="{stub.handle}", select="main") | read_handle(handle="{stub.handle}", '
            f'view="text", offset=0) | read_handle(handle="{stub.handle}", select="h1, h2") | ') in stub.note
    main = tools.call("read_handle", {"handle": stub.handle, "select": "main", "budget": 4096})
    assert main["part"].startswith(stub.preview.rsplit("\n", 1)[0])


def test_a_small_page_s_stub_shows_all_of_its_text(scratch_scope):
    page = b"<html><head><title>T</title><style>p{}</style></head><body><h1>Hello</h1><p>a &amp; b</p>" + \
        b"<!-- " + b"c" * 2000 + b" --></body></html>"
    stub = scratch_scope.spill(page, source_tool="browser.get")
    assert stub.preview == "Hello\n\na & b\n"
    assert 'the preview shows all of its text view (view="text"). Next: read_handle(handle=' in stub.note
    assert json.loads(stub.to_json())["content_type"] == "html"


def test_head_and_tail_previews_stay_bytes(scratch_scope):
    page = (_ROOT / "fixtures/browser-rust-book.html").read_bytes()
    stub = scratch_scope.spill(page, source_tool="browser.get", preview="head+tail")
    assert stub.preview.startswith("<!DOCTYPE HTML>")


@pytest.mark.parametrize("name", ["fixtures/browser-rust-book.html", "fixtures/tools/pydoc-typing.html"])
def test_a_page_s_listing_preview_is_its_text_s_start_as_its_stub_s_and_after_a_rebuild(tmp_path, name):
    """A page's listing (``Entry.preview``: what ``ls`` and the web inspector show) kept its first bytes
    (``<!DOCTYPE HTML>...``) where its stub shows its text; it is now the stub's text start, cut from the same view
    (no view told again), and a row rebuilt from the blob says the same."""
    page = (_ROOT / name).read_bytes()
    with ScratchStore(tmp_path) as store:
        scope = store.scope("run", "agent")
        stub = scope.spill(page, source_tool="browser.get")
        listed = scope.entry("handle", stub.handle).preview
        bytes_preview = scope.spill(page, source_tool="browser.get", preview="head+tail")  # (its bytes: kept)
        assert scope.entry("handle", bytes_preview.handle).preview.startswith("<!DOCTYPE")
    view = _view(page).decode()
    assert "<" not in listed[:40] and len(listed.encode()) <= 256
    assert view.startswith(listed) if name.endswith("typing.html") else listed in view  # (the book's main content)
    assert listed.startswith(stub.preview[:200]) and stub.preview.startswith(listed[:200])
    for file in tmp_path.iterdir():
        if file.name.startswith("index.sqlite"):
            file.unlink()
    with open_for_rebuild(tmp_path) as store:
        assert rebuild_index(store).restored == 2
        assert store.scope("run", "agent").entry("handle", stub.handle).preview == listed


_HOSTILE = {  # (bench/html_preview.py has more: each a stub of 512 KiB of it, before and after)
    "<p>": fill(b"<p>"), "<li>": fill(b"<li>"), "<ul>x": fill(b"<ul>x"), "<br>": b"<html><body>" + fill(b"<br>"),
    "<div>x</div>": b"<html><body>" + fill(b"<div>x</div>"), "<ul><li>x</li></ul>": fill(b"<ul><li>x</li></ul>\n"),
    "<span>x</span>": b"<html><body>" + fill(b"<span>x</span>"), "sqlite3 -html rows": fill(
        b"<TR><TD>1</TD>\n<TD>abcdef</TD>\n</TR>\n"), "<h1>x</h1>": fill(b"<h1>x</h1>"),
}


def _stub_cpu(page: bytes) -> float:
    """The least thread CPU of 3 shapes and stubs of ``page``, as a spill makes them."""
    lines = page.count(b"\n") + (not page.endswith(b"\n"))

    def shape_and_stub() -> None:
        shape = describe(page, len(page), lines)
        build_stub("h_" + "a" * 24, page, page[-4096:], len(page), lines, shape.content_type, shape.text, "t",
                   PREVIEW_BYTES)

    return best_cpu(shape_and_stub)


@pytest.mark.parametrize("name", sorted(_HOSTILE))
def test_a_tag_dense_page_s_stub_costs_a_few_plain_texts(name):
    """The house bound of a spill's shape, for its shape and stub: 10 times 512 KiB of grep output's and 5 ms. The
    cuts rendered hold at most MOST_TAGS tags in all (512 KiB of <p> cut at 32 KiB took 112 ms a stub; 1,024 a cut,
    <ul><li>x</li></ul> was 18% over under Python 3.10) and nest at most MOST_DEPTH levels (1,024 <ul>x, 57 ms)."""
    html_worker.view_text(b"<p>x")  # (lxml and inscriptis imported: once a process)
    plain = (_ROOT / "fixtures/workspace-grep-stdlib-defs.txt").read_bytes()[:SIZE]
    assert _stub_cpu(_HOSTILE[name]) < 10 * cpu(plain) + 0.005


def test_a_stub_renders_a_bounded_sum_of_tags_and_a_page_whose_head_holds_a_thousand_previews_its_text(monkeypatch):
    """Each cut is rendered from the page's start, and a stub renders two to four: the bound was 1,024 tags a cut,
    about 2,000 a stub (``<ul><li>x</li></ul>`` 18% over the house bound under Python 3.10), counted from the page's
    start (a ``<head>`` of 1,000 ``<meta>`` kept the byte preview). Now the sum over the cuts is bounded (MOST_TAGS, a
    head's tags counted one in HEAD_TAG_SHARE: dropped before it is rendered) and the page's text is previewed."""
    parsed = []
    real = html_worker.parse_page

    def counted(text):
        body = text.find("<body")
        parsed.append(text.count("<", max(0, body)) + (text.count("<", 0, body) // HEAD_TAG_SHARE if body > 0 else 0))
        return real(text)

    monkeypatch.setattr(html_worker, "parse_page", counted)
    lists = fill(b"<ul><li>x</li></ul>\n")
    for page in (lists, fill(b"<h1>x</h1>"), fill(b"<li>"), fill(b"<p>"), b"<html><body>" + fill(b"<div>x</div>")):
        parsed.clear()
        found = view_start(page[:SAMPLE_BYTES], len(page) + 1, 1024)
        assert sum(parsed) <= MOST_TAGS and len(parsed) >= 2, (page[:20], parsed)
        assert (found is None) == page.startswith(b"<p>")  # (lists, headings, divs: their text still previewed)
    headed = (b"<html><head><title>T</title>" + b'<meta name="x" content="y">\n' * 1000 + b"</head><body>"
              + b"<p>Some words of text here, a sentence or two.</p>\n" * 2000)
    monkeypatch.setattr(html_worker, "parse_page", real)
    found = _starts(headed, headed[:SAMPLE_BYTES])
    assert found is not None and found[0].startswith(b"Some words of text here") and len(found[0]) >= 1024


def test_a_cut_is_not_rendered_past_its_tags_or_depth():
    page = b"<html><body>" + b"<p>x" * 5000
    assert view_start(page, len(page) + 1, 1024, tags=100) == view_start(page[:400], len(page) + 1, 1024)
    deep = b"<html><body>" + b"<ul>x" * 129 + b"</ul>" * 129 + b"<p>text " * 2000
    assert view_start(deep, len(deep) + 1, 64) is None
    shallow = deep.replace(b"<ul>x" * 129 + b"</ul>" * 129, b"<ul>x" * 100 + b"</ul>" * 100)
    assert view_start(shallow, len(shallow) + 1, 64) is not None
