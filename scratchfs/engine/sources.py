"""Where a blob's bytes are read from: a :class:`RangeSource` -- a local file (:class:`FileRange`) or an object
store's range requests -- so that the seekable reader never names a file descriptor or a path."""

from __future__ import annotations

import os
from collections.abc import Hashable
from typing import Protocol


class RangeSource(Protocol):
    """A blob's bytes, read by ranges.

    Attributes:
        size: the blob's size, in bytes.
        identity: a hashable value that changes whenever the bytes may have changed (a cache key).
    """

    size: int
    identity: Hashable

    def pread(self, length: int, offset: int) -> bytes:
        """Up to ``length`` bytes from byte ``offset`` (fewer only at the end). Raises ``OSError``."""
        ...


class FileRange:
    """A :class:`RangeSource` over an open file descriptor (stateless ``pread``, so threads may share it); ``size``
    and ``identity`` (``(st_dev, st_ino, st_size, st_mtime_ns)``) come from one ``fstat`` -- ``st``, when the caller
    has just taken it on this very descriptor. The caller closes ``fd``."""

    __slots__ = ("fd", "identity", "size")

    def __init__(self, fd: int, st: os.stat_result | None = None) -> None:
        if st is None:
            st = os.fstat(fd)
        self.fd = fd
        self.size = st.st_size
        self.identity = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)

    def pread(self, length: int, offset: int) -> bytes:
        return os.pread(self.fd, length, offset)


class SliceRange:
    """A :class:`RangeSource` over the bytes ``[base, base + size)`` of an open file descriptor (one blob inside a
    segment file, :mod:`scratchfs.engine.segments`): offsets are relative to ``base`` and no read goes past the
    slice. ``identity`` is ``(st_dev, st_ino, base, size)``: a slice of an append-only segment never changes (its
    binding frame, checked when its seek table is first parsed, names its entry). The caller closes ``fd``."""

    __slots__ = ("base", "fd", "identity", "size")

    def __init__(self, fd: int, base: int, size: int, st: os.stat_result) -> None:
        self.fd = fd
        self.base = base
        self.size = size
        self.identity = (st.st_dev, st.st_ino, base, size)

    def pread(self, length: int, offset: int) -> bytes:
        if offset < 0:
            raise OSError(22, "negative offset in a blob slice")
        if offset >= self.size or length <= 0:
            return b""
        return os.pread(self.fd, min(length, self.size - offset), self.base + offset)


class OwnsFd:
    """Mixin for a :class:`FileRange` or :class:`SliceRange` that owns its descriptor: :meth:`close` closes it."""

    __slots__ = ()
    fd: int

    def close(self) -> None:
        """Close the file descriptor (idempotent)."""
        if self.fd >= 0:
            fd, self.fd = self.fd, -1
            os.close(fd)


def as_source(source: RangeSource | int) -> RangeSource:
    """``source`` itself, or a :class:`FileRange` over it when it is a file descriptor."""
    return FileRange(source) if isinstance(source, int) else source


__all__ = ["FileRange", "OwnsFd", "RangeSource", "SliceRange", "as_source"]
