"""The stub that replaces a spilled result in the context: its note (the exact next calls), the 1.5 KiB budget of
its compact JSON that its preview (:mod:`scratchfs.api.preview`) shrinks to fit, and the notice of a result refused."""

from __future__ import annotations

import dataclasses
import functools
import json
from dataclasses import dataclass, field
from typing import Any

from scratchfs.api.html_preview import ViewHead, page_reads, view_head, view_note
from scratchfs.api.jq_inputs import PLACEHOLDER
from scratchfs.api.line_fit import LAST_LINES_BYTES, escape_bytes, lines_within
from scratchfs.api.preview import hex_preview, make_preview, wide_preview
from scratchfs.api.shape_terminal import is_terminal
from scratchfs.api.stub_reads import (
    BY_MATCH,
    FIRST_ITEM,
    MEMBERS,
    ItemsAfter,
    arrays_said,
    rows_after,
    search_call,
    structure_call,
    text_first,
    text_from,
)
from scratchfs.api.tar_headers import TarMember
from scratchfs.api.terminal_preview import AS_SHOWN, AS_SHOWN_WHOLE, RenderedHead
from scratchfs.foundation.calls import without_defaults
from scratchfs.foundation.limits import (
    DEFAULT_LINES,
    DEFAULT_READ_BYTES,
    LIST_PREVIEW_BYTES,
    MAX_STUB_BYTES,
    TEXT_PROBE_BYTES,
)
from scratchfs.foundation.text import plural, quote

_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))  # json.dumps with options makes one a call


@dataclass(frozen=True)
class Stub:
    """What reaches the model instead of a spilled result.

    Attributes:
        handle: the handle to read the whole result back with ``read_handle``.
        preview: the first bytes of the content as text, cut on a UTF-8 character boundary (``head+tail``: also the
            last bytes, after a marker that gives their byte offset).
        size: the whole content, in bytes.
        note: the exact next calls that read on by range, by line and by pattern.
        lines: the content's line count (``\n`` count, plus one for an unterminated last line).
        content_type: ``json``, ``jsonl``, ``csv``, ``html``, ``xml``, ``log``, ``text`` or ``binary``.
        shape: a one- or two-line summary of the content (keys, columns, title, line lengths, ...).
        source_tool: the tool that produced the result (not part of the JSON).
        listed: the preview an entry's listing keeps when it is not the content's first bytes (not part of the
            JSON): an HTML page's text view's start, cut from the one the stub's preview was (``None``: its bytes).
    """

    handle: str
    preview: str
    size: int
    note: str
    lines: int = 0
    content_type: str | None = None
    shape: str | None = None
    source_tool: str | None = field(default=None, compare=False)
    listed: str | None = field(default=None, compare=False, repr=False)

    def to_dict(self) -> dict[str, Any]:
        """The stub as the JSON object that enters the context:
        ``{handle, preview, size, lines, content_type, shape, note}``."""
        return _fields(self.handle, self.preview, self.size, self.lines, self.content_type, self.shape, self.note)

    def to_json(self) -> str:
        """The stub as compact JSON text (non-ASCII kept as is); at most :data:`MAX_STUB_BYTES` UTF-8 bytes when
        built by :func:`build_stub`."""
        return _COMPACT.encode(self.to_dict())


def _fields(handle: str, preview: str, size: int, lines: int, content_type: str | None, shape: str | None,
            note: str) -> dict[str, Any]:
    """The stub's JSON object, in its order (:meth:`Stub.to_dict`)."""
    return {"handle": handle, "preview": preview, "size": size, "lines": lines, "content_type": content_type,
            "shape": shape, "note": note}


class _Note:
    """The stub's note: what was stored, what the preview shows, and the exact next calls that read on by range, by
    line and by pattern (by range and by match for binary content, which has no lines; by range alone for compressed
    content, whose bytes no search finds text in). Every call it names fits the default reply budget: a line read
    asks for as many lines as hold about :data:`DEFAULT_READ_BYTES` bytes at the
    content's average line length, and content whose lines are longer than that gets no line read. Content that may
    hold a line over :data:`~scratchfs.engine.patterns.MAX_LINE_BYTES` (``longest_line``: at least its longest
    line's bytes; unknown, ``size - lines + 1``) is searched by match, not by pattern (a pattern search refuses such a
    line); a JSON document over :data:`~scratchfs.engine.structure.MAX_JQ_DOCUMENT_BYTES` gets no ``jq="keys[]"``
    (jq filters are refused there; path reads stream), but the path ``.[]`` when it is an array (its items stream a
    page at a time) and ``.KEY[]`` when it is an object (its shape names the keys and what each holds: the items of
    one key's array or object stream a page at a time, where ``.KEY`` would be read whole first, 27 s for an 83 MB
    array); a table's or JSON lines' note names ``slurp=true`` too, within its bound (one jq over all the rows or
    records: a question of counts or maxima answered in one call, not pages of rows), and their rows or records read
    starts at the first the preview does not show whole (:class:`~scratchfs.api.stub_reads.RowsAfter`, counted in
    ``head``, the content's first bytes); a JSON object's ``jq=`` is ``next_read`` when its shape's describer chose
    one (:attr:`~scratchfs.api.shape.Shape.next_read`); a log's or text's first call reads its first error or
    exception (``first_error``, its line: :attr:`~scratchfs.api.shape.Shape.first_error`) when the preview stops
    before it. The parts
    that do not depend on where the preview stops are made once per stub (its fitting tries several previews)."""

    __slots__ = ("arrays", "by_other", "call", "compressed", "count", "first_error", "format", "items", "lead",
                 "lines", "lines_average", "main", "rows", "size", "tail_lines", "terminal", "text_first", "what",
                 "wide")

    def __init__(self, handle: str, size: int, lines: int, tool: str | None, content_type: str | None,
                 shape: str | None = None, longest_line: int | None = None, head: bytes = b"",
                 next_read: str | None = None, top: str | None = None, first_error: int | None = None) -> None:
        source = f"Output of {_clip(tool, 64)}" if tool else "Content"
        counted = plural(size, "byte")
        if content_type != "binary":
            counted += f", {plural(lines, 'line')}"
        self.what = f"{source} ({counted}) stored out of context as {handle}"
        self.call, self.size, self.lines = f"read_handle(handle={quote(handle)}", size, lines  # the handle quoted once
        self.tail_lines = content_type in _TAIL_KINDS  # (a log's or text's end: a build's errors, a test summary)
        self.first_error = first_error if content_type in _TAIL_KINDS else None
        self.lines_average: float | None = None  # binary content: no line read
        self.count, self.rows, self.text_first = 0, None, text_first(content_type, shape)
        self.arrays = ""  # (what a table with no header line's slurp gives: arrays, ARRAYS_SAID)
        self.main: ViewHead | None = None  # an HTML page's view, when its preview is of its main content
        self.lead = ""  # a JSON document's jq reads, named first: a range read of JSON cuts its values mid-token
        self.items: ItemsAfter | None = None  # a JSON array's items after the preview, when its lead reads the first
        call = self.call  # each other call is this start and its own arguments, rendered once (_ARGUMENTS)
        self.format: str | None = None
        self.compressed: str | None = None
        if content_type == "binary":  # (binary shapes' modules load at a binary stub's first: not on import)
            from scratchfs.api.shape import binary_format
            from scratchfs.api.shape_binary import compressed_format

            self.format = binary_format(shape)
            self.compressed = compressed_format(shape)  # (a zip may store them)
        self.terminal = is_terminal(content_type, shape)  # (its preview: the last redraw of each line)
        self.wide = _UTF16.get(self.format or "")  # (UTF-16 text: read as text with its encoding=)
        if content_type == "binary":  # (compressed bytes: no search finds their text, byte ranges alone read them)
            listed = f"{call}, {MEMBERS} | " if self.format in ("tar", "zip") else ""  # (every member, paged)
            self.by_other = (listed + ("" if self.compressed else f"{call}, {BY_MATCH}")).removesuffix(" | ")
            if self.wide:
                self.by_other = f"{call}, {BY_MATCH[:-1]}, encoding=\"{self.wide}\")"
            return
        by_structure = structure_call(call, content_type, shape, size, next_read, top)
        self.arrays = arrays_said(content_type, shape, by_structure)
        self.rows = rows_after(content_type, head, size, shape)  # (a table's rows, JSON lines' records)
        longest = size - lines + 1 if longest_line is None else longest_line
        by_search = search_call(content_type, shape, head, longest)  # (by match past a pattern's line bound)
        self.by_other = f"{call}, {by_structure} | {call}, {by_search}" if by_structure else f"{call}, {by_search}"
        if content_type == "html":  # (its text, not its bytes: their <head> and scripts tell nothing)
            self.by_other = page_reads(call, head, by_search)
        if content_type in ("json", "xml") and by_structure and PLACEHOLDER not in by_structure:  # (JQ: the
            # model's own; an XML document's select= of the elements its shape chose, named first too)
            self.lead, self.by_other = f"{call}, {by_structure} | ", f"{call}, {by_search}"
            self.items = ItemsAfter(head) if by_structure == FIRST_ITEM else None
        self.lines_average = average = size / max(1, lines)
        self.count = max(1, min(DEFAULT_LINES, int(DEFAULT_READ_BYTES // max(1.0, average))))

    def members(self, head: bytes) -> tuple[list[TarMember], int]:
        """An uncompressed tar's first members in ``head`` (and 0), or a zip's stored ones and how many of its first
        are compressed; else none."""
        if self.format not in ("tar", "zip"):  # (text: no import statement run, 1-2 us each, at every stub)
            return [], 0
        from scratchfs.api.shape_binary import tar_members, zip_members  # (loaded on first use)

        if self.format == "tar":
            return tar_members(head), 0
        return zip_members(head) if self.format == "zip" and not self.compressed else ([], 0)

    def listing(self, members: list[TarMember], limit: int) -> tuple[str, int]:
        """The preview listing ``members`` within ``limit`` bytes and how many it shows (``("", 0)``: none)."""
        if not members:  # (every try of a stub that lists none: no import statement run)
            return "", 0
        from scratchfs.api.shape_binary import tar_listing  # (loaded on first use)

        return tar_listing(members, limit, self.format or "tar")

    def tar_text(self, members: list[TarMember], packed: int = 0) -> str:
        """The note of a tar's preview that lists ``members`` (its first, at least one) -- or a zip's that lists
        its first members stored uncompressed (``packed``: how many others among its first are compressed) --: each
        one's data is read with ``offset=`` its offset, ``length=`` its bytes and ``end=`` their sum (its next_call
        stays in the member); the next call reads the first that holds data."""
        first = next((member for member in members if member.size > 0), members[0])
        shown = plural(len(members), "member")
        end = min(first.offset + first.size, self.size)  # (bounded at the member's end: next_call stays in it)
        length = max(1, min(first.size, DEFAULT_READ_BYTES))  # (4096, the default: left out, as render_call does)
        bound = end if end > first.offset else None
        by_member = f"{self.call}{_settings(offset=first.offset, length=length, end=bound)})"
        what = ("an uncompressed tar archive, the preview lists its first" if self.format == "tar" else
                "a zip archive whose members are stored uncompressed, the preview lists its first" if not packed else
                "a zip archive, the preview lists its first")
        if packed:
            shown = shown.replace(" member", " stored uncompressed member")
        but = (f"; {packed} other{'' if packed == 1 else 's'} among its first {'is' if packed == 1 else 'are'} "
               f"compressed: no search finds {'its' if packed == 1 else 'their'} text") if packed else ""
        return (f"{self.what}; {what} {shown} (name, bytes, offset of its data){but}: read a member with offset= "
                f"its offset, length= its bytes and end= their sum; view=\"members\" lists every member. Next: "
                f"{by_member} | {self.by_other}.")

    def text(self, covered: int, next_line: int, tail_offset: int | None, counts: _LineReads | None = None,
             drawn: tuple[str, int] | None = None, viewed: bool | None = None) -> str:
        """The note of a preview that shows ``covered`` bytes of the start (and the tail from ``tail_offset``);
        ``counts``: the lines from ``next_line`` and the last lines that a read holds (:class:`_LineReads`, asked
        only for a read the note names; ``None`` or a count not known: as many as the average line holds);
        ``drawn``: shown as a terminal shows them (:class:`~scratchfs.api.terminal_preview.RenderedHead`);
        ``viewed``: ``covered`` bytes of an HTML page's text view shown (``True``: all of it;
        :class:`~scratchfs.api.html_preview.ViewHead`)."""
        what, size, average, shown = self.what, self.size, self.lines_average, AS_SHOWN if drawn else ""
        if size == 0:
            return f"{what}; it is empty."
        if viewed is not None:
            return view_note(what, self.call, covered, viewed, self.by_other, self.main)
        if covered >= size:
            return f"{what}; the preview shows all of it{AS_SHOWN_WHOLE if drawn else ''}."
        shows = f"bytes 0-{covered}" + (f" and {tail_offset}-{size}" if tail_offset is not None else "") + shown
        shows += self.arrays  # (a table with no header line: its slurp's rows are arrays, said before the call)
        by_range = f"{self.call}, offset={covered!r})" if covered else f"{self.call})"  # call_with(self.call, offset=)
        by_other, rows = self.by_other, self.rows
        if self.text_first:  # terminal output, coloured text: rendered, from where the preview stops; HTML's text
            by_range = f"{self.call}, {text_from(covered, self.text_first)} | {by_range}"
        read = rows.call(covered) if rows is not None else None  # a table's rows, JSON lines' records: from the
        if read:  # first the preview does not show; a CSV's with a header first (a line read splits a row whose
            lead = f"{self.call}, {read} | "  # quoted field holds line ends)
            by_range, by_other = (lead + by_range, by_other) if rows.leads else (by_range, lead + by_other)
        shows += f", every {rows.word} of it (the rest is blank lines)" if rows is not None and not read else ""
        if average is None and self.compressed:
            return (f"{what}; {self.format}-compressed binary content: no search (match=, pattern=) finds text in "
                    f"compressed bytes and no read decompresses them. The preview shows {shows} as a hex dump "
                    f"(OFFSET  HEX  |ASCII|, as a range read gives it). Next: {by_range}"
                    f"{' | ' + self.by_other if self.by_other else ''}.")
        if average is None and self.wide:
            return (f'{what}; {self.format}, two bytes a character: encoding="{self.wide}" reads it as text '
                    f"(offsets in bytes), and the preview shows {shows} so. Next: {by_range[:-1]}, encoding="
                    f'"{self.wide}") | {self.by_other}.')
        if average is None:
            wide = f", {self.format} (a search finds its text written as its bytes: {_WIDE[self.format]})" if (
                self.format in _WIDE) else ""
            return (f"{what}; binary content{wide}, the preview shows {shows} as a hex dump (OFFSET  HEX  |ASCII|, "
                    f"as a range read gives it). Next: {by_range} | {self.by_other}.")
        after = self.items.call(covered) if self.items is not None else None
        by_range = (f"{self.call}, {after} | " if after else self.lead if after is None else "") + by_range
        if average > DEFAULT_READ_BYTES:
            return (f"{what}; the preview shows {shows}; its lines average {average:,.0f} bytes, so read it by "
                    f"{'jq= or by ' if self.lead else ''}range. Next: {by_range} | {by_other}.")
        counted = counts.from_start() if counts is not None else None
        count = self.count if counted is None else counted
        by_line = f" | {self.call}{_line_read(next_line, count)})" if count else ""  # (call_with)
        if count and self.first_error is not None and next_line < self.first_error <= self.lines:  # (not shown)
            by_range = f"{self.call}{_line_read(self.first_error, self.count)}) | {by_range}"
        if self.tail_lines and tail_offset is None and self.lines > next_line + count:  # (a line left: counted)
            last = counts.last() if counts is not None else None
            last = self.count if last is None else last
            if last and self.lines >= next_line + count + last:
                by_line += f" | {self.call}{_line_read(-last, last)})"  # the last lines
        return f"{what}; the preview shows {shows}. Next: {by_range}{by_line} | {by_other}."


_UTF16 = {"UTF-16LE text": "utf-16le", "UTF-16BE text": "utf-16be"}
"""UTF-16 text's formats (:data:`~scratchfs.api.shape_binary.UTF16_FORMATS`) to the encoding that reads them."""


def wide_encoding(content_type: str | None, shape: str | None) -> str | None:
    """The encoding that reads UTF-16 text (``"utf-16le"`` or ``"utf-16be"``), told by its content type and shape;
    ``None`` for any other content. Never raises."""
    from scratchfs.api.shape import binary_format  # (as :class:`_Note`'s: not on import)

    return _UTF16.get(binary_format(shape) or "") if content_type == "binary" else None


_WIDE = {"UTF-16LE text": 'pattern="p\\x00y\\x00" for "py"', "UTF-16BE text": 'pattern="\\x00p\\x00y" for "py"',
         "UTF-32LE text": 'pattern="p\\x00\\x00\\x00y\\x00\\x00\\x00" for "py"',
         "UTF-32BE text": 'pattern="\\x00\\x00\\x00p\\x00\\x00\\x00y" for "py"'}


def _settings(**numbers: int | None) -> str:
    """A read's numeric arguments as its call writes them after the handle (``, offset=512, end=1024``): ``None``
    and the defaults left out by :func:`~scratchfs.foundation.calls.without_defaults`, the one rule of every call
    written (a line read's ``lines=50``, a range read's ``length=4096`` and ``offset=0``)."""
    kept = without_defaults("read_handle", {k: v for k, v in numbers.items() if v is not None})
    return "".join(f", {name}={value!r}" for name, value in kept.items())


@functools.lru_cache(maxsize=1024)  # (256 missed 619 of 3,528 on 1,300 4 KiB bench stubs: 5 us a miss)
def _line_read(line: int, lines: int) -> str:
    """:func:`_settings` of a line read (``, line=120, lines=30``), kept: a stub's fitting writes the same ones for
    each preview it tries (``python bench/run.py --only T1``: the spill path)."""
    return _settings(line=line, lines=lines)


_TAIL_KINDS = ("log", "text")  # contents whose note names their last lines too (line=-N), when the preview ends before


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


class _LineReads:
    """How many lines the line reads of a stub's note hold (:func:`~scratchfs.api.line_fit.lines_within`): from a
    line start of the head, and back from the content's end (``named``: a log's or a text's last lines, when the tail
    or the head holds them). The fitting tries several previews: each try's note is written with the counts of the
    tries before it counted (the average line's where none: they change a note's length by a digit or a clause at
    most), and, for a try that fits so, its own are counted (:meth:`count`) -- each once, and only the ones its note
    names (a note with no line read, or whose line read holds all the lines after the preview, names no last lines).

    A note asks through :meth:`from_start` and :meth:`last`, for the try :meth:`at` set."""

    __slots__ = ("asked", "ends", "head", "lasts", "size", "start", "starts", "tried")

    def __init__(self, head: bytes, tail: bytes, size: int, named: bool) -> None:
        ends = tail if len(tail) >= min(size, LAST_LINES_BYTES) else head if len(head) >= size else b""
        self.head, self.size, self.ends = head, size, ends if named else b""
        self.starts: dict[int, int | None] = {}  # (the counts from each line start, and of the last lines, counted)
        self.lasts: list[int | None] = []
        self.tried: set[int] = set()  # the line starts of the tries counted: their counts known to every later try
        self.start, self.asked = 0, 0  # (the try's line start; which counts its note asked for: 1 from it, 2 last)

    def at(self, start: int) -> _LineReads:
        """These counts for the try whose preview's next line starts at ``start`` (in the head)."""
        self.start, self.asked = start, 0
        return self

    def from_start(self) -> int | None:
        """The lines from the try's line start that a read holds, if known (``None``: not counted, or too few bytes
        to tell)."""
        self.asked |= 1
        start, head, size = self.start, self.head, self.size
        if start not in self.tried:
            return None
        if start not in self.starts:
            self.starts[start] = lines_within(head[start : start + DEFAULT_READ_BYTES + 1],
                                              start + DEFAULT_READ_BYTES + 1 >= size, size <= len(head), True)
        return self.starts[start]

    def last(self) -> int | None:
        """The last lines that a read holds, if known (``None``: not counted, too few bytes to tell or not named)."""
        self.asked |= 2
        if not self.tried:
            return None
        if not self.lasts:
            ends = self.ends
            self.lasts.append(None if not ends else lines_within(
                ends[-LAST_LINES_BYTES:], True, len(ends) >= self.size or len(ends) > LAST_LINES_BYTES, False))
        return self.lasts[0]

    def count(self, default: int) -> bool:
        """Count the try's counts (known from now on to it and every later try): whether any its note asked for
        now differs from the one it was written with (``default``: the note's for a count not known, the average
        line's) -- only then is the note written again (a third of a 4 KiB text's stubs counted what it said)."""
        start, asked = self.start, self.asked
        before = self._said(asked, default)
        self.tried.add(start)
        return before != self._said(asked, default)

    def _said(self, asked: int, default: int) -> tuple[int | None, int | None]:
        """The counts a note that asked for ``asked`` (1: from its line start, 2: the last lines) writes: ``default``
        for one not known."""
        first = self.from_start() if asked & 1 else None
        last = self.last() if asked & 2 else None
        return (default if first is None and asked & 1 else first, default if last is None and asked & 2 else last)


def build_stub(handle: str, head: bytes, tail: bytes, size: int, lines: int, content_type: str | None,
               shape: str | None, tool: str | None, preview_bytes: int, mode: str = "head",
               longest_line: int | None = None, next_read: str | None = None, top: str | None = None,
               first_error: int | None = None) -> Stub:
    """Build the stub of a spilled content so that its compact JSON fits :data:`MAX_STUB_BYTES`.

    The preview starts at ``preview_bytes`` bytes of content and shrinks, in proportion to what its JSON escaping
    costs, until the whole stub fits; the note names the next calls from where the preview stops. Binary content's
    preview is a hex dump of its first bytes (:func:`~scratchfs.api.preview.hex_preview`; ``mode`` does not apply
    to it), but an uncompressed tar's lists its first members -- name, bytes, offset of the data, as many as fit
    (:func:`~scratchfs.api.shape_binary.tar_listing`) -- and its note names the range read of the first member that
    holds data; so does a zip's whose first members hold some stored uncompressed (method 0: those are listed,
    :func:`~scratchfs.api.shape_binary.zip_members`). The note of compressed content (gzip, zstd, bzip2, xz, a zip
    of compressed members: its shape names the format and says ``compressed``) names byte ranges alone: no search
    finds text in compressed bytes.
    ``longest_line``: at least the bytes of the content's longest line, if known (what the note may search by).
    ``next_read``: the jq filter a JSON document's note names, chosen by its shape's describer
    (:attr:`~scratchfs.api.shape.Shape.next_read`; ``None``: ``keys[]``, or ``.[0]`` for an array). ``top``: a JSON
    document's top level, ``"array"`` or ``"object"`` (:attr:`~scratchfs.api.shape.Shape.top`; ``None``: neither).
    ``first_error``: a log's or text's first error's line (:attr:`~scratchfs.api.shape.Shape.first_error`), read first.
    ``tail``: the content's last bytes (``head+tail``'s preview shows some; at least :data:`LAST_LINES_BYTES` of them
    size the read of the last lines the note names, else -- the head not holding the end either -- they are told
    from the average line)."""
    fixed = _fixed_bytes(handle, size, lines, content_type, shape)  # (the JSON's bytes but the preview's and note's)
    notes = _Note(handle, size, lines, tool, content_type, shape, longest_line, head, next_read, top, first_error)
    limit = preview_bytes
    members, packed = notes.members(head)
    reads = _LineReads(head, tail, size, notes.tail_lines and mode == "head")
    rendered = RenderedHead(head, size, limit) if mode == "head" and notes.terminal else None
    texts = _text_view(notes, head, size, limit, MAX_STUB_BYTES - fixed) if (  # (None: its bytes)
        mode == "head" and content_type == "html") else None
    listed = texts.fit(min(preview_bytes, LIST_PREVIEW_BYTES))[0] if texts else None  # (a page's listing: its text's)
    while True:
        listing, shown = notes.listing(members, limit)
        drawn, viewed = rendered.fit(limit) if rendered is not None else None, None  # (viewed: an HTML page's text)
        if shown:  # a tar's first members, each with its data's bytes and offset
            preview, covered, tail_offset = listing, 0, None
        elif content_type == "binary":  # as a range read shows it: escaped control bytes would fill the stub
            preview, covered, tail_offset = wide_preview(head, size, limit, notes.wide) if notes.wide else \
                hex_preview(head, size, limit)  # (UTF-16 text: as a read with its encoding shows it)
        elif texts is not None:  # an HTML page's text, from its view's start
            (preview, covered, viewed), tail_offset = texts.fit(limit), None
        else:  # (terminal output: the last redraw of each line, what a terminal shows)
            preview, covered, tail_offset = (*drawn, None) if drawn else make_preview(head, tail, size, limit, mode)
        next_line = head.count(b"\n", 0, covered) + 1
        start = head.rfind(b"\n", 0, covered) + 1  # (where line next_line starts)
        counted = shown or covered >= size or notes.lines_average is None or texts  # (no line read named)
        preview_cost = _json_bytes(preview) - 2
        note = notes.tar_text(members[:shown], packed) if shown else notes.text(
            covered, next_line, tail_offset, reads.at(start), drawn, viewed)
        total = fixed + preview_cost + _json_bytes(note) - 2
        if (total <= MAX_STUB_BYTES or not limit) and not counted and reads.count(notes.count):  # (a try that
            note = notes.text(covered, next_line, tail_offset, reads, drawn)  # may be kept: its counts, if they
            total = fixed + preview_cost + _json_bytes(note) - 2  # change its note; the try with no preview: kept)
        if total <= MAX_STUB_BYTES:
            return Stub(handle, preview, size, note, lines, content_type, shape, tool, listed)
        if limit == 0:  # the preview is gone and it still does not fit: the shape gives way too
            return _shape_given_way(Stub(handle, preview, size, note, lines, content_type, shape, tool, listed), total)
        room = max(0, MAX_STUB_BYTES - (total - preview_cost) - 8)  # 8: the note's numbers may grow a digit
        limit = max(0, min(limit - 1, int(limit * room / max(1, preview_cost))))


def _text_view(notes: _Note, head: bytes, size: int, limit: int, room: int) -> ViewHead | None:
    """The first bytes of an HTML page's text view (:func:`~scratchfs.api.html_preview.view_head`), as many as its
    preview can show: ``limit``, or fewer in ``room``, the stub's bytes but its note's, less the note's that names
    them."""
    note = view_note(notes.what, notes.call, 10 * size, False, notes.by_other)  # (its numbers at their longest)
    notes.main = view_head(head, size, max(1, min(limit, room - _json_bytes(note))))  # (its note: of its main content)
    return notes.main


def _shape_given_way(stub: Stub, total: int) -> Stub:
    """``stub`` (``total``: the bytes of its JSON) with its shape cut (to ``""`` at most) until it fits
    :data:`MAX_STUB_BYTES`."""
    shape = stub.shape
    while shape and total > MAX_STUB_BYTES:
        shape = shape[: max(0, len(shape) - (total - MAX_STUB_BYTES) - 1)] + "…" if len(shape) > 1 else ""
        stub = dataclasses.replace(stub, shape=shape)
        total = len(stub.to_json().encode("utf-8"))
    return stub


_FIXED = len('{"handle":,"preview":"","size":,"lines":,"content_type":,"shape":,"note":""}')


def _fixed_bytes(handle: str, size: int, lines: int, content_type: str | None, shape: str | None) -> int:
    """UTF-8 bytes of the stub's compact JSON with an empty preview and note: its keys and punctuation, and each
    value as the encoder writes it (a string quoted, an int as ``repr`` gives it, ``None`` as ``null``). The three
    strings are counted as one (their UTF-8 bytes and escapes add up; each one's quotes added), one count where
    three were; a lone surrogate in any: each as :func:`_json_bytes` counts it."""
    numbers = _FIXED + len(repr(size)) + len(repr(lines)) + 4 * (content_type is None) + 4 * (shape is None)
    try:
        joined = f"{handle}{content_type or ''}{shape or ''}".encode()
    except UnicodeEncodeError:
        return (numbers + _json_bytes(handle) + (0 if content_type is None else _json_bytes(content_type))
                + (0 if shape is None else _json_bytes(shape)))
    return numbers + len(joined) + escape_bytes(joined) + 2 * (1 + (content_type is not None) + (shape is not None))


def _json_bytes(text: str) -> int:
    """UTF-8 bytes of ``text`` as a JSON string literal (quotes included, non-ASCII kept as is): what
    ``len(quote(text).encode("utf-8"))`` gives, counted rather than written (two ``translate``, twice as fast as the
    encoder on a preview) -- its UTF-8 bytes and :func:`~scratchfs.api.line_fit.escape_bytes`. Raises
    UnicodeEncodeError for a lone surrogate, as that does."""
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        return len(quote(text).encode("utf-8"))
    return len(data) + 2 + escape_bytes(data)


FREE_BY_DELETING = "Free room by deleting scratchpad values no longer needed (scratch_list, scratch_delete), or ask " \
    "the tool for less."
"""How a refusal notice goes on when the scope holds scratchpad values (which the model can delete)."""
NOTHING_TO_FREE = "You cannot free room: the run's stored results expire after their TTL, and scratch_delete " \
    "removes only scratchpad values (this scope holds none). Ask the tool for less, or work from the results " \
    "already stored."
"""How a refusal notice goes on when the scope holds no scratchpad value: the rest is spilled results, which no
tool of the model's deletes."""
OVER_THE_WHOLE_QUOTA = "No deletion can make room: this result alone is larger than the run's whole quota. Ask " \
    "the tool for less (a narrower query, fewer rows, one page), or work from the results already stored."
"""How a refusal notice goes on when the result by itself is over the run's byte quota."""


def refusal_notice(content: bytes, tool: str | None, reason: str, preview_bytes: int,
                   advice: str = FREE_BY_DELETING, size: int | None = None, tail: bytes = b"",
                   mode: str = "head") -> str:
    """What reaches the model instead of a result over the spill threshold that the store refused to keep (a run at
    its quota): compact JSON ``{preview, size, stored: false, note}`` of at most :data:`MAX_STUB_BYTES` UTF-8 bytes
    -- the first bytes of ``content`` (at most ``preview_bytes``, fewer when the notice would not fit), its size in
    bytes, and a note saying that the rest was not kept, why (``reason``, clipped) and how to go on (``advice``:
    :data:`FREE_BY_DELETING`, :data:`NOTHING_TO_FREE` or :data:`OVER_THE_WHOLE_QUOTA`). No handle: there is nothing
    to read back. Binary content (:func:`~scratchfs.api.shape.is_text`) is previewed as a hex dump, as a range read
    shows it. ``size``: the whole result's bytes when ``content`` is only its start (a structure's JSON text, written
    in pieces), else ``len(content)``. ``tail``, ``mode``: the content's last bytes and ``"head+tail"`` to preview
    its end too, as a stub's preview does (:func:`~scratchfs.api.preview.make_preview`: a log's last lines); text
    only. Never raises."""
    size = len(content) if size is None else size
    what = f"Output of {tool}" if tool else "The result"
    note = (f"{what} ({size:,} bytes) was NOT stored: {_clip(reason, 300)}. Only this preview reached you; the rest "
            f"is not kept anywhere. {_clip(advice, 300)}")
    head = content[: preview_bytes + 4]
    from scratchfs.api.shape import is_text  # (loaded on first use)

    binary = not is_text(content[:TEXT_PROBE_BYTES])  # the one rule of what is text: binary as a hex dump
    limit = preview_bytes
    while True:
        preview = hex_preview(head, size, limit)[0] if binary else make_preview(head, tail, size, limit, mode)[0]
        text = _COMPACT.encode({"preview": preview, "size": size, "stored": False, "note": note})
        total = len(text.encode("utf-8"))
        if total <= MAX_STUB_BYTES or limit == 0:
            return text
        cost = max(1, _json_bytes(preview))  # shrink in proportion to what the preview's escaping costs
        limit = max(0, min(limit - 1, int(limit * (cost - (total - MAX_STUB_BYTES) - 8) / cost)))


__all__ = ["FREE_BY_DELETING", "NOTHING_TO_FREE", "OVER_THE_WHOLE_QUOTA", "Stub", "build_stub", "refusal_notice",
           "wide_encoding"]
