"""The room a shape of text that is not all UTF-8 leaves for its last clause (``"; 3 bytes not UTF-8 (shown as
U+FFFD)"``, the encoding that reads them, or the codec an HTML page's text view decodes it with:
:func:`scratchfs.api.shape_said.not_utf8_clause`), which the shape before it is written within
(:func:`scratchfs.api.shape_words.within`: its ``… N more`` kept, not cut off), and the encoding that clause names."""

from __future__ import annotations

import re

from scratchfs.api.shape_cjk import multibyte_clause, multibyte_codec
from scratchfs.api.shape_html import sample_codec
from scratchfs.api.shape_said import browser_decodes_said, not_utf8_clause, read_as_said

__all__ = ["not_utf8_room", "read_as"]

_MARKUP_LOOK = 4096  # bytes looked at for the "<" a page starts with
_BLANKS = b" \t\r\n\x0b\x0c\xef\xbb\xbf"  # (and a UTF-8 byte order mark's bytes)
_UTF8_CHARACTER = re.compile("[^\x00-\x7f\ufffd]")  # a character of valid UTF-8 that is not ASCII


def read_as(text: str, sample: bytes) -> str:
    """What a shape says after its count of bytes not UTF-8 when the text holds no valid UTF-8 character that is
    not ASCII (its letters are a single-byte encoding's, each shown as U+FFFD): the ``encoding`` argument that reads
    them as such (:func:`~scratchfs.api.shape_said.read_as_said`) -- ``cp1252`` when a byte 0x80-0x9F is among them
    (its quotes, dashes and euro sign), else ``latin-1`` (:mod:`scratchfs.api.encodings`) --; ``""`` for text with
    UTF-8 characters (a cut or stray byte). Text in Shift-JIS or GB18030 (:func:`~scratchfs.api.shape_cjk.
    multibyte_codec`, sure of it) is named so, with the ``iconv`` that decodes it, never as Latin-1."""
    named = multibyte_codec(sample)
    if named is not None:
        return multibyte_clause(named)
    if _UTF8_CHARACTER.search(text):
        return ""
    return read_as_said("cp1252" if re.search(rb"[\x80-\x9f]", sample) else "latin-1")


def not_utf8_room(odd: int, complete: bool, sample: bytes, read_as: str) -> int:
    """The most characters :func:`~scratchfs.api.shape_said.not_utf8_clause` may add to a shape of ``sample``
    (``complete``: all of the content; 0 when all of it is UTF-8, ``odd`` 0)."""
    if not odd:
        return 0
    sampled = 0 if complete else len(sample)
    room = len(not_utf8_clause(odd, sampled, read_as))
    if sample[:_MARKUP_LOOK].lstrip(_BLANKS)[:1] != b"<":  # no page (an HTML shape starts at a "<"): no browser's
        return room  # codec to name, and no decode of the whole sample to find it (review helper revF)
    codec = sample_codec(sample)
    return max(room, len(not_utf8_clause(odd, sampled, browser_decodes_said(codec))) if codec != "utf-8" else 0)
