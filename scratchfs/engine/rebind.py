"""Binding a blob file written before the binding frame: its content frames kept byte for byte, a binding frame made
from its index row and a new seek table written after them, the file replaced atomically.

The first scratchfs (commit 407dd2b, ``fixtures/store-407dd2b``) wrote blobs without a binding frame
(:mod:`scratchfs.engine.binding`), which this version refuses on every read (:class:`UnboundBlob`). Only the index
row can say what such a blob belongs to, so it is bound from its row, and only when the blob verifies completely
against that row: its file size, seek table, content size and frame count equal the row's, and every frame
decompresses and matches its checksums. Then it verifies like any new blob. A blob that fails any check is not
touched (:class:`FormatError`).

The new file is written beside the old one (``<token>.binding``, 0600, a name no blob, segment or sweep ever takes;
one left by a killed binder is replaced by the next bind of that blob), fsynced, checked again (its seek table and
binding parse and every frame verifies), and renamed over the blob's name while the caller's lock keeps deletes and
overwrites away and the caller confirms that the row still names the blob; then the caller writes the new file size
into the row (:func:`bind_file`). Should the process die between the rename and the row, the blob is bound but its
row gives the old size: a check tells it apart from a damaged blob (:func:`bound_to`) and the next bind updates the
row. No link is followed
and only a regular file is opened (:mod:`scratchfs.engine.safe_fs`); a reader that has the old file open reads the
same content from it, and caches keyed by the file's identity read the new one afresh. Local files only: an object
store's blobs are never bound (no store of 407dd2b used one).
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Callable
from contextlib import AbstractContextManager

from scratchfs.engine import safe_fs
from scratchfs.engine.binding import EMPTY_CHECKSUM, Binding, FormatError, binding_payload, encode_binding_frame
from scratchfs.engine.binding import table_digest as digest_of
from scratchfs.engine.local_blobs import BLOB_SUFFIX
from scratchfs.engine.protocols import Entry
from scratchfs.engine.seek_table import SeekTable, encode_seek_table, read_seek_table
from scratchfs.engine.seekable import SeekableReader
from scratchfs.engine.segments import is_location
from scratchfs.foundation.errors import CorruptBlob, ScratchError, StorageError, storage_error

__all__ = ["TEMP_SUFFIX", "bind_file", "bound_to"]

TEMP_SUFFIX = ".binding"
"""Suffix of the file a bind writes beside the blob before renaming it over the blob's name."""
_COPY_BYTES = 1024 * 1024


def bind_file(blobs, entry: Entry, locked: Callable[[], AbstractContextManager[object]],
              named: Callable[[], bool], commit: Callable[[int], None]) -> bool:
    """Bind the local blob file of ``entry`` (its index row), which carries no binding frame (see the module
    docstring); or, for a blob bound to this entry whose row still gives its size from before (a bind interrupted
    between the rename and the row), update the row.

    Args:
        blobs: a local blob store (:class:`scratchfs.engine.local_blobs.Blobs`).
        entry: the row naming the blob; the binding is made from its scope, kind, key, source tool, TTL and
            creation time.
        locked: a lock that keeps deletes and overwrites away, held while the file is renamed and the row updated.
        named: called under ``locked``: True if the row still names the blob.
        commit: called under ``locked`` after the rename, with the bound file's size in bytes: write it into the
            row (``stored_size``).

    Returns:
        True once bound (or already bound to this entry), False when the row no longer names the blob (nothing was
        changed).

    Raises:
        FormatError: the blob fails a check (it is left as it is). FileNotFoundError: it is gone.
        CorruptBlob: something other than a regular file is at its name. StorageError: not a local store, a
        segment entry, another process binding it, or the file system failed (nothing changed); and what
        ``locked``, ``named`` and ``commit`` raise.
    """
    if is_location(entry.blob) or not hasattr(blobs, "root_fd"):
        raise StorageError("only a blob file of a local store is bound (not a segment entry, not an object)")
    parts = ("runs", *blobs.segment_dir(entry.run_id, entry.agent_id))
    name, where = entry.blob + BLOB_SUFFIX, "/".join((*parts, entry.blob + BLOB_SUFFIX))
    dir_fd = safe_fs.walk(blobs.root_fd, parts)
    try:
        fd, st = safe_fs.open_file_stat(dir_fd, name, os.O_RDONLY, where, CorruptBlob)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # one binder at a time (and never a writer's file)
            except BlockingIOError:
                raise StorageError(f"{where} is locked by another process: run the repair again later") from None
            table = _checked(fd, st.st_size, entry)
            if table.binding is not None and st.st_size == entry.stored_size:
                return True  # bound, its row up to date: nothing to do
            if table.binding is not None:  # bound before, its row not updated: only the row is
                return _swap(dir_fd, name, st, None, locked, named, commit)
            size = _write_bound(fd, dir_fd, name, table, entry)
            try:
                return _swap(dir_fd, name, st, size, locked, named, commit)
            finally:
                safe_fs.unlink_quietly(dir_fd, name + TEMP_SUFFIX)  # (gone once renamed)
        finally:
            os.close(fd)
    except OSError as exc:
        if isinstance(exc, (FileNotFoundError, ScratchError)):
            raise
        raise storage_error(exc, f"cannot bind {where}") from exc
    finally:
        os.close(dir_fd)


def _swap(dir_fd: int, name: str, st: os.stat_result, size: int | None,
          locked: Callable[[], AbstractContextManager[object]], named: Callable[[], bool],
          commit: Callable[[int], None]) -> bool:
    """Under ``locked``, if the row still names the blob and ``st`` is still the file at ``name``: rename the bound
    copy over it (``size``: its size; ``None``: none, the file is bound already) and ``commit`` the file's size."""
    with locked():
        here = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        if not named() or (here.st_dev, here.st_ino) != (st.st_dev, st.st_ino):
            return False  # deleted or overwritten since it was checked: nothing to bind
        if size is not None:
            os.rename(name + TEMP_SUFFIX, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            os.fsync(dir_fd)
        commit(st.st_size if size is None else size)
    return True


def bound_to(table: SeekTable, entry: Entry) -> bool:
    """True if ``table`` (of the blob of ``entry``) carries a binding frame naming the entry and matching its
    frames, and holds the row's content size and frame count: a blob :func:`bind_file` bound (its file size
    aside). Never raises."""
    try:
        binding = Binding.of_table(table) if table.binding is not None else None
    except FormatError:
        return False
    return (binding is not None and (table.size, table.frames) == (entry.size, entry.frames)
            and binding.mismatch(entry.blob, entry.run_id, entry.agent_id, entry.kind, entry.key) is None)


def _checked(fd: int, size: int, entry: Entry) -> SeekTable:
    """The seek table of the blob ``fd`` after every check against its row; a blob bound to the entry
    (:func:`bound_to`) may differ in file size from the row (a bind interrupted before its row was updated).
    Raises FormatError."""
    table = read_seek_table(fd, size)
    if table.binding is not None and not bound_to(table, entry):
        Binding.of_table(table)  # raises what is wrong with it, if anything is
        raise FormatError("the blob is bound to another entry, or holds another size than its row says")
    if table.binding is None and size != entry.stored_size:
        raise FormatError(f"the file is {size} bytes, the index says {entry.stored_size}")
    if (table.size, table.frames) != (entry.size, entry.frames):
        raise FormatError(f"the blob holds {table.size} bytes in {table.frames} frames, the index says {entry.size} "
                          f"bytes in {entry.frames}")
    for _ in SeekableReader(fd, table).iter_frames():  # each frame against its header and both checksums
        pass
    return table


def _write_bound(fd: int, dir_fd: int, name: str, table: SeekTable, entry: Entry) -> int:
    """Write ``name`` + :data:`TEMP_SUFFIX`: the content frames of ``fd``, the binding frame of ``entry`` and the
    seek table listing both; fsync it and check it as a reader will; return its size in bytes. Removed again on any
    failure."""
    c, d = table.c_offsets, table.d_offsets
    compressed = [c[i + 1] - c[i] for i in range(table.frames)]
    decompressed = [d[i + 1] - d[i] for i in range(table.frames)]
    checksums = list(table.checksums)
    payload = binding_payload(entry.blob, entry.run_id, entry.agent_id, entry.kind, entry.key, entry.source_tool,
                              entry.ttl, entry.created_at, table.size, table.frames,
                              digest_of(compressed, decompressed, checksums))
    frame = encode_binding_frame(payload)
    tail = frame + encode_seek_table([*compressed, len(frame)], [*decompressed, 0], [*checksums, EMPTY_CHECKSUM])
    temp = name + TEMP_SUFFIX
    safe_fs.unlink_quietly(dir_fd, temp)  # one a killed binder left
    out = safe_fs.open_file(dir_fd, temp, os.O_RDWR | os.O_CREAT | os.O_EXCL, temp)
    try:
        offset = 0
        while offset < c[-1]:
            chunk = os.pread(fd, min(_COPY_BYTES, c[-1] - offset), offset)
            if not chunk:
                raise FormatError("the blob became shorter while it was copied")
            safe_fs.write_all(out, [chunk])
            offset += len(chunk)
        safe_fs.write_all(out, [tail])
        os.fsync(out)
        written = read_seek_table(out, offset + len(tail))
        if Binding.of_table(written).mismatch(entry.blob, entry.run_id, entry.agent_id, entry.kind, entry.key):
            raise FormatError("the bound copy does not name its entry")  # pragma: no cover - made from the row
        for _ in SeekableReader(out, written).iter_frames():
            pass
        return offset + len(tail)
    except BaseException:
        safe_fs.unlink_quietly(dir_fd, temp)
        raise
    finally:
        os.close(out)

