"""``foundation.text.is_utf8_text``: the one test of whether a text can be written as UTF-8 (read_mixes and the MCP
request ids each had a copy), against the plain Python answer."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from scratchfs.foundation.text import is_utf8_text


def _plain(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@given(st.text(st.one_of(st.characters(), st.integers(0xD800, 0xDFFF).map(chr))))  # (characters() has no surrogate)
def test_is_utf8_text_is_whether_python_encodes_it(text):
    assert is_utf8_text(text) == _plain(text)


def test_a_lone_surrogate_anywhere_is_not_utf8_text():
    assert not is_utf8_text("\ud800") and not is_utf8_text("abc\udfffé") and is_utf8_text("abc é 😀")
