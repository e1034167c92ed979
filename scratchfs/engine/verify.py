"""Checking one blob against what its index row says: size on disk, seek table, content size, the binding frame
that ties it to its entry, and (deep) every frame decompressed and checksum-verified. Used by fsck; works on any
blob store through its range sources."""

from __future__ import annotations

from collections.abc import Callable

from scratchfs.engine.binding import Binding
from scratchfs.engine.protocols import BlobStore, Entry
from scratchfs.engine.seekable import FormatError, SeekableReader, read_seek_table
from scratchfs.engine.segments import token_of
from scratchfs.foundation.errors import CorruptBlob


def verify_blob(blobs: BlobStore, entry: Entry, deep: bool, progress: Callable[[int], None]) -> str | None:
    """``None`` if the entry's blob is sound and bound to it, else what is wrong.

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
    try:
        if source.size != entry.stored_size:
            return f"the file is {source.size} bytes, the index says {entry.stored_size}"
        try:
            table = read_seek_table(source, source.size)
            if table.size != entry.size:
                return f"the blob holds {table.size} bytes, the index says {entry.size}"
            problem = Binding.of_table(table).mismatch(token_of(entry.blob), entry.run_id, entry.agent_id, entry.kind,
                                                       entry.key)
            if problem:
                return problem
            if deep:
                for _, data in SeekableReader(source, table).iter_frames(ahead=True):
                    progress(len(data))
        except FormatError as exc:
            return str(exc)
        except OSError as exc:
            return f"cannot read: {exc.strerror or exc}"
        return None
    finally:
        source.close()


__all__ = ["verify_blob"]
