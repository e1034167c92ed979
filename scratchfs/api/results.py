"""What the reads return: one result type per read, each carrying its own continuation, and the one renderer of the
"next call" text that results, stub notes and every face use.

* :class:`Slice` -- a byte range (``Scope.read_range``, ``Scope.scratch_read_range``);
* :class:`LineSlice` -- a line range (``Scope.read_lines``);
* :class:`Matches` -- the windows of a substring or pattern search (``Scope.search``).

Offsets and sizes are bytes of the content; lines are 1-based and end at ``\\n``.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass, replace

from scratchfs.api.encodings import WIDE, decode_single, newline_ends
from scratchfs.engine.protocols import Entry
from scratchfs.engine.search import Window
from scratchfs.foundation import cursors
from scratchfs.foundation.calls import Advice, render_call, without_defaults
from scratchfs.foundation.errors import BadCursor, PatternTimeout, PatternTooLong
from scratchfs.foundation.limits import (
    DEFAULT_CONTEXT,
    DEFAULT_LINES,
    DEFAULT_MATCHES,
    DEFAULT_READ_BYTES,
    LINE_WINDOW_BYTES,
)
from scratchfs.foundation.text import plural, shorten


def bounded_resume(found: Matches, windows: list[Window], first_left: int | None) -> int | None:
    """Where the next page of ``found``'s search starts (a byte offset, ``None`` at its end) after it shows ``windows``
    (in order) with ``first_left`` the first match not shown (its byte offset): the one rule for the Python API's
    ``next_offset`` and the model's reply. A search bounded by ``end=`` shows no byte before its ``offset``
    (:func:`~scratchfs.engine.search.search`'s ``floor``), so its next page starts up to the context's reach
    (:attr:`Matches.reach`) before ``first_left``, but never in bytes this page showed: no match lies between (every one
    before ``first_left`` is shown), so the next page's first match is ``first_left``, with the context before it that
    no page showed. Any other search (unbounded, from the end), a page showing nothing, a search at its end, or one a
    pattern's error stopped at ``first_left`` (:attr:`Matches.stopped`: it goes on at the trouble): ``first_left``
    itself."""
    if found.end is None or found.before is not None or not windows or first_left is None:
        return first_left
    if found.stopped is not None and first_left == found.first_left:
        return first_left
    last = windows[-1]
    shown_to = last.offset + len(last.data)
    return first_left if first_left < shown_to else max(shown_to, first_left - found.reach)


def call_start(verb: str, **arguments: object) -> str:
    """``render_call(verb, **arguments)`` without its closing parenthesis: the shared start of calls that
    :func:`call_with` finishes (a stub's note writes several calls of one handle)."""
    return render_call(verb, **arguments)[:-1]


def call_with(start: str, **numbers: int) -> str:
    """The call ``start`` (from :func:`call_start`, of a handle or key alone) with ``numbers`` (ints, none of them
    ``None``) added after its arguments: exactly ``render_call(verb, **arguments, **numbers)`` -- those at a default
    that means the same left out (:func:`~scratchfs.foundation.calls.without_defaults`) --, without quoting the
    shared arguments again."""
    numbers = without_defaults(start.split("(", 1)[0], numbers)  # type: ignore[assignment]
    if numbers and not start.endswith("("):
        start += ", "
    return start + ", ".join([f"{name}={value!r}" for name, value in numbers.items()]) + ")"


def _reader_call(kind: str, name: str, **arguments: object) -> str:
    """``read_handle(handle=...)`` for a spilled result, ``scratch_read(key=...)`` for a scratchpad value."""
    if kind == "scratch":
        return render_call("scratch_read", key=name, **arguments)
    return render_call("read_handle", handle=name, **arguments)


class Bounded:
    """What a read, a search and a count share: :attr:`bound`, the byte they stop before, from their ``size`` (the
    content's, bytes) and ``end`` (the bound the call gave, or ``None``)."""

    __slots__ = ()
    size: int
    end: int | None

    @property
    def bound(self) -> int:
        """Where the read ends, a byte offset: ``end``, else the content's size."""
        return self.size if self.end is None else self.end

    def left_from(self, at: int | None) -> int:
        """Bytes from ``at`` (a byte offset, where the next call starts) to :attr:`bound`, not read yet: the one
        rule of every reply's ``remaining`` (0 when ``at`` is ``None``: nothing follows)."""
        return 0 if at is None else self.bound - at


@dataclass(frozen=True, slots=True)
class Slice(Bounded):
    """The result of a range read.

    Attributes:
        handle: the handle (or, for a scratchpad value, the key) read.
        offset: byte offset of ``data`` in the content.
        data: the bytes read (at most :data:`~scratchfs.foundation.limits.MAX_READ_BYTES`).
        size: the content's total size, in bytes.
        next_offset: where the next read starts, or ``None`` at the end.
        requested: the length asked for (the next call asks for as much), in bytes.
        kind: ``"handle"`` (a spilled result) or ``"scratch"`` (a scratchpad value): names the next call's verb.
        binary: the content is binary (not text): faces show it as a hex dump.
        budget: the reply budget the caller gave (bytes; the next call repeats it), or ``None``.
        version: a scratchpad value's version (8 characters; the next call repeats it, so that a value written again
            between two pages is refused rather than joined), or ``None`` for a spilled result (never rewritten).
        encoding: ``"latin-1"`` or ``"cp1252"``: the read shows each byte as one character of it (the next call
            repeats it, :mod:`scratchfs.api.encodings`), else ``None`` (UTF-8).
        end: the byte the read stops before (a member's end: :mod:`scratchfs.api.bounds`; the next call repeats it),
            or ``None``: the content's end.
    """

    handle: str
    offset: int
    data: bytes
    size: int
    next_offset: int | None
    requested: int = DEFAULT_READ_BYTES
    kind: str = "handle"
    binary: bool = False
    budget: int | None = None
    version: str | None = None
    encoding: str | None = None
    end: int | None = None

    def prefix(self, length: int) -> Slice:
        """This slice cut to its first ``length`` bytes, its cursor moved to match."""
        data = self.data[:length]
        end = self.offset + len(data)
        return replace(self, data=data, next_offset=end if end < self.bound else None)

    @property
    def remaining(self) -> int:
        """Bytes after this slice, not read yet (before ``end``, when given)."""
        return self.left_from(self.offset + len(self.data))

    @property
    def next_call(self) -> str | None:
        """The exact call that reads on -- the next range of the same length (and budget, and ``end``) -- or
        ``None`` at the end."""
        if self.next_offset is None:
            return None
        return _reader_call(self.kind, self.handle, offset=self.next_offset, length=self.requested,
                            budget=self.budget, version=self.version, encoding=self.encoding, end=self.end)


@dataclass(frozen=True, slots=True)
class LineSlice(Bounded):
    """The result of a line-range read.

    Attributes:
        handle: the handle read.
        offset: byte offset of ``data`` (the start of ``first_line``, or inside it when a read resumes a cut line).
        data: whole lines, line ends as they are (the last one may be cut, see ``cut``).
        size: the content's total size, in bytes.
        first_line: 1-based number of the first line in ``data``.
        lines: number of lines in ``data`` (a cut or unterminated last line counts).
        total_lines: the content's line count.
        next_line: the line the next read starts in -- the line after the last whole one, or the cut line itself,
            whose rest starts at ``next_offset`` -- or ``None`` at the end.
        next_offset: the first byte not in ``data``, or ``None`` at the end.
        cut: ``data`` stops inside a line (the read cap or a reply budget cut it); the line continues at
            ``next_offset``, and ``next_call`` reads on from there, by lines: no byte is skipped.
        requested: the number of lines asked for (the next call asks for as many, or, when a cap or budget cut
            the read short of them, for those of the asked range not read yet: :attr:`lines_left`).
        binary: the content is binary (not text).
        budget: the reply budget the caller gave (bytes; the next call repeats it), or ``None``.
        asked: the ``line`` the call gave when it was negative (from the end: ``first_line`` is the line it named,
            or 1 when it named one before the first; ``next_call`` then reads the lines before it once the page
            reached the end), else ``None``.
        encoding, end: as :class:`Slice`'s.
        inside: ``data`` starts inside ``first_line``, after its first byte: the last bytes of a line longer than a
            read from the end could show (:meth:`last_bytes`); its ``next_call`` reads the bytes of that line before
            them first.
        start: the byte a read from the end goes back no further than (``offset=`` beside a negative ``line``: a
            member's first byte, :mod:`scratchfs.api.bounds`; its ``next_call`` repeats it and is ``None`` once
            ``offset`` reaches it), or ``None``: the content's start.
        past: why a read from ``offset=`` the content's end shows no line, and the call that reads its last lines
            (:func:`~scratchfs.api.bounds.past_lines`), or ``None``.
    """

    handle: str
    offset: int
    data: bytes
    size: int
    first_line: int
    lines: int
    total_lines: int
    next_line: int | None
    next_offset: int | None
    cut: bool
    requested: int = DEFAULT_LINES
    binary: bool = False
    budget: int | None = None
    asked: int | None = None
    encoding: str | None = None
    end: int | None = None
    inside: bool = False
    start: int | None = None
    past: Advice | None = None

    @property
    def note(self) -> str | Advice | None:
        """What a reply says of a ``line`` from the end that named a line before the first, or of a read from the
        content's end (:attr:`past`); ``None`` otherwise."""
        if self.past is not None:
            return self.past
        if self.asked is None or -self.asked <= self.total_lines or self.first_line > 1 or self.inside or \
                self.start is not None:  # (its
            return None  # last lines kept, a budget cut the page from the front: it does not read from line 1)
        return (f"line={self.asked} is before the first line ({plural(self.total_lines, 'line')}): read from line 1, "
                "as tail -n does")

    def prefix(self, length: int) -> LineSlice:
        """This read cut to its first ``length`` bytes (a reply budget), its line counts and cursor moved to match."""
        if length >= len(self.data):
            return self
        data = self.data[:length]
        if self.encoding in WIDE:  # (UTF-16: its lines end at a newline code unit, not at every 0a byte)
            ends = newline_ends(data, self.offset, self.encoding)
            newlines, cut = len(ends), not ends or ends[-1] != len(data)
        else:
            newlines, cut = data.count(b"\n"), not data.endswith(b"\n")
        end = self.offset + len(data)
        return replace(self, data=data, lines=newlines + cut, cut=cut, next_offset=end if end < self.bound else None,
                       next_line=self.first_line + newlines if end < self.bound else None)

    def after_lines(self, skip: int) -> LineSlice:
        """This read without its first ``skip`` lines (whole lines, fewer than :attr:`lines`): a read from the end that
        a budget cuts keeps its last lines whole, so that it still reaches the end and its next_call goes back."""
        at = 0
        if self.encoding in WIDE and skip:  # (none skipped: from its start, not from its last newline)
            at = newline_ends(self.data, self.offset, self.encoding)[skip - 1]
        for _ in range(0 if self.encoding in WIDE else skip):
            at = self.data.index(b"\n", at) + 1
        return replace(self, offset=self.offset + at, data=self.data[at:], first_line=self.first_line + skip,
                       lines=self.lines - skip)

    def last_bytes(self, length: int) -> LineSlice:
        """This read of one line, its last ``length`` bytes (at least 1, fewer than its own) from the first that starts
        a character in UTF-8 text (``inside`` then): a read from the end whose last line alone is longer than a budget
        or cap shows the line's end, and its next_call reads the bytes before them."""
        at = len(self.data) - length
        at += (self.offset + at) % 2 if self.encoding in WIDE and at + 1 < len(self.data) else 0  # (a code unit)
        if not self.binary and self.encoding is None:  # (the bytes before them end with the whole character)
            stop = min(len(self.data) - 1, at + 3)
            while at < stop and self.data[at] & 0xC0 == 0x80:
                at += 1
        return replace(self, offset=self.offset + at, data=self.data[at:], inside=self.inside or at > 0)

    @property
    def remaining(self) -> int:
        """Bytes after this read, not read yet (before ``end``, when given)."""
        return self.left_from(self.offset + len(self.data))

    @property
    def next_call(self) -> str | None:
        """The exact call that reads on (the rest of a cut line by bytes, else the next lines; as many lines, the
        same budget), or ``None`` at the end -- but a read from the end (``asked``) that reached it whole goes on
        backwards, as a search from the end does: the lines just before ``first_line``, as many as it asked for (or
        all that are left), until line 1 was read. That read is itself one from the end (``line=-N`` before
        ``end=``, the byte ``first_line`` starts at), so it goes back in its turn: a positive ``line`` would read on
        forwards, into the lines already read. Given a ``start`` (a member's first byte), it repeats it as
        ``offset=`` and is ``None`` once the read reached it: no read goes back past it."""
        if self.cut and self.next_offset is not None:
            return _reader_call("handle", self.handle, offset=self.next_offset, lines=self.lines_left,
                                budget=self.budget, encoding=self.encoding, end=self.end)
        if self.next_line is None:
            if self.asked is None or (self.first_line <= 1 and not self.inside) or \
                    (self.start is not None and self.offset <= self.start):
                return None
            back = min(self.requested, self.first_line - (not self.inside))  # (the first line's head, if inside)
            return _reader_call("handle", self.handle, offset=self.start, line=-back, lines=back, budget=self.budget,
                                encoding=self.encoding, end=self.offset)
        return _reader_call("handle", self.handle, line=self.next_line, lines=self.lines_left, budget=self.budget,
                            encoding=self.encoding, end=self.end)

    @property
    def lines_left(self) -> int:
        """The lines the next forward read asks for: those of the asked range (``requested`` from ``first_line``)
        this read did not end -- ``line=1, lines=5000`` cut at 64 KiB after 105 whole lines goes on with
        ``lines=4895``, where it asked for 5,000 more (the rest of a cut line is one of them) --, or ``requested``
        once the read ended them all: the next page, as many."""
        left = self.requested - (self.lines - self.cut)
        return left if left > 0 else self.requested


@dataclass(frozen=True, slots=True)
class Matches(Bounded):
    """The result of a search, by substring (``match``) or by regular expression (``pattern``).

    Attributes:
        handle: the handle searched.
        match: the needle as bytes (substring search), else ``None``.
        windows: :class:`~scratchfs.engine.search.Window` objects in content order; overlapping windows are merged and
            list each of their matches.
        size: the content's total size, in bytes.
        next_offset: pass it as ``offset=`` to resume after these windows; ``None`` when no match is left.
        pattern: the regular expression (pattern search), else ``None``.
        ignore_case: matched ignoring ASCII case.
        context, max_matches: the search's settings (the next call uses them too); ``context`` is bytes a side, or
            ``"line"`` (windows of whole lines, :mod:`scratchfs.engine.line_windows`).
        binary: the content is binary (not text).
        budget: the reply budget the caller gave (bytes; the next call repeats it), or ``None``.
        view: ``"text"``: the search ran over an HTML page's text view (offsets, lines and ``size`` are the view's,
            and the next call searches it too), else ``None``.
        before: a search from the end (:mod:`scratchfs.engine.last_matches`): the ``before`` it was given, else
            ``None``. Its ``next_offset`` is then the next call's ``before`` (the first match shown, when matches
            start before it) and ``origin`` its ``offset`` (where the forward sequence starts).
        note: why none is shown when a forward search of a pattern that spans lines ran out of time; where to search
            on when a stored HTML page's source held no match (:func:`~scratchfs.api.search_misses.text_view_hint`):
            text, or :class:`~scratchfs.foundation.calls.Advice` when it names calls (the reply gives them as
            ``calls`` too).
        rendered: the windows are terminal output's stored bytes, shown as its text view renders them (``view="text"``
            on terminal output: :func:`~scratchfs.api.view_search.view_search`): a window's ``data`` is its bytes
            rendered, its offsets and lengths the stored bytes'.
        encoding: ``"latin-1"`` or ``"cp1252"``: ``match`` is that encoding's bytes and windows show a byte a
            character (:mod:`scratchfs.api.encodings`), else ``None``.
        stopped: why the search stopped before ``max_matches`` and the end, when a pattern's time limit or bounds did
            (:func:`stopped_note`; every page of it says so), else ``None``.
        end: the byte the search stops before (a member's end: matches lie wholly before it, as ``re``'s
            ``endpos``; :mod:`scratchfs.api.bounds`; the next call repeats it), or ``None``: the content's end.
        left: the first match not shown, when ``next_offset`` is before it (a bounded search's page resumes with
            the context before it: :func:`bounded_resume`), else ``None`` (``next_offset`` is it).
        held: ``max_matches`` ended the search before a line whose matches it would have cut (``context="line"``:
            :attr:`~scratchfs.engine.search.SearchResult.held`), so fewer than ``max_matches`` are shown, the budget
            not the cause.
        rows: a search of a table (:mod:`scratchfs.api.search_rows`): the row (``row=N``) of each match not in the
            header, by its offset, else ``None``.
        commits: a search of a git log (:mod:`scratchfs.api.search_commits`): the commit (hash, author, date) of
            each window's first match, by its offset, else ``None``.
        full_windows: a whole line's window (``context="line"``) keeps its offsets and match fields as a cut one's
            (the web inspector's, which marks the matches by them); the model's is ``{line, data}`` (``False``).
    """

    handle: str
    match: bytes | None
    windows: list[Window]
    size: int
    next_offset: int | None
    pattern: str | None = None
    ignore_case: bool = False
    context: int | str = DEFAULT_CONTEXT
    max_matches: int = DEFAULT_MATCHES
    binary: bool = False
    budget: int | None = None
    view: str | None = None
    before: int | None = None
    origin: int = 0
    note: str | Advice | None = None
    rendered: bool = False
    encoding: str | None = None
    stopped: str | None = None
    end: int | None = None
    left: int | None = None
    held: bool = False
    rows: dict[int, int] | None = None
    full_windows: bool = False
    commits: dict[int, str] | None = None

    @property
    def first_left(self) -> int | None:
        """The first match not shown (from the end: the next call's ``before``), whatever ``next_offset`` says."""
        return self.next_offset if self.left is None else self.left

    @property
    def reach(self) -> int:
        """Bytes of context a side a window holds at most."""
        return LINE_WINDOW_BYTES if self.context == "line" else int(self.context)

    @property
    def more(self) -> bool:
        """True when more matches follow ``next_offset`` (from the end: bytes before it are left to search)."""
        return self.next_offset is not None

    @property
    def remaining(self) -> int:
        """Bytes from ``next_offset`` to the end (``end``, when given; from ``origin`` to it, from the end), not
        searched yet (0 when the search is complete)."""
        if self.next_offset is None:
            return 0
        return self.next_offset - self.origin if self.before is not None else self.left_from(self.next_offset)

    @property
    def match_count(self) -> int:
        """Number of matches in the windows."""
        return sum(len(w.matches) for w in self.windows)

    @property
    def next_call(self) -> str | None:
        """The exact call that finds the next matches (with the same settings: ``view``, ``ignore_case``,
        ``context``, ``max_matches``, ``budget``), or ``None`` when no match is left."""
        if self.next_offset is None:
            return None
        what: dict[str, object] = {"pattern": self.pattern} if self.pattern is not None else {
            "match": self.needle_text}
        where = {"offset": self.next_offset} if self.before is None else {
            "offset": self.origin or None, "before": self.next_offset}
        return _reader_call("handle", self.handle, **what, view=self.view,
                            ignore_case=True if self.ignore_case else None, **where,
                            context=self.context, max_matches=self.max_matches, budget=self.budget,
                            encoding=self.encoding, end=self.end)

    @property
    def needle_text(self) -> str:
        """``match`` as the text a call gives: its bytes decoded as UTF-8 (invalid ones as U+FFFD) or as
        ``encoding``."""
        needle = self.match or b""
        return needle.decode("utf-8", "replace") if self.encoding is None else decode_single(needle, self.encoding)


def stopped_note(error: PatternTimeout | PatternTooLong | None, timeout: float) -> str | None:
    """What a search page says when ``error`` stopped the search after its windows (``None``: nothing stopped it),
    ``timeout`` the ``pattern_timeout`` setting (seconds): where it stopped and that the bytes from there are not
    searched yet, so that a page of fewer matches than asked is not read as the last of them. At most about 250
    bytes. Never raises."""
    if error is None:
        return None
    at = error.resume_offset
    if isinstance(error, PatternTimeout):
        return (f"the pattern's time limit ({timeout:g} s) stopped this search at byte {at}: the bytes from there are "
                "not searched yet (more matches may follow); next_call searches on")
    return (f"the search stopped at byte {at}, where a match may pass a pattern search's bounds: the bytes from there "
            "are not searched yet; next_call meets it and says how to go on past it")


@dataclass(frozen=True, slots=True)
class Page:
    """One page of a listing: ``entries`` in listing order, whether ``more`` follow the last of them, and the
    ``listing`` its cursors are bound to (:func:`listing_tag`; ``""``: none)."""

    entries: list[Entry]
    more: bool
    listing: str = ""

    @property
    def next_cursor(self) -> str | None:
        """The cursor of the page after this one, or ``None`` when this is the last."""
        return self.cursor_after(len(self.entries))

    def cursor_after(self, count: int) -> str | None:
        """The cursor of the page that starts after the first ``count`` entries (``None``: nothing follows)."""
        if not count or (count >= len(self.entries) and not self.more):
            return None
        return encode_cursor(self.entries[count - 1], self.listing)


def short_digest(value: object) -> str:
    """8 lower-case base32 characters (RFC 4648, section 6) of a 5-byte BLAKE2b digest (RFC 7693) of ``repr(value)``
    as UTF-8 (lone surrogates passed through): a short name of a value for a model to carry back, not a secret (a
    value version, a listing's tag). Raises nothing."""
    digest = hashlib.blake2b(repr(value).encode("utf-8", "surrogatepass"), digest_size=5).digest()
    return base64.b32encode(digest).decode("ascii").lower()


def listing_tag(run_id: str, agent_id: str | None, kind: str | None, prefix: str, newest_first: bool = False) -> str:
    """The listing a cursor was made by: the :func:`short_digest` of its run, agent, kind and key prefix, and its
    order when newest first -- only what tells a cursor of another listing (which would start the page somewhere in
    an order it was not made for) from its own; a cursor grants nothing the listing does not."""
    return short_digest((run_id, agent_id, kind, prefix, *(("newest first",) if newest_first else ())))


def encode_cursor(entry: Entry, listing: str = "") -> str:
    """An opaque listing cursor (:mod:`scratchfs.foundation.cursors`): where the page after ``entry`` starts in the
    ``listing`` (:func:`listing_tag`) -- ``[created_at, agent_id, kind, key, listing]``."""
    return cursors.encode_cursor([entry.created_at, entry.agent_id, entry.kind, entry.key, listing])


def decode_cursor(cursor: str | None, listing: str | None = None) -> tuple[float, str, str, str] | None:
    """The position ``(created_at, agent_id, kind, key)`` a cursor of :func:`encode_cursor` names (``None`` for
    ``None``).

    Raises:
        BadCursor: (an InvalidArgument) a malformed cursor; or, when ``listing`` is given, a cursor made by another
            listing (another run, agent, kind or prefix).
    """
    if cursor is None:
        return None
    created, agent, kind, key, made_by = cursors.decode_cursor(cursor, _POSITION, "not a listing cursor")
    if listing is not None and made_by != listing:
        raise BadCursor(f"cursor {shorten(cursor)} is of another listing (another run, agent, kind or "
                        "prefix): pass the next_cursor this listing gave, or list again without a cursor")
    return created, agent, kind, key  # type: ignore[return-value]


_POSITION = (cursors.NUMBER, cursors.ID, cursors.KIND, cursors.KEY, cursors.TEXT)


__all__ = [
    "Bounded",
    "LineSlice",
    "Matches",
    "Page",
    "Slice",
    "bounded_resume",
    "call_start",
    "call_with",
    "decode_cursor",
    "encode_cursor",
    "listing_tag",
    "render_call",
    "short_digest",
    "stopped_note",
]
