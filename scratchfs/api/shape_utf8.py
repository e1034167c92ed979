"""The clause a shape of text that is not all UTF-8 ends with (``"; 3 bytes not UTF-8 (shown as U+FFFD)"``, the
encoding that reads them, or the codec an HTML page's text view decodes it with), and the room it takes, which the
shape before it is written within (:func:`scratchfs.api.shape_words.within`: its ``… N more`` kept, not cut off)."""

from __future__ import annotations

import re

from scratchfs.api.shape_said import NOT_UTF8
from scratchfs.api.shape_words import kib, plural
from scratchfs.engine.structure.html_codec import page_codec

__all__ = ["not_utf8_clause", "not_utf8_room", "read_as"]

_UTF8_CHARACTER = re.compile("[^\x00-\x7f\ufffd]")  # a character of valid UTF-8 that is not ASCII


def read_as(text: str, sample: bytes) -> str:
    """What a shape says after its count of bytes not UTF-8 when the text holds no valid UTF-8 character that is
    not ASCII (its letters are a single-byte encoding's, each shown as U+FFFD): the ``encoding`` argument that reads
    them as such -- ``cp1252`` when a byte 0x80-0x9F is among them (its quotes, dashes and euro sign), else
    ``latin-1`` (:mod:`scratchfs.api.encodings`) --; ``""`` for text with UTF-8 characters (a cut or stray byte)."""
    if _UTF8_CHARACTER.search(text):
        return ""
    name = "cp1252" if re.search(rb"[\x80-\x9f]", sample) else "latin-1"
    return f', encoding="{name}" reads them as {"cp1252" if name == "cp1252" else "Latin-1"}'


def not_utf8_clause(odd: int, scope: str, read_as: str, codec: str) -> str:
    """``"; N bytes not UTF-8 (shown as U+FFFD)"`` and ``scope``, then ``read_as`` (:func:`read_as`) -- or, for an
    HTML page a browser decodes with another ``codec`` (windows-1252, a declared charset), that its text view
    decodes it so (the other reads show those bytes as U+FFFD)."""
    return f"; {plural(odd, 'byte')}{NOT_UTF8}{scope}" + (
        read_as if codec == "utf-8" else f', which view="text" decodes as {codec}, as a browser does')


def not_utf8_room(odd: int, complete: bool, sample: bytes, read_as: str) -> int:
    """The most characters :func:`not_utf8_clause` may add to a shape of ``sample`` (``complete``: all of the
    content; 0 when all of it is UTF-8, ``odd`` 0)."""
    if not odd:
        return 0
    scope = "" if complete else f" in the first {kib(len(sample))}"
    return max(len(not_utf8_clause(odd, scope, read_as, codec)) for codec in ("utf-8", page_codec(sample)[0]))
