"""CSS selects with control characters and odd escapes: ``:contains()`` matches text that holds any character (the
page's own control characters included), a selector no XPath can carry is ONE typed ``InvalidArgument`` naming it,
and whatever a library raises inside the HTML worker (cssselect, lxml, odd input) comes back typed, on one line --
never an untyped error, a traceback or a dead worker. Pages are slices of the real Rust-book fixture."""

from __future__ import annotations

import time

import lxml.html
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs.api.contract import ScratchTools
from scratchfs.engine.structure import BytesSource, select_page
from scratchfs.engine.structure.html_render import element_text
from scratchfs.engine.structure.html_worker import run_html, workers
from scratchfs.foundation.errors import InvalidArgument, ScratchError

CONTROLS = ["\x01", "\x08", "\x0b", "\x0e", "\x1b", "\x1f", "\x7f", "\x80", "\x9f"]
"""C0 and C1 controls and DEL: characters XPath literals and lxml's strings refuse."""


@pytest.fixture(scope="module")
def book(fixture_data) -> str:
    data = fixture_data["browser-rust-book.html"]
    return data[: data.rindex(b"\n", 0, 30_000) + 1].decode("utf-8")


def _with_controls(book: str) -> str:
    """The book's first paragraphs, each starting with ``ctl<n>``, one control character of :data:`CONTROLS` and
    ``x``."""
    parts = book.split("<p>")
    for i, control in enumerate(CONTROLS, start=1):
        parts[i] = f"ctl{i}{control}x {parts[i]}"
    return "<p>".join(parts)


def _expected(page: str, needle: str) -> list[str]:
    """The plain answer: the ``p`` elements whose text content holds ``needle`` (ASCII case-blind, as lxml's
    ``:contains``), rendered as the reads render them."""
    tree = lxml.html.document_fromstring(page)
    return [element_text(p) for p in tree.iter("p") if needle.lower() in p.text_content().lower()]


@pytest.fixture
def tools(scratch_scope):
    return ScratchTools(scratch_scope)


@pytest.mark.parametrize("control", CONTROLS)
def test_contains_matches_text_holding_a_control_character(tools, scratch_scope, book, control):
    page = _with_controls(book)
    handle = scratch_scope.spill(page.encode("utf-8"), source_tool="browser").handle
    number = CONTROLS.index(control) + 1
    needle = f"CTL{number}{control}x"
    reply = tools.call("read_handle", {"handle": handle, "select": f'p:contains("{needle}")'})
    assert reply["elements"] == _expected(page, needle) and reply["matches"] == 1
    assert reply["elements"][0].startswith(f"ctl{number}")  # (the renderer shows \x0b, \x1f as blank space)
    escaped = f'p:contains("ctl{number}\\{ord(control):x} x")'  # the CSS escape of the same character
    assert tools.call("read_handle", {"handle": handle, "select": escaped})["elements"] == reply["elements"]


def test_contains_with_controls_over_a_page_without_them(tools, scratch_scope, book):
    handle = scratch_scope.spill(book.encode("utf-8")).handle
    for selector in ('p:contains("\x01")', 'p:contains("\\1 ")', "p:contains('\x1b[0m')", 'p:contains("\\0")'):
        assert tools.call("read_handle", {"handle": handle, "select": selector})["elements"] == []
    reply = tools.call("read_handle", {"handle": handle, "select": 'p:contains("RUST")'})
    assert reply["elements"][:3] == _expected(book, "rust")[:3] and reply["matches"] == len(_expected(book, "rust"))


@pytest.mark.parametrize("selector", ['[title="a\x01b"]', "[class~='\x1b']", 'a[href^="\x02"]', "p:lang(\x01)",
                                      'p:contains("\x0c")', "#\x01", "p:nth-child(\x01)"])
def test_a_selector_no_xpath_holds_is_one_typed_refusal(tools, scratch_scope, book, selector):
    handle = scratch_scope.spill(book.encode("utf-8")).handle
    with pytest.raises(InvalidArgument) as caught:
        tools.call("read_handle", {"handle": handle, "select": selector})
    message = str(caught.value)
    assert message.startswith("CSS selector ") and repr(selector)[:20] in message
    assert "\n" not in message and all(ch.isprintable() for ch in message)
    assert "died" not in message and "Traceback" not in message


def test_library_errors_inside_the_worker_come_back_typed(book):
    """Requests a library fails on (a selector that is not text; a page that is not bytes) answer ``invalid`` with
    one line, and the worker lives on to answer the next request."""
    deadline = time.monotonic() + 30
    for operation, args in (("select", (book.encode(), 12, 0, 0, 1000, 10)), ("view", ("not bytes",))):
        status, message = run_html(operation, args, deadline)
        assert status == "invalid" and "\n" not in message and "Error" in message, message
    assert workers()[0] >= 1
    page = select_page(BytesSource(b"<p>a\x01b</p><p>c</p>"), 'p:contains("\x01")')
    assert page.items == ["a\x01b"]


SELECTOR_PARTS = st.text(st.characters(codec="utf-8"), max_size=12)
SELECTORS = st.one_of(
    st.text(max_size=40),
    st.builds(lambda t: f'p:contains("{t}")', SELECTOR_PARTS),
    st.builds(lambda t: f"p:contains('{t}')", SELECTOR_PARTS),
    st.builds(lambda t: f'[title="{t}"]', SELECTOR_PARTS),
    st.builds(lambda t, u: f"{t} > p:contains({u})", SELECTOR_PARTS, SELECTOR_PARTS),
    st.builds(lambda t: f"#{t}, .{t}", SELECTOR_PARTS),
)


@settings(max_examples=150)
@given(selector=SELECTORS)
def test_any_selector_is_a_reply_or_a_typed_error(scratch_store, selector):
    scope = scratch_store.scope("r", "a")
    handle = scope.spill(_with_controls(_BOOK).encode("utf-8")).handle
    reply, error = None, None
    try:
        reply = ScratchTools(scope).call("read_handle", {"handle": handle, "select": selector})
    except ScratchError as exc:  # any other exception fails the test
        error = str(exc)
    if error is not None:
        assert "\n" not in error and "died" not in error, error
    else:
        assert isinstance(reply["elements"], list) and reply["matches"] >= 0


_BOOK = (
    "<html><head><title>The Rust Programming Language</title></head><body>"
    + "".join(f"<p>Paragraph {i} of the book, ownership and borrowing</p>" for i in range(12))
    + '<div class="x" title="t"><p lang="en">Hello, world!</p></div></body></html>'
)
"""A small page for the generated selectors (one worker call each: the fixture slice is used above)."""
