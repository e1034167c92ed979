"""What a stored shape says of its content, read back only where its words are ours.

A shape is text for the model, and the reads take a few facts from the stored one (the index keeps no other record
of them): a text's bytes that are not UTF-8, its lines ended by a lone ``\\r``, terminal output's escape sequences,
grep output. Those words stand in a shape beside words of the content -- a Markdown heading, a JSON key, a log's
traceback message -- which may hold the same words, so no fact is looked for anywhere in a shape: each is matched
at the one place its generator writes it, before any of the content's words (a text's head: :data:`PLAIN_HEAD`) or
as the last clause (the count of bytes not UTF-8 after a structured shape, :func:`not_utf8_said`). Those words are
written here too, beside the patterns that read them (:func:`plain_head`, :func:`not_utf8_clause`): one grammar,
one module. The same holds
for a table's "no header" (:func:`scratchfs.api.shape_table.is_headless`) and the preamble of a table aligned by
spaces (:func:`scratchfs.api.shape_aligned.header_line`), each beside its generator.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from scratchfs.api.shape_terminal import TERMINAL_SHAPE, coloured, coloured_head_end
from scratchfs.api.shape_words import kib
from scratchfs.foundation.text import plural

__all__ = ["CR_LINE_ENDS", "GREP_SAID", "NOT_UTF8", "PLAIN_HEAD", "PlainSaid", "browser_decodes_said", "cr_ends_said",
           "not_utf8_clause", "not_utf8_said", "plain_head", "plain_said", "read_as_said", "split_by_controls"]

NOT_UTF8 = " not UTF-8 (shown as U+FFFD)"
"""What a text's shape says after the count of its bytes that are not UTF-8 (``", 3,000 bytes not UTF-8 ..."``)."""
CR_LINE_ENDS = " ending in a lone \\r"
"""What a text's shape says after the count of its lines that end in a lone ``\\r`` (classic Mac OS line ends, no
terminal output): its text view then renders each as a line end (:func:`~scratchfs.engine.structure.terminal.
render_lines`)."""
GREP_SAID = "grep-style path:line: output"
"""What the shape of grep output (``path:line:text`` lines) says after a text's head."""

_COUNT = r"[\d,]+ "
_READ_AS_SAID = (r', encoding="[\w-]+" reads them as [\w-]+'  # (what read_as_said writes, or multibyte_clause)
                 r"|, [\w-]+ text: no read decodes it, iconv -f [\w-]+ -t UTF-8 does")
_READ_AS = r"(?:" + _READ_AS_SAID + r")?"
_NOT_UTF8 = re.escape(NOT_UTF8)
PLAIN_HEAD = re.compile(
    r"(?:text|log|" + TERMINAL_SHAPE + "), " + _COUNT + r"lines?, longest (?:at least )?" + _COUNT
    + r"bytes?, \d+% blank"
    r"(?P<odd>, " + _COUNT + r"bytes?" + _NOT_UTF8 + _READ_AS + r")?"
    r"(?P<controls>(?:(?:, | and )" + _COUNT + r"(?:escape sequence|overwritten line|backspace overstrike)s?)*)"
    r"(?P<cr>, " + _COUNT + r"lines?" + re.escape(CR_LINE_ENDS) + r", which line reads do not count \(they count "
    r"\\n\))?(?P<grep>, " + re.escape(GREP_SAID) + r")?")
"""The head of a text's, a log's or terminal output's shape, as :func:`scratchfs.api.shape.describe` writes it
(``"text, 120 lines, longest 80 bytes, 3% blank"``, then its bytes not UTF-8, terminal controls, lines ended by a
lone ``\\r``, grep output): all of it words of ours, before any of the content's (a log's first traceback)."""
_NOT_UTF8_END = re.compile(
    "; " + _COUNT + "bytes?" + _NOT_UTF8 + r"(?: in the first [\d.,]+ [KMG]?i?B)?"
    r"(?:" + _READ_AS_SAID + r'|, which view="text" decodes as [\w-]+, as a browser does)?\Z')
"""The last clause of a structured shape (a table's, JSON's, a page's, a kind of text's) whose content has bytes that
are not UTF-8 (:func:`scratchfs.api.shape.describe` adds it after the shape, clipped to leave room for it)."""


def read_as_said(encoding: str) -> str:
    """What a shape says after its count of bytes not UTF-8 when they are a single-byte encoding's letters: the
    ``encoding`` argument that reads them (``"cp1252"`` or ``"latin-1"``), as ``', encoding="cp1252" reads them as
    cp1252'``."""
    return f', encoding="{encoding}" reads them as {"cp1252" if encoding == "cp1252" else "Latin-1"}'


def plain_head(name: str, lines: int, longest: int, blank: float, *, at_least: bool = False, odd: int = 0,
               read_as: str = "", controls: str = "", lone_cr: int = 0, grep: bool = False) -> str:
    """The head of a text's shape, which :data:`PLAIN_HEAD` reads: ``name`` (``"text"``, ``"log"`` or
    :data:`~scratchfs.api.shape_terminal.TERMINAL_SHAPE`), its ``lines``, its ``longest`` line in bytes (``at_least``:
    a line runs past the sample), the share of its lines that are ``blank`` (0-1), then, each only when there: ``odd``
    bytes not UTF-8 (with ``read_as``, :func:`read_as_said`), the terminal ``controls`` counted
    (:func:`~scratchfs.api.shape_terminal.terminal_controls`), ``lone_cr`` lines ending in a lone ``\r``, and whether
    it is ``grep`` output (the caller writes the count of its files after it). Example: ``"text, 120 lines, longest
    80 bytes, 3% blank"``."""
    odd_bytes = f", {plural(odd, 'byte')}{NOT_UTF8}{read_as}" if odd else ""
    cr_ends = f", {plural(lone_cr, 'line')}{CR_LINE_ENDS}, which line reads do not count (they count \\n)" \
        if lone_cr else ""
    longest_text = f"{'at least ' if at_least else ''}{plural(longest, 'byte')}"
    return (f"{name}, {plural(lines, 'line')}, longest {longest_text}, {blank:.0%} blank{odd_bytes}{controls}"
            f"{cr_ends}{', ' + GREP_SAID if grep else ''}")


def browser_decodes_said(codec: str) -> str:
    """What an HTML page's shape says after its count of bytes not UTF-8 when a browser decodes the page as ``codec``
    (:func:`~scratchfs.engine.structure.html_codec.page_codec`: windows-1252, a declared charset): its text view
    decodes it that way."""
    return f', which view="text" decodes as {codec}, as a browser does'


def not_utf8_clause(odd: int, sampled: int = 0, read_as: str = "") -> str:
    """The last clause of a structured shape whose content holds ``odd`` bytes that are not UTF-8, which
    :func:`not_utf8_said` reads: ``"; 3 bytes not UTF-8 (shown as U+FFFD)"``, then where they were counted when that
    is not the whole content (``sampled``, bytes: ``" in the first 512 KiB"``), then ``read_as`` (:func:`read_as_said`,
    or :func:`browser_decodes_said` for a page that a browser decodes otherwise)."""
    return f"; {plural(odd, 'byte')}{NOT_UTF8}{f' in the first {kib(sampled)}' if sampled else ''}{read_as}"


class PlainSaid(NamedTuple):
    """What the head of a text's shape says: ``not_utf8`` (it counts bytes that are not UTF-8), ``controls`` (the
    terminal controls it counts, ``""`` for none: ``", 12 escape sequences and 3 overwritten lines"``), ``cr_ends``
    (lines end in a lone ``\\r``), ``grep`` (grep output)."""

    not_utf8: bool
    controls: str
    cr_ends: bool
    grep: bool


def plain_said(shape: str | None) -> PlainSaid | None:
    """What the head of ``shape`` says (:data:`PLAIN_HEAD`; a coloured log's after the words that say it is
    coloured), or ``None`` when it is no text's, log's or terminal output's shape. Never raises."""
    shape = shape or ""
    found = PLAIN_HEAD.match(shape, coloured_head_end(shape))  # (a coloured log's: after the words saying so)
    if found is None:
        return None
    return PlainSaid(found["odd"] is not None, found["controls"], found["cr"] is not None, found["grep"] is not None)


def cr_ends_said(shape: str | None) -> bool:
    """Whether ``shape`` is a text's whose head says its lines end in a lone ``\\r`` (:data:`CR_LINE_ENDS`): its
    text view renders each as a line end. Never raises."""
    said = plain_said(shape)
    return said is not None and said.cr_ends


def not_utf8_said(shape: str | None) -> bool:
    """Whether ``shape`` says its content holds bytes that are not UTF-8: in a text's head, or as the last clause of
    another shape. Never raises."""
    said = plain_said(shape)
    if said is not None:
        return said.not_utf8
    return shape is not None and _NOT_UTF8_END.search(shape) is not None


def split_by_controls(shape: str | None) -> bool:
    """Whether ``shape`` (a stored shape) is that of terminal output holding escape sequences or backspace
    overstrikes (:func:`~scratchfs.api.shape_terminal.terminal_controls` counted them in its head), or of a kind of
    text told with its colours removed (:func:`~scratchfs.api.shape_terminal.coloured`): what stands
    between the characters of the text its view shows, so that a search of its stored bytes misses that text. Never
    raises."""
    if coloured(shape):  # (a kind of text told with its colours removed)
        return True
    said = plain_said(shape) if shape and shape.startswith(TERMINAL_SHAPE) else None
    return said is not None and ("escape sequence" in said.controls or "backspace overstrike" in said.controls)
