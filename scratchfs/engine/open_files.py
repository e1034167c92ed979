"""Blob files kept open for reading: a small LRU of file descriptors, so that reading a blob read a moment ago costs
one ``lstat`` and one ``dup`` instead of a directory check, an ``open``, an ``fstat`` and a ``close`` (``bench/run.py``
T3, issue 16).

Why a kept descriptor reads the right bytes: a blob's bytes never change once written (a token names one write; a
segment slice is appended once and never rewritten), so a descriptor opened earlier reads what a new ``open`` of the
same name would -- as long as that very file is still at its name. So a kept descriptor is handed out only while one
``lstat`` of its path below the root finds the same file there (:func:`~scratchfs.engine.safe_fs.is_at`'s rule, the
one the directory cache follows): a file removed, replaced or moved away since (a delete, a sweep, a segment
compaction, a hand) is dropped and opened afresh, which then finds it gone or refuses what is there. The descriptors
were opened by the caller's safe open (no link followed, regular files only).

Each caller gets its own ``dup`` of the kept descriptor, so that evicting or closing an entry never closes a
descriptor another thread is reading from (a closed number reused by another file would read wrong bytes). In a
``fork()`` child the inherited descriptors are closed and forgotten on first use.
"""

from __future__ import annotations

import os
import stat
import threading
from collections import OrderedDict

from scratchfs.foundation import forks

Key = tuple[tuple[str, ...], str]
"""A file's directory below the root (its parts) and its name."""


class OpenFiles:
    """At most ``max_entries`` descriptors of files below the directory ``root_fd``, least recently used evicted
    first (0: none are kept).

    All methods are thread-safe and never raise: a failure to keep or hand out a descriptor only means the caller
    opens the file itself.
    """

    __slots__ = ("_files", "_generation", "_lock", "_max", "_root")

    def __init__(self, root_fd: int, max_entries: int) -> None:
        self._root = root_fd
        self._max = max_entries
        self._files: OrderedDict[Key, tuple[int, tuple[int, int]]] = OrderedDict()  # key: (fd, (st_dev, st_ino))
        self._lock = threading.Lock()
        self._generation = forks.generation

    def _locked(self) -> threading.Lock:
        if self._generation != forks.generation:  # a fork() child: the descriptors are its copies, the lock fresh
            self._lock, self._generation = threading.Lock(), forks.generation
            files, self._files = self._files, OrderedDict()
            for fd, _ in files.values():
                _close_quietly(fd)
        return self._lock

    def open(self, key: Key) -> tuple[int, os.stat_result] | None:
        """A new descriptor of the file kept under ``key`` (the caller closes it) and its ``lstat``; ``None`` when
        none is kept, or the file at the key's path is no longer the one kept (it is then dropped)."""
        with self._locked():
            kept = self._files.get(key)
            if kept is None:
                return None
            fd, ident = kept
            try:
                st = os.stat("/".join((*key[0], key[1])), dir_fd=self._root, follow_symlinks=False)
                if (st.st_dev, st.st_ino) != ident or not stat.S_ISREG(st.st_mode):
                    raise FileNotFoundError(key[1])
                mine = os.dup(fd)
            except OSError:
                del self._files[key]
                _close_quietly(fd)
                return None
            self._files.move_to_end(key)
            return mine, st

    def keep(self, key: Key, fd: int) -> None:
        """Keep a ``dup`` of ``fd``, a descriptor of the regular file ``key`` the caller opened safely and checked
        (the caller's ``fd`` stays the caller's)."""
        if self._max <= 0:
            return
        with self._locked():
            if key in self._files:
                return
            try:
                st = os.fstat(fd)
                self._files[key] = (os.dup(fd), (st.st_dev, st.st_ino))
            except OSError:
                return
            while len(self._files) > self._max:
                _close_quietly(self._files.popitem(last=False)[1][0])

    def forget(self, parts: tuple[str, ...], name: str | None = None) -> None:
        """Close the descriptor kept for ``name`` in ``parts``, or (``name=None``) of every file in ``parts`` and the
        directories below it: after this process removed them, so that their space is freed now."""
        with self._locked():
            gone = [key for key in self._files
                    if (key == (parts, name) if name is not None else key[0][: len(parts)] == parts)]
            for key in gone:
                _close_quietly(self._files.pop(key)[0])

    def close(self) -> None:
        """Close every kept descriptor (idempotent; the cache stays usable)."""
        with self._locked():
            files, self._files = self._files, OrderedDict()
        for fd, _ in files.values():
            _close_quietly(fd)


def _close_quietly(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass


__all__ = ["Key", "OpenFiles"]
