"""How much of a content a shape was told from (``in the first 512 KiB of 1.8 MiB``) joins the parenthetical the
shape ends in, one clause, never a second parenthetical after it: newuser12's spill of the Rust book (1.8 MiB) read
``~357 KiB of text in 512 KiB (30% markup) (in the first 512 KiB of 1.8 MiB)``; so did grep output's ``(6 files in
the sample)`` and a log's last ``(first at line 5)``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scratchfs.api.shape import SAMPLE_BYTES, describe
from scratchfs.api.shape_words import scoped

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
_FILES = sorted(path for folder in (FIXTURES, FIXTURES / "tools") for path in folder.iterdir()
                if path.is_file() and path.name != "README.md")
_TWO_IN_A_ROW = re.compile(r"\) \(in the first ")


def test_the_rust_books_shape_says_its_sample_in_its_markup_clause():
    page = (FIXTURES / "browser-rust-book.html").read_bytes() * 4  # (over 1 MiB, as the real page: 1.8 MiB)
    text = describe(page[:SAMPLE_BYTES], len(page), page.count(b"\n") + 1).text
    assert re.search(r"of text in 512 KiB \(30% markup; in the first 512 KiB of 2\.0 MiB\); "
                     r"at least \d+ headings(?: \([^)]*\))?: ", text), text


@pytest.mark.parametrize("path", _FILES, ids=[path.name for path in _FILES])
def test_no_shape_has_two_parentheticals_in_a_row(path):
    data = path.read_bytes()
    for part in (4096, 8192):  # (a sample of the whole: every kind's scope)
        if len(data) <= part:
            continue
        text = describe(data[:part], len(data), data.count(b"\n") + 1).text
        assert not _TWO_IN_A_ROW.search(text), text


@pytest.mark.parametrize(("text", "scope", "joined"), [
    ("HTML, ~1 KiB of text in 8 KiB (74% markup)", " (in the first 8 KiB of 149 KiB)",
     "HTML, ~1 KiB of text in 8 KiB (74% markup; in the first 8 KiB of 149 KiB)"),
    ("text, 9 lines", " (in the first 8 KiB of 149 KiB)", "text, 9 lines (in the first 8 KiB of 149 KiB)"),
    ("log, 2 ERROR (first at line 10)", "", "log, 2 ERROR (first at line 10)"),
])
def test_scoped_joins_a_scope_into_the_parenthetical_the_text_ends_in(text, scope, joined):
    assert scoped(text, scope) == joined
