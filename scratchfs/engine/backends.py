"""One way to open any store: an index URL and a blobs URL become the two backends (and the sweep that fits them).

=====================================  ==============================================================================
index                                  blobs
=====================================  ==============================================================================
unset (``None``, ``""``, ``sqlite``)   unset (``None``, ``""``, ``file``): the embedded default, a SQLite file and
                                       per-run directories under the store's root (one host)
``postgresql://user@host:5432/db``     unset: blob files under the root (one host, or a file system every host
                                       mounts)
``postgresql://…``                     ``s3://bucket/prefix``: a fleet (any number of hosts)
=====================================  ==============================================================================

The PostgreSQL URL is a libpq URL (``postgres://`` too); two query parameters are scratchfs's own and are taken out
before it reaches libpq: ``schema`` (the schema of the tables, ``scratchfs`` by default) and ``runs_table`` (e.g.
``runs_table=runs(id)``: the platform cascade, see :mod:`scratchfs.engine.postgres_index`). S3 credentials and
endpoint come from the standard AWS environment (see :mod:`scratchfs.engine.s3_blobs`). A URL is never put in an
error message or a log line whole (it may hold a password). S3 blobs need the PostgreSQL index: the delete lock and
the sweep lock that every host shares are PostgreSQL advisory locks.

The URLs are read by :mod:`scratchfs.engine.backend_urls` (:func:`describe_url`, :func:`split_postgres_url`,
:func:`local_index` and :func:`local_blobs` are importable from here too: the layers above import this module alone).
``ScratchStore(index=…, blobs=…)`` passes its arguments here; unset, ``$SCRATCHFS_INDEX`` and ``$SCRATCHFS_BLOBS``
are read (so the CLI and the MCP server take them from the environment). The API layer holds what
:func:`open_backends` returns through the protocols of :mod:`scratchfs.engine.protocols`, so it never names SQLite,
PostgreSQL, a path or a bucket.
"""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from scratchfs.engine import pool_log
from scratchfs.engine.backend_urls import (
    check_urls,
    describe_url,
    local_blobs,
    local_index,
    split_postgres_url,
)
from scratchfs.engine.journal import Journal
from scratchfs.engine.local_blobs import Blobs
from scratchfs.engine.pairing import (
    MARKER_NAME,
    OwnerCheck,
    check_pairing,
    local_marker,
    location_of,
    owner_reader,
    s3_marker,
)
from scratchfs.engine.protocols import BlobFile, BlobStore, IndexBackend
from scratchfs.engine.root import prepare_root
from scratchfs.engine.segment_sweep import known_locations
from scratchfs.engine.segments import file_path
from scratchfs.engine.sqlite_errors import DAMAGED_CODES
from scratchfs.engine.sqlite_index import Index
from scratchfs.engine.sweeper import SweepResult, check_orphan, sweep
from scratchfs.engine.write_behind import WriteBehind
from scratchfs.foundation.errors import InvalidArgument, StorageError, StoreBusy
from scratchfs.foundation.limits import FRAME_BYTES, SEGMENT_ENTRY_BYTES, ZSTD_LEVEL

__all__ = [
    "ENV_BLOBS",
    "ENV_INDEX",
    "SQLITE_PATH_BYTES",
    "adopt_pairing",
    "blob_age",
    "check_index_path",
    "create_empty_index",
    "describe_url",
    "file_path",
    "find_orphan",
    "local_blobs",
    "local_index",
    "migrate_index",
    "missing_index",
    "open_backends",
    "split_postgres_url",
    "sweep_backends",
    "write_behind",
]

ENV_INDEX = "SCRATCHFS_INDEX"
"""Environment variable naming the index URL when none is given."""
ENV_BLOBS = "SCRATCHFS_BLOBS"
"""Environment variable naming the blobs URL when none is given."""
SQLITE_PATH_BYTES = 504
"""The longest path of a database file SQLite's unix VFS opens: its ``MAX_PATHNAME``, 512 bytes, less the 8 of the
``-journal`` suffix it makes room for (a 505-byte path is SQLITE_CANTOPEN, 'unable to open database file')."""


def check_index_path(root: Path) -> None:
    """Refuse a root whose ``index.sqlite`` path (links resolved, as SQLite resolves them) is too long for SQLite to
    open, before anything is made there: it was the index's 'unable to open database file (SQLITE_CANTOPEN)', exit
    4, after the root and its directories were made (atk28). Raises InvalidArgument naming the limit."""
    size = len(os.fsencode(os.path.join(os.path.realpath(root), "index.sqlite")))
    if size > SQLITE_PATH_BYTES:
        raise InvalidArgument(
            f"the store root {root} is too long a path for SQLite: its index.sqlite would be {size} bytes (links "
            f"resolved), and SQLite opens none over {SQLITE_PATH_BYTES}; choose a root of at most "
            f"{SQLITE_PATH_BYTES - len('/index.sqlite')} bytes")


def open_backends(root: Path, index_url: str | None = None, blobs_url: str | None = None, *, busy_timeout: float,
                  durable: bool, frame_bytes: int, level: int, database_clock: bool = False,
                  segment_entry_bytes: int = SEGMENT_ENTRY_BYTES, adopt: bool = False, lost: bool = False
                  ) -> tuple[IndexBackend, BlobStore]:
    """The index and blob store the URLs name (see the module docstring). The root is created private (0700/0600)
    when missing and checked when not (:func:`scratchfs.engine.root.prepare_root`): it holds the local backends and
    the lock files. With a PostgreSQL index, the server is connected to first: one that cannot be reached leaves no
    root behind.

    Args:
        root: the store's root directory.
        database_clock: let a PostgreSQL index decide expiry by the server's clock (the store is on the real
            clock); otherwise the store's clock decides (a test clock).
        segment_entry_bytes: local blobs of at most this many content bytes go to segment files (0: none).
        adopt: a PostgreSQL index lost whole is being rebuilt from these blobs: with no pairing and no row, it takes
            the blobs over (:func:`scratchfs.engine.pairing.check_pairing`).
        lost: the blobs lost the PostgreSQL index's entries (``fsck --lost-blobs``): pair them again (same).

    Raises:
        InvalidArgument: a root too long a path for SQLite (:func:`check_index_path`), an unknown URL scheme, a
            bad schema or runs table, S3 blobs without PostgreSQL, a backend whose optional extra is not installed
            (:func:`~scratchfs.engine.backend_urls.require_extra`), or a PostgreSQL index and blobs that do not
            belong together (:mod:`scratchfs.engine.pairing`: the index keeps its entries elsewhere, or the blobs
            belong to another index).
        StorageError, StoreBusy: a backend cannot be opened (the root is not private and ours, the database is
            down, the schema is newer, a local index is empty or missing beside existing blobs, ...).
    """
    index_url, blobs_url = index_url or "", blobs_url or ""
    postgres = check_urls(index_url, blobs_url)  # (told before anything is created or connected to)
    index: IndexBackend
    if local_index(index_url):
        check_index_path(root)
        prepare_root(root)  # 0700 root, 0600 index files before SQLite opens them; no links followed
        if local_blobs(blobs_url):
            return _local_backends(root, busy_timeout, durable, frame_bytes, level, segment_entry_bytes)
        index = Index(root / "index.sqlite", root / "locks", busy_timeout, durable)
    else:
        from scratchfs.engine.postgres_index import PostgresIndex

        pool_log.install()  # psycopg_pool's warnings about the store's pool in an outage: one line a minute
        dsn, schema, runs_table = postgres  # type: ignore[misc]
        try:
            index = PostgresIndex(dsn, schema=schema, busy_timeout=busy_timeout, runs_table=runs_table,
                                  clock="database" if database_clock else "caller")
        except ValueError as exc:
            raise InvalidArgument(str(exc)) from None
        try:  # the server first: a URL naming no reachable server leaves no root behind
            prepare_root(root)
        except BaseException:
            index.close()
            raise
    try:
        return index, _paired_blobs(index, root, blobs_url, busy_timeout=busy_timeout, durable=durable,
                                    frame_bytes=frame_bytes, level=level, segment_entry_bytes=segment_entry_bytes,
                                    adopt=adopt, lost=lost)
    except BaseException:
        index.close()
        raise


def write_behind(index: IndexBackend, blobs: BlobStore, *, durable: bool, busy_timeout: float,
                 delete_lock: Callable[[], Any]) -> WriteBehind | None:
    """A :class:`~scratchfs.engine.write_behind.WriteBehind` queue (with its journal) for a store with the local
    SQLite index and local blobs, writable; else ``None`` (every row is committed at once). ``delete_lock()``
    holds the store's delete lock shared (a context manager)."""
    if not (isinstance(index, Index) and isinstance(blobs, Blobs)) or index.read_only:
        return None
    return WriteBehind(index, Journal(blobs.root_fd, durable), delete_lock, blobs.locks.held_here, busy_timeout)


def _local_backends(root: Path, busy_timeout: float, durable: bool, frame_bytes: int, level: int,
                    segment_entry_bytes: int) -> tuple[IndexBackend, BlobStore]:
    """The SQLite index and the files of a local store (its root prepared). Raises as :func:`open_backends`."""
    _refuse_paired_root(root)
    blobs = Blobs(root, frame_bytes, level, durable, segment_entry_bytes)
    index = Index(root / "index.sqlite", root / "locks", busy_timeout, durable,
                  existing_data=functools.partial(_holds_blobs, blobs))  # an empty index beside blobs is refused
    return index, blobs


def _holds_blobs(blobs: Blobs) -> bool:
    """Whether a root holds any blob file (a local store's, when no marker pairs them: see check_pairing)."""
    return bool(blobs.blob_files())


def _refuse_paired_root(root: Path) -> None:
    """Refuse a local index over files a PostgreSQL index keeps (a ``store-id`` marker under the root): its sweep
    would delete them as orphans, and a rebuild would give one blob two indexes (newuser7: a host started without
    ``$SCRATCHFS_INDEX`` was told to rebuild, and its sweep then removed the fleet's entries). Raises InvalidArgument
    naming the marker and the fix; StorageError when the marker cannot be read."""
    marker = local_marker(root)[0]()
    if marker is not None:
        raise InvalidArgument(
            f"the files under {root} belong to a PostgreSQL index (their {MARKER_NAME} marker names store "
            f"{marker.id}): "
            "open them with that index ($SCRATCHFS_INDEX or --index postgresql://...), or give this local store "
            f"another root; if that index is gone for good, remove {root / MARKER_NAME} and rebuild a local index "
            "from the blobs (scratchfs fsck --rebuild-index)")


def adopt_pairing(root: Path, index_url: str, blobs_url: str | None, *, busy_timeout: float,
                  lost: bool = False) -> None:
    """Before ``fsck --rebuild-index`` of a PostgreSQL index lost whole (its schema dropped, its rows deleted): pair
    it with the blobs it is rebuilt from, taking them over (a store id of its own in their marker: the index that
    owned them is refused from then on), which would otherwise refuse it as another index's. An index that has rows
    or a pairing is checked as on any opening. With ``lost`` (``fsck --lost-blobs --repair``) instead: pair an index
    with blobs that lost its entries (no marker, none of its newest rows' blobs), which would refuse it. Raises as
    :func:`open_backends`."""
    index, blobs = open_backends(root, index_url, blobs_url, busy_timeout=busy_timeout, durable=False,
                                 frame_bytes=FRAME_BYTES, level=ZSTD_LEVEL, adopt=not lost, lost=lost)
    blobs.close()
    index.close()


def _paired_blobs(index: Any, root: Path, blobs_url: str, *, busy_timeout: float, durable: bool, frame_bytes: int,
                  level: int, segment_entry_bytes: int, adopt: bool, lost: bool) -> BlobStore:
    """The blob store of a PostgreSQL ``index``, after :func:`scratchfs.engine.pairing.check_pairing` (left to the
    object store's first request when it cannot answer now: a store still opens -- and offload passes results
    through -- while its object store is down). Raises as :func:`open_backends`."""
    blobs: BlobStore | None = None
    try:
        if local_blobs(blobs_url):
            blobs = Blobs(root, frame_bytes, level, durable, segment_entry_bytes)
            read_marker, write_marker = local_marker(root)
            holds_blobs: Callable[[], bool] | None = functools.partial(_holds_blobs, blobs)
        else:
            from scratchfs.engine.s3_blobs import S3Blobs

            blobs = S3Blobs(blobs_url, frame_bytes, level, timeout=max(busy_timeout, 1.0),
                            delete_lock=index.delete_lock)
            read_marker, write_marker = s3_marker(blobs)
            holds_blobs = None
        check = functools.partial(check_pairing, index, location_of(blobs_url), read_marker, write_marker,
                                  blobs.exists, adopt=adopt, lost=lost, holds_blobs=holds_blobs)
        # the check again, for each sweep (sweep_backends): an attribute of the store, as a table keyed by the
        # store would keep it alive (the check refers to it)
        blobs.fence = functools.partial(check_pairing, index, location_of(blobs_url),  # type: ignore[union-attr]
                                        read_marker, write_marker, blobs.exists)
        reader = owner_reader(index, blobs, read_marker, local_blobs(blobs_url))  # (S3: one HEAD; files: a file read)
        blobs.owned = OwnerCheck(index, blobs.fence, reader)  # type: ignore[union-attr]  # (writes and delete-runs)
        try:
            check()
        except (StorageError, StoreBusy):
            if local_blobs(blobs_url):
                raise
            blobs.gate.set(check)  # type: ignore[attr-defined]
        return blobs
    except BaseException:
        if blobs is not None:
            blobs.close()
        raise


def missing_index(index_url: str | None, busy_timeout: float = 10.0) -> str | None:
    """Why a command that only reads or removes finds no store in a PostgreSQL index (``index_url``): the schema
    holds no scratchfs index -- a mistyped ``?schema=``, which opening would create empty -- as one line naming the
    schema, the database and the fix; ``None`` for a local index, one that is there, or a server that cannot be asked
    (the opening then says why). Creates nothing.

    Raises:
        InvalidArgument: a malformed index URL (:func:`split_postgres_url`), or a ``?schema=`` no store opens
            (:data:`~scratchfs.engine.postgres_schema.SCHEMA_NAME`). StorageError: the server did not answer
            within about ``busy_timeout`` seconds (its connect or reply timeout).
    """
    if local_index(index_url):
        return None
    dsn, schema, _ = split_postgres_url(index_url)  # type: ignore[arg-type]
    try:
        from scratchfs.engine.postgres_schema import SCHEMA_NAME, holds_index
    except ImportError:
        return None  # (a missing or broken extra: told by the opening, in one line)
    if not SCHEMA_NAME.match(schema):  # refused as the opening refuses it: no store is ever made there, so "a
        # spill creates it" would send the caller to a spill that is refused (newuser13)
        raise InvalidArgument(f"schema must be lower-case letters, digits and _ (at most 63): {schema!r}")
    found = holds_index(dsn, schema, busy_timeout)
    if isinstance(found, StorageError):
        raise found  # (a server that did not answer in time: told now, not waited for again by the opening)
    if found == "other":
        return (f"the schema {schema!r} in the database at {describe_url(index_url)} holds other tables and no "
                f"scratchfs index (check ?schema= in the index URL, ${ENV_INDEX})")
    if found is not False:
        return None
    return (f"no index schema {schema!r} in the database at {describe_url(index_url)}: a spill, scratch-write or "
            f"load creates it (check ?schema= in the index URL, ${ENV_INDEX}), or scratchfs migrate-index does")


def migrate_index(index_url: str | None, *, busy_timeout: float) -> tuple[str, int, int]:
    """Create or migrate the PostgreSQL index ``index_url`` names -- its schema, its tables, the platform cascade of
    its ``runs_table=`` -- and touch nothing else (no blobs, no root): what an admin runs as a role that may create
    in the schema, so that the fleet's runtime roles need none of the ``CREATE`` privileges. Returns ``(schema,
    version found (0: none), version now)``.

    Raises:
        InvalidArgument: no ``postgresql://`` index URL (a local SQLite index migrates as a store opens it), a
            malformed one, a bad schema or runs table. StorageError, StoreBusy: as :func:`open_backends` (the
            privilege the role lacks is named).
    """
    if local_index(index_url):
        raise InvalidArgument(f"migrate-index needs a postgresql:// index URL (--index or ${ENV_INDEX}); a local "
                              "SQLite index is migrated by any command that opens it")
    dsn, schema, runs_table = check_urls(index_url or "", "")  # type: ignore[misc]
    from scratchfs.engine.postgres_index import PostgresIndex
    from scratchfs.engine.postgres_schema import SCHEMA_VERSION

    try:
        index = PostgresIndex(dsn, schema=schema, busy_timeout=busy_timeout, runs_table=runs_table, clock="caller")
    except ValueError as exc:
        raise InvalidArgument(str(exc)) from None
    index.close()
    return schema, index.found_version, SCHEMA_VERSION


def create_empty_index(root: Path, *, busy_timeout: float) -> str | None:
    """Give the local store at ``root`` an empty index where its index is missing or empty, even beside existing
    blobs (which :func:`open_backends` refuses, so that a lost index is never silently replaced): the first step of
    rebuilding the index from the blobs. An index file that is damaged or not a database at all (SQLite's
    :data:`~scratchfs.engine.sqlite_errors.DAMAGED_CODES`) is moved aside, never removed, with its ``-wal`` and
    ``-shm``, to ``index.sqlite.damaged-<UTC time>``: that name is returned (``None`` when nothing was moved). A
    SQLite file of another application, or a link or other file where the index belongs, is still refused.

    Raises:
        InvalidArgument: the root's files belong to a PostgreSQL index (a ``store-id`` marker).
        StorageError: the index cannot be created or moved aside, or is another application's file. StoreBusy: it
            stayed locked.
    """
    check_index_path(root)
    prepare_root(root)  # private modes before SQLite creates the file
    _refuse_paired_root(root)  # (files a PostgreSQL index keeps get no local index beside them)
    try:
        Index(root / "index.sqlite", root / "locks", busy_timeout).close()
        return None
    except StorageError as exc:
        if getattr(exc, "sqlite_code", None) not in DAMAGED_CODES:
            raise
    aside = f"index.sqlite.damaged-{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}"
    while (root / aside).exists() or (root / aside).is_symlink():
        aside += "-1"
    for suffix in ("", "-wal", "-shm"):  # the log holds the damaged file's last commits: they go together
        try:
            os.rename(root / f"index.sqlite{suffix}", root / f"{aside}{suffix}")  # a rename never follows a link
        except FileNotFoundError:
            continue
        except OSError as exc:
            failed = StorageError(f"cannot move the damaged index aside to {root / aside}: {exc.strerror or exc}")
            failed.errno = exc.errno
            raise failed from exc
    Index(root / "index.sqlite", root / "locks", busy_timeout).close()
    return aside


def find_orphan(index: IndexBackend, blobs: BlobStore, where: tuple[str, str], token: str, remove: bool,
                grace: float = 0.0) -> int | None:
    """If the blob ``token`` listed in ``where`` (its encoded run and agent names) is an orphan -- no row of that
    scope names it (a copy of another scope's live blob is one), and for a file no writer holds it -- return its
    size in bytes (objects: 0), after removing it when ``remove``; else ``None``. For files see
    :func:`scratchfs.engine.sweeper.check_orphan`. No lock marks an object's write in flight, so it is an orphan only
    once older than ``grace`` seconds (by its ``LastModified``, as the fleet sweep judges); it is removed under the
    exclusive delete lock (every write holds it shared while it checks its object and commits its row) after one
    more look at the rows, so no write commits a row for it between that look and the delete.

    Raises:
        StoreBusy: the delete lock stayed busy. StorageError: the index or the object store failed. InvalidArgument:
            another index owns the objects now (its writes are no orphans here).
    """
    if isinstance(blobs, Blobs):
        return check_orphan(index, blobs, where, token, None, remove=remove)  # type: ignore[arg-type]
    key = blobs.key_of(where, token)  # type: ignore[attr-defined]
    if known_locations(index, [token], where) or not _aged(blobs, key, grace):
        return None
    if not remove:
        return 0
    with blobs.delete_lock(True, blobs.timeout):  # type: ignore[attr-defined]
        blobs.owned(0.0)  # type: ignore[attr-defined]  # (after a takeover, the new index's writes are orphans here)
        if known_locations(index, [token], where) or not blobs.delete_keys([key]):  # type: ignore[attr-defined]
            return None
    return 0


def blob_age(blobs: BlobStore, found: BlobFile) -> float | None:
    """Seconds since the listed blob ``found`` was last modified (negative: dated ahead): a file's ``lstat`` time
    (file-system clock, no link followed; a segment's record: its segment's, as the segment sweep ages it), an
    object's ``LastModified``; ``None`` when it cannot be told (gone, undated). Raises StorageError (object store)."""
    if isinstance(blobs, Blobs):
        try:
            return time.time() - os.lstat(file_path(found.location)).st_mtime
        except OSError:
            return None
    head = blobs.head(blobs.key_of((found.run, found.agent), found.token))  # type: ignore[attr-defined]
    modified = head.get("LastModified") if head is not None else None
    return None if modified is None else time.time() - modified.timestamp()


def _aged(blobs: BlobStore, key: str, grace: float) -> bool:
    """True if the object ``key`` is there and older than ``grace`` seconds by its ``LastModified``."""
    found = blobs.head(key)  # type: ignore[attr-defined]
    modified = found.get("LastModified") if found is not None else None
    return found is not None and (modified is None or modified.timestamp() <= time.time() - grace)


def sweep_backends(index: IndexBackend, blobs: BlobStore, lock_path: str, now: Callable[[], float], grace: float,
                   wait: float | None, full: bool = False, adopt: Callable[[BlobFile, float], bool] | None = None
                   ) -> SweepResult:
    """One sweep of whichever backends these are: the fleet sweep (PostgreSQL advisory lock, S3 listing) for S3
    blobs, else the local sweep (a file lock under the root; see :mod:`scratchfs.engine.sweeper`). ``now``: the
    store clock (epoch seconds), read once the sweep's lock is held. ``full``: the local sweep checks every row and
    file at once. ``adopt``: restores an orphan's row (:mod:`scratchfs.engine.takeover`).

    Raises:
        InvalidArgument: the blobs of this PostgreSQL index belong to another index now (a rebuild took them over:
            :mod:`scratchfs.engine.pairing`); nothing more is deleted.
        StoreBusy, StorageError: from the backends.
    """
    fence = getattr(blobs, "fence", _unfenced)
    if isinstance(blobs, Blobs):
        fence()  # (files of a PostgreSQL index: checked once a sweep, before it takes its lock)
        return sweep(index, blobs, lock_path, now, grace, wait, full,  # type: ignore[arg-type]
                     adopt if hasattr(blobs, "fence") else None)  # (a PostgreSQL index's files)
    from scratchfs.engine.fleet_sweeper import fleet_sweep
    return fleet_sweep(index, blobs, now, grace, wait, time.time, fence, adopt)  # type: ignore[arg-type]


def _unfenced() -> None:
    """The fence of a local store's files (no pairing: nothing to check)."""

