"""Structure reads (jq, records, rows, HTML text and selectors, terminal view) against the plain library answers on
real data, within their byte budgets, and following the cursor pages through each result exactly once."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import uuid
from typing import ClassVar

import jq
import lxml.html
import pytest
from hypothesis import given
from hypothesis import strategies as st
from inscriptis import Inscriptis

from scratchfs.engine.seekable import SeekableReader, SeekableWriter, read_seek_table
from scratchfs.engine.structure import (
    BytesSource,
    ReaderSource,
    iter_rows,
    jq_page,
    json_bytes,
    jsondoc,
    parse_path,
    records_page,
    rows_page,
    select_page,
    text_page,
    view_page,
)
from scratchfs.engine.structure.html_render import element_text, parser_config
from scratchfs.engine.structure.paging import iter_lines
from scratchfs.engine.structure.terminal import render_line
from scratchfs.foundation.errors import BadRecord, InvalidArgument

BUDGETS = [256, 700, 8192, 65536]


def follow(read, budget):
    """Every page of a read, from the first to the last, each checked against the budget."""
    pages, cursor = [], None
    for _ in range(100_000):
        page = read(cursor=cursor, budget_bytes=budget)
        assert json_bytes(page.to_dict()) <= budget
        pages.append(page)
        cursor = page.cursor
        if cursor is None:
            return pages
    raise AssertionError("the cursor never ended")


def items_of(pages, name):
    """The items of a paged read, cut items put back together (each exactly once)."""
    out, partial = [], None
    for page in pages:
        body = page.to_dict()
        if "part" in body:
            partial = (partial or "") + body["part"]
            if page.cursor is None or body[name] or page.cursor.split(".")[-2] == "0":  # not inside an item: ended
                texts = name == "elements"  # the parts of a text item are its text, else its compact JSON
                out.append(json.dumps(partial, ensure_ascii=False, separators=(",", ":")) if texts else partial)
                partial = None
        out.extend(json.dumps(v, ensure_ascii=False, separators=(",", ":")) for v in body[name])
    assert partial is None
    return out


def values(pages, name):
    return [json.loads(text) for text in items_of(pages, name)]


@pytest.fixture(scope="module")
def ec2(fixture_data):
    return fixture_data["api-ec2-service-model.json"]


@pytest.mark.parametrize("flt", [
    ".metadata", ".operations | keys", ".operations.DescribeInstances.input", ".operations[] | .name",
    '.shapes | to_entries[] | select(.value.type == "structure") | .key', ".", "[.shapes[] | .type] | length",
    ".operations.AcceptAddressTransfer",
])
@pytest.mark.parametrize("budget", [700, 8192, 65536])  # 256: the hypothesis test below
def test_jq_pages_equal_jq_on_the_whole_document(ec2, flt, budget):
    expected = jq.compile(flt).input_text(ec2.decode()).all()
    pages = follow(lambda **kw: jq_page(BytesSource(ec2), flt, cache_key="ec2", **kw), budget)
    assert values(pages, "results") == expected


def test_jq_paths_agree_with_python(ec2):
    model = json.loads(ec2)
    page = jq_page(BytesSource(ec2), ".operations.DescribeInstances.input", budget_bytes=8192)
    assert page.items == [model["operations"]["DescribeInstances"]["input"]]
    page = jq_page(BytesSource(ec2), "keys", budget_bytes=8192)
    assert page.items == [sorted(model)]


def test_jq_over_a_seekable_blob(tmp_path, ec2):
    path = tmp_path / "blob"
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        writer = SeekableWriter(fd, frame_bytes=4096)
        writer.write(ec2)
        writer.close()
        source = ReaderSource(SeekableReader(fd, read_seek_table(fd, os.fstat(fd).st_size)))
        pages = follow(lambda **kw: jq_page(source, ".operations | keys[]", **kw), 1024)
        assert values(pages, "results") == sorted(json.loads(ec2)["operations"])
    finally:
        os.close(fd)


def test_jq_errors_carry_the_parser_message(ec2):
    with pytest.raises(InvalidArgument, match="syntax error"):
        jq_page(BytesSource(ec2), ".a[")
    with pytest.raises(InvalidArgument, match="parse error"):
        jq_page(BytesSource(b'{"a": [1, 2'), ".a")
    with pytest.raises(InvalidArgument, match="Cannot index"):
        jq_page(BytesSource(b"[1, 2]"), ".a")
    with pytest.raises(InvalidArgument, match="cursor"):
        jq_page(BytesSource(ec2), ".", cursor="1.2.ffff")
    other = jq_page(BytesSource(b"[1,2,3]"), ".[]", budget_bytes=256, max_results=1).cursor
    with pytest.raises(InvalidArgument, match="cursor"):
        jq_page(BytesSource(b"[1,2,3,4]"), ".[]", cursor=other)  # a cursor of another content


def test_jq_cannot_read_the_environment_or_run_forever():
    assert jq_page(BytesSource(b"{}"), "env.HOME, $ENV").items == [None, {}]
    with pytest.raises(InvalidArgument):
        jq_page(BytesSource(b"{}"), 'include "x"; .')
    page = jq_page(BytesSource(b"1"), "repeat(1)", budget_bytes=300)
    assert page.more
    assert set(page.items) == {1}


def test_large_documents_stream_path_filters(monkeypatch, ec2):
    monkeypatch.setattr(jsondoc, "MAX_JQ_DOCUMENT_BYTES", 64 * 1024)
    for flt in [".operations.DescribeInstances.input", ".operations[] | .name", ".metadata.uid"]:
        steps = parse_path(flt.replace(" | ", ""))
        assert steps is not None
        expected = jq.compile(flt).input_text(ec2.decode()).all()
        pages = follow(lambda f=flt, **kw: jq_page(BytesSource(ec2), f.replace(" | ", ""), **kw), 2048)
        assert values(pages, "results") == expected
    with pytest.raises(InvalidArgument, match=r"over the .* bound for jq filters"):
        jq_page(BytesSource(ec2), "keys")
    with pytest.raises(InvalidArgument, match="not valid JSON"):
        jq_page(BytesSource(b'{"a": [1, 2, ' + b" " * 70_000), ".a[]")


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=30),
                    lambda kids: st.lists(kids, max_size=6) | st.dictionaries(st.text(max_size=8), kids, max_size=6),
                    max_leaves=40),
       st.sampled_from(["..", ".[]?", "paths", "tostream"]), st.integers(256, 2000))
def test_following_the_jq_cursor_returns_each_output_once(doc, flt, budget):
    data = json.dumps(doc).encode()
    # jq's own text of each output (the binding's values are doubles: 2**53 + 1 would come back as 2**53)
    expected = [json.loads(t) for t in jq.compile(f"{flt} | tojson").input_text(data.decode()).all()]
    assert values(follow(lambda **kw: jq_page(BytesSource(data), flt, **kw), budget), "results") == expected


# -- JSON lines ---------------------------------------------------------------------------------------------------

def _jsonl(n=2000):
    return b"".join(json.dumps({"id": i, "user": f"u{i % 37}", "tags": ["x"] * (i % 4), "note": "é" * (i % 50)},
                               ensure_ascii=False).encode() + b"\n" for i in range(n))


@pytest.mark.parametrize("budget", BUDGETS)
def test_records_pages_equal_json_loads(budget):
    data = _jsonl()
    expected = [json.loads(line) for line in data.splitlines()]
    pages = follow(lambda **kw: records_page(BytesSource(data, 4096), 1, 500, **kw), budget)
    assert values(pages, "records") == expected
    page = records_page(BytesSource(data), 1234, 3, budget_bytes=8192)
    assert (page.first, page.items) == (1234, expected[1233:1236])


def test_records_with_jq_equal_jq_record_by_record():
    data = _jsonl()
    flt = 'select(.user == "u5") | {id, n: (.tags | length)}'
    program = jq.compile(flt)
    expected = [out for line in data.splitlines() for out in program.input_text(line.decode()).all()]
    pages = follow(lambda **kw: records_page(BytesSource(data), 1, 100, jq=flt, **kw), 512)
    assert values(pages, "results") == expected


def test_record_errors():
    with pytest.raises(BadRecord, match=r"record 2 \(bytes 8 to 13\) is not JSON") as caught:
        records_page(BytesSource(b'{"a":1}\n{"a":\n'), 2, 5)
    assert (caught.value.record, caught.value.offset, caught.value.length) == (2, 8, 6)
    with pytest.raises(InvalidArgument, match="past the last record"):
        records_page(BytesSource(b'{"a":1}\n'), 3, 5)


@given(st.lists(st.dictionaries(st.text(max_size=5), st.integers() | st.text(max_size=300), max_size=4),
                max_size=40), st.integers(256, 3000), st.integers(1, 7))
def test_following_the_records_cursor_returns_each_record_once(records, budget, per_page):
    data = b"".join(json.dumps(r).encode() + b"\n\n" for r in records)  # blank lines are not records
    pages = follow(lambda **kw: records_page(BytesSource(data, 64), 1, per_page, **kw), budget)
    assert values(pages, "records") == records
    assert all(sum(1 for _ in p.items) + (p.part is not None) <= per_page for p in pages)


# -- CSV ----------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("budget", BUDGETS)
def test_rows_equal_the_csv_module(fixture_data, budget):
    whole = fixture_data["query-packages-by-month.csv"]
    table = list(csv.reader(io.StringIO(whole.decode(), newline="")))
    data = whole
    if budget == BUDGETS[0]:  # (the whole file is 14,774 pages at this budget, 27 s: its first 96 KiB cross 24 frames)
        data = whole[:whole.index(b"\n", 96 * 1024) + 1]
    read = list(csv.reader(io.StringIO(data.decode(), newline="")))
    assert read == table[:len(read)] and len(read) > 700  # (cut at a row's end)
    pages = follow(lambda **kw: rows_page(BytesSource(data, 4096), 1, 1000, **kw), budget)
    assert all(p.extra["header"] == table[0] for p in pages)
    assert values(pages, "rows") == read[1:]
    page = rows_page(BytesSource(whole), 4000, 2, columns=["summary", "name"])
    assert page.extra["header"] == ["summary", "name"]
    assert page.items == [[r[3], r[0]] for r in table[4000:4002]]


def test_quoted_multiline_fields_are_one_row():
    data = b'id,text\n1,"two\nlines"\n2,"a ""quote"""\n\n3,"x,\r\ny"\n'
    table = [r for r in csv.reader(io.StringIO(data.decode(), newline="")) if r]
    pages = follow(lambda **kw: rows_page(BytesSource(data, 8), 1, 1, **kw), 256)
    assert values(pages, "rows") == table[1:]
    assert [p.first for p in pages] == [1, 2, 3]
    assert rows_page(BytesSource(data), 3, 5).items == [["3", "x,\r\ny"]]


def test_tsv_and_row_errors():
    data = b"a\tb\n1\t2\n3\t4\n"
    assert rows_page(BytesSource(data), 2, 5, columns=[1]).to_dict() == {
        "header": ["b"], "first": 2, "rows": [["4"]], "cursor": None, "more": False}
    with pytest.raises(InvalidArgument, match=re.escape('the 2 columns are: ["a", "b"]')):
        rows_page(BytesSource(data), 1, 5, columns=["c"])
    with pytest.raises(InvalidArgument, match="past the last row"):
        rows_page(BytesSource(data), 4, 5)


_CELL = st.text(st.characters(blacklist_characters="\x00\r", blacklist_categories=("Cs",)), max_size=40)


@given(st.lists(st.lists(_CELL, min_size=3, max_size=3), min_size=1, max_size=30), st.integers(256, 2000),
       st.integers(1, 9))
def test_following_the_rows_cursor_returns_each_row_once(table, budget, per_page):
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows([["a", "b", "c"], *table])
    data = out.getvalue().encode()
    expected = [r for r in list(csv.reader(io.StringIO(out.getvalue(), newline="")))[1:] if r]
    pages = follow(lambda **kw: rows_page(BytesSource(data, 32), 1, per_page, **kw), budget)
    assert values(pages, "rows") == expected


# -- HTML ---------------------------------------------------------------------------------------------------------

def get_text(html: str) -> str:
    """The text inscriptis renders for the page ``html`` parsed as a document: ``inscriptis.get_text`` of 2.7.6 (the
    first to require Python 3.11), whose ``</table>`` fix scratchfs applies to older versions (``parser_config``).
    2.7.5, which Python 3.10 gets, parses with lxml's ``fromstring``: a fragment of several elements comes back
    inside a synthetic ``<div>`` that the CSS profile indents, two spaces before every paragraph."""
    return Inscriptis(lxml.html.document_fromstring(html), parser_config()).get_text()


@pytest.mark.parametrize("budget", [256, 8192, 65536])
def test_html_text_pages_equal_inscriptis(fixture_data, budget):
    html = fixture_data["browser-rust-book.html"]
    view = get_text(html.decode())
    pages = follow(lambda **kw: text_page(BytesSource(html), **kw, cache_key=f"book{budget}"), budget)
    assert "".join(p.text for p in pages) == view
    offsets = [p.offset for p in pages]
    assert offsets == sorted(offsets)
    middle = pages[len(pages) // 2]
    assert text_page(BytesSource(html), middle.offset, budget_bytes=budget).text == middle.text


def test_css_selectors_return_element_text(fixture_data):
    html = fixture_data["browser-rust-book.html"]
    tree = lxml.html.document_fromstring(html.decode())
    for selector in ["h1", "h2", "main h1 a", "code.language-console"]:
        expected = [" ".join(e.text_content().split()) for e in tree.cssselect(selector)]
        if selector.endswith(" a"):  # (a link is its text and its target: helper modeltask9)
            hrefs = [e.get("href") for e in tree.cssselect(selector)]
            expected = [f"[{text}]({href})" for text, href in zip(expected, hrefs, strict=True)]
        pages = follow(lambda s=selector, **kw: select_page(BytesSource(html), s, **kw), 1024)
        got = [" ".join(t.split()) for t in (json.loads(x) for x in items_of(pages, "elements"))]
        assert got == expected
        assert pages[0].extra["matches"] == len(expected)
    with pytest.raises(InvalidArgument, match="does not parse"):
        select_page(BytesSource(html), "h1[")


def test_sibling_tables_and_the_text_after_them_keep_their_indent():
    # inscriptis before 2.7.6 (Python 3.10 gets 2.7.5) padded each table of a block two spaces more than the one
    # before it, and all that followed: the Rust book's text view grew from 366,945 to 375,697 bytes, and a page of
    # 40 such blocks from 4,119 to 205,759
    tables = "".join(f"<table><tr><td>cell {i}</td><td>x</td></tr></table>" for i in range(30))
    page = f"<html><body><div>{tables}</div><p>after</p><ul><li>{tables}</li></ul><p>end</p></body></html>".encode()
    text = "".join(p.text for p in follow(lambda **kw: text_page(BytesSource(page), **kw), 8192))
    lines = [line for line in text.splitlines() if line.strip()]
    indents = [len(line) - len(line.lstrip()) for line in lines if "cell" in line]
    assert len(indents) == 60 and len(set(indents[:30])) == 1 and len(set(indents[31:])) == 1
    assert lines[30] == "after" and lines[-1] == "end"
    (div,) = [json.loads(x) for x in items_of([select_page(BytesSource(page), "div")], "elements")]
    assert len({len(line) - len(line.lstrip()) for line in div.splitlines()[1:] if line.strip()}) == 1  # 1st: stripped


def test_a_selected_element_inscriptis_renders_as_nothing_gives_its_text_content(fixture_data):
    html = fixture_data["browser-rust-book.html"]
    page = select_page(BytesSource(html), "title")
    assert (page.extra["matches"], [json.loads(x) for x in items_of([page], "elements")]) == (
        1, ["The Rust Programming Language"])
    doc = b"<html><head><style>p { color: red }</style><script>let x = 1;</script></head><body><p> a <!-- c --> b"
    got = [json.loads(x) for x in items_of([select_page(BytesSource(doc), "style, script, p, head")], "elements")]
    assert got == ["p { color: red }let x = 1;", "p { color: red }", "let x = 1;", "a b"]  # p: as inscriptis renders it


_ODD_PAGES = [  # (page bytes, the text a browser reads)
    ("<html><head><meta charset='iso-8859-1'></head><body><p>café déjà</p><p>naïve</p></body></html>".encode("latin-1"),
     "cp1252"),
    (b"<html><head><meta http-equiv='Content-Type' content='text/html; charset=shift_jis'></head><body><p>\x82\xa0 x"
     b"</p></body></html>", "shift_jis"),
    (b'<html><head><META HTTP-EQUIV="content-type" CONTENT="text/html;charset=windows-1252"></head><body><p>\x93q\x94'
     b" \x80 caf\xe9</p></body></html>", "cp1252"),
    (b"<!-- <meta charset='koi8-r'> --><meta charset=\"windows-1251\"><p>\xcf\xf0\xe8\xe2\xe5\xf2</p>", "cp1251"),
    ("<p>ünïcödé ✓</p><p>二</p>".encode(), "utf-8"),
    ("<meta charset='iso-8859-1'><p>ünïcödé, a page fetched as text and spilled as UTF-8</p>".encode(), "utf-8"),
    (b"<p>bad \xff\xfe bytes \xc3</p><p>\xe2\x82</p>", "cp1252"),  # no declaration, not UTF-8: windows-1252
    ("<p>ünïcödé ✓ but one stray byte: \xff</p>".encode() + b"\xff", "utf-8-replace"),
    (b"\xef\xbb\xbf<meta charset='iso-8859-1'><p>caf\xc3\xa9</p>", "utf-8-sig"),
]


@pytest.mark.parametrize(("page", "encoding"), _ODD_PAGES)
def test_html_reads_decode_the_page_as_a_browser_does(page, encoding):
    """A byte order mark, then valid UTF-8, then the page's declared charset (the HTML standard's prescan of its
    first 1,024 bytes: <meta charset>, http-equiv content-type, comments skipped), then windows-1252: the view and
    the selected texts are those of the page decoded so, no U+FFFD for a Latin-1 letter."""
    text = page.decode("utf-8", "replace") if encoding == "utf-8-replace" else page.decode(encoding)
    view = follow(lambda **kw: text_page(BytesSource(page), **kw), 256)
    assert "".join(p.text for p in view) == get_text(text)
    expected = [element_text(e) for e in lxml.html.document_fromstring(text).cssselect("p")]
    got = [json.loads(x) for x in items_of(follow(lambda **kw: select_page(BytesSource(page), "p", **kw), 256),
                                           "elements")]
    assert got == expected and len(got) >= 1
    if b"iso-8859-1" in page[:80] and encoding == "cp1252":
        assert got == ["café déjà", "naïve"]
    assert ("\ufffd" in "".join(p.text for p in view)) is (encoding == "utf-8-replace")  # (the stray byte is after
    # the last </p>: no element's text)


@given(st.text(st.characters(codec="cp1252", blacklist_characters="<>&\r"), min_size=1, max_size=60),
       st.sampled_from(["<meta charset='{}'>", '<meta http-equiv="Content-Type" content="text/html; charset={}">']),
       st.sampled_from(["iso-8859-1", "windows-1252", "latin1", "ISO-8859-1"]))
def test_a_latin1_page_reads_as_its_text(body, meta, label):
    page = f"<html><head>{meta.format(label)}</head><body><p>{body}</p></body></html>"
    data = page.encode("cp1252")
    try:
        data.decode("utf-8")
        return  # valid UTF-8 as well (ASCII, or by chance): read as UTF-8, the same text when ASCII
    except UnicodeDecodeError:
        pass
    got = [json.loads(x) for x in items_of([select_page(BytesSource(data), "p", budget_bytes=65536)], "elements")]
    expected = [element_text(e) for e in lxml.html.document_fromstring(page).cssselect("p")]
    assert got == expected


def test_a_page_blank_but_for_unicode_spaces_selects_nothing():
    for page in ["\u00a0\u3000\n".encode(), b"  \n", b""]:
        selected = select_page(BytesSource(page), "p")
        assert (selected.extra["matches"], selected.to_dict()["elements"], selected.cursor) == (0, [], None), page
        assert text_page(BytesSource(page)).text == ""


# -- terminal -----------------------------------------------------------------------------------------------------

def _pyte_lines(raw: str, width: int = 400) -> list[str]:
    """Each line as pyte's screen holds it, up to its last cell a character was written to: spaces written at the
    end kept, cells erased (``ESC[K``, pyte writes blanks there) or never written (past a tab or a move) not -- what
    a terminal keeps of a line (its display pads every line with blanks to the screen's width)."""
    import pyte

    class Written(pyte.Screen):
        def erase_in_line(self, how: int = 0, private: bool = False) -> None:
            line = self.buffer[self.cursor.y]
            for x in {0: range(self.cursor.x, self.columns), 1: range(self.cursor.x + 1),
                      2: range(self.columns)}[how]:
                line.pop(x, None)

        def erase_characters(self, count: int | None = None) -> None:  # (ECH: blanks no character was written to)
            line = self.buffer[self.cursor.y]
            for x in range(self.cursor.x, min(self.cursor.x + (count or 1), self.columns)):
                line.pop(x, None)

        def delete_characters(self, count: int | None = None) -> None:  # (DCH: what moves left is what was written)
            line, count = self.buffer[self.cursor.y], count or 1
            for x in range(self.cursor.x, self.columns):
                if x + count in line:
                    line[x] = line.pop(x + count)
                else:
                    line.pop(x, None)

        def insert_characters(self, count: int | None = None) -> None:  # (ICH: the blanks put in are no writes)
            line, count = self.buffer[self.cursor.y], count or 1
            for x in range(self.columns - 1, self.cursor.x - 1, -1):
                if x in line and x + count < self.columns:
                    line[x + count] = line.pop(x)
                else:
                    line.pop(x, None)

    rows = raw.split("\n")
    screen = Written(width, len(rows) + 1)
    screen.set_mode(pyte.modes.LNM)
    pyte.Stream(screen).feed(raw)
    lines = []
    for y in range(len(rows)):
        cells = screen.buffer[y]
        lines.append("".join(cells[x].data for x in range(max(cells) + 1)) if cells else "")
    return lines


def _progress_log() -> str:
    parts = []
    for step in range(30):
        parts.append("".join(f"\r\x1b[2K[{'#' * (p // 5):<20}] {p:3d}% step {step}" for p in range(0, 101, 7)))
        parts.append(f"\r\x1b[32mdone\x1b[0m step {step}\x1b[K\n")
        parts.append(f"\x1b]0;title {step}\x07\x1b[1mcompiling\x1b[22m crate_{step} ... ok\n")
    parts.append("\x1b[1;31merror[E0425]\x1b[0m: cannot find value `x` in this scope\n")
    return "".join(parts)


def test_terminal_view_equals_pyte():
    raw = _progress_log()
    view = "\n".join(_pyte_lines(raw))
    pages = follow(lambda **kw: view_page(BytesSource(raw.encode(), 512), **kw), 300)
    assert "".join(p.text for p in pages) == view
    assert "error[E0425]: cannot find value `x` in this scope" in view
    assert "done step 7\ncompiling crate_7 ... ok\n" in view


_TOKENS = ["a", "bc", "é", " ", "\r", "\b", "\x1b[K", "\x1b[2K", "\x1b[1K", "\x1b[31m", "\x1b[0m", "\x1b[3G",
           "\x1b[2C", "\x1b[D", "\x1b]8;;http://x\x07", "\n"]


@given(st.lists(st.sampled_from([*_TOKENS, "   ", "\t", "x\t"]), max_size=60), st.integers(256, 600))
def test_terminal_pages_keep_the_spaces_a_terminal_keeps_at_a_line_end(tokens, budget):
    """A space written at a line's end is kept, as a terminal holds it (a progress line padded with spaces over a
    longer one: ``\\r50%   `` was ``50%``); the blanks a tab, a move or an erasure leaves are not; a tab moves over
    the text it passes (it wrote spaces over it)."""
    raw = "".join(tokens)
    rendered = "\n".join(_pyte_lines(raw))
    pages = follow(lambda **kw: view_page(BytesSource(raw.encode(), 16), **kw), budget)
    assert "".join(p.text for p in pages) == rendered


@given(st.lists(st.sampled_from([*_TOKENS, "\x1b[P", "\x1b[2P", "\x1b[@", "\x1b[3@", "\x1b[X", "\x1b[2X", "\x1b[9P",
                                 "\x1b[9X"]), max_size=60), st.integers(256, 600))
def test_terminal_pages_delete_insert_and_erase_characters_as_a_terminal_does(tokens, budget):
    """``ESC[nP`` (delete), ``ESC[n@`` (insert) and ``ESC[nX`` (erase characters), which a shell's line editing writes
    (a recording of an interactive session), were dropped: ``abc``, two steps left, ``ESC[P`` showed ``abc`` where a
    terminal shows ``ac``. Against pyte's screen."""
    raw = "".join(tokens)
    rendered = "\n".join(_pyte_lines(raw))
    pages = follow(lambda **kw: view_page(BytesSource(raw.encode(), 16), **kw), budget)
    assert "".join(p.text for p in pages) == rendered


def test_inserted_blanks_push_cells_past_the_margin_and_never_grow_a_line():
    """``ESC[n@`` put up to 1,024 blank cells before the cursor's and kept every cell they pushed on: 3,000 inserts
    at column 0 of a 100-character line made a 3 MB line in a second, 20,000 ran past a minute (helper revB). A
    terminal loses what an insert pushes past its right margin: here the line's end or MAX_CURSOR_COLUMN."""
    assert render_line("x" * 100 + "\x1b[G\x1b[9999@" * 20000) == ""  # (all pushed off; blanks are no writes)
    assert render_line("x" * 100 + "\x1b[G\x1b[5@y") == "y    " + "x" * 100  # (within the margin: all kept)
    wide = "a" * 2000 + "\x1b[10G\x1b[3@"
    assert render_line(wide) == "a" * 9 + "   " + "a" * (2000 - 12)  # (the line's end is its margin)


def test_a_progress_line_padded_with_spaces_keeps_them():
    raw = ("\x1b[32mdownloading\x1b[0m 100% of big.tar\r\x1b[1mdone\x1b[0m        \nabc\t\nabcdefghij\r\tX\n"
           "[#####     ]  50%\r\x1b[1mfinished\x1b[0m            \n")
    view = "".join(p.text for p in follow(lambda **kw: view_page(BytesSource(raw.encode()), **kw), 4096))
    assert view == "done        100% of big.tar\nabc\nabcdefghXj\nfinished" + " " * 12 + "\n"
    assert view.split("\n") == _pyte_lines(raw)


@given(st.lists(st.sampled_from(_TOKENS), max_size=60), st.integers(256, 600))
def test_terminal_pages_equal_pyte_on_random_redraws(tokens, budget):
    raw = "".join(tokens)
    rendered = "\n".join(_pyte_lines(raw))
    pages = follow(lambda **kw: view_page(BytesSource(raw.encode(), 16), **kw), budget)
    assert "".join(p.text for p in pages) == rendered


@pytest.mark.parametrize("move", ["\x1b[1000000000G", "\x1b[999999999C", "\x1b[5000G\x1b[5000C"])
def test_a_cursor_move_far_right_stops_at_the_margin_as_a_terminal_does(move):
    # a 20-byte escape made a line of a billion spaces (gigabytes) before: moves stop at column MAX_CURSOR_COLUMN
    from scratchfs.engine.structure.terminal import MAX_CURSOR_COLUMN, render_text
    raw = f"progress 10%\r{move}x\nnext\n"
    assert render_text(raw.encode()) == "progress 10%" + " " * (MAX_CURSOR_COLUMN - 12) + "x\nnext\n"
    assert render_text(raw.encode()).split("\n")[0] == _pyte_lines(raw, MAX_CURSOR_COLUMN + 1)[0]
    long = "y" * 3000 + "\r\x1b[2500Gz"  # within a line longer than the margin a move is a move
    assert render_text(long.encode()) == "y" * 2499 + "z" + "y" * 500


def test_terminal_offsets_resume():
    raw = ("x" * 90 + "\r" + "y" * 40 + "\n") * 300
    full = "".join(p.text for p in follow(lambda **kw: view_page(BytesSource(raw.encode()), **kw), 4096))
    assert full == ("y" * 40 + "x" * 50 + "\n") * 300
    page = view_page(BytesSource(raw.encode()), 9000, budget_bytes=512)
    assert page.offset == 9000
    assert full.encode()[9000:].startswith(page.text.encode())
    assert re.fullmatch(r"[xy\n]+", page.text)


def test_terminal_view_from_a_raw_offset():
    raw = _progress_log().encode()
    full = "".join(p.text for p in follow(lambda **kw: view_page(BytesSource(raw), **kw), 65536)).encode()
    at = raw.index(b"error[E0425]")
    page = view_page(BytesSource(raw), raw_offset=at, budget_bytes=512)
    assert page.text.startswith("error[E0425]: cannot find value `x` in this scope")
    assert full[page.offset :].startswith(page.text.encode())


# -- the top level of a JSON document, streamed -------------------------------------------------------------------

_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
                     | st.text(max_size=20),
                     lambda kids: st.lists(kids, max_size=5) | st.dictionaries(st.text(max_size=6), kids, max_size=5),
                     max_leaves=30)


def _kind_of(value):
    return {dict: "object", list: "array", str: "str", int: "int", float: "float", bool: "bool"}.get(
        type(value), "null")


@given(st.one_of(st.lists(_JSON, max_size=8), st.dictionaries(st.text(max_size=6), _JSON, max_size=8)),
       st.sampled_from([None, 0, 2]), st.integers(1, 64))
def test_top_level_equals_json_loads(doc, indent, frame):
    from scratchfs.engine.structure.toplevel import top_level

    data = json.dumps(doc, indent=indent, ensure_ascii=indent is None).encode()
    top = top_level(BytesSource(data, frame))
    assert top is not None
    assert top.complete
    assert top.count == len(doc)
    if isinstance(doc, dict):
        assert top.kind == "object"
        assert [e.key for e in top.entries] == list(doc)
        for entry, value in zip(top.entries, doc.values(), strict=True):
            assert entry.kind == _kind_of(value)
            if isinstance(value, (dict, list)):
                assert entry.count == len(value)
            if isinstance(value, dict):
                assert entry.names == list(value)[:8]
            if isinstance(value, list) and value:
                assert entry.item_kind == _kind_of(value[0])
                objects = [item for item in value if isinstance(item, dict)] if isinstance(value[0], dict) else []
                assert entry.names == list(dict.fromkeys(k for item in objects for k in item))[:8]  # every item's
                if objects:  # keys (first seen first), and those every object holds
                    assert entry.common == set.intersection(*map(set, objects))
    else:
        assert top.kind == "array"
        if doc:
            assert top.entries[0].item_kind == _kind_of(doc[0])


def test_top_level_bounds_and_malformed_documents():
    from scratchfs.engine.structure.toplevel import top_level

    big = b'{"meta":{"n":1},"items":[' + b",".join(b'{"id":%d}' % i for i in range(200_000)) + b'],"tail":1}'
    whole = top_level(BytesSource(big))
    assert (whole.complete, whole.count, [e.count for e in whole.entries]) == (True, 3, [1, 200_000, 0])
    cut = top_level(BytesSource(big), max_bytes=1024 * 1024)
    assert not cut.complete
    assert cut.read_bytes == 1024 * 1024
    # the items array runs past the bound: listed as cut, its count what was read (the shape says "at least")
    assert [(e.key, e.cut) for e in cut.entries] == [("meta", False), ("items", True)]
    assert 0 < cut.entries[1].count < 200_000
    for bad in [b"", b"x", b'{"a":', b"[1,2", b'{"a" 1}', b'{"a":[1 2]}', b"\xff[1]"]:
        assert top_level(BytesSource(bad)) is None


class _Counted(bytes):
    """Bytes that add the length of every copy made from them by ``+`` or slicing to ``copied[0]``."""

    copied: ClassVar[list[int]] = [0]

    def __add__(self, other):
        _Counted.copied[0] += len(self) + len(other)
        return _Counted(bytes(self) + bytes(other))

    def __radd__(self, other):
        _Counted.copied[0] += len(self) + len(other)
        return _Counted(bytes(other) + bytes(self))

    def __getitem__(self, index):
        got = bytes.__getitem__(self, index)
        if isinstance(index, slice):
            _Counted.copied[0] += len(got)
            return _Counted(got)
        return got


class _ShortReads:
    """A content source whose reads return at most ``most`` bytes (so lines span many chunks), as ``_Counted``."""

    def __init__(self, data: bytes, most: int) -> None:
        self.data, self.size, self.most = data, len(data), most

    def read(self, offset: int, length: int) -> bytes:
        return _Counted(self.data[offset : offset + min(length, self.most)])

    def iter_frames(self, first_frame: int = 0):
        raise AssertionError("iter_lines reads by range")


@given(st.lists(st.sampled_from([b"a", b"bc", b"\n", b"\r\n", b"xyz" * 5]), max_size=40).map(b"".join),
       st.integers(1, 9), st.integers(0, 50))
def test_iter_lines_matches_splitting_the_bytes(data, most, offset):
    offset = min(offset, len(data))
    want, at = [], offset
    for piece in re.findall(rb"[^\n]*\n|[^\n]+\Z", data[offset:]):
        want.append((at, piece))
        at += len(piece)
    assert [(o, bytes(x)) for o, x in iter_lines(_ShortReads(data, most), offset)] == want


def test_a_20_mib_line_is_copied_a_bounded_number_of_times_not_once_per_chunk():
    data = b"head\n" + b"x" * (20 * 1024 * 1024) + b"\ntail"
    _Counted.copied[0] = 0
    got = [(o, len(x)) for o, x in iter_lines(_ShortReads(data, 256 * 1024), 0)]
    assert got == [(0, 5), (5, 20 * 1024 * 1024 + 1), (5 + 20 * 1024 * 1024 + 1, 4)]
    assert _Counted.copied[0] <= 2 * len(data)  # holding the line's tail and re-copying it per chunk: ~80 x 10 MiB
    with pytest.raises(InvalidArgument, match="a line at byte 5 is longer than 1,048,576 bytes"):
        list(iter_lines(_ShortReads(data, 256 * 1024), 0, max_line_bytes=1024 * 1024))


_JSONL, _CSV, _HTML, _LOG = (BytesSource(b'{"a":1}\n{"a":2}\n'), BytesSource(b"h\n1\n2\n"),
                             BytesSource(b"<p>one</p><p>two</p>"), BytesSource(b"x\ny\n"))
_INT_ARGUMENTS = [  # (what, read taking the value, lowest, highest or None)
    ("record", lambda v: records_page(_JSONL, v), 1, None),
    ("records", lambda v: records_page(_JSONL, 1, v), 1, 10_000),
    ("row", lambda v: rows_page(_CSV, v), 1, None),
    ("rows", lambda v: rows_page(_CSV, 1, v), 1, 10_000),
    ("offset", lambda v: view_page(_LOG, v), 0, None),
    ("raw_offset", lambda v: view_page(_LOG, raw_offset=v), 0, 4),
    ("max_results", lambda v: jq_page(BytesSource(b"[1]"), ".[]", max_results=v), 1, None),
    ("max_elements", lambda v: select_page(_HTML, "p", max_elements=v), 1, None),
    ("offset (a byte offset into the text view)", lambda v: text_page(_HTML, v), 0, 9),  # the view's size in bytes
    ("budget_bytes", lambda v: records_page(_JSONL, budget_bytes=v), 256, 65536),
]


@pytest.mark.parametrize(("what", "read", "low", "high"), _INT_ARGUMENTS, ids=[a[0] for a in _INT_ARGUMENTS])
def test_every_integer_argument_of_a_structure_read_is_checked_by_check_int(what, read, low, high):
    read(low)  # the bounds themselves are accepted
    if high is not None:
        read(high)
    bound = f"between {low} and {high}" if high is not None else f"at least {low}"
    for bad, message in ((True, f"{what} must be an integer, not a bool: True"),
                         (1.0, f"{what} must be an integer, not float: 1.0"),
                         ("3", f"{what} must be an integer, not str: '3'"),
                         (low - 1, f"{what} must be {bound}: {low - 1}"),
                         (None if high is None else high + 1, f"{what} must be {bound}: {high and high + 1}")):
        if bad is None:
            continue
        with pytest.raises(InvalidArgument) as caught:
            read(bad)
        assert str(caught.value) == message


def test_rendered_views_are_kept_by_cache_key_in_the_shared_lru():
    from scratchfs.engine.structure import html

    class Counting(BytesSource):
        reads = 0

        def iter_frames(self, first_frame: int = 0):
            Counting.reads += 1
            return super().iter_frames(first_frame)

    source = Counting(b"<p>kept</p>")
    key = f"test-{uuid.uuid4().hex}"
    assert html.html_text(source, key) == html.html_text(source, key) == b"kept\n"
    assert Counting.reads == 1  # the second view came from the cache
    html.html_text(source, None)
    html.html_text(source, None)
    assert Counting.reads == 3  # no key: rendered each time


# -- a UTF-8 byte order mark before a CSV header --------------------------------------------------------------------

@given(st.lists(st.lists(_CELL, min_size=2, max_size=2), min_size=1, max_size=12), st.integers(256, 2000),
       st.integers(1, 5), st.sampled_from(["\n", "\r\n"]))
def test_a_byte_order_mark_is_no_part_of_the_first_column_name(table, budget, per_page, ending):
    """Excel's CSV exports start with U+FEFF: the header and rows are those ``encoding="utf-8-sig"`` reads, and
    every row's offset is still its offset in the content (the mark's 3 bytes counted)."""
    out = io.StringIO()
    csv.writer(out, lineterminator=ending).writerows([["id", "name"], *table])
    data = b"\xef\xbb\xbf" + out.getvalue().encode()
    expected = [r for r in csv.reader(io.StringIO(data.decode("utf-8-sig"), newline="")) if r]
    pages = follow(lambda **kw: rows_page(BytesSource(data, 16), 1, per_page, **kw), budget)
    assert all(p.extra["header"] == ["id", "name"] for p in pages)
    assert values(pages, "rows") == expected[1:]
    assert rows_page(BytesSource(data), columns=["id"]).extra["header"] == ["id"]
    records = list(iter_rows(BytesSource(data, 16)))
    assert [cells for _, cells in records] == expected
    assert records[0][0] == 0
    for start, cells in records[1:]:  # each row is read again from its own offset alone
        assert next(csv.reader(io.StringIO(data[start:].decode(), newline=""))) == cells


@pytest.mark.parametrize("flt", [None, ".a"])
@pytest.mark.parametrize("after", [b'{"a":4}\n', b"\n \n", b""])
def test_a_bad_record_ends_the_page_before_it_and_is_passed_over(flt, after):
    """Records (or outputs) before a bad record are given, the page's note names it (number, bytes) and its cursor
    goes on after it -- the page's next call reads on rather than failing on it (before: the cursor stopped at it
    and the next page raised) --; a page starting at it raises BadRecord; jq failing on a record is a bad record
    too. A bad last record (blank lines after it) ends the read."""
    bad_line = b'{"a":\n' if flt is None else b'"text"\n'
    data = b'{"a":1}\n\n{"a":2}\n' + bad_line + after
    page = records_page(BytesSource(data), 1, 50, jq=flt)
    assert ([1, 2] if flt else [{"a": 1}, {"a": 2}]) == page.items
    assert page.passed is not None and (page.passed.record, page.passed.offset) == (3, data.index(bad_line))
    assert page.to_dict()["note"].startswith(str(page.passed)) and "passed over" in page.to_dict()["note"]
    if after.strip():
        assert page.cursor is not None
        rest = records_page(BytesSource(data), 1, 50, jq=flt, cursor=page.cursor)
        assert (rest.items, rest.cursor, rest.passed) == ([4] if flt else [{"a": 4}], None, None)
    else:
        assert page.cursor is None and "the last record" in page.to_dict()["note"]
    with pytest.raises(BadRecord) as caught:
        records_page(BytesSource(data), 3, 50, jq=flt)
    bad = caught.value
    assert (bad.record, data[bad.offset : bad.offset + bad.length]) == (3, bad_line)


@pytest.mark.parametrize("flt", [None, ".a"])
@pytest.mark.parametrize("run", [2, 3, 12])
def test_bad_records_one_after_another_are_passed_over_by_every_page(flt, run):
    """A run of bad records: the page before them passes over the first, and each page its cursor resumes passes
    over the next -- every next call reads on (before: the second bad record's page raised BadRecord) -- and the
    records after them are read; a read started at one by its number still raises."""
    bad_line = b'{"a":\n' if flt is None else b'"text"\n'
    data = b'{"a":1}\n' + bad_line * run + b'{"a":2}\n{"a":3}\n'
    page, got, passed = records_page(BytesSource(data), 1, 50, jq=flt), [], []
    while True:
        got += page.items
        passed.append(page.passed.record if page.passed else None)
        if page.cursor is None:
            break
        page = records_page(BytesSource(data), 1, 50, jq=flt, cursor=page.cursor)
    assert got == ([1, 2, 3] if flt else [{"a": 1}, {"a": 2}, {"a": 3}])
    assert [n for n in passed if n is not None] == list(range(2, 2 + run))
    with pytest.raises(BadRecord):
        records_page(BytesSource(data), 3, 50, jq=flt)


@pytest.mark.parametrize("flt", [None, ".a"])
def test_a_byte_order_mark_is_no_part_of_the_first_record(flt):
    data = b'\xef\xbb\xbf{"a": 1}\n{"a": 2}\n'
    page = records_page(BytesSource(data), jq=flt)
    assert page.items == ([1, 2] if flt else [{"a": 1}, {"a": 2}])
    second = records_page(BytesSource(data), 1, 1, jq=flt)
    assert records_page(BytesSource(data), jq=flt, cursor=second.cursor).items == ([2] if flt else [{"a": 2}])


_LATIN1_LINES = [
    ("BOM + Latin-1", b'\xef\xbb\xbf{"city":"S\xe3o Paulo"}\n{"city":"Bras\xedlia"}\n{"n":3}\n'),
    ("a lone 0xff line after a sound one", b'{"a":1}\n"\xff"\n{"c":3}\n'),
    ("Latin-1 read ahead of a page of one", b'{"a":1}\n{"b":"caf\xe9"}\n\n{"c":"na\xefve"}\n{"d":4}\n'),
    ("a lone surrogate read ahead", b'{"a":1}\n{"b":"\\ud800"}\n{"c":3}\n'),
]


def _shown_records(page, jq_filter: str | None) -> set[int]:
    first = page.first if jq_filter is None else page.extra["record"]  # (".": one output a record)
    return set(range(first, first + len(page.items) + (page.part is not None)))


@pytest.mark.parametrize("jq_filter", [None, "."])
@pytest.mark.parametrize("records", [1, 2, 50])
@pytest.mark.parametrize(("name", "raw"), _LATIN1_LINES, ids=[n for n, _ in _LATIN1_LINES])
def test_every_note_on_a_page_of_json_lines_names_a_record_it_shows_and_a_byte_that_is_no_utf8(
        name, raw, records, jq_filter):
    """Before: a record read ahead of the page (the one after a page of ``records``, or that did not fit) was noted
    on the page that does not show it (as not UTF-8 text, or as holding a lone surrogate escape); and with a byte
    order mark, the byte the note named was 3 too early (counted after the mark). Every record comes out once."""
    source, expected = BytesSource(raw, 16), [json.loads(line) for line in
                                               raw.decode("utf-8-sig", "replace").splitlines() if line.strip()]
    got, cursor = [], None
    while True:
        page = records_page(source, 1, records, jq=jq_filter, cursor=cursor, budget_bytes=2048)
        got += [json.loads(v) if i in page.extra.get("as_text", ()) else v for i, v in enumerate(page.items)]
        for clause in page.extra.get("note", "").split("; "):
            if clause.startswith("record "):
                assert int(clause.split()[1]) in _shown_records(page, jq_filter), (clause, page)
            at = re.search(r"the first at byte (\d+)", clause)
            if at:  # the byte named is where the UTF-8 decoding of the content fails
                with pytest.raises(UnicodeDecodeError) as failed:
                    raw[int(at[1]):].decode("utf-8")
                assert failed.value.start == 0
        cursor = page.cursor
        if cursor is None:
            break

    def alike(value):  # jq reads a lone surrogate escape as U+FFFD
        return json.loads(json.dumps(value).replace("\\ud800", "\\ufffd"))

    assert [alike(v) for v in got] == [alike(v) for v in expected]


@pytest.mark.parametrize("jq_filter", [None, "."])
@pytest.mark.parametrize("start", [b"\xef\xbb\xbf\n", b"\xef\xbb\xbf \r\n\n"])
def test_a_blank_line_after_a_byte_order_mark_is_no_record(start, jq_filter):
    """The mark is no part of the content's text, so the line it begins is blank (before: record 1, 'not JSON', and
    no record after it could be read from the start)."""
    raw = start + b'{"city":"S\xe3o Paulo"}\r\n\n{"n":2}\n'
    page = records_page(BytesSource(raw, 16), 1, 50, jq=jq_filter, budget_bytes=2048)
    assert page.items == [{"city": "S\ufffdo Paulo"}, {"n": 2}] and page.cursor is None
    assert f"the first at byte {raw.index(0xE3)}" in page.extra["note"]
    assert records_page(BytesSource(raw), 2, 1).items == [{"n": 2}]
