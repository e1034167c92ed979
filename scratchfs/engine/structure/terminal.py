"""Terminal output as a person sees it: ANSI escapes removed and ``\\r`` redraws applied, paged by byte offset.

A small state machine renders each line (the text between two ``\\n``) on its own: printable text is written at the
cursor column, overwriting what is there; ``\\r`` returns to column 0; ``\\b`` steps back one column; ``\\t`` moves to
the next multiple of 8 (over what is there, as a terminal's tab does, writing nothing); ``ESC[K``/``ESC[0K`` erases to
the end of the line, ``ESC[1K`` to the cursor, ``ESC[2K`` the whole line; ``ESC[nG`` moves to column n,
``ESC[nC``/``ESC[nD`` right/left (a move right stops at column :data:`MAX_CURSOR_COLUMN` or the line's end, whichever is
further, as a terminal stops at its right margin: a short escape never makes a page of spaces); ``ESC[nP`` deletes n
cells at the cursor (those after it move left), ``ESC[n@`` inserts n blank ones there (cells pushed past the right
margin -- the line's end or :data:`MAX_CURSOR_COLUMN`, whichever is further -- are lost), ``ESC[nX`` blanks n
from it (ECMA-48's DCH, ICH and ECH, which a shell's line editing writes: a terminal recording of an interactive
session); every other CSI sequence (colours, styles), OSC sequence (titles, hyperlinks) and two-byte escape is
dropped, as are other control characters.
Cursor moves to other lines (``ESC[A``, used by multi-line progress displays) are not followed: each line keeps its own
last state. A line is its cells up to the last one a character was written to: spaces written at its end are kept (a
terminal keeps them: a progress line padded with spaces over a longer one), blank cells left by a tab, a move or an
erasure are not. Lines without ``\\r``, ``\\b`` or ``ESC`` are copied as they are (with tabs expanded, a tab at the end
dropped), at C speed.

Why not ``pyte``: it emulates a whole VT100 screen in pure Python and renders about 0.9 MB/s here (2.4 MB of
``\\r`` progress redraws in 2.7 s), and it wraps at a fixed width; this renderer matches pyte's screen on lines that
fit pyte's width (tests compare the two) and runs at tens of MB/s on ordinary logs.

The view is rendered from a line start that the cursor carries, so a page costs the lines it shows; a content of up
to :data:`MAX_LINE_BYTES` per raw line is handled (a longer line is refused with InvalidArgument).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from scratchfs.engine.structure.paging import (
    ContentSource,
    CursorKey,
    TextPage,
    check_budget,
    check_line_start,
    decode_cursor,
    encode_cursor,
    fill_text,
    iter_lines,
)
from scratchfs.foundation.checks import check_int
from scratchfs.foundation.errors import InvalidArgument
from scratchfs.foundation.text import digits_int, is_digits, plural, utf8_suffix_start

__all__ = ["MAX_CURSOR_COLUMN", "MAX_LINE_BYTES", "PastTheView", "render_fragment", "render_line", "render_text",
           "view_page"]

MAX_LINE_BYTES = 16 * 1024 * 1024
"""Longest raw line (bytes, between two newlines) rendered."""

MAX_CURSOR_COLUMN = 1024
"""Right margin (columns, 0-based) of cursor moves ``ESC[nG``/``ESC[nC`` past a line's end; text still writes on."""

_SPECIAL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_TOKEN = re.compile(
    r"\x1b\[([0-?]*)[ -/]*([@-~])"  # CSI: parameters, final byte
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\|$)"  # OSC, ended by BEL or ST (or the line's end)
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\|$)"  # DCS, SOS, PM, APC strings
    r"|\x1b[ -/]*[0-~]?"  # other escapes (charset selection, keypad modes, ...)
    r"|[\x00-\x1f\x7f]"  # one control character
)


_HUGE = 2**31
"""A count past every line's length and :data:`MAX_CURSOR_COLUMN`: what a parameter of more digits counts as."""


def _number(params: str, default: int = 1) -> int:
    """The first parameter of a control sequence, ``default`` when it is missing or 0; one too long for ``int()``
    (an output may write ``ESC[`` and 5,000 digits) counts as :data:`_HUGE` -- moves are clamped to the line anyway."""
    head = params.split(";", 1)[0]
    number = digits_int(head, 9)
    if number is None and is_digits(head):
        return _HUGE
    return number if number else default


def render_line(line: str) -> str:
    """One line (no ``\\n``) as the terminal shows it (see the module docstring): the cells written, spaces
    included, up to the last one written -- a space written at the end (a progress line padded over a longer one) is
    kept, as a terminal keeps it; the cells no character was written to (past a tab, a cursor move or an erasure)
    and left blank at its end are not."""
    while line.endswith("\r"):
        line = line[:-1]  # a CRLF line end moves the cursor only
    if not _SPECIAL.search(line):
        return line.rstrip("\t").expandtabs(8) if "\t" in line else line  # (a tab moves the cursor, writes nothing)
    cells: list[str | None] = []  # (None: a blank cell no character was written to)
    col = 0
    pos = 0
    for token in _TOKEN.finditer(line):
        if token.start() > pos:
            col = _put(cells, col, line[pos : token.start()])
        pos = token.end()
        text = token.group(0)
        if text == "\r":
            col = 0
        elif text == "\b":
            col = max(0, col - 1)
        elif text == "\t":
            col += 8 - col % 8
        elif token.group(2) is not None:
            col = _csi(cells, col, token.group(1), token.group(2))
    if pos < len(line):
        _put(cells, col, line[pos:])
    while cells and cells[-1] is None:
        cells.pop()
    return "".join(" " if cell is None else cell for cell in cells)


def _put(cells: list[str | None], col: int, text: str) -> int:
    if col > len(cells):
        cells.extend([None] * (col - len(cells)))
    cells[col : col + len(text)] = text
    return col + len(text)


def _csi(cells: list[str | None], col: int, params: str, final: str) -> int:
    if final == "K":
        mode = params or "0"
        if mode == "0":
            del cells[col:]
        elif mode == "1":
            cells[: min(col + 1, len(cells))] = [None] * min(col + 1, len(cells))
        elif mode == "2":
            cells.clear()
    elif final == "G":
        return min(_number(params) - 1, max(len(cells), MAX_CURSOR_COLUMN))
    elif final == "C":
        return min(col + _number(params), max(len(cells), MAX_CURSOR_COLUMN))
    elif final == "D":
        return max(0, col - _number(params))
    elif final == "P":  # DCH: the cells from the cursor move left over the n deleted
        del cells[col : col + _number(params)]
    elif final == "@" and col < len(cells):  # ICH: n blank cells put before the cursor's; what they push past the
        margin = max(len(cells), MAX_CURSOR_COLUMN)  # right margin (the line's end or MAX_CURSOR_COLUMN) is lost, as
        cells[col:col] = [None] * min(_number(params), margin - col)  # on a terminal: inserts never grow a line
        del cells[margin:]
    elif final == "X":  # ECH: n cells from the cursor blanked, the cursor kept
        cells[col : col + _number(params)] = [None] * len(cells[col : col + _number(params)])
    return col


_BARE_CR = re.compile(rb"\r(?!\n)")


def _view_lines(source: ContentSource, offset: int, cr_ends_lines: bool) -> Iterator[tuple[int, bytes, bool]]:
    """``(raw offset, the line's text without its end, whether a line end ended it)`` of each line from ``offset``
    (a line start): lines end at ``\\n`` -- and, ``cr_ends_lines`` (text whose lines end in a lone ``\\r``, told
    by its shape: a ``\\r`` there draws no line over another), at a ``\\r`` no ``\\n`` follows too."""
    for start, line in iter_lines(source, offset, MAX_LINE_BYTES):
        at = 0
        if cr_ends_lines and b"\r" in line:
            for found in _BARE_CR.finditer(line):
                yield start + at, line[at : found.start()], True
                at = found.end()
        if at < len(line) or not at:
            ended = line.endswith(b"\n")
            yield start + at, line[at : len(line) - ended], ended


def _rendered(text: bytes, ended: bool) -> bytes:
    return render_line(text.decode("utf-8", "replace")).encode("utf-8") + (b"\n" if ended else b"")


def render_text(raw: bytes) -> str:
    """A whole content rendered (invalid UTF-8 read as U+FFFD); lines end with ``\\n`` as in the content."""
    text = raw.decode("utf-8", "replace")
    parts = text.split("\n")
    return "\n".join(render_line(part) for part in parts)


_END = "\ue000"  # (a private-use character: marks where a fragment's last line was cut)


def render_fragment(raw: bytes) -> str:
    """A piece of terminal output cut anywhere (a search's window) as the view shows it: each line rendered as
    :func:`render_text` renders it, the first from the piece's first byte (a ``\r`` in it returns to there), and the
    last, which the cut may end inside, keeping its blanks (the view's line goes on). Invalid UTF-8 reads as U+FFFD;
    an escape sequence the piece holds only part of draws what its part reads as (see :func:`render_line`)."""
    parts = raw.decode("utf-8", "replace").split("\n")
    tail = parts[-1].rstrip("\r")  # (a line end cut after its \r, as render_line drops a CRLF's)
    last = render_line(tail + _END) if tail else ""
    last = last[: -len(_END)] if last.endswith(_END) else last.replace(_END, "")  # (a move left drew over it)
    return "\n".join([*(render_line(part) for part in parts[:-1]), last])


def view_page(source: ContentSource, offset: int = 0, *, cursor: str | None = None, budget_bytes: int = 8192,
              raw_offset: int | None = None, entry: str | None = None, cr_ends_lines: bool = False) -> TextPage:
    """One page of the rendered view of terminal output (or, ``cr_ends_lines``, of text whose lines end in a lone
    ``\\r``, each of which then ends a line of the view: :func:`_view_lines`).

    Args:
        source: the raw output (UTF-8; invalid bytes read as U+FFFD).
        offset: byte offset *into the rendered view* to start at (ignored when ``cursor`` is given; inside a
            character: the next one); finding it renders the view from the start up to there.
        cursor: ``page.cursor`` of the previous page: resumes without rendering what came before.
        raw_offset: a byte offset in the raw output (e.g. where a pattern search found a match): the page starts at
            the rendered line holding it (``offset`` is then ignored).
        budget_bytes: most UTF-8 bytes of the page's compact JSON (256 to 65536).
        entry: the entry's identity its cursors are bound to (with the size): a cursor of another one is refused.

    Returns:
        a :class:`TextPage`: ``offset`` (byte offset of ``text`` in the rendered view), ``text``, ``cursor``, ``more``.

    Raises:
        InvalidArgument: a bad offset or budget (an offset past the view's end: :class:`PastTheView`), a cursor
            of another entry or read (or edited, or not at a line start of the raw output), a raw line longer than
            :data:`MAX_LINE_BYTES`.
    """
    budget = check_budget(budget_bytes)
    key = CursorKey("view\x000\x00None", source.size, entry)  # (bound to no start: the cursor says where it goes on)
    if cursor is not None:
        raw_at, view_at, skip = decode_cursor(cursor, 3, key)
        check_line_start(source, raw_at, "a line start", b"\n\r" if cr_ends_lines else b"\n")
    elif raw_offset is not None:
        (raw_at, view_at), skip = _line_of(source, raw_offset, cr_ends_lines), 0
    else:
        raw_at, view_at, skip = 0, 0, check_int(offset, "offset", 0)
    pieces: list[bytes] = []
    starts: list[tuple[int, int]] = []  # (raw offset, view offset) of each rendered line held
    held, exhausted = 0, True
    for start, text, ended in _view_lines(source, raw_at, cr_ends_lines):
        data = _rendered(text, ended)
        if not pieces and skip >= len(data) > 0:
            skip -= len(data)  # a whole line before the offset asked for
            view_at += len(data)
            continue
        starts.append((start, view_at + held))
        pieces.append(data)
        held += len(data)
        if held >= skip + budget:
            exhausted = False
            break
    view = b"".join(pieces)
    if skip > len(view):
        raise _past_the_end(offset, view_at + len(view), source.size)
    skip += utf8_suffix_start(memoryview(view)[skip : skip + 3])  # inside a character: from the next one
    page, end = fill_text(view, skip, budget, TextPage(view_at + skip, "", None))
    if end >= len(view) and exhausted:
        return page
    raw, base = starts[0]
    for raw_start, view_start in starts:  # the next page starts in the line holding byte `end` of the view held
        if view_start - view_at <= end:
            raw, base = raw_start, view_start
    page.cursor = encode_cursor((raw, base, end - (base - view_at)), key)
    return page


class PastTheView(InvalidArgument):
    """An ``offset`` past the end of a rendered view: ``reason`` says so, ``raw_at`` is the stored byte whose line a
    read of the view's end starts at (``view="text", raw_offset=raw_at``), for the reads layer to name as a call with
    the handle; the message is both, in words."""

    def __init__(self, reason: str, raw_at: int = 0) -> None:
        super().__init__(f"{reason} with raw_offset={raw_at}")
        self.reason, self.raw_at = reason, raw_at

    def __reduce__(self):
        return (type(self), (self.reason, self.raw_at))


def _past_the_end(offset: object, view_size: int, size: int) -> PastTheView:
    """The refusal of an ``offset`` past the end of a view of ``view_size`` bytes (of ``size`` stored): the way to
    read its end (the line holding the stored byte 4 KiB before the end: its ``raw_at``)."""
    raw_at = max(0, size - 4096)
    return PastTheView(f"offset {offset} is past the end of the rendered view ({plural(view_size, 'byte')}; "
                       f"offset= counts the view's bytes, the stored output has {size:,}): read its end rendered "
                       "from a stored byte near it", raw_at)


def _line_of(source: ContentSource, raw_offset: object, cr_ends_lines: bool) -> tuple[int, int]:
    """``(raw offset, view offset)`` of the line holding byte ``raw_offset`` (rendering the lines before it)."""
    raw_offset = check_int(raw_offset, "raw_offset", 0, source.size)
    view_at = 0
    for start, text, ended in _view_lines(source, 0, cr_ends_lines):
        if start + len(text) + ended > raw_offset:
            return start, view_at
        view_at += len(_rendered(text, ended))
    return source.size, view_at
