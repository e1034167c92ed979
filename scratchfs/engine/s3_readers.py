"""The objects of an S3 blob store (:mod:`scratchfs.engine.s3_blobs`) that readers of this process hold open, and the
deletions that wait for them: an object, unlike a file, is gone for its readers the moment it is deleted, so a whole
read (``iter_content``, a download) of a scratchpad value overwritten or deleted meanwhile, or of an entry whose run
was deleted, failed half-way with ``StorageError``; on local files the unlinked file stays readable until closed.
Here the deletion of an object this process is reading waits until its last reader closes it -- as an unlinked file
waits for its last descriptor. A process that ends first leaves the object without a row: an orphan, which the sweep
removes. (A reader on another host is not known here: its read may still fail, as the README says.)

**Fork.** The counts are this process's: a ``fork()`` child starts with none held and none waiting
(:func:`scratchfs.foundation.forks.renewed_in_child`). A child that inherited them deferred the deletion of an object
a parent thread was reading at the fork until a sweep (the parent's reader is in another process now, as a reader on
another host is), and a child's close of a source it inherited did not count.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING

from scratchfs.foundation import forks

if TYPE_CHECKING:
    from scratchfs.engine.s3_blobs import S3Blobs

__all__ = ["HeldKeys", "S3Source"]


class HeldKeys:
    """Counts of this process's open readers by object key, and the keys whose deletion waits for them (a fork child
    starts with none). Thread-safe."""

    def __init__(self) -> None:
        self._lock = forks.renewed_in_child(self, "_lock", threading.Lock)
        self._readers: dict[str, int] = forks.renewed_in_child(self, "_readers", dict)
        self._waiting: set[str] = forks.renewed_in_child(self, "_waiting", set)

    def hold(self, key: str) -> None:
        """A reader opened ``key``."""
        with self._lock:
            self._readers[key] = self._readers.get(key, 0) + 1

    def release(self, key: str) -> bool:
        """A reader of ``key`` closed it; True when it was the last and the key's deletion waited for it (the caller
        deletes it now)."""
        with self._lock:
            left = self._readers.get(key, 0) - 1
            if left > 0:
                self._readers[key] = left
                return False
            self._readers.pop(key, None)
            if key in self._waiting:
                self._waiting.discard(key)
                return True
            return False

    def defer(self, keys: Iterable[str]) -> list[str]:
        """Of ``keys`` to delete, those no reader holds (to delete now), in order; the others wait for their last
        reader (:meth:`release`)."""
        with self._lock:
            now = []
            for key in keys:
                if key in self._readers:
                    self._waiting.add(key)
                else:
                    now.append(key)
            return now


class S3Source:
    """An open blob in the object store: a range source (``pread(length, offset)``, ``size``, ``identity``), made by
    :meth:`S3Blobs.open_source <scratchfs.engine.s3_blobs.S3Blobs.open_source>`, which fetched the object's last
    :data:`~scratchfs.engine.s3_blobs.TAIL_BYTES` (the whole object when smaller); reads inside them cost no request,
    others one range ``GET`` each. Thread-safe (the client is). ``requests`` counts the requests made. Held open (its
    key in ``blobs.held``) from creation until :meth:`close`."""

    __slots__ = ("_blobs", "_held", "_tail", "_tail_start", "identity", "key", "requests", "size")

    def __init__(self, blobs: S3Blobs, key: str, size: int, etag: str, tail: bytes, requests: int = 1) -> None:
        self._blobs = blobs
        self.key = key
        self.size = size
        self.identity = ("s3", key, size, etag)
        self._tail = tail
        self._tail_start = size - len(tail)
        self.requests = requests
        self._held = True
        blobs.held.hold(key)  # its deletion waits for close

    def pread(self, length: int, offset: int) -> bytes:
        """Up to ``length`` bytes from byte ``offset`` (fewer only at the end). Raises StorageError (an OSError)."""
        end = min(offset + length, self.size)
        if offset >= end:
            return b""
        if offset >= self._tail_start:
            return self._tail[offset - self._tail_start : end - self._tail_start]
        self.requests += 1
        return self._blobs.get_range(self.key, offset, end)

    def close(self) -> None:
        """Let go of the object: a deletion that waited for its last reader happens now. Idempotent."""
        self._tail = b""
        if self._held:
            self._held = False
            if self._blobs.held.release(self.key) and self._blobs.still_owned():
                self._blobs.delete_keys([self.key])
