"""One bounded, thread-safe LRU map for every in-memory cache of the engine (parsed seek tables, line tables, small
decompressed values), bounded by entry count and, optionally, by total weight (bytes); and :class:`SeenFiles`, the
files a checked walk found, re-checked with one ``lstat`` each.

**Fork.** A child of ``fork()`` holds a replica of the forking thread only, with every lock as it was (POSIX
``fork()``): an LRU's lock that another thread of the parent held -- in the middle of a ``get`` or ``put`` -- stayed
held in the child for ever, and the child's first look in that cache (a zip member's tail read, a CSV search's
rows) hung (hostile38: 40 of 40 children forked while 3 threads used one cache). Each LRU's lock is made anew in a
child and its weight counted again (a ``put`` may have been cut between its steps), by the one fork mechanism
(:func:`scratchfs.foundation.forks.renewed_in_child`, the count its ``then`` hook).
"""

from __future__ import annotations

import os
import stat
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from scratchfs.foundation import forks

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class LRU(Generic[K, V]):
    """A least-recently-used map.

    Args:
        max_entries: most entries kept.
        max_weight: most total weight kept (``None``: no bound), with ``weigh(value)`` the weight of a value (bytes).
        max_item_weight: values heavier than this are not kept at all.

    Safe to share between threads; values must be immutable (they are handed out as they are).
    """

    def __init__(self, max_entries: int, *, max_weight: int | None = None, weigh: Callable[[V], int] | None = None,
                 max_item_weight: int | None = None) -> None:
        self._items: OrderedDict[K, V] = OrderedDict()
        self._max_entries = max_entries
        self._max_weight = max_weight
        self._weigh = weigh or (lambda value: 0)
        self._max_item_weight = max_item_weight
        self._weight = 0
        self._lock = forks.renewed_in_child(self, "_lock", threading.Lock, then=LRU.recount)  # (a fork() child)

    def get(self, key: K) -> V | None:
        """The value of ``key`` (now the most recently used), or ``None``."""
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def put(self, key: K, value: V) -> None:
        """Keep ``value`` under ``key`` (unless it is heavier than ``max_item_weight``), dropping the least recently
        used entries beyond the bounds."""
        weight = self._weigh(value)
        if self._max_item_weight is not None and weight > self._max_item_weight:
            return
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._weight -= self._weigh(old)
            self._items[key] = value
            self._weight += weight
            self._trim()

    def _trim(self) -> None:
        """Drop the least recently used entries beyond the bounds (holding the lock)."""
        while len(self._items) > self._max_entries or (
                self._max_weight is not None and self._weight > self._max_weight):
            _, dropped = self._items.popitem(last=False)
            self._weight -= self._weigh(dropped)

    def recount(self) -> None:
        """Count the weight again from the values kept and drop what is beyond the bounds: a fork() child's (its
        lock just made anew), whose parent thread may have cut a ``put`` between its steps."""
        with self._lock:
            self._weight = sum(self._weigh(value) for value in self._items.values())
            self._trim()

    def __len__(self) -> int:
        return len(self._items)


class SeenFiles:
    """Regular files found by a checked way (every directory on it a real one, no link followed), by key: each is
    re-checked with one ``lstat`` of its path (relative to a directory descriptor), taken as the same file only if
    its inode, device and ``ctime`` (which any change of the file, or of what is at its name, moves) are unchanged.
    Holds at most ``max_entries`` (then starts again empty); thread-safe (single dict operations)."""

    def __init__(self, max_entries: int) -> None:
        self._files: dict[Hashable, tuple[str, tuple[int, int, int]]] = {}
        self._max_entries = max_entries

    def check(self, dir_fd: int, key: Hashable) -> os.stat_result | None:
        """The ``lstat`` of the file noted under ``key`` if it is still that file at its path, else ``None``
        (nothing noted, gone, replaced, changed, or the lookup failed: the caller takes the checked way)."""
        seen = self._files.get(key)
        if seen is None:
            return None
        try:
            found = os.stat(seen[0], dir_fd=dir_fd, follow_symlinks=False)
        except OSError:
            found = None
        if found is None or (found.st_ino, found.st_dev, found.st_ctime_ns) != seen[1]:
            self._files.pop(key, None)
            return None
        return found

    def note(self, key: Hashable, path: str, found: os.stat_result) -> None:
        """Remember that the checked way found ``found`` (an ``lstat`` result) at ``path``; not a regular file:
        nothing is noted."""
        if len(self._files) >= self._max_entries:
            self._files.clear()
        if stat.S_ISREG(found.st_mode):
            self._files[key] = (path, (found.st_ino, found.st_dev, found.st_ctime_ns))


__all__ = ["LRU", "SeenFiles"]
