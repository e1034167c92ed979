"""What the HTML text view shows is what a search of it and a ``:contains()`` select find, and it keeps the
distinctions the page makes:

- a no-break space (``&nbsp;``, and the other Unicode spaces) is shown as a space: a search for a space finds it, a
  search for the no-break space finds the same place (its window reads as what was sought: a space), and so does
  ``:contains()`` (before, ``match="a\\u00a0b"`` found nothing in a page holding ``a&nbsp;b``, and a ``<pre>`` kept
  the character the rest of the view showed as a space);
- text is shown as lxml decodes it, once: ``&amp;lt;`` is ``&lt;`` as a browser shows it (inscriptis unescaped it a
  second time, to ``<``); raised, lowered and struck text is marked (``10^6``, ``H_2O``, ``~~$50~~``: it was "106"
  and "$50");
- a table nested in a cell is told from the row around it: the row is written cell by cell on lines of its own, the
  cells after the first opened by ``| ``, a cell's further lines indented (before, ``x | in 1 | in 2`` / ``in 3 | y``
  ran the inner table's rows into the outer row's cells). The real page: ``fixtures/tools/pydoc-typing.html``, whose
  sections are layout tables holding tables (its module list: four columns of ``<br>``-separated names).
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import lxml.html
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs.api.contract import ScratchTools, window_hits
from scratchfs.engine.structure import BytesSource
from scratchfs.engine.structure.html import html_text

_FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def _view(page: bytes) -> str:
    return html_text(BytesSource(page), None, 30.0).decode()


@pytest.fixture
def tools(scratch_scope):
    return ScratchTools(scratch_scope)


def _offsets(tools, handle: str, needle: str) -> tuple[list[int], list[dict]]:
    reply = tools.call("read_handle", {"handle": handle, "view": "text", "match": needle, "context": 4})
    return [hit["offset"] for w in reply["windows"] for hit in window_hits(w)], reply


# -- no-break spaces ---------------------------------------------------------------------------------------------------

_PRICES = (b"<html><body><p>total:&nbsp;12&nbsp;EUR</p><pre>code&nbsp;12&nbsp;EUR</pre>"
           b"<table><tr><td>cell</td><td>12\xc2\xa0EUR</td></tr></table></body></html>")


def test_a_no_break_space_reads_as_a_space_and_is_found_by_either(tools, scratch_scope):
    view = _view(_PRICES)
    assert "\u00a0" not in view
    assert view.splitlines()[:3] == ["total: 12 EUR", "", "code 12 EUR"] and "cell | 12 EUR" in view
    expected = [m.start() for m in re.finditer("12 EUR", view)]
    assert len(expected) == 3
    handle = scratch_scope.spill(_PRICES, source_tool="browser").handle
    by_space, reply = _offsets(tools, handle, "12 EUR")
    assert by_space == expected and all("12 EUR" in w["data"] for w in reply["windows"])
    by_nbsp, reply = _offsets(tools, handle, "12\u00a0EUR")  # the page's own character: the same places
    assert by_nbsp == expected and reply["match"] == "12 EUR"
    assert all("12 EUR" in w["data"] for w in reply["windows"])
    for needle in ("12 EUR", "12\u00a0EUR", "12   EUR"):  # :contains() as the view shows the text
        selected = tools.call("read_handle", {"handle": handle, "select": f'p:contains("{needle}")'})
        assert selected["elements"] == ["total: 12 EUR"], needle


_SPACES = st.sampled_from([" ", "\u00a0", "&nbsp;", "&#160;", "\u2009", "&#8239;", "\u3000"])
_WORDS = st.lists(st.text("abcxyz", min_size=1, max_size=4), min_size=2, max_size=6)


@settings(max_examples=40, deadline=None)
@given(_WORDS, st.data())
def test_words_between_any_spaces_read_and_are_found_as_words_between_spaces(tools, scratch_scope, words, data):
    """The plain answer: the words joined by one space, where the page has one space character of any kind (or its
    reference) between each two; a search for the page's own text (its references resolved) finds each place."""
    spaces = [data.draw(_SPACES) for _ in words[1:]]
    source = words[0] + "".join(space + word for space, word in zip(spaces, words[1:], strict=True))
    page = f"<html><body><p>{source}</p><pre>{source}</pre></body></html>".encode()
    view = _view(page)
    shown = " ".join(words)
    assert view == f"{shown}\n\n{shown}"
    handle = scratch_scope.spill(page, source_tool="browser").handle
    found, _ = _offsets(tools, handle, html.unescape(source))
    assert found == [0, len(shown.encode()) + 2]


# -- references are resolved once ----------------------------------------------------------------------------------

_TEXT = st.lists(st.sampled_from(["&lt;", "&gt;", "&amp;", "&nbsp;", "&#160;", "&#x3c;", "&", ";", "<", ">", "a",
                                   "b0", " ", "\u00e9", "\u20ac"]), min_size=1, max_size=12).map("".join)
"""Text that writes references as text (the page escapes it: ``&amp;lt;``), and the characters they stand for."""


@settings(max_examples=60, deadline=None)
@given(_TEXT)
def test_text_is_shown_as_the_page_writes_it(text):
    """The plain answer: lxml's text of the element (the page's references resolved once), blank space collapsed."""
    page = f"<html><body><p>{html.escape(text)}</p></body></html>".encode()
    expected = " ".join(lxml.html.document_fromstring(page.decode()).xpath("//p")[0].text_content().split())
    assert expected == " ".join(text.split())
    assert _view(page).rstrip("\n") == expected


def test_a_page_showing_markup_shows_its_references():
    page = b"<html><body><p>write &amp;lt;p&amp;gt; as &amp;amp;lt;p&amp;amp;gt;, and &amp;nbsp; for a space</p>"
    assert _view(page).rstrip("\n") == "write &lt;p&gt; as &amp;lt;p&amp;gt;, and &nbsp; for a space"


def test_raised_lowered_and_struck_text_is_marked():
    """A browser shows 10<sup>6</sup> raised and a struck price with a line through it: the view showed "106" and
    "$50 $30", the old price beside the new as if both held."""
    page = (b"<html><body><p>10<sup>6</sup> bytes of H<sub>2</sub>O for <s>$50</s> $30, <del>sold out</del> "
            b"<strike>old</strike> new</p></body></html>")
    assert _view(page).rstrip("\n") == "10^6 bytes of H_2O for ~~$50~~ $30, ~~sold out~~ ~~old~~ new"
    book = _view((_FIXTURES / "browser-rust-book.html").read_bytes())  # the real page: an integer type's range
    assert "from −(2^7) to 2^7 − 1, which equals −128 to 127" in book and "−(27)" not in book


# -- tables in tables ----------------------------------------------------------------------------------------------

_WORD = st.text("abcxyz", min_size=1, max_size=3)
_INNER = st.lists(st.lists(_WORD, min_size=1, max_size=3), min_size=1, max_size=3)
_OUTER = st.lists(st.lists(st.one_of(_WORD, _INNER), min_size=1, max_size=4), min_size=1, max_size=4)


def _html(table: list) -> str:
    return "<table>" + "".join("<tr>" + "".join(f"<td>{cell if isinstance(cell, str) else _html(cell)}</td>"
                                                for cell in row) + "</tr>" for row in table) + "</table>"


def _normal(table: list) -> list:
    """A table as its view can tell it: an inner table of one cell is that cell's word; a row whose one cell is a
    table is that table's rows (a layout table's block: written as it is)."""
    rows = []
    for row in table:
        cells = [cell[0][0] if isinstance(cell, list) and len(cell) == 1 and len(cell[0]) == 1 else cell
                 for cell in row]
        rows += cells[0] if len(cells) == 1 and isinstance(cells[0], list) else [cells]
    return rows


def _cell(lines: list[str]) -> str | list:
    return lines[0] if len(lines) == 1 and " | " not in lines[0] else [line.split(" | ") for line in lines]


def _parsed(view: str) -> list:
    """The table a reader takes from the view: groups between empty lines; a group whose later lines open with
    ``| `` or an indent is one row, its cells opened by ``| `` and continued by indented lines; any other group is
    rows of one line each, cells between `` | ``."""
    rows: list = []
    for group in view.strip("\n").split("\n\n"):
        lines = group.split("\n")
        if not any(line.startswith(("| ", "  ")) for line in lines[1:]):
            rows += [line.split(" | ") for line in lines]
            continue
        cells: list[list[str]] = []
        for number, line in enumerate(lines):
            if number == 0 or line.startswith("| "):
                cells.append([line[2:] if number else line])
            else:
                assert line.startswith("  "), (line, view)
                cells[-1].append(line[2:])
        rows.append([_cell(cell) for cell in cells])
    return rows


@settings(max_examples=60, deadline=None)
@given(_OUTER)
def test_a_reader_tells_the_outer_rows_from_the_tables_in_their_cells(table):
    view = _view(f"<html><body>{_html(table)}</body></html>".encode())
    assert _parsed(view) == _normal(table), view


def test_a_real_pages_module_columns_stay_columns():
    """pydoc's module list is a table of four columns, each a cell of names between ``<br>``, in a cell of the
    section's layout table: each column's names are one cell (the first opened by nothing, the others by ``| ``,
    its later names indented), never a line holding two columns' names ("contextlib | functools" before)."""
    page = (_FIXTURES / "tools/pydoc-typing.html").read_bytes()
    tree = lxml.html.document_fromstring(page)
    columns = [[a.text_content() for a in td.iter("a")] for td in tree.xpath("//td[@class='multicolumn']")]
    assert [len(c) for c in columns] == [2, 2, 2, 2]
    block = "\n".join(("| " if number else "") + "\n  ".join(names) for number, names in enumerate(columns))
    view = _view(page)
    assert f"\nModules\n\n{block}\n\n" in view
    section = view[view.index("\nModules\n") : view.index("\nClasses\n")]
    assert not any(sum(name in line for names in columns for name in names) > 1 for line in section.splitlines())
