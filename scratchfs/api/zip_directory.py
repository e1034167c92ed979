"""A zip's central directory as a read of a member's last lines bounded at ``end=`` alone needs it
(:func:`~scratchfs.api.bounds.member_start`): its members' local header offsets in order, with their stored bytes and
their central headers' offsets, kept per entry, so that the next such read of the same zip does not walk the
directory again (0.49 s a read on a 60,000-member zip, 0.9 ms once kept: ``python bench/zip_tail_reads.py``).

The cache is keyed by the entry's identity (:func:`~scratchfs.api.structure_entry.entry_identity`: its handle and
its blob token, 120 random bits no other entry has), so a directory kept is only ever served for the bytes it was
read from: an entry that goes (deleted, expired) is refused by the read of its first bytes before the cache is asked,
and a new entry has a new token. Memory is bounded: 24 bytes a member (three arrays of 64-bit integers, no names:
a name is read from its central header when a refusal names it), at most :data:`ZIP_DIRECTORY_CACHE_BYTES` in all --
a 65,536-member zip (the most :func:`~scratchfs.api.bounds.member_start` looks up) keeps 1.5 MiB; a directory
heavier than that bound is walked afresh each time, never kept. A directory of more members than the caller looks up
is kept as that alone (:attr:`ZipDirectory.more`, no arrays), walked once.
"""

from __future__ import annotations

import bisect
from array import array
from collections.abc import Callable
from typing import NamedTuple

from scratchfs.api.archive import zip_entries, zip_member_name
from scratchfs.engine.caches import LRU

__all__ = ["ZIP_DIRECTORY_CACHE_BYTES", "ZipDirectory", "zip_directory"]

ZIP_DIRECTORY_CACHE_BYTES = 8 * 1024 * 1024
"""Most bytes the zip directories kept take in all (24 a member)."""
_DIRECTORY_ENTRIES = 16  # zips kept at most


class ZipDirectory(NamedTuple):
    """A zip's members by the offset of their local headers (ascending; members with no stored bytes or no local
    header offset left out), as :func:`~scratchfs.api.archive.zip_entries` read them. Never changed once made.

    Attributes:
        locals: each member's local header offset (bytes), ascending.
        lengths: its stored bytes, in the same order.
        centrals: its central header's offset (bytes), whence :meth:`name` reads its name.
        cd_start, cd_end: where the central directory starts and ends (bytes).
        more: the directory names more members than the ``most`` it was read with (the arrays then empty).
    """

    locals: array
    lengths: array
    centrals: array
    cd_start: int
    cd_end: int
    more: bool = False

    def before(self, end: int) -> int:
        """The index of the last member whose local header starts before byte ``end`` (-1: none)."""
        return bisect.bisect_left(self.locals, end) - 1

    def name(self, read: Callable[[int, int], bytes], index: int) -> str:
        """The name of member ``index``, read from its central header (``read(offset, length)``: the zip's bytes)."""
        return zip_member_name(read, self.centrals[index], self.cd_end)

    def weight(self) -> int:
        """Bytes its arrays take."""
        return 24 * len(self.locals)


_DIRECTORIES: LRU[str, ZipDirectory] = LRU(_DIRECTORY_ENTRIES, max_weight=ZIP_DIRECTORY_CACHE_BYTES,
                                           weigh=ZipDirectory.weight, max_item_weight=ZIP_DIRECTORY_CACHE_BYTES)


def zip_directory(read: Callable[[int, int], bytes], size: int, key: str | None = None,
                  most: int | None = None) -> ZipDirectory | None:
    """The directory of the zip of ``size`` bytes that ``read(offset, length)`` reads (:class:`ZipDirectory`), kept
    under ``key`` (the entry's identity; ``None``: read afresh, not kept) and served from there while it is kept;
    ``None`` when the zip has no central directory (cut short). Past ``most`` central headers (``None``: no bound)
    the walk stops: the directory says only ``more``. Raises what ``read`` raises."""
    if key is not None:
        key = f"{key} {most}"  # (what a walk bounded by ``most`` found)
    found = _DIRECTORIES.get(key) if key is not None else None
    if found is not None:
        return found
    entries = zip_entries(read, size, most)
    if entries is None:
        return None
    members, cd_start, cd_end = entries
    if most is not None and len(members) > most:
        found = ZipDirectory(array("q"), array("Q"), array("q"), cd_start, cd_end, more=True)
        if key is not None:
            _DIRECTORIES.put(key, found)
        return found
    # (a member with no data holds no byte, and one whose local header lies past the end has none there)
    members = sorted(member for member in members if 0 <= member[0] < size and member[1])
    found = ZipDirectory(array("q", (local for local, _, _ in members)), array("Q", (n for _, n, _ in members)),
                         array("q", (central for _, _, central in members)), cd_start, cd_end)
    if key is not None:
        _DIRECTORIES.put(key, found)
    return found
