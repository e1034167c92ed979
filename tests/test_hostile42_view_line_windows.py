"""A ``context="line"`` search of a view (``view="text"``: an HTML page's text, terminal output rendered) keeps each
window's ``offset`` (hostile42). d0c79a67 made a whole line's window ``{line, data}`` for the model, saying
``line=N`` reads around it; but a view's lines are no raw read's -- ``line=`` with ``view="text"`` is refused, and
``line=N`` without it reads the page's HTML source (the Rust book's text line 102, "In Chapter 4, you'll learn
about Rust's ownership system...", was read as ``if (sidebar === 'visible') {``) -- and the reply's note still said
"read on from a window with view="text", offset=<its offset>" (terminal output: ``raw_offset=<its offset>``) of
windows that had none: only the first window's read was named."""

from __future__ import annotations

from pathlib import Path

from scratchfs.api.contract import ScratchTools
from tests.test_terminal_view_search import grep_colour

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def test_an_html_text_views_line_windows_keep_the_offset_their_note_reads_on_from(scope):
    handle = scope.spill((FIXTURES / "browser-rust-book.html").read_bytes(), source_tool="browser").handle
    tools = ScratchTools(scope)
    reply = tools.call("read_handle", {"handle": handle, "view": "text", "match": "ownership", "context": "line",
                                       "max_matches": 6})
    assert "offset=<its offset>" in reply["note"] and len(reply["windows"]) >= 2
    for window in reply["windows"]:  # each one's read by its offset, as the note says, starts with its line
        read = tools.call("read_handle", {"handle": handle, "view": "text", "offset": window["offset"]})
        assert read["text"].startswith(window["data"]) and "ownership" in window["data"]


def test_terminal_outputs_line_windows_keep_the_raw_offset_their_note_reads_on_from(scope):
    handle = scope.spill(grep_colour(), source_tool="bash").handle
    tools = ScratchTools(scope)
    reply = tools.call("read_handle", {"handle": handle, "view": "text", "match": "def __init__",
                                       "context": "line", "max_matches": 5})
    assert "raw_offset=<its offset>" in reply["note"] and len(reply["windows"]) >= 2
    for window in reply["windows"]:
        read = tools.call("read_handle", {"handle": handle, "view": "text", "raw_offset": window["offset"]})
        assert read["text"].startswith(window["data"]) and "def __init__" in window["data"]
