"""The shape of a Markdown document (a web page a fetch or browser tool gave as Markdown, a README, generated docs),
for :mod:`scratchfs.api.shape`: its headings, each with the line it stands on, so that a model goes to one section
with one line read (``line=N``) instead of paging from the top. Such text stays content type ``text``; its shape
starts with :data:`MARKDOWN_SHAPE`.

Headings are CommonMark's (https://spec.commonmark.org/0.31.2/, sections 4.2 and 4.3): an ATX heading, one to six
``#`` after at most three spaces, then a space and its text (closing ``#`` dropped); a setext heading, a line of text
underlined by ``===`` (level 1) or ``---`` (level 2). Here an underline is three characters or more, where
CommonMark takes one (which a list item could be), and its text one line after a blank one, where CommonMark takes a
paragraph of several (YAML's ``key: value`` lines before a ``---`` are no heading). Lines inside a fenced code block
(three backticks or tildes or more, section 4.5) are no headings: a shell comment in an example is none.

Only a text that reads as Markdown is one: two headings or more, at most :data:`_MOST_HEADINGS` of its non-blank
lines, half of its ATX ones after a blank line (a script's runs of ``#`` comments are not), and a sign of Markdown
beyond them: a fenced block, a link ``](``, or an ATX heading of level 2 or more; and no sign of a program: a ``#!``
first line, or two lines of one at a line's start outside fenced blocks
(:data:`~scratchfs.api.shape_words.PROGRAM_LINE_RE`); nor of settings: more than half of its lines of text from its
first heading, outside fenced blocks and not indented, ``key = value``, ``key: value``, ``[section]``, a call or
ending in ``;``, ``{`` or ``}`` (a configuration file's ``##`` comments are no headings: :data:`_SETTING_RE`). A few
regular expression scans of the sample, each for a literal newline the engine finds fast (the README's 192 KB: 1.3
ms for the whole shape, ``python bench/shape_guards.py``); nothing is scanned when no line of the sample's first 64
KiB starts with ``#`` (a document of setext headings alone stays text).
"""

from __future__ import annotations

import re
from bisect import bisect_right

from scratchfs.api.shape_words import (
    PROGRAM_LINE_RE,
    LineNumbers,
    listed_within,
    plural,
    room_for,
    short_name,
    within_lines,
)
from scratchfs.foundation.text import bitmap_classes

__all__ = ["MARKDOWN_SHAPE", "markdown_shape"]

MARKDOWN_SHAPE = "Markdown"
"""How the shape of a Markdown document starts."""

_ATX_RE = re.compile(rb"\n {0,3}(#{1,6})[ \t]+([^\r\n]*)")  # (each at a newline: a literal the engine scans for)
_UNDERLINE_RE = re.compile(rb"\n {0,3}(={3,}|-{3,})[ \t]*(?=\r?\n|\r?\Z)")
_FENCE_RE = re.compile(rb"\n {0,3}(`{3,}|~{3,})")
_NOT_SETEXT = tuple(b"#>|*+-=`~")
_BODY_RE = re.compile(rb"\n[^ \t#\r\n]")  # a line of text, not a heading nor a comment, not indented
_SETTING_RE = re.compile(bitmap_classes(
    rb"\n(?:[A-Za-z_$@][\w.$@/*-]*(?:[ \t]*(?::?=|:(?=[ \t]|\r?\n|\Z))|[ \t]+\"|\()"
    rb"|\[[^\]\r\n]+\][ \t]*\r?(?=\n|\Z)|\"[^\r\n]*\"[ \t]*\r?(?=\n|\Z)|[^ \t\r\n][^\r\n]*[;{}][ \t]*\r?(?=\n|\Z))"))
"""A line of settings or statements, not text: ``key = value``, ``key: value``, ``key := value``, ``key "value"``, a
call ``set(...`` (CMake), an INI file's ``[section]``, a line of quoted strings, or one ending in ``;``, ``{`` or
``}`` (apt's ``Acquire::IndexTargets {``, ``KeepCompressed "true";``, a Perl statement, a Tcl ``proc``)."""
_SETTINGS_BYTES = 16 * 1024  # read for settings from the first heading (the README's 192 KB: 1.6 ms whole, 0.14 ms
# so: bench/shape_guards.py)
_MOST_SETTINGS = 0.5  # a share of its lines of text past which a file of # or ## comments is settings, not Markdown
_MOST_CODE_LINES = 2
_MOST_HEADINGS = 0.3
_MOST_HASHES = 64
_HEAD_BYTES = 64 * 1024  # (where a document's first ATX heading is: after a page's links and menus too)


def _fenced(text: bytes) -> list[tuple[int, int]]:
    """The byte spans of the fenced code blocks of ``text`` (a block left open runs to its end)."""
    spans, opened = [], None
    for match in _FENCE_RE.finditer(text):
        if opened is None:
            opened = match
        elif match[1][:1] == opened[1][:1] and len(match[1]) >= len(opened[1]):
            spans.append((opened.start(), match.end()))
            opened = None
    if opened is not None:
        spans.append((opened.start(), len(text)))
    return spans


def _atx_text(raw: bytes) -> bytes:
    """An ATX heading's text: its closing run of ``#`` (after a blank) and the blanks around dropped."""
    text = raw.rstrip(b" \t\r")
    bare = text.rstrip(b"#")
    return bare.rstrip(b" \t") if bare != text and (not bare or bare[-1:] in b" \t") else text


def _outside(spans: list[tuple[int, int]], offsets: list[int]) -> list[int]:
    """The ``offsets`` (in order) outside every span of ``spans`` (in order and apart: the one an offset could be in
    is the last starting at or before it)."""
    starts = [start for start, _ in spans]
    return [at for at in offsets if (n := bisect_right(starts, at) - 1) < 0 or at >= spans[n][1]]


def _headings(text: bytes) -> tuple[list[tuple[int, int, bytes, bool]], list[tuple[int, int]]]:
    """The headings of ``text`` (a newline, then the sample) outside fenced blocks, in order, as ``(offset of the
    newline before it, level, text, setext)``, and the spans of the fenced blocks."""
    fences = _fenced(text) if b"```" in text or b"~~~" in text else []
    found = [(m.start(), len(m[1]), _atx_text(m[2]), False) for m in _ATX_RE.finditer(text)] if b"#" in text else []
    for match in _UNDERLINE_RE.finditer(text) if b"===" in text or b"---" in text else ():
        before = text.rfind(b"\n", 0, match.start())
        line = text[before + 1 : match.start()].strip()
        above = text[text.rfind(b"\n", 0, before) + 1 : before].strip() if before > 0 else b""
        if before >= 0 and line and line[0] not in _NOT_SETEXT and not above:  # (a one-line paragraph: YAML's
            # "key: value" before its "---" is none)
            found.append((before, 1 if match[1][:1] == b"=" else 2, line, True))
    found.sort()
    if fences:
        kept = set(_outside(fences, [h[0] for h in found]))
        found = [h for h in found if h[0] in kept]
    return found, fences


def _hash_at_line_start(sample: bytes) -> bool:
    """Whether a line of ``sample`` starts with ``#``: each ``#`` found by ``bytes.find`` (a ``memchr``), the byte
    before it looked at, for the first :data:`_MOST_HASHES` of them; then one scan for a newline and ``#``."""
    at = sample.find(b"#")
    for _ in range(_MOST_HASHES):
        if at <= 0:
            return at == 0
        if sample[at - 1] == 10:
            return True
        at = sample.find(b"#", at + 1)
    return b"\n#" in sample


def markdown_shape(sample: bytes, lines: int, complete: bool, scope: str, size: int | None = None) -> str | None:
    """The shape of ``sample`` (a content's first bytes; ``complete``: all of it; ``lines``: the whole content's line
    count; ``scope``: what to add when the sample is not all of it; ``size``: the whole content's bytes, ``None``: the
    sample's; told from its first :data:`~scratchfs.api.shape_words.MOST_LINES` lines) if it reads as Markdown, else
    ``None``: ``"Markdown, 1,234 lines, 45 headings, 12 code blocks: # Title (line 1), ## Install (line 20), …; line=N
    reads from a heading"``. Never raises."""
    if not _hash_at_line_start(sample[:_HEAD_BYTES]):  # (an ATX heading in its head: 1.5 us over 16 KiB)
        return None
    sample, complete, scope = within_lines(sample, size, complete, scope)
    text = b"\n" + sample
    nonblank = text.count(b"\n") - text.count(b"\n\n")  # (at least: a run of blank lines counts half of them)
    if b"```" not in text and b"~~~" not in text and len(_ATX_RE.findall(text)) > _MOST_HEADINGS * nonblank:
        return None  # (more headings than a document holds, no fenced block hiding any: a script's comments; counted
        # before each is read: 10,000 of them cost 10 ms)
    headings, fences = _headings(text)
    if len(headings) < 2 or text.startswith(b"\n#!") or \
            len(_outside(fences, [m.start() for m in PROGRAM_LINE_RE.finditer(text)])) >= _MOST_CODE_LINES:
        return None  # (a script's first line; a program's own lines: its # comments are no headings)
    blocks = len(fences)
    atx = [h for h in headings if not h[3]]
    after_blank = sum(1 for h in atx if h[0] == 0 or not text[text.rfind(b"\n", 0, h[0]) + 1 : h[0]].strip())
    if len(headings) > _MOST_HEADINGS * nonblank or (atx and after_blank < 0.5 * len(atx)):
        return None
    if _settings(text, headings, fences):
        return None  # (a configuration file's # and ## comments are no headings)
    if not (blocks or b"](" in sample or any(h[1] >= 2 and not h[3] for h in headings)):
        return None
    return _text(text, headings, blocks, lines, scope)


def _settings(text: bytes, headings: list[tuple[int, int, bytes, bool]], fences: list[tuple[int, int]]) -> bool:
    """Whether most lines of text of ``text`` (a newline, then the sample) from its first heading (of ``headings``),
    outside fenced blocks (``fences``) -- not blank, not headings nor ``#`` comments, not indented (a setting's
    continued value, a nested block's lines) -- are settings (:data:`_SETTING_RE`): a configuration file (apt's
    ``50appstream``, a ``.mplstyle``, Debian's ``copyright`` of ``Files:`` and ``License:`` fields, an INI file, Tk's
    bindings) whose ``#`` and ``##`` comments read as headings. Two scans at C speed of its first
    :data:`_SETTINGS_BYTES` from there."""
    start = headings[0][0]  # (from the first heading: a package's metadata fields before its README are none)
    end = start + _SETTINGS_BYTES
    body = _outside(fences, [m.start() for m in _BODY_RE.finditer(text, start, end)])
    settings = _outside(fences, [m.start() for m in _SETTING_RE.finditer(text, start, end)])
    return len(settings) > _MOST_SETTINGS * len(body)


def _text(text: bytes, headings: list[tuple[int, int, bytes, bool]], blocks: int, lines: int, scope: str) -> str:
    """The shape's text: the counts, then the headings that fit -- all, else those of the top levels that fit (of
    the two top ones at least when the top one is a lone title) -- each with its line."""
    line = LineNumbers(text)  # (the newline before a heading: its line is the count of those so far)
    numbered = [(line(offset), level, short_name(heading.decode("utf-8", "replace"), 60))
                for offset, level, heading, _ in headings]
    code = f", {plural(blocks, 'code block')}" if blocks else ""
    head = f"{MARKDOWN_SHAPE}, {plural(lines, 'line')}, {plural(len(headings), 'heading')}{code}{scope}: "
    tail = "; line=N reads from a heading"
    room = room_for(head, tail)
    levels = sorted({level for _, level, _ in numbered})
    least = levels[1] if len(levels) > 1 and sum(1 for item in numbered if item[1] == levels[0]) < 2 else levels[0]
    for most in reversed(levels):
        items = [f"{'#' * level} {name} (line {line:,})" for line, level, name in numbered if level <= most]
        if sum(len(item) + 2 for item in items) <= room or most <= least:
            break
    return listed_within(head, items, tail, len(headings))
