"""The lines a CSV/TSV rows read hands the ``csv`` module: a line ends at ``\\n``, ``\\r\\n`` or a lone ``\\r``, as
``open(path, newline="")`` reads a file -- the way the module's documentation asks for -- so that a table whose
lines end in ``\\r`` (classic Mac OS, some exports) or ``\\n\\r`` reads as it does in Python (``\\n\\r`` is a line end
and an empty line, which is no row), and a quoted field keeps a ``\\r`` it holds.

Lines are cut from chunks of the content at C speed (``bytes.find`` for ``\\n`` in a chunk with no lone ``\\r``, a
regular expression in one that has); a line that spans chunks is held as its pieces and joined once.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from scratchfs.engine.structure.paging import ContentSource, iter_chunks
from scratchfs.foundation.errors import InvalidArgument

__all__ = ["LINE_END", "LINE_END_TEXT", "first_lines", "iter_row_lines", "line_end_after", "row_line_start"]

LINE_END = re.compile(rb"\r\n|\r|\n")
"""A line end of a rows read: ``\\r\\n``, a lone ``\\r`` or ``\\n``."""
LINE_END_TEXT = re.compile(r"\r\n|\r|\n")
"""The same line ends in text (a shape's lines, a table's comment lines, as the rows reads split them)."""
_LONE_CR = re.compile(rb"\r(?!\n)")


def first_lines(text: str, count: int) -> list[str]:
    """``LINE_END_TEXT.split(text, count)[:count]`` (``count`` >= 1): the first ``count`` lines of ``text``, their
    ends left out, the last maybe its rest. Split at ``\\n`` by ``str.split`` at C speed, each line a ``\\n`` ends
    with its ``\\r`` taken off: when no other ``\\r`` is left in those lines, every line end among them was a
    ``\\r\\n`` or a ``\\n`` (CRLF text, a Windows tool's or export's), and those are the pattern's lines -- whose
    split costs 5-10 times as much; else the pattern splits (a lone ``\\r`` is a line end too)."""
    pieces = text.split("\n", count)
    if "\r" not in text:
        return pieces[:count]
    ended = min(len(pieces) - 1, count)  # (the pieces a \n ends, of the first count: all but the last piece)
    lines = [piece.removesuffix("\r") for piece in pieces[:ended]] + pieces[ended:count]
    return LINE_END_TEXT.split(text, count)[:count] if "\r" in "".join(lines) else lines


def iter_row_lines(source: ContentSource, offset: int = 0, max_line_bytes: int = 64 * 1024 * 1024,
                   ) -> Iterator[tuple[int, bytes]]:
    """``(byte offset, line)`` for each line from ``offset`` on, line ends (:data:`LINE_END`) kept.

    Raises:
        InvalidArgument: a line is longer than ``max_line_bytes`` (the bound on what is held in memory).
    """
    held: list[bytes] = []  # the pieces of a line not yet ended, in order
    held_bytes, start, after_cr = 0, offset, False  # after_cr: the held line ends in a \r the last chunk ended with
    for chunk in iter_chunks(source, offset):
        pos = 0
        if after_cr:  # (its \n, if one follows, is part of its end)
            pos = 1 if chunk.startswith(b"\n") else 0
            held.append(chunk[:pos])
            line, held, held_bytes, after_cr = b"".join(held), [], 0, False
            yield start, line
            start += len(line)
        ends = (m.end() for m in LINE_END.finditer(chunk, pos)) if _LONE_CR.search(chunk, pos) else _newlines(chunk,
                                                                                                              pos)
        for end in ends:
            if end == len(chunk) and chunk.endswith(b"\r"):
                after_cr = True
                break
            line = chunk[pos:end]
            if held:
                held.append(line)
                line, held, held_bytes = b"".join(held), [], 0
            yield start, line
            start += len(line)
            pos = end
        if pos < len(chunk):
            held.append(chunk[pos:] if pos else chunk)
            held_bytes += len(chunk) - pos
            if held_bytes > max_line_bytes:
                raise InvalidArgument(f"a line at byte {start} is longer than {max_line_bytes:,} bytes")
    if held:
        yield start, b"".join(held)


def _newlines(chunk: bytes, pos: int) -> Iterator[int]:
    """The offsets just after each ``\\n`` of ``chunk`` from ``pos``."""
    while (found := chunk.find(b"\n", pos)) >= 0:
        pos = found + 1
        yield pos


def line_end_after(source: ContentSource, offset: int) -> int:
    """The byte offset just after the first line end (:data:`LINE_END`) at or after ``offset`` (the content's size
    when there is none)."""
    for chunk in iter_chunks(source, offset):
        found = LINE_END.search(chunk)
        if found is not None:
            end = offset + found.end()
            return end + (found.group() == b"\r" and found.end() == len(chunk) and source.read(end, 1) == b"\n")
        offset += len(chunk)
    return source.size


def row_line_start(source: ContentSource, offset: int) -> bool:
    """Whether ``offset`` starts a line of a rows read: 0, or just after a line end (not between the ``\\r`` and
    the ``\\n`` of a ``\\r\\n``), within the content."""
    if offset == 0:
        return True
    if offset > source.size:
        return False
    around = source.read(offset - 1, 2)
    return around[:1] == b"\n" or (around[:1] == b"\r" and around[1:2] != b"\n")
