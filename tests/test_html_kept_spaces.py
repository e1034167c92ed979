"""A no-break space (`&nbsp;`) and the other Unicode spaces are no white space CSS collapses (CSS Text 3, 4.1: only
spaces, tabs and line ends are): a browser shows each one, so a page that indents with them -- `pydoc -w`'s docstring
examples, `&nbsp;&nbsp;&nbsp;&nbsp;parser = ...` -- shows its indent. The text view collapsed them with the white
space around and dropped them at a line's start, so every Python example of a pydoc page lost its indentation
(helper realworld, `pydoc -w argparse`). Each is now one space of the view; checked against the CSS rule."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from scratchfs.api.contract import ScratchTools
from scratchfs.engine.structure import BytesSource
from scratchfs.engine.structure.html import html_text

PYDOC = Path(__file__).resolve().parent.parent / "fixtures" / "tools" / "pydoc-typing.html"


def view(page: bytes) -> str:
    return html_text(BytesSource(page), None, 30.0).decode()


def test_nbsp_indent_and_runs_are_kept():
    page = b"<html><body><p>a<br>&nbsp;&nbsp;&nbsp;&nbsp;x<br>&nbsp;&nbsp;y&nbsp;&nbsp;&nbsp;z</p></body></html>"
    assert view(page) == "a\n    x\n  y   z\n"
    assert view(b"<p>a \xc2\xa0 \xc2\xa0b</p>") == "a    b\n"  # (space, nbsp, space, nbsp: four)
    assert view(b"<p>a\xe2\x80\x83\xe2\x80\x83b  \n  c</p>") == "a  b c\n"  # (two em spaces; white space one)


def test_a_pydoc_example_keeps_its_indent():
    text = view(PYDOC.read_bytes())
    assert "\n    def int_or_str(arg: int | str) -> None:\n        match arg:\n" in text


def test_select_keeps_them_too(scope):
    handle = scope.spill(b"<html><body><div class='ex'>def f():<br>&nbsp;&nbsp;&nbsp;&nbsp;return 1</div>"
                         b"</body></html>", source_tool="browser").handle
    reply = ScratchTools(scope).read_handle(handle, select="div.ex")
    assert reply["elements"] == ["def f():\n    return 1"]


@given(st.lists(st.sampled_from(["word", "x", " ", "  ", "\n", "\t", "\xa0", "\u2003"]), min_size=1, max_size=30))
def test_a_paragraph_is_as_css_shows_it(pieces):
    text = "".join(pieces)
    want = re.sub(r"[ \t\n\r\f]+", " ", text).strip(" \t\n\r\f").replace("\xa0", " ").replace("\u2003", " ")
    got = view(f"<html><body><p>{text}</p></body></html>".encode())
    assert got.rstrip(" \n") == want.rstrip(" ")  # (spaces at a line's end show nothing: the view drops them)
