"""Checking one blob against what its index row says: size on disk, seek table, content size, the binding frame
that ties it to its entry, and (deep) every frame decompressed and checksum-verified. Used by fsck; works on any
blob store through its range sources."""

from __future__ import annotations

from collections.abc import Callable

from scratchfs.engine.binding import BOUND_STALE, Binding, UnboundBlob
from scratchfs.engine.protocols import BlobSource, BlobStore, Entry
from scratchfs.engine.rebind import bound_to
from scratchfs.engine.seekable import FormatError, SeekableReader, read_seek_table
from scratchfs.engine.segments import token_of
from scratchfs.foundation.errors import CorruptBlob


def verify_blob(blobs: BlobStore, entry: Entry, deep: bool, progress: Callable[[int], None]) -> str | None:
    """``None`` if the entry's blob is sound and bound to it, else what is wrong: :data:`~scratchfs.engine.binding.
    UNBOUND` for a blob without a binding frame that passes every other check (its frames too, when ``deep``), which
    ``fsck --repair`` binds (:mod:`scratchfs.engine.rebind`); :data:`~scratchfs.engine.binding.BOUND_STALE` for one
    bound so whose row was not updated (its frames not checked here: the repair does).

    Args:
        blobs: the blob store.
        entry: the index row.
        deep: decompress and verify every frame (else the seek table, sizes and binding only).
        progress: called with the content bytes of each frame verified.

    Raises:
        FileNotFoundError: the blob is gone. StorageError: the blob store failed on the way to it (a directory on
            the way is a link, say): nothing was followed or touched.
    """
    try:
        source = blobs.open_source(entry.run_id, entry.agent_id, entry.blob)
    except CorruptBlob as exc:  # a link, FIFO or directory at the blob's name: reported, never followed
        return str(exc)
    unbound = None
    try:
        if source.size != entry.stored_size:
            return BOUND_STALE if _bound(source, entry) else f"the file is {source.size} bytes, the index says " \
                f"{entry.stored_size}"
        try:
            table = read_seek_table(source, source.size)
            if table.size != entry.size:
                return f"the blob holds {table.size} bytes, the index says {entry.size}"
            try:
                problem = Binding.of_table(table).mismatch(token_of(entry.blob), entry.run_id, entry.agent_id,
                                                           entry.kind, entry.key)
            except UnboundBlob as exc:  # written before the binding frame: its frames checked all the same
                problem, unbound = None, str(exc)
            if problem:
                return problem
            if deep:
                for _, data in SeekableReader(source, table).iter_frames(ahead=True):
                    progress(len(data))
            return unbound
        except FormatError as exc:
            return str(exc)
        except OSError as exc:
            return f"cannot read: {exc.strerror or exc}"
    finally:
        source.close()


def _bound(source: BlobSource, entry: Entry) -> bool:
    """True if the blob of ``source`` is bound to ``entry`` (:func:`~scratchfs.engine.rebind.bound_to`): a bind
    interrupted before its row was updated."""
    try:
        return bound_to(read_seek_table(source, source.size), entry)
    except (FormatError, OSError):
        return False


__all__ = ["verify_blob"]
