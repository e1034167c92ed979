"""Which blobs a PostgreSQL index keeps its entries in: checked each time a fleet store opens.

**Why.** A fleet store is named by two URLs every host is given: the index (``postgresql://``) and the blobs
(``s3://bucket/prefix``, or files under one host's root). A host given the right index and other blobs -- a
forgotten ``$SCRATCHFS_BLOBS``, another prefix, a second schema over the same prefix -- reads every handle as not
found and writes rows no other host can read; worse, its sweep finds no blob for any row and deletes them all, and
a sweep of the other index removes the first one's objects as orphans. Nothing in either URL tells the two apart,
so the store records the pairing on both sides and refuses a store opened with a mismatch, before anything is
written or swept.

**How.** The index holds one row, ``<schema>.store (id, blobs, paired_at)``: a random store id (128 bits, hex) and
the blob location it was paired with (:func:`location_of`: ``s3://bucket/prefix``, whatever endpoint reaches it, or
``files under the root``). The blob location holds a marker with the same id (:data:`MARKER_NAME`: the object
``<prefix>/store-id``, or the file ``<root>/store-id``). On opening (:func:`check_pairing`):

1. an index paired with another location is refused;
2. a marker naming another store id is refused (these blobs belong to another index);
3. with no marker yet, the index pairs (or, already paired, writes its marker again) only if it has no row, or one
   of its newest rows (:data:`PROBE_ROWS`) has its blob here -- an index whose entries are elsewhere is refused:
   the first host to open an existing unpaired store (made before this check) with the wrong blobs cannot claim it.

The index row is written before the marker, and read after it: a marker's row is always seen, and a crash between
the two writes leaves an index that writes its marker at the next opening (rule 3). Two hosts pairing at once insert
the same row (``ON CONFLICT DO NOTHING``, then read back): the one whose location lost is refused by rule 1.
Residual case: a second host with files of its own (a PostgreSQL index with local files on two hosts that share no
file system) that opens while the index is still empty pairs its files too; the README says such a store belongs
to one host, or to hosts that mount one file system.

Errors: every refusal is :class:`~scratchfs.foundation.errors.InvalidArgument` (a setting that names the wrong
blobs: the CLI's exit 2), naming the location the index keeps its blobs at and the fix.
"""

from __future__ import annotations

import os
import secrets
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from scratchfs.engine import safe_fs
from scratchfs.foundation.errors import InvalidArgument, ScratchError, storage_error

__all__ = ["LOCAL_LOCATION", "MARKER_NAME", "PROBE_ROWS", "Gate", "check_pairing", "local_marker", "location_of",
           "s3_marker"]

MARKER_NAME = "store-id"
"""The marker's name: an object ``<prefix>/store-id`` in S3, a file ``<root>/store-id`` for local blobs."""
LOCAL_LOCATION = "files under the root"
"""The location recorded for blobs in files under a host's root."""
PROBE_ROWS = 16
"""Newest rows of an unpaired index whose blobs are looked for in the blob location before pairing them."""

_MARKER_BYTES = 200  # a marker is the id (32 hex digits) and a newline; anything longer is not one


def location_of(blobs_url: str) -> str:
    """The location recorded for a blobs URL: the URL itself for ``s3://`` (endpoints are not part of it), else
    :data:`LOCAL_LOCATION`."""
    return blobs_url.rstrip("/") if blobs_url.startswith("s3://") else LOCAL_LOCATION


def check_pairing(index: Any, location: str, read_marker: Callable[[], str | None],
                  write_marker: Callable[[str], None], blob_exists: Callable[[str, str, str], bool], *,
                  adopt: bool = False, holds_blobs: Callable[[], bool] | None = None) -> None:
    """Check, and record when new, that ``index`` (a :class:`~scratchfs.engine.postgres_index.PostgresIndex`) keeps
    its entries in the blob location ``location`` (see the module docstring).

    Args:
        read_marker: the blob location's store id, or ``None`` when it has no marker.
        write_marker: writes the marker. blob_exists: ``(run_id, agent_id, blob) -> bool`` for a row's blob.
        adopt: for a rebuild of an index lost whole (``fsck --rebuild-index``): an index with no pairing and no row
            takes the store id the blobs' marker names, instead of being refused as another index; one with no
            pairing, no row and no marker takes blobs already there (``holds_blobs``: a local store moved under it).
        holds_blobs: for local files: whether the root holds any blob file. Files there with no marker and an index
            with no pairing and no row are a local (SQLite) store's: refused unless ``adopt``.

    Raises:
        InvalidArgument: the index is paired with another location; the blobs carry another store's marker; the
            index is not paired yet and none of its newest rows has its blob here; or, not adopting, it has no row and
            the local files are another (SQLite) store's.
        StorageError, StoreBusy: the index or the blob store failed.
    """
    marker = read_marker()  # first: a marker is written after its index row, so that row is seen next
    record = _record(index)
    if record is not None and record[1] != location:
        raise _kept_elsewhere(record[1], location)
    if marker is not None:
        if record is None and adopt and not _newest(index):
            record = _claim(index, location, marker)
        if record is None or record[0] != marker:
            lost = " or, if this is the index they were written by and it lost its rows (its schema dropped or " \
                   "emptied), rebuild it from them: scratchfs fsck --rebuild-index with this index" \
                if record is None else ""
            raise InvalidArgument(f"the blobs at {location} belong to another index (their {MARKER_NAME} marker "
                                  "names another store): give each index (each PostgreSQL schema) its own blobs URL;"
                                  f"{lost}".rstrip(";"))
        return
    rows = _newest(index)
    if rows and not _entries_here(rows, blob_exists):
        where = f"at {record[1]}" if record is not None else "elsewhere"
        raise InvalidArgument(f"none of this index's newest entries has its blob in {location}: its blobs are "
                              f"{where}; give the blobs URL the other hosts use ($SCRATCHFS_BLOBS or --blobs)")
    if record is None and not rows and not adopt and holds_blobs is not None and holds_blobs():
        raise InvalidArgument(f"the {location} already hold a local store's blobs (beside its index.sqlite): they "
                              "belong to it, and two indexes over one set of files delete each other's entries as "
                              "orphans; to move that store under this index, run scratchfs fsck --rebuild-index with "
                              "this index and root (the local index is then refused), or give this index another root")
    if record is None:
        record = _claim(index, location)
        if record[1] != location:  # another host paired it with its own location meanwhile
            raise _kept_elsewhere(record[1], location)
    write_marker(record[0])


def _kept_elsewhere(paired: str, location: str) -> InvalidArgument:
    return InvalidArgument(f"this index keeps its blobs at {paired}, not {location}: give every host of the store "
                           "the same blobs URL ($SCRATCHFS_BLOBS or --blobs)")


class Gate:
    """A check that must pass once before a resource is used again: :meth:`wait` runs it, in whichever thread comes
    first (the others wait for it), until it passes; the check's own uses of the resource go through. Thread-safe.
    (The store's pairing, left to an object store's first request when that store could not answer as it opened.)"""

    def __init__(self) -> None:
        self._check: Callable[[], None] | None = None
        self._thread: int | None = None  # the thread running the check
        self._lock = threading.Lock()

    def set(self, check: Callable[[], None]) -> None:
        """Make ``check`` the check to pass."""
        self._check = check

    def wait(self) -> None:
        """Return at once when no check is pending; else run it (raising what it raises: it stays pending)."""
        if self._check is None or self._thread == threading.get_ident():
            return
        with self._lock:
            check = self._check
            if check is None:
                return
            self._thread = threading.get_ident()
            try:
                check()
                self._check = None
            finally:
                self._thread = None


def _record(index: Any) -> tuple[str, str] | None:
    rows = index.read("SELECT id, blobs FROM @S.store", {}, "reading the store's pairing")
    return (rows[0][0], rows[0][1]) if rows else None


def _claim(index: Any, location: str, store_id: str | None = None) -> tuple[str, str]:
    """Insert the pairing (a new store id unless one is given) unless a row is there; return the row there now."""
    with index.transaction("pairing the index with its blobs") as conn:
        conn.execute(index.q("INSERT INTO @S.store (id, blobs, paired_at) VALUES (%s, %s, %s) ON CONFLICT DO NOTHING"),
                     (store_id or secrets.token_hex(16), location, time.time()))
        found = conn.execute(index.q("SELECT id, blobs FROM @S.store")).fetchone()
    return found[0], found[1]


def _newest(index: Any) -> list[tuple[str, str, str]]:
    """``(run_id, agent_id, blob)`` of the index's newest rows (at most :data:`PROBE_ROWS`)."""
    return index.read(f"SELECT run_id, agent_id, blob FROM @E ORDER BY id DESC LIMIT {PROBE_ROWS}", {},
                      "looking for the index's entries in its blobs")


def _entries_here(rows: list[tuple[str, str, str]], blob_exists: Callable[[str, str, str], bool]) -> bool:
    """True if one of the index's newest ``rows`` (:func:`_newest`) has its blob in this blob store."""
    for run_id, agent_id, blob in rows:
        try:
            if blob_exists(run_id, agent_id, blob):
                return True
        except (OSError, ValueError, ScratchError):  # a row this blob store cannot even name: not here
            continue
    return False


def local_marker(root: Path) -> tuple[Callable[[], str | None], Callable[[str], None]]:
    """``(read_marker, write_marker)`` of the file ``<root>/store-id`` (no link followed; 0600; written whole by a
    rename). Their errors: StorageError (the file system refused, or a link or other kind of file is there)."""

    def read() -> str | None:
        fd = _open_root(root)
        try:
            file = safe_fs.open_file(fd, MARKER_NAME, os.O_RDONLY, f"{root}/{MARKER_NAME}")
        except FileNotFoundError:
            return None
        finally:
            os.close(fd)
        try:
            data = os.read(file, _MARKER_BYTES)
        except OSError as exc:
            raise storage_error(exc, "cannot read the store's blob marker") from None
        finally:
            os.close(file)
        return data.decode("ascii", "replace").strip() or None

    def write(store_id: str) -> None:
        fd = _open_root(root)
        tmp = f"{MARKER_NAME}.{secrets.token_hex(4)}.tmp"
        try:
            file = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600,
                           dir_fd=fd)
            try:
                safe_fs.write_all(file, [store_id.encode("ascii") + b"\n"])
            finally:
                os.close(file)
            os.replace(tmp, MARKER_NAME, src_dir_fd=fd, dst_dir_fd=fd)
        except OSError as exc:
            raise storage_error(exc, "cannot write the store's blob marker") from None
        finally:
            os.close(fd)

    return read, write


def s3_marker(blobs: Any) -> tuple[Callable[[], str | None], Callable[[str], None]]:
    """``(read_marker, write_marker)`` of the object ``<prefix>/store-id`` of an
    :class:`~scratchfs.engine.s3_blobs.S3Blobs` (never a blob's key: those are three levels below the prefix).
    Their errors: StorageError (the object store failed)."""
    key = (f"{blobs.prefix}/" if blobs.prefix else "") + MARKER_NAME

    def read() -> str | None:
        try:
            data = blobs.get_range(key, 0, _MARKER_BYTES)
        except FileNotFoundError:
            return None
        return data.decode("ascii", "replace").strip() or None

    def write(store_id: str) -> None:
        from scratchfs.engine.s3_client import client_errors

        try:
            blobs.client().put_object(Bucket=blobs.bucket, Key=key, Body=store_id.encode("ascii") + b"\n")
        except client_errors() as exc:  # one line naming the endpoint and the fix, as every request's failure
            raise blobs.failure(exc, f"writing the store's blob marker {key}") from None

    return read, write


def _open_root(root: Path) -> int:
    try:
        return os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as exc:
        raise storage_error(exc, f"cannot open the store root {root}") from None
