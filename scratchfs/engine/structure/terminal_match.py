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
-- nor tabs (expanded to spaces in the view: a needle holds none) nor the spaces the view drops at a line's end.

Cost: a pattern of about :data:`SKIP_PATTERN_BYTES` bytes a character (at most :data:`MAX_RENDERED_NEEDLE_CHARS`
characters), run by the regex engine over every line (its first character is grouped so that the search's literal
prefilter, a Python loop over each place that one byte stands, is not used: ``python bench/terminal_search.py``),
bounded in time as every pattern search is (``pattern_timeout``).
"""

from __future__ import annotations

import re

from scratchfs.foundation.errors import InvalidArgument

__all__ = ["MAX_RENDERED_NEEDLE_CHARS", "SKIP_PATTERN", "SKIP_PATTERN_BYTES", "rendered_needle_pattern"]

SKIP_PATTERN = (
    r"(?:\x1b(?:\[(?:[0-?]*[ -/]*[@-BEFH-JL-~]|0?K)"  # CSI but cursor moves and erasures before the cursor
    r"|\][^\x07\x1b\n]*(?:\x07|\x1b\\)"  # OSC, ended by BEL or ST
    r"|[PX^_][^\x1b\n]*\x1b\\"  # DCS, SOS, PM, APC strings
    r"|[ -/]*[0-OQ-WYZ\\`-~])"  # other escapes (charset selection, keypad modes)
    r"|[\x00-\x07\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f]"  # a control character the view drops
    r"|(?:[ -~]|[\xc2-\xf4][\x80-\xbf]{1,3})\x08)*"  # a character overstruck after a backspace
)
"""What may stand between two characters of the needle in the stored output (Python ``re`` syntax over bytes):
what the renderer draws nothing for, when written at the end of a line."""
SKIP_PATTERN_BYTES = len(SKIP_PATTERN)
"""Bytes of :data:`SKIP_PATTERN`: the pattern grows by this much a character of the needle."""
MAX_PATTERN_BYTES = 16 * 1024  # (the pattern engine's bound, scratchfs.engine.pattern_syntax.MAX_PATTERN_BYTES)
_DRAWN = r"(?!\x08)"  # a character drawn, not overstruck by the next one
MAX_RENDERED_NEEDLE_CHARS = (MAX_PATTERN_BYTES - 64) // (SKIP_PATTERN_BYTES + 16 + len(_DRAWN))
"""Most characters of a needle searched in the rendered view (its pattern within the engine's bound, 16 KiB)."""
_NOT_DRAWN = re.compile(r"[\x00-\x09\x0b-\x1f\x7f]")  # control characters the view never shows (tabs: spaces)


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
    """The UTF-8 bytes of ``char`` as a pattern: a letter or digit as itself, any other byte as ``\\xHH``."""
    return "".join(chr(byte) if chr(byte).isalnum() and byte < 0x80 else f"\\x{byte:02x}"
                   for byte in char.encode("utf-8"))
