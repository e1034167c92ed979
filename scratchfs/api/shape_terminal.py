"""Terminal output told from a sample, for :mod:`scratchfs.api.shape`: text holding colour or cursor escape
sequences (``ESC [``), lines redrawn after a bare carriage return (progress bars) or characters overstruck after a
backspace (a man page's bold and underline), which ``view="text"`` renders as a terminal shows them -- told apart
from text whose lines end in a lone ``\\r`` (classic Mac OS line ends), where each ``\\r`` ends a line of its own
and a rendering would draw every line over the last.

A bare carriage return (no ``\\n`` after it) is a **redraw** when the pieces of text it parts are states of one line:
a progress bar (``10%\\r20%\\r...100%\\n``, tqdm, curl, pip), a spinner, a counter. Consecutive pieces of a redrawn
line agree position by position (a digit agrees with any digit: a count that moves is the same field) and keep most
of their very bytes; the lines of a text do not (rows of a table, sentences, a column of numbers). Bare carriage
returns are taken for **line ends** when the sample holds fewer newlines than bare carriage returns and most pairs of
consecutive pieces (of the first :data:`REDRAW_PAIRS`) agree in fewer than :data:`REDRAW_AGREEMENT` of their
positions or hold the same byte in fewer than :data:`REDRAW_SAME`. A run of them (``\\r\\r``) parts two pieces as
one does, and one that overwrites nothing -- at a line's start or end: ``\\r\\r\\n``, ``\\n\\r`` -- is a line
end: text whose carriage returns all are is no terminal output. A sample that holds no newline, does not start
with a ``\\r`` (a redraw's comes before the state it draws: tqdm, curl) and ends with one (when it is the whole
content) is text whose lines end in a lone ``\\r``, whatever its pieces hold: rows of dates and numbers, or a log of
timestamped lines, agree as a counter's redraws do, and taken for redraws their view would show the last line alone,
where a counter taken for lines is only read whole. So is a table whose rows end in a lone ``\\r`` however the
content ends (no ``\\r`` after its last row, quoted ``\\n`` in its fields: ``sqlite3 -csv -newline``'s descriptions
over several lines): a first line with no ``\\r`` before it and no newline in it, holding a delimiter, whose next
records (read as :mod:`csv` reads them) are mostly as wide and under which it reads as a header. Everything here
runs over the sample :func:`~scratchfs.api.shape.describe` holds (at most 512 KiB), at C speed but for at most
:data:`REDRAW_PAIRS` short comparisons.
"""

from __future__ import annotations

import csv
import io
import re
from itertools import islice
from operator import eq

from scratchfs.api.shape_table import has_header
from scratchfs.foundation.csv_rows import csv_reader
from scratchfs.foundation.text import plural

__all__ = ["COLOURED", "REDRAW_AGREEMENT", "REDRAW_PAIRS", "REDRAW_SAME", "TERMINAL_SHAPE", "bare_crs", "coloured",
           "coloured_head_end", "colours_removed", "controls_said", "cr_ends_lines", "escapes_parted", "is_terminal",
           "last_drawn", "lone_cr_line_ends", "terminal_controls"]

TERMINAL_SHAPE = "terminal output"
"""How the shape of terminal output starts (content type ``log``): text holding colour or cursor escape sequences
(``ESC [``) or lines overwritten after a carriage return (progress bars), which ``view="text"`` renders as a
terminal shows them."""
TERMINAL_CONTROLS = 3
"""Escape sequences or overwrites in the sample that make text terminal output (see :func:`terminal_controls`)."""
TERMINAL_SHARE = 0.02
"""... and at least this many a line (a few escapes in a long text leave it text)."""
COLOURED = '; view="text" shows it without them): '
"""How the shape of a kind of text told with its colours removed (:func:`colours_removed`: ``pytest --color=yes``,
``git log --color``, gcc's ``-fdiagnostics-color``) ends the words that say so, before the kind's shape:
``"coloured (422 escape sequences; view="text" shows it without them): test run (pytest), 104 lines: ..."``."""
_COLOURED_HEAD = re.compile(r"coloured \([\d,]+ escape sequences?" + re.escape(COLOURED))
REDRAW_PAIRS = 64
"""Most pairs of consecutive pieces (text between bare carriage returns) :func:`cr_ends_lines` compares."""
REDRAW_AGREEMENT = 0.75
"""Share of positions (of the longer piece, at most :data:`_COMPARED` bytes) where two consecutive pieces hold the
same byte, or two digits, for the second to be a redraw of the first."""

REDRAW_SAME = 0.4
"""... and share of positions where they hold the very same byte (a redrawn line keeps most of itself: 0.7 to 0.95
in curl, wget, apt, tqdm and rich output; rows of numbers keep 0 to 0.3)."""

_COLOUR_RE = re.compile(rb"\x1b\[[0-9;:]*[mK]|\x1b\]8;[^\x07\x1b\n]{0,4096}(?:\x07|\x1b\\)")
"""SGR (colours, bold), erase-in-line (gcc's ESC[K after each) and OSC 8 hyperlinks (``ESC]8;;file:///x.py ESC\\``
around a name, as rich's log handler writes its source file): none moves the cursor or draws a character."""
_ESCAPE_RE = re.compile(rb"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b\n]{0,4096}(?:\x07|\x1b\\)|[0-9=>@-Z\\-_])")
"""An escape sequence: CSI (``ESC [`` ... a final byte: colours, cursor moves, erases), OSC (``ESC ]`` ... BEL or
``ESC \\``: titles, hyperlinks) or a two-byte one (``ESC 7``); none holds a newline."""
_OVERDRAWN_RE = re.compile(rb"\n[^\n]*\r(?!\n)")
"""A line up to its last bare carriage return (the states a redraw replaced), searched from a newline (linear)."""
_ERASED_RE = re.compile(rb"\n[^\n]*\r\x1b\[[02]?K")
"""A line up to its last carriage return followed by an erase of the line (``\\r ESC[K``: cargo's and indicatif's
progress bar, cleared before the next message), searched from a newline (a literal: linear in the sample)."""
_BARE_CR = re.compile(rb"\r(?!\n)")  # a carriage return that ends no line: a redraw, or a classic Mac line end
_CR_RUN = re.compile(rb"\r\r+\n?|\r(?!\n)")  # a run of carriage returns other than a CRLF's (with its \n)
_QUOTED = re.compile(r'"[^"]*"')  # a CSV's quoted field (a doubled quote in it: two such, side by side)
_BARE_CR_TEXT = re.compile("\r(?!\n)")
_FIRST_LINE = re.compile(r"[\x00-\t\x0b\x0c\x0e-\U0010ffff]*(\r\n|\r|\n|$)")  # ([^\r\n] as ranges: a bitmap, 0.55x)
_SEARCHED_BYTES = 64 * 1024  # samples up to this searched for a bare carriage return before any count ...
_SPARSE_CR_BYTES = 16  # ... when their first KiB holds at most one \r in this many bytes (a larger one: all of it)
_COMPARED = 256  # bytes of each piece compared
_DIGITS_AS_ZERO = bytes.maketrans(b"123456789", b"000000000")
_SPINNER_BYTES = 2  # pieces this short are redraws of each other (a spinner: | / - \)
_SAME_WIDTH = 0.75  # of a table's first records, as wide as its header (a ragged one or two aside)
_TABLE_BYTES = 64 * 1024  # most bytes of a sample read as a table's first records
_LOOKED_AT = 16 * REDRAW_PAIRS  # most bare carriage returns looked at (blank pieces are passed over)


def terminal_controls(sample: bytes, complete: bool = True, bare: int | None = None) -> str:
    """What makes ``sample`` terminal output -- its escape sequences, carriage-return overwrites and backspace
    overstrikes (a man page's bold and underline), counted, as ``", N escape sequences and M overwritten lines"`` --
    or ``""`` when it holds fewer than :data:`TERMINAL_CONTROLS` of each, or fewer than :data:`TERMINAL_SHARE` a
    line. Bare carriage returns that end
    lines (:func:`cr_ends_lines`; ``complete``: the sample is the whole content) are no overwrites. ``bare``: the
    sample's :func:`bare_crs` when the caller has counted them (``None``: counted here). Never raises."""
    escapes = sample.count(b"\x1b[") if b"\x1b" in sample else 0  # (memchr first: most text holds no ESC)
    # nroff's bold (X\bX) and underline (_\bX): man pages, as man -P cat keeps them (memchr first, as for ESC)
    overstrikes = sample.count(b"\b") if b"\b" in sample else 0
    overwrites = bare_crs(sample) if bare is None else bare
    if overwrites and cr_ends_lines(sample, overwrites, complete):
        overwrites = 0
    most = max(escapes, overwrites, overstrikes)
    if most < TERMINAL_CONTROLS or most < sample.count(b"\n") * TERMINAL_SHARE:  # (lines counted only if needed)
        return ""
    return controls_said(escapes, overwrites, overstrikes)


def controls_said(escapes: int, overwrites: int, overstrikes: int) -> str:
    """How a terminal output's shape counts its controls, those that are not 0: ``", 12 escape sequences and 3
    overwritten lines"`` (read back by :data:`scratchfs.api.shape_said.PLAIN_HEAD`); ``""`` when all are 0."""
    found = [plural(n, word) for n, word in ((escapes, "escape sequence"), (overwrites, "overwritten line"),
                                              (overstrikes, "backspace overstrike")) if n]
    return f", {', '.join(found[:-1])}{' and ' if len(found) > 1 else ''}{found[-1]}" if found else ""


def colours_removed(sample: bytes, complete: bool = True) -> bytes | None:
    """``sample`` (terminal output: :func:`terminal_controls` found its controls) without its colour sequences when
    they are all it holds: every ``ESC`` starts an SGR sequence (``ESC[1;31m``, colours and bold), an erase to the
    line's end (``ESC[K``, which a line written left to right leaves as it is) or an OSC 8 hyperlink (its text
    stays), and no backspace overstrike nor bare carriage return redraws anything but one that erases the line
    after it (``\\r ESC[K``: a progress bar cleared before the next message, cargo's; the text after the last is
    the line); else ``None``. The text is what ``view="text"`` shows, every line where it stood (no newline is
    removed: a line number in it is the stored output's). Not ``complete`` (the sample is a
    content's start): its whole lines only, so that an escape cut by the sample's end is none. Never raises."""
    if not complete:
        sample = sample[: sample.rfind(b"\n") + 1]
    if b"\r\x1b[" in sample:  # (a line erased and written again: what stood before is gone)
        sample = _ERASED_RE.sub(b"\n", b"\n" + sample)[1:]
    if b"\b" in sample or (b"\r" in sample and bare_crs(sample)):
        return None
    first = sample.find(b"\x1b")
    if first >= 0 and (_COLOUR_RE.match(sample, first) is None or sample.count(b"\x1b") != sum(
            map(sample.count, (b"\x1b[", b"\x1b]", b"\x1b\\")))):
        return None  # (an ESC that starts no colour, nor ends a link: it stays; told at C speed, before substituting)
    plain = _escapes_removed(_COLOUR_RE, b"", sample)
    return None if b"\x1b" in plain else plain


def last_drawn(sample: bytes) -> bytes:
    """``sample`` (terminal output) without its escape sequences and with each line's text before its last bare
    carriage return left out (a progress bar's earlier states): the words a terminal shows last on each line, its
    newlines all kept, so that a byte's line number is the raw content's (a log's levels counted in it,
    ``ESC[31mERROR`` too, once however often its line was redrawn). Never raises."""
    return _OVERDRAWN_RE.sub(b"\n", b"\n" + _escapes_removed(_ESCAPE_RE, b"", sample))[1:]


_MOST_DISTINCT = 32  # most distinct escape sequences _escapes_removed replaces as literals
_PARTS = (b"\x1b]", b"\x1b\\")  # (two-byte escapes that start or end an OSC too: not replaced as literals)


def _escapes_removed(escape: re.Pattern[bytes], by: bytes, sample: bytes) -> bytes:
    """``escape.sub(by, sample)`` for a pattern of escape sequences (each starting with its only ``ESC`` or, an OSC's,
    ending with its second: ``ESC \\``), at C speed where the sample's sequences are a few distinct ones that hold
    every ESC (``ESC[0m`` and ``ESC[31m`` over and over) but one that starts none at the end (a sequence the sample
    cuts): each replaced as a literal, all at once (one by one, a regex's substitution took 13 ms over 512 KiB of
    ``ESC[0m\\n``; helper hostilecpu1). Else the regex's substitution."""
    last = sample.rfind(b"\x1b")
    if last < 0:
        return sample
    head = sample  # (a last ESC that starts no sequence nor ends an OSC stays: what is before it is read apart)
    if sample[last + 1 : last + 2] != b"\\" and escape.match(sample, last) is None:
        head = sample[:last]
    escs, text, held, replaced = head.count(b"\x1b"), head, 0, set()
    while len(replaced) < _MOST_DISTINCT and (at := text.find(b"\x1b")) >= 0:
        found = escape.match(text, at)
        if found is None or found.group() in _PARTS or found.group() in replaced:  # (the last: made by a join)
            break
        replaced.add(found.group())
        held += head.count(found.group()) * found.group().count(b"\x1b")
        text = text.replace(found.group(), by)
    if held != escs:  # (the sequences replaced held not every ESC: others, or an ESC that starts none)
        return escape.sub(by, sample)
    return text + escape.sub(by, sample[len(head) :])


def escapes_parted(data: bytes) -> bytes:
    """``data`` with each escape sequence replaced by a newline: every run of bytes between them, each word of its
    text among them, is a run of ``data`` (a word glued to an escape, ``ESC[K`` then ``error``, is not taken for
    ``Kerror``; two parts of a word an escape splits are no word of ``data``'s). Never raises."""
    return _escapes_removed(_ESCAPE_RE, b"\n", data) if b"\x1b" in data else data


def is_terminal(content_type: str | None, shape: str | None) -> bool:
    """Whether an entry stored as ``content_type`` with ``shape`` is terminal output (a ``log`` whose shape starts
    with :data:`TERMINAL_SHAPE`: escape sequences, overwritten lines). Never raises."""
    return content_type == "log" and shape is not None and shape.startswith(TERMINAL_SHAPE)


def coloured(shape: str | None) -> bool:
    """Whether ``shape`` (a stored shape) is that of a kind of text told with its colours removed: it starts with
    the words that say so (:data:`COLOURED`, before any of the content's), and escape sequences stand between the
    characters its ``view="text"`` shows. Never raises."""
    return shape is not None and _COLOURED_HEAD.match(shape) is not None


def coloured_head_end(shape: str) -> int:
    """Where the words that say ``shape`` is coloured (:func:`coloured`) end, before the kind's own shape; 0 when
    it has none. Never raises."""
    found = _COLOURED_HEAD.match(shape)
    return 0 if found is None else found.end()


def lone_cr_line_ends(sample: bytes) -> int:
    """The lines of ``sample`` that end in a lone carriage return, when it is no terminal output
    (:func:`terminal_controls` gave ``""``) and such lines are more than those ending in ``\\n``: classic Mac OS
    text, which line reads (counting ``\\n``) see as one line; else 0. Never raises."""
    bare = bare_crs(sample)
    return bare if bare > sample.count(b"\n") else 0


def bare_crs(sample: bytes) -> int:
    """The carriage returns of ``sample`` that no ``\\n`` follows (a redraw's, a classic Mac OS line end), which
    :func:`terminal_controls` counts and :func:`lone_cr_line_ends` (a caller that counted them hands the count to
    the first, and asks the second nothing when it is 0; each searched the whole sample for one):
    none when one search finds none, else every ``\\r`` less those of the ``\\r\\n`` pairs (a two-byte count is
    slow on a run of ``\\r``: not without ``\\n``). The search (half the two counts on CRLF text, a fifth on
    lines of 120 bytes) is made only where ``\\r`` are few -- in a sample up to 64 KiB whose first KiB holds at most
    one in 16 bytes, in a larger one that holds as few throughout (counted first; the search no longer than the
    count of ``\\r\\n`` it saves there): it stops at each one, 4 times the counts where every other byte is one.
    Never raises."""
    if b"\r" not in sample:
        return 0
    if len(sample) <= _SEARCHED_BYTES:
        crs = -1
        sparse = sample.count(b"\r", 0, 1024) * _SPARSE_CR_BYTES <= 1024
    else:  # (a larger one counted first: searched only if sparse throughout, the search's stops bounded)
        crs = sample.count(b"\r")
        sparse = crs * _SPARSE_CR_BYTES <= len(sample)
    if sparse and _BARE_CR.search(sample) is None:
        return 0
    return (sample.count(b"\r") if crs < 0 else crs) - (sample.count(b"\r\n") if b"\n" in sample else 0)


def cr_ends_lines(sample: bytes, bare: int, complete: bool = True) -> bool:
    """True when the ``bare`` carriage returns of ``sample`` that no ``\\n`` follows end lines (classic Mac OS text,
    blank lines between its lines as ``\\r\\r``, or ``\\r\\r\\n`` line ends) rather than redraw one (a progress
    bar): see the module docstring. A run of them counts once; one that overwrites nothing -- at a line's start or
    end, before ``\\n`` or the sample's end, as in ``\\r\\r\\n`` -- is a line end. ``complete``: the sample is
    the whole content (its end is the content's). Never raises."""
    if b"\n" not in sample and sample[:1] != b"\r" and (not complete or sample.endswith(b"\r")):
        return True  # each piece ended by its \r, no line ended otherwise: lines (see the module docstring)
    if _cr_table(sample):
        return True  # a table's header, then its rows, each ended by a \r (see the module docstring)
    pairs = redraws = ends = 0
    for looked, found in enumerate(_CR_RUN.finditer(sample)):
        if pairs >= REDRAW_PAIRS or looked >= _LOOKED_AT:
            break
        at, end = found.span()
        if end == len(sample) or sample[end - 1] == 0x0A or at == 0 or sample[at - 1] == 0x0A:
            ends += 1  # it overwrites nothing (told without a search: a run of \r is one match)
            continue
        start = sample.rfind(b"\r", 0, at) + 1  # each search bounded by the piece it parts: linear in the sample
        start = sample.rfind(b"\n", start, at) + 1 or start
        stop = sample.find(b"\r", end)
        stop = len(sample) if stop < 0 else stop
        newline = sample.find(b"\n", end, stop)
        pairs += 1
        redraws += _redraw(sample[start:at], sample[end : stop if newline < 0 else newline])
    if pairs == 0:
        return ends > 0
    if sample.count(b"\n") >= bare * pairs / (pairs + ends):  # newlines end its lines: the overwrites are redraws
        return False
    return redraws * 2 < pairs


def _cr_table(sample: bytes) -> bool:
    """Whether ``sample`` starts as a table whose bare carriage returns are its own: its first line (up to the first
    ``\\r`` or ``\\n``, no redraw's ``\\r`` before it) holds a delimiter (``,``, tab or ``;``: the one it holds most
    of), at least :data:`_SAME_WIDTH` of the next records (of the first :data:`REDRAW_PAIRS`, as :mod:`csv` reads
    them: a quoted field may hold a ``\\n``, a ``\\r`` or the delimiter) are as wide, and either every bare ``\\r``
    is in a quoted field (a CRLF export's note holding one), or its rows end in a lone ``\\r`` and that line is
    their header (:func:`~scratchfs.api.shape_table.has_header`: a progress line with a comma in each state is none)
    or no ``\\n`` stands outside a quoted field and no unquoted field starts or ends with a space (a CSV writer's
    rows with no header, classic Mac OS line ends; a redraw's states are words: ``Processed 10 of 500, 0 errors``).
    Never raises."""
    end = min((at for at in (sample.find(b"\r", 0, 4096), sample.find(b"\n", 0, 4096)) if at >= 0), default=-1)
    if end <= 0 or not any(d in sample[:end] for d in (b",", b"\t", b";")):
        return False  # (no delimiter in the first line: no table, told before its rows are decoded)
    head = sample[:_TABLE_BYTES].decode("utf-8", "replace")
    outside = _QUOTED.sub("", head)  # (what no quoted field holds; a field cut at the head's end stays)
    first = _FIRST_LINE.match(outside, 0, 4096)
    delimiter = max(",\t;", key=first.group().count)  # (of equal counts, the first: a comma)
    if first.end(1) == first.start(1) or first.group().count(delimiter) == 0:
        return False  # (no delimiter: no table, told before its rows are parsed)
    quoted_only = _BARE_CR_TEXT.search(outside) is None
    if not quoted_only and first.group(1) != "\r":
        return False  # (a first line ended otherwise than by a lone \r, a bare \r outside quotes: a redraw's)
    try:
        records = list(islice(csv_reader(io.StringIO(head, newline=""), delimiter=delimiter), REDRAW_PAIRS + 2))
    except csv.Error:
        return False
    records = [record for record in records[:-1] if record]  # (the last may be cut)
    width = len(records[0]) if records else 0
    if len(records) < 3 or sum(len(record) == width for record in records[1:]) < _SAME_WIDTH * (len(records) - 1):
        return False
    if quoted_only:
        return True
    unquoted = (field for line in outside.split("\r", REDRAW_PAIRS)[:REDRAW_PAIRS] for field in line.split(delimiter))
    if "\n" not in outside and all(field == field.strip(" ") for field in unquoted):
        return True  # (told before has_header, which weighs every cell's type: either says yes, the cheaper first)
    return has_header(records)


def _redraw(before: bytes, after: bytes) -> bool:
    """``after`` is a redraw of ``before``: they agree in :data:`REDRAW_AGREEMENT` of their positions (digits with
    digits) and hold the very same byte in :data:`REDRAW_SAME` of them, or both are spinner-short."""
    longer = min(max(len(before), len(after)), _COMPARED)
    if longer <= _SPINNER_BYTES:
        return True
    a, b = before[:_COMPARED], after[:_COMPARED]
    if sum(map(eq, a, b)) < REDRAW_SAME * longer:  # (a column of numbers: every digit a digit, few the same)
        return False
    return sum(map(eq, a.translate(_DIGITS_AS_ZERO), b.translate(_DIGITS_AS_ZERO))) >= REDRAW_AGREEMENT * longer
