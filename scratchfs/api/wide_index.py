"""The line index of UTF-16 text (``read_handle(..., encoding="utf-16le"|"utf-16be")``): per frame of its blob, the
count of newline code units (``0a 00`` in UTF-16LE, ``00 0a`` in UTF-16BE) that start in it at an even offset from
the content's start, as ``data.decode("utf-16-le").split("\\n")`` has its lines end. The store's own line index counts
``0a`` bytes (:mod:`scratchfs.engine.lines`), which CJK characters hold (``上`` is ``0a 4e`` in UTF-16LE), so it
cannot serve this text.

:func:`wide_text` counts them at the first UTF-16 line read or search of an entry -- one pass over its frames, at C
speed (:func:`~scratchfs.api.wide_count.newline_units`, as a spill counts them for its stub), keeping 16 bytes a
frame (its offset and the count before it: 128 KiB for 1 GiB of content) -- and keeps them in a bounded in-process
cache (:data:`~scratchfs.foundation.limits.WIDE_INDEX_CACHE_ENTRIES`
entries, at most :data:`~scratchfs.foundation.limits.WIDE_INDEX_CACHE_BYTES` in all) keyed by the entry's identity:
its scope, kind, key and blob token (a new token for each write: a scratchpad key written again is counted again)
and the encoding. Every use first looks the entry up live (:meth:`Entries.open`), so an expired or deleted entry is
refused as such, never served from the cache. A later read then finds the frame that holds line N by bisection and
scans that frame alone (:class:`WideText`).

A frame may start at an odd offset (a store's ``frame_bytes`` may be odd): a code unit straddling two frames is
counted in the frame it starts in, and read with the first byte of the next.

Source: RFC 2781 (UTF-16; a surrogate is 0xD800-0xDFFF, so no half of a pair is the code unit 0x000A).
"""

from __future__ import annotations

import sys
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from itertools import accumulate
from typing import NamedTuple

from scratchfs.api.entries import OpenEntry
from scratchfs.api.wide_count import NEWLINE_UNITS, newline_units
from scratchfs.engine.caches import LRU
from scratchfs.foundation.errors import Changed
from scratchfs.foundation.limits import WIDE_INDEX_CACHE_BYTES, WIDE_INDEX_CACHE_ENTRIES

__all__ = ["WideIndex", "WideText", "wide_index", "wide_text"]


class WideIndex(NamedTuple):
    """The newline code units of one entry's UTF-16 text: ``offsets`` (the ``frames + 1`` content offsets its frames
    start at, the last its size, bytes) and ``before`` (``frames + 1`` counts: the newline code units starting before
    each frame, the last their total), ``blob`` (the token of the blob counted), ``last`` (whether the content's
    last two bytes are a newline code unit at an even offset). Immutable."""

    blob: str
    offsets: array
    before: array
    last: bool


_INDEXES: LRU[tuple, WideIndex] = LRU(WIDE_INDEX_CACHE_ENTRIES, max_weight=WIDE_INDEX_CACHE_BYTES,
                                       weigh=lambda index: 16 * len(index.offsets))


def _unit(encoding: str) -> int:
    """The newline code unit of ``encoding`` as an ``array("H")`` item of this machine's byte order."""
    return 0x000A if (encoding == "utf-16le") == (sys.byteorder == "little") else 0x0A00


def _count(opened: OpenEntry, encoding: str) -> WideIndex:
    """One pass over ``opened``'s frames counting the newline code units starting in each. Raises FormatError (a
    damaged frame) and OSError."""
    table = opened.reader.table
    counts, newline, carry, last = array("Q", [0] * table.frames), NEWLINE_UNITS[encoding], b"", False
    for frame, (_, data) in enumerate(opened.reader.iter_frames(0, ahead=True)):
        chunk = carry + data if carry else data  # (chunk starts at an even offset: carry is the odd byte before it)
        even = len(chunk) // 2 * 2
        here = newline_units(memoryview(chunk)[:even], encoding)
        if carry and chunk[:2] == newline:  # (the unit straddling the frames starts in the one before)
            here -= 1
            counts[frame - 1] += 1
        counts[frame] += here
        carry = chunk[even:]
        last = even > 0 and not carry and chunk[even - 2 : even] == newline
    return WideIndex(opened.entry.blob, array("Q", table.d_offsets), array("Q", accumulate(counts, initial=0)),
                     table.size > 0 and last)


def wide_index(opened: OpenEntry, encoding: str) -> WideIndex:
    """The index of ``opened`` (a live entry, its blob open: :meth:`Entries.open`) as UTF-16 text of ``encoding``
    (``"utf-16le"`` or ``"utf-16be"``): the cached one of that entry's blob, or counted now and cached. Raises
    FormatError (a damaged frame) and OSError, as its reads do."""
    entry = opened.entry
    key = (entry.run_id, entry.agent_id, entry.kind, entry.key, entry.blob, entry.size, encoding)
    index = _INDEXES.get(key)
    if index is None or len(index.offsets) != opened.reader.table.frames + 1:
        index = _count(opened, encoding)
        _INDEXES.put(key, index)
    return index


_BLOCK = 512  # code units counted per C call while looking for a frame's k-th newline


class WideText:
    """The lines of one entry's UTF-16 text through its :class:`WideIndex`, for one call: ``fetch(offset, length)``
    reads its content bytes (the entry looked up again, live); the code units of the last frame looked at are kept
    (and, for :meth:`match_line`, its newlines' offsets), so a search's matches in one frame cost one read of it.

    Args:
        index: the entry's :class:`WideIndex`. encoding: ``"utf-16le"`` or ``"utf-16be"``.
        fetch: ``(offset, length) -> (blob token, bytes)`` of the entry's content.
    """

    def __init__(self, index: WideIndex, encoding: str, fetch: Callable[[int, int], tuple[str, bytes]]) -> None:
        self.index, self.encoding, self._fetch, self._unit = index, encoding, fetch, _unit(encoding)
        self.size = index.offsets[-1]
        self._frame, self._base, self._units, self._starts = -1, 0, array("H"), None

    def _load(self, frame: int) -> array:
        """The code units starting in ``frame`` (the first at :attr:`_base`, even). Raises Changed (the entry was
        written again since its index was counted) and what ``fetch`` raises."""
        if frame != self._frame:
            lo, hi = self.index.offsets[frame], self.index.offsets[frame + 1]
            blob, data = self._fetch(lo, hi - lo + (hi % 2 and hi < self.size))  # (+ a straddling unit's last byte)
            if blob != self.index.blob:
                raise Changed("the entry was written again during this read: read it again")
            skip = lo % 2
            self._units = array("H", data[skip : skip + (len(data) - skip) // 2 * 2])
            self._frame, self._base, self._starts = frame, lo + skip, None
        return self._units

    def newlines_before(self, pos: int) -> int:
        """How many newline code units start before content byte ``pos`` (any integer)."""
        if pos <= 0:
            return 0
        if pos >= self.size - 2:  # (the last frame is not read for the lines of the whole content)
            return self.index.before[-1] - (pos == self.size - 2 and self.index.last)
        frame = bisect_right(self.index.offsets, pos) - 1
        units = self._load(frame)
        return self.index.before[frame] + units[: max(0, (pos - self._base + 1) // 2)].count(self._unit)

    def newline_at(self, k: int) -> int:
        """The content offset of the ``k``-th newline code unit (``1 <= k <=`` their total)."""
        frame = bisect_left(self.index.before, k) - 1
        units, left, at = self._load(frame), k - self.index.before[frame], 0
        while (here := units[at : at + _BLOCK].count(self._unit)) < left and at < len(units):
            left, at = left - here, at + _BLOCK
        at -= 1
        for _ in range(left):
            at = units.index(self._unit, at + 1)
        return self._base + 2 * at

    def match_line(self, offset: int) -> int:
        """The 1-based line holding content byte ``offset`` (< the size), the newlines of its frame found once for
        the many matches a search finds there."""
        if offset >= self.size:
            return self.line_of(offset, self.size)
        frame = bisect_right(self.index.offsets, offset) - 1
        units = self._load(frame)
        if self._starts is None:
            at, starts = -1, array("Q")
            for _ in range(units.count(self._unit)):
                at = units.index(self._unit, at + 1)
                starts.append(self._base + 2 * at)
            self._starts = starts
        return 1 + self.index.before[frame] + bisect_left(self._starts, offset - 1)

    def lines(self, bound: int) -> int:
        """Lines in content bytes ``[0, bound)``: one, plus one after each newline code unit ending before
        ``bound`` (none for ``bound`` 0), as a line read counts them."""
        return self.newlines_before(bound - 2) + 1 if bound > 0 else 0

    def line_start(self, line: int) -> int:
        """The content offset 1-based ``line`` starts at (the caller knows it exists)."""
        return 0 if line <= 1 else self.newline_at(line - 1) + 2

    def line_of(self, offset: int, bound: int) -> int:
        """The 1-based line holding content byte ``offset``, its lines counted in bytes ``[0, bound)``."""
        return 1 + self.newlines_before(min(offset - 1, bound - 2))


def wide_text(opened: OpenEntry, encoding: str, fetch: Callable[[int, int], tuple[str, bytes]]) -> WideText:
    """:class:`WideText` of ``opened`` (``fetch``: its bytes, read again live). Raises as :func:`wide_index`."""
    return WideText(wide_index(opened, encoding), encoding, fetch)
