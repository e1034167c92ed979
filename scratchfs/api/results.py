"""What the reads return: one result type per read, each carrying its own continuation, and the one renderer of the
"next call" text that results, stub notes and every face use.

* :class:`Slice` -- a byte range (``Scope.read_range``, ``Scope.scratch_read_range``);
* :class:`LineSlice` -- a line range (``Scope.read_lines``);
* :class:`Matches` -- the windows of a substring or pattern search (``Scope.search``).

Offsets and sizes are bytes of the content; lines are 1-based and end at ``\\n``.
"""

from __future__ import annotations

from dataclasses import dataclass

from scratchfs.engine.search import Window
from scratchfs.foundation.limits import (
    DEFAULT_CONTEXT,
    DEFAULT_LINES,
    DEFAULT_MATCHES,
    DEFAULT_READ_BYTES,
    MAX_READ_BYTES,
)
from scratchfs.foundation.text import quote


def render_call(verb: str, **arguments: object) -> str:
    """A call written out for a model, e.g. ``read_handle(handle="h_...", offset=4096, length=4096)``: text as a JSON
    string literal, numbers as they are, ``True``/``False`` for flags; arguments in the order given, ``None`` left out.
    The one place every "next call" text is written (results, stub notes, every face)."""
    parts = []
    for name, value in arguments.items():
        if value is None:
            continue
        shown = quote(value) if isinstance(value, str) else repr(value)
        parts.append(f"{name}={shown}")
    return f"{verb}({', '.join(parts)})"


def _reader_call(kind: str, name: str, **arguments: object) -> str:
    """``read_handle(handle=...)`` for a spilled result, ``scratch_read(key=...)`` for a scratchpad value."""
    if kind == "scratch":
        return render_call("scratch_read", key=name, **arguments)
    return render_call("read_handle", handle=name, **arguments)


@dataclass(frozen=True, slots=True)
class Slice:
    """The result of a range read.

    Attributes:
        handle: the handle (or, for a scratchpad value, the key) read.
        offset: byte offset of ``data`` in the content.
        data: the bytes read (at most :data:`~scratchfs.foundation.limits.MAX_READ_BYTES`).
        size: the content's total size, in bytes.
        next_offset: where the next read starts, or ``None`` at the end.
        requested: the length asked for (the next call asks for as much), in bytes.
        kind: ``"handle"`` (a spilled result) or ``"scratch"`` (a scratchpad value): names the next call's verb.
    """

    handle: str
    offset: int
    data: bytes
    size: int
    next_offset: int | None
    requested: int = DEFAULT_READ_BYTES
    kind: str = "handle"

    @property
    def remaining(self) -> int:
        """Bytes after this slice, not read yet."""
        return self.size - self.offset - len(self.data)

    @property
    def next_call(self) -> str | None:
        """The exact call that reads on -- the next range of the same length -- or ``None`` at the end."""
        if self.next_offset is None:
            return None
        return _reader_call(self.kind, self.handle, offset=self.next_offset, length=self.requested)


@dataclass(frozen=True, slots=True)
class LineSlice:
    """The result of a line-range read.

    Attributes:
        handle: the handle read.
        offset: byte offset of ``data`` (the start of ``first_line``, or inside it when a read resumes a cut line).
        data: whole lines, line ends as they are (the last one may be cut, see ``cut``).
        size: the content's total size, in bytes.
        first_line: 1-based number of the first line in ``data``.
        lines: number of lines in ``data`` (a cut or unterminated last line counts).
        total_lines: the content's line count.
        next_line: the first line not started in ``data`` (read on by lines), or ``None`` at the end.
        next_offset: the first byte not in ``data`` (read on by bytes, e.g. the rest of a cut line), or ``None``.
        cut: the read cap stopped ``data`` inside a line, which continues at ``next_offset``.
        requested: the number of lines asked for (the next call asks for as many).
        requested_bytes: the byte length the next call asks for when it reads the rest of a cut line.
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
    requested_bytes: int = MAX_READ_BYTES

    @property
    def remaining(self) -> int:
        """Bytes after this read, not read yet."""
        return self.size - self.offset - len(self.data)

    @property
    def next_call(self) -> str | None:
        """The exact call that reads on (the rest of a cut line by bytes, else the next lines), or ``None``."""
        if self.cut and self.next_offset is not None:
            return _reader_call("handle", self.handle, offset=self.next_offset, length=self.requested_bytes)
        if self.next_line is None:
            return None
        return _reader_call("handle", self.handle, line=self.next_line, lines=self.requested)


@dataclass(frozen=True, slots=True)
class Matches:
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
        context, max_matches: the search's settings (the next call uses them too).
    """

    handle: str
    match: bytes | None
    windows: list[Window]
    size: int
    next_offset: int | None
    pattern: str | None = None
    ignore_case: bool = False
    context: int = DEFAULT_CONTEXT
    max_matches: int = DEFAULT_MATCHES

    @property
    def more(self) -> bool:
        """True when more matches follow ``next_offset``."""
        return self.next_offset is not None

    @property
    def remaining(self) -> int:
        """Bytes from ``next_offset`` to the end, not searched yet (0 when the search is complete)."""
        return 0 if self.next_offset is None else self.size - self.next_offset

    @property
    def match_count(self) -> int:
        """Number of matches in the windows."""
        return sum(len(w.matches) for w in self.windows)

    @property
    def next_call(self) -> str | None:
        """The exact call that finds the next matches, or ``None`` when no match is left."""
        if self.next_offset is None:
            return None
        what: dict[str, object]
        if self.pattern is not None:
            what = {"pattern": self.pattern}
        else:
            what = {"match": (self.match or b"").decode("utf-8", "replace")}
        return _reader_call("handle", self.handle, **what, ignore_case=True if self.ignore_case else None,
                            offset=self.next_offset, context=self.context, max_matches=self.max_matches)


__all__ = ["LineSlice", "Matches", "Slice", "render_call"]
