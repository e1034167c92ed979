"""A search of terminal output for the text its rendered view shows (``view="text"`` with ``match=``), run over the
stored bytes: the needle becomes a pattern that passes over what the renderer
(:mod:`scratchfs.engine.structure.terminal`) draws nothing for between its characters -- colour and style escapes
(``ESC[01;31m``, ``ESC[m``), grep's ``ESC[K``, OSC strings (titles, ``ESC]8;;url BEL`` hyperlinks), other escapes
(``ESC(B``), control characters the view drops -- and over the characters overstruck after a backspace (a man
page's bold ``S\\bS`` and underline ``_\\bx`` draw only the last character). The matches' offsets are the stored
output's, so that a match's window can be read rendered with ``view="text", raw_offset=<its offset>``.

What it finds: the matches of ``str.find`` in the rendered text, for output written left to right -- text, escapes
and overstrikes (tests compare the two on generated output). A match starts at the needle's first character as
drawn (the last of its overstrikes) and ends after its last. It does not follow what redraws a line: a ``\\r``
within a line (progress bars), backspaces that step back over more than one character, cursor moves (``ESC[nG``,
``ESC[nC``, ``ESC[nD``) and erasures before the cursor (``ESC[1K``, ``ESC[2K``) -- a match does not run through them
-- nor tabs (a cursor move in the view, shown as spaces: a needle holds none).

Cost: a pattern of about :data:`SKIP_PATTERN_BYTES` bytes a character (at most :data:`MAX_RENDERED_NEEDLE_CHARS`
characters), run by the regex engine over every line (its first character is grouped so that the search's literal
prefilter, a Python loop over each place that one byte stands, is not used: ``python bench/terminal_search.py``),
bounded in time as every pattern search is (``pattern_timeout``).
"""

from __future__ import annotations

import re

from scratchfs.engine.pattern_unicase import CASE_FORMS_BYTES
from scratchfs.engine.search import PatternMatcher
from scratchfs.foundation.errors import InvalidArgument

__all__ = ["MAX_RENDERED_NEEDLE_CHARS", "SKIP_PATTERN", "SKIP_PATTERN_BYTES", "RenderedMatcher", "drawn_edges",
           "escape_around",
           "rendered_needle_pattern"]

SKIP_PATTERN = (  # (case-blind never: an escape's letters are its meaning)
    r"(?-i:(?:\x1b(?:\[(?:[0-?]*[ -/]*[@-BEFH-JL-~]|0?K)"  # CSI but cursor moves and erasures before the cursor
    r"|\][^\x07\x1b\n]*(?:\x07|\x1b\\)"  # OSC, ended by BEL or ST
    r"|[PX^_][^\x1b\n]*\x1b\\"  # DCS, SOS, PM, APC strings
    r"|[ -/]*[0-OQ-WYZ\\`-~])"  # other escapes (charset selection, keypad modes)
    r"|[\x00-\x07\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f]"  # a control character the view drops
    r"|(?:[ -~]|[\xc2-\xf4][\x80-\xbf]{1,3})\x08)*)"  # a character overstruck after a backspace
)
"""What may stand between two characters of the needle in the stored output (Python ``re`` syntax over bytes):
what the renderer draws nothing for, when written at the end of a line."""
SKIP_PATTERN_BYTES = len(SKIP_PATTERN)
"""Bytes of :data:`SKIP_PATTERN`: the pattern grows by this much a character of the needle."""
MAX_PATTERN_BYTES = 16 * 1024  # (the pattern engine's bound, scratchfs.engine.pattern_syntax.MAX_PATTERN_BYTES)
_DRAWN = r"(?!\x08)"  # a character drawn, not overstruck by the next one
MAX_RENDERED_NEEDLE_CHARS = (MAX_PATTERN_BYTES - 64) // (SKIP_PATTERN_BYTES + CASE_FORMS_BYTES + len(_DRAWN))
"""Most characters of a needle searched in the rendered view (its pattern within the engine's bound, 16 KiB)."""
_NOT_DRAWN = re.compile(r"[\x00-\x09\x0b-\x1f\x7f]")  # control characters the view never shows (tabs: spaces)
_ESCAPE = re.compile(rb"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b\n]*(?:\x07|\x1b\\)?|[PX^_][^\x1b\n]*(?:\x1b\\)?"
                     rb"|[ -/]*[0-~]?)")
"""An escape sequence as the renderer reads one (its ``_TOKEN``, over bytes; an OSC or DCS string not ended runs to
the line's end): no part of one but its first byte is ESC but the ST (``ESC \\``) that ends a string, which reads
as an escape of its own."""
LOOK_BACK_BYTES = 16 * 1024
"""Most bytes before a match's start looked at for the escape sequence it may fall in (an OSC string longer than
this -- a hyperlink of 16 KiB -- is not seen)."""


class RenderedMatcher:
    """The :class:`~scratchfs.engine.search.Matcher` of a needle in terminal output as rendered: the matches of
    :func:`rendered_needle_pattern` (a :class:`~scratchfs.engine.search.PatternMatcher`) that do not start inside an
    escape sequence -- the ``31m`` of ``ESC[01;31m``, the text of an OSC title or hyperlink, which the view does not
    show. ``needle`` is text; ``ignore_case`` ASCII; ``timeout`` seconds of the regex engine, as a pattern search's.

    Raises InvalidArgument as :func:`rendered_needle_pattern` does. Its searches raise PatternTimeout naming the
    needle (not its pattern) and PatternTooLong as a pattern search does."""

    def __init__(self, needle: str, ignore_case: bool, timeout: float) -> None:
        self.needle = needle
        self.inner = PatternMatcher(rendered_needle_pattern(needle), ignore_case, timeout=timeout,
                                    named=f'match={ascii(needle)[:80]} with view="text"')
        self.keep_before = max(self.inner.keep_before, LOOK_BACK_BYTES)

    def limit(self, buf: bytearray, pos: int, at_end: bool, base: int) -> int:
        return self.inner.limit(buf, pos, at_end, base)

    def skippable(self, buf: bytearray, base: int, pos: int, data: bytes, frame_start: int) -> int:
        return 0

    def find(self, buf: bytearray, pos: int, limit: int, at_end: bool, base: int) -> tuple[int, int] | None:
        while pos < limit:
            found = self.inner.find(buf, pos, limit, at_end, base)
            if found is None or not _in_escape(buf, found[0]):
                return found
            pos = found[0] + 1
        return None


def _in_escape(buf: bytearray, start: int) -> bool:
    """Whether byte ``start`` of ``buf`` lies inside an escape sequence that begins before it on its line."""
    return escape_around(buf, start) is not None


def escape_around(buf: bytes | bytearray, at: int) -> tuple[int, int] | None:
    """The escape sequence that holds byte ``at`` of ``buf`` past its first byte, as ``(start, end)`` indices of
    ``buf`` (``start < at < end``; it begins on ``at``'s line, at most :data:`LOOK_BACK_BYTES` before it, and is read
    as the renderer reads one), or ``None``: ``at`` is the first byte of one, or lies in none."""
    low = buf.rfind(b"\n", max(0, at - LOOK_BACK_BYTES), at) + 1 or max(0, at - LOOK_BACK_BYTES)
    escape = buf.rfind(b"\x1b", low, at)
    if escape < 0:
        return None
    token = _ESCAPE.match(buf, escape)
    return (escape, token.end()) if token is not None and token.end() > at else None


def drawn_edges(buf: bytes | bytearray, lo: int, hi: int, first: int, last: int) -> tuple[int, int]:
    """``(lo, hi)``, indices of ``buf``, moved so that the bytes between render as the view shows them (a search
    window's edges), never past ``first`` nor ``last`` (its first match's start, its last one's end): its start past
    an escape sequence it begins inside (:func:`escape_around`), its end before one it ends inside, or before a
    character that the backspace just after it draws over (``_`` of an underlined ``_\bx``). ``buf`` holds the
    bytes around them (up to :data:`LOOK_BACK_BYTES` each side tell). Never raises."""
    start, end = escape_around(buf, lo), escape_around(buf, hi)
    new_lo = lo if start is None else min(first, start[1])
    new_hi = hi if end is None else min(hi, max(last, end[0]))  # (a match may run past a window cut to fit)
    if new_hi == hi > last and buf[hi : hi + 1] == b"\x08":
        back = 1
        while back < min(4, hi - lo) and buf[hi - back] & 0xC0 == 0x80:
            back += 1
        new_hi = max(last, hi - back)
    return new_lo, new_hi


def rendered_needle_pattern(needle: str) -> str:
    """The pattern (Python ``re`` syntax over the UTF-8 bytes, as a pattern search takes it) that finds ``needle``
    in terminal output as its rendered view shows it (see the module docstring): each character as its bytes, drawn
    (no backspace after it), :data:`SKIP_PATTERN` between two; a line end as ``\\r*\\n`` (the view drops a CRLF's
    ``\\r``). Raises InvalidArgument: a needle of a control character other than ``\\n`` (the view shows none: a tab
    is spaces there), or of more than :data:`MAX_RENDERED_NEEDLE_CHARS` characters."""
    bad = _NOT_DRAWN.search(needle)
    if bad is not None:
        raise InvalidArgument(f"the text view of terminal output holds no control character such as "
                              f"{bad.group(0)!a} (tabs are spaces there): search for the text it shows")
    if len(needle) > MAX_RENDERED_NEEDLE_CHARS:
        raise InvalidArgument(f"a search of terminal output's text view (match= with view=\"text\") takes at most "
                              f"{MAX_RENDERED_NEEDLE_CHARS} characters; this needle has {len(needle):,}: search a "
                              "part of it")
    parts = [r"\r*\n" if char == "\n" else _bytes(char) + _DRAWN for char in needle]
    parts[0] = f"({parts[0]})"  # (a group: no literal prefilter, see the module docstring)
    return SKIP_PATTERN.join(parts)


def _bytes(char: str) -> str:
    """``char`` as a pattern of its UTF-8 bytes: an ASCII letter or digit, or a character beyond ASCII, as itself
    (case-blind, a character of its case variants: :func:`~scratchfs.engine.pattern_unicase.unicase_pattern`), any
    other byte as ``\\xHH``."""
    return char if char.isalnum() or not char.isascii() else "".join(f"\\x{byte:02x}" for byte in char.encode())
