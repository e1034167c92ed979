"""Which blobs a PostgreSQL index keeps its entries in: checked each time a fleet store opens.

**Why.** A fleet store is named by two URLs every host is given: the index (``postgresql://``) and the blobs
(``s3://bucket/prefix``, or files under one host's root). A host given the right index and other blobs -- a
forgotten ``$SCRATCHFS_BLOBS``, another prefix, a second schema over the same prefix -- reads every handle as not
found and writes rows no other host can read; worse, its sweep finds no blob for any row and deletes them all, and
a sweep of the other index removes the first one's objects as orphans. Nothing in either URL tells the two apart,
so the store records the pairing on both sides and refuses a store opened with a mismatch, before anything is
written or swept.

**How.** The index holds one row, ``<schema>.store (id, blobs, paired_at, took_over)``: a random store id (128 bits,
hex), the blob location it was paired with (:func:`location_of`: ``s3://bucket/prefix``, whatever endpoint reaches
it, or ``files under the root``), when, and the store id it took the location over from (rule 2; ``''`` for none:
:mod:`scratchfs.engine.takeover` follows these to the previous owners). The blob location holds a marker with the
same id (:data:`MARKER_NAME`: the object ``<prefix>/store-id``, or the file ``<root>/store-id``): the ONE index that
owns the location. An S3 marker also names its owner (``schema S of database D``, in the object's user metadata:
:func:`s3_marker`), so that an index refused for another's marker is told which one. On opening (:func:`check_pairing`):

1. an index paired with another location is refused;
2. a marker naming another store id is refused (these blobs belong to another index) -- unless the index is being
   rebuilt from them (``adopt``: no pairing, no row): it then takes them over, with a store id of its own written in
   the marker, and the index that owned them is refused from then on, at its opening and -- the crucial part -- by
   its sweep, which runs this check again (:func:`scratchfs.engine.backends.sweep_backends`; the fleet sweep right
   before each batch of object deletions, :mod:`scratchfs.engine.fleet_sweeper`; a sweep of local files once, as it
   starts): two live schemas over one prefix would otherwise each delete the other's newer objects as orphans. A
   marker of an older scratchfs (no owner named) is rewritten with its owner by the next opening of its index
   (upgrade in place; its body, the id alone, is unchanged);
3. with no marker yet, the index pairs (or, already paired, writes its marker again) only if it has no row, or one
   of its newest rows (:data:`PROBE_ROWS`) has its blob here -- an index whose entries are elsewhere is refused:
   the first host to open an existing unpaired store (made before this check) with the wrong blobs cannot claim it.
   A paired S3 location with no marker and none of those blobs lost them (emptied, or a server that keeps nothing
   restarted) or is reached at another server: the refusal says so and names ``fsck --lost-blobs --repair``, which
   pairs it again (``lost``) and drops the rows whose blobs are gone.

The index row is written before the marker, and read after it: a marker's row is always seen, and a crash between
the two writes leaves an index that writes its marker at the next opening (rule 3). Two hosts pairing at once insert
the same row (``ON CONFLICT DO NOTHING``, then read back): the one whose location lost is refused by rule 1.
Residual cases: a second host with files of its own (a PostgreSQL index with local files on two hosts that share no
file system) that opens while the index is still empty pairs its files too; the README says such a store belongs
to one host, or to hosts that mount one file system. A sweep's check and its deletions are two requests: a
takeover that lands between them (one ``DeleteObjects`` request, at most about ``busy_timeout``) is not seen by that
batch, whose objects -- orphans or expired entries of the old index, listed before the check -- the rebuild may
just have restored rows for (they then read as missing); the new index's own writes are never among them (written
after its marker, so after a listing that the check follows). Hosts of the old index that keep their store open go
on committing writes for up to :data:`OWNER_CHECK_SECONDS` (S3 objects, checked before the upload and before the
row) or :data:`LOCAL_CHECK_SECONDS` (local files) after their last check (:class:`OwnerCheck`), writes the new
index's sweep adopts (:mod:`scratchfs.engine.takeover`: their rows in the old schema name them); their deletes of a
run or agent, and of an S3 object whose row they removed, check first.

Errors: every refusal is :class:`~scratchfs.foundation.errors.InvalidArgument` (a setting that names the wrong
blobs: the CLI's exit 2), naming the location the index keeps its blobs at and the fix.
"""

from __future__ import annotations

import logging
import os
import re
import secrets
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from scratchfs.engine import safe_fs
from scratchfs.foundation import forks
from scratchfs.foundation.errors import InvalidArgument, ScratchError, storage_error

__all__ = ["LOCAL_CHECK_SECONDS", "LOCAL_LOCATION", "MARKER_NAME", "OWNER_CHECK_SECONDS", "PROBE_ROWS", "Gate",
           "Marker", "OwnerCheck", "check_pairing", "local_marker", "local_owner", "location_of", "owner_of",
           "owner_reader", "s3_marker", "s3_owner", "unchecked"]

log = logging.getLogger(__name__)

MARKER_NAME = "store-id"
"""The marker's name: an object ``<prefix>/store-id`` in S3, a file ``<root>/store-id`` for local blobs."""
LOCAL_LOCATION = "files under the root"
"""The location recorded for blobs in files under a host's root."""
PROBE_ROWS = 16
"""Newest rows of an unpaired index whose blobs are looked for in the blob location before pairing them."""

_MARKER_BYTES = 200  # a marker is the id (32 hex digits) and a newline; anything longer is not one
_OWNER_KEY = "scratchfs-owner"  # the S3 user metadata naming the index that owns the prefix


class Marker(NamedTuple):
    """A blob location's marker: the store id of the index that owns the location, and how that index is named
    (:func:`owner_of`): ``None`` for a marker written before the owner was recorded (upgraded at the next opening
    of its index), ``""`` where it is not recorded (a local file)."""

    id: str
    owner: str | None


def location_of(blobs_url: str) -> str:
    """The location recorded for a blobs URL: the URL itself for ``s3://`` (endpoints are not part of it), else
    :data:`LOCAL_LOCATION`."""
    return blobs_url.rstrip("/") if blobs_url.startswith("s3://") else LOCAL_LOCATION


def check_pairing(index: Any, location: str, read_marker: Callable[[], Marker | None],
                  write_marker: Callable[[str, str], None], blob_exists: Callable[[str, str, str], bool], *,
                  adopt: bool = False, lost: bool = False, holds_blobs: Callable[[], bool] | None = None) -> None:
    """Check, and record when new, that ``index`` (a :class:`~scratchfs.engine.postgres_index.PostgresIndex`) keeps
    its entries in the blob location ``location`` and owns it (see the module docstring). Run as a store opens,
    and again by each sweep before it deletes (:func:`scratchfs.engine.backends.sweep_backends`).

    Args:
        read_marker: the blob location's marker (:class:`Marker`), or ``None`` when it has none.
        write_marker: ``(store_id, owner)`` writes the marker naming this index as the owner (:func:`owner_of`).
        blob_exists: ``(run_id, agent_id, blob) -> bool`` for a row's blob.
        adopt: for a rebuild of an index lost whole (``fsck --rebuild-index``): an index with no pairing and no row
            takes the blobs over from the index their marker names -- a new store id, written in their marker, so
            that the index that owned them is refused from then on (at its opening and its sweeps) -- instead of
            being refused as another index; one with no pairing, no row and no marker takes blobs already there
            (``holds_blobs``: a local store moved under it).
        lost: for ``fsck --lost-blobs --repair``: the blob location lost this index's entries (no marker, none of
            its newest rows' blobs): pair it again instead of refusing it (the repair then drops the rows).
        holds_blobs: for local files: whether the root holds any blob file. Files there with no marker and an index
            with no pairing and no row are a local (SQLite) store's: refused unless ``adopt``.

    Raises:
        InvalidArgument: the index is paired with another location; the blobs carry another index's marker (an
            index that lost its ownership to a rebuild is told which index owns them now); the location holds no
            marker and none of the index's newest rows' blobs (lost blobs, or the wrong location: the message tells
            them apart as far as it can and gives the recovery command); or, not adopting, it has no row and the
            local files are another (SQLite) store's.
        StorageError, StoreBusy: the index or the blob store failed.
    """
    marker = read_marker()  # first: a marker is written after its index row, so that row is seen next
    record = _record(index)
    if record is not None and record[1] != location:
        raise _kept_elsewhere(record[1], location)
    if marker is not None:
        if record is None and adopt and not _newest(index):
            record = _claim(index, location, marker.id)  # an id of its own, the marker written below names it
            if record[1] != location:
                raise _kept_elsewhere(record[1], location)
            log.warning("scratchfs: this index (schema %s) now owns the blobs at %s, taken over from %s: that index "
                        "is refused from now on", _schema(index), location, marker.owner or "the index that had them")
            write_marker(record[0], owner_of(index))
            return
        if record is None or record[0] != marker.id:
            raise _not_owner(index, location, marker, record is not None)
        if marker.owner is None:  # a marker of before ownership was recorded: upgraded in place
            write_marker(record[0], owner_of(index))
        return
    rows = _newest(index)
    if rows and not lost and not _entries_here(rows, blob_exists):
        raise _nothing_here(index, location, record)
    if record is None and not rows and not adopt and holds_blobs is not None and holds_blobs():
        raise InvalidArgument(f"the {location} already hold a local store's blobs (beside its index.sqlite): they "
                              "belong to it, and two indexes over one set of files delete each other's entries as "
                              "orphans; to move that store under this index, run scratchfs fsck --rebuild-index with "
                              "this index and root (the local index is then refused), or give this index another root")
    if record is None:
        record = _claim(index, location)
        if record[1] != location:  # another host paired it with its own location meanwhile
            raise _kept_elsewhere(record[1], location)
    write_marker(record[0], owner_of(index))


def _not_owner(index: Any, location: str, marker: Marker, paired: bool) -> InvalidArgument:
    """The refusal of blobs whose marker names another index: ``paired`` -- this index was paired with them, and a
    rebuild (or a re-pairing) gave them to another index since -- or not (a new index)."""
    owner = marker.owner or _find_owner(index, marker.id) or f"the index of store {marker.id} (its marker names no " \
        "schema, and no schema of this database holds that store id)"
    if paired:
        return InvalidArgument(
            f"the blobs at {location} belong to another index now: {owner} owns them (their {MARKER_NAME} marker "
            f"names it: it was rebuilt from them with fsck --rebuild-index, or paired with them after their marker "
            f"was removed); this index (schema {_schema(index)}) no longer owns them and is refused, so that the two "
            "indexes' sweeps do not delete each other's objects: point every host at the index that owns them "
            "($SCRATCHFS_INDEX with its ?schema=), or give this index blobs of its own")
    return InvalidArgument(
        f"the blobs at {location} belong to another index ({owner}: their {MARKER_NAME} marker names it): give "
        "each index (each PostgreSQL schema) its own blobs URL; or, if this is the index they were written by and it "
        "lost its rows (its schema dropped or emptied), rebuild it from them: scratchfs fsck --rebuild-index with "
        "this index")


def _nothing_here(index: Any, location: str, record: tuple[str, str] | None) -> InvalidArgument:
    """The refusal of a location with no marker and none of the index's newest rows' blobs."""
    recover = (f"if they are gone for good, `scratchfs fsck --lost-blobs --repair` (with this index and blobs URL) "
               f"drops the rows whose blobs are gone and pairs the index with {location} again")
    if record is None:
        return InvalidArgument(f"none of this index's newest entries has its blob in {location}: its blobs are "
                               "elsewhere; give the blobs URL the other hosts use ($SCRATCHFS_BLOBS or --blobs); "
                               f"{recover}")
    count = index.read("SELECT count(*) FROM @E", {}, "counting the index's rows")[0][0]
    if location == LOCAL_LOCATION:
        return InvalidArgument(
            f"none of this index's newest entries has its blob in the files under this root, which hold no "
            f"{MARKER_NAME} marker: this is not the root the index (schema {_schema(index)}, {count} rows) keeps its "
            "files under -- give this host that root (every host of a PostgreSQL index with local files must see "
            f"the same files) -- or the files were lost (the root emptied); {recover}")
    return InvalidArgument(
        f"the blobs at {location} lost this index's entries: the index (schema {_schema(index)}) is paired with "
        f"them and holds {count} rows, but the prefix has no {MARKER_NAME} marker and none of the newest rows' "
        "objects -- they were deleted (the bucket or prefix emptied, or an S3 server that keeps nothing on disk, "
        "such as moto, restarted), or $AWS_ENDPOINT_URL names another server than the one holding them (then point "
        f"it at that one); {recover}")
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
        self._lock = forks.renewed_in_child(self, "_lock", threading.Lock)  # (held through a check)

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


OWNER_CHECK_SECONDS = 5.0
"""Seconds a write (spill, scratchpad write or overwrite) goes on trusting this index's last ownership check before
it checks again (:class:`OwnerCheck`); a delete-run, and the removal of an object whose row this index removed (an
overwrite's old value, a deleted key: :meth:`S3Blobs.still_owned <scratchfs.engine.s3_blobs.S3Blobs.still_owned>`),
check right before, whatever its age. The window in which an old host's spills after a takeover are acknowledged
(RELIABILITY.md, "A fleet host after a takeover"; lost until the new index's sweep adopted them:
:mod:`scratchfs.engine.takeover`): 30 s until 2026-12-05, now 5 s, for at most one
``HEAD`` (4.1-4.6 ms on moto) per 5 s of a spilling process's life (under 0.1% of its time;
``python bench/owner_check_ab.py`` prints one check's median), besides one per such removal."""
LOCAL_CHECK_SECONDS = 1.0
"""The same for local files (:func:`local_owner`), whose check is one small file read, not a request: a write trusts
the last one for a second."""


class OwnerCheck:
    """Whether this index still owns its blobs, cheaply: ``read_owner`` (one request: an S3 marker's ``HEAD``) names
    the marker's owner, and when it is not this index (another named, none named, no marker; or no cheap read, for
    local files) the full pairing check (``full_check``, :func:`check_pairing`) decides -- and raises, naming the
    owner, for an index that lost its blobs to a rebuild. Thread-safe; a check that raised is made again next time.

    Args:
        index: the PostgreSQL index (its schema and database name this index in a marker: :func:`owner_of`).
        full_check: the store's pairing check (no arguments).
        read_owner: ``() -> str | None``, the marker's owner as its metadata names it (``None``: no marker, or one
            naming no owner), or ``None`` for none cheaper than the full check.
        clock: monotonic seconds.
    """

    def __init__(self, index: Any, full_check: Callable[[], None],
                 read_owner: Callable[[], str | None] | None = None, clock: Callable[[], float] = time.monotonic
                 ) -> None:
        self._index, self._full, self._read_owner, self._clock = index, full_check, read_owner, clock
        self._mine: str | None = None
        self._checked_at: float | None = None
        self.checks = 0
        """Checks made (not those a recent one answered): for tests and measurements."""

    def __call__(self, max_age: float = 0.0) -> None:
        """Check ownership unless one passed within the last ``max_age`` seconds (0: check now).

        Raises:
            InvalidArgument: another index owns the blobs now (the message names it and the fix).
            StorageError, StoreBusy: the object store or the index failed.
        """
        checked = self._checked_at
        if max_age > 0 and checked is not None and self._clock() - checked < max_age:
            return
        started = self._clock()
        self.checks += 1
        owner = self._read_owner() if self._read_owner is not None else None
        if owner is None or not owner.startswith(self._me()):
            self._full()
        self._checked_at = started

    def _me(self) -> str:
        """``"schema S of database D ("``: how this index's own markers begin (one query, the first time)."""
        if self._mine is None:
            self._mine = owner_of(self._index).split(" (owner since ", 1)[0] + " ("
        return self._mine


def unchecked(max_age: float = 0.0) -> None:
    """The :class:`OwnerCheck` of blobs no pairing is checked for (an object store opened without an index's
    pairing: fsck's readers, tests): passes."""


def _record(index: Any) -> tuple[str, str] | None:
    rows = index.read("SELECT id, blobs FROM @S.store", {}, "reading the store's pairing")
    return (rows[0][0], rows[0][1]) if rows else None


def _claim(index: Any, location: str, took_over: str = "") -> tuple[str, str]:
    """Insert the pairing (a new store id; ``took_over``: the store id of the index it takes the location over
    from, ``""`` for none) unless a row is there; return the row there now."""
    with index.transaction("pairing the index with its blobs") as conn:
        conn.execute(index.q("INSERT INTO @S.store (id, blobs, paired_at, took_over) VALUES (%s, %s, %s, %s) "
                             "ON CONFLICT DO NOTHING"), (secrets.token_hex(16), location, time.time(), took_over))
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


def owner_of(index: Any) -> str:
    """How a marker names ``index`` as its blobs' owner: ``"schema <schema> of database <name> (owner since <UTC
    time>)"`` (ASCII: it travels in an object's metadata). Raises StorageError, StoreBusy (the index failed)."""
    database = index.read("SELECT current_database()", {}, "reading the index's database name")[0][0]
    since = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    text = f"schema {_schema(index)} of database {database} (owner since {since})"
    return text.encode("ascii", "backslashreplace").decode("ascii")


def _find_owner(index: Any, store_id: str) -> str | None:
    """``"schema S of database D"`` for the schema of this index's database whose ``store`` table holds
    ``store_id`` (a marker that names no owner: a local file's, or an older scratchfs's), or ``None`` (none, or the
    catalog cannot be read). Two queries; on a refusal only."""
    try:
        schemas = [row[0] for row in index.read(
            "SELECT DISTINCT table_schema FROM information_schema.columns WHERE table_name = 'store' AND "
            "column_name = 'paired_at' ORDER BY 1 LIMIT 200", {}, "looking for the index that owns the blobs")
            if _SCHEMA_RE.fullmatch(row[0])]
        found = index.read(" UNION ALL ".join(f"SELECT '{name}', current_database() FROM \"{name}\".store WHERE id = "
                                              "%(id)s" for name in schemas) + " LIMIT 1", {"id": store_id},
                           "looking for the index that owns the blobs") if schemas else []
    except ScratchError:
        return None
    return f"schema {found[0][0]} of database {found[0][1]}" if found else None


_SCHEMA_RE = re.compile(r"[a-z_][a-z0-9_]{0,62}")  # the schema names scratchfs takes (and safe to quote as they are)


def _schema(index: Any) -> str:
    return str(getattr(index, "schema", "?"))


def local_marker(root: Path) -> tuple[Callable[[], Marker | None], Callable[[str, str], None]]:
    """``(read_marker, write_marker)`` of the file ``<root>/store-id`` (no link followed; 0600; written whole by a
    rename). The file holds the store id alone, as every scratchfs wrote it (an older one reads it too); which
    schema owns it is not recorded (:attr:`Marker.owner` is ``""``), so the marker is never upgraded. Their errors:
    StorageError (the file system refused, or a link or other kind of file is there)."""

    def read() -> Marker | None:
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
        store_id = data.decode("ascii", "replace").strip()
        return Marker(store_id, "") if store_id else None

    def write(store_id: str, owner: str) -> None:
        del owner  # (not recorded in a file: see above)
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


def s3_marker(blobs: Any) -> tuple[Callable[[], Marker | None], Callable[[str, str], None]]:
    """``(read_marker, write_marker)`` of the object ``<prefix>/store-id`` of an
    :class:`~scratchfs.engine.s3_blobs.S3Blobs` (never a blob's key: those are three levels below the prefix): its
    body is the store id alone (an older scratchfs reads it as it always did), its user metadata
    ``scratchfs-owner`` names the owning index (:func:`owner_of`; a marker without it was written before ownership
    was recorded: :attr:`Marker.owner` ``None``). Each is one request. Their errors: StorageError (the object store
    failed)."""
    from scratchfs.engine.s3_client import client_errors, error_code

    key = (f"{blobs.prefix}/" if blobs.prefix else "") + MARKER_NAME

    def read() -> Marker | None:
        try:
            got = blobs.client().get_object(Bucket=blobs.bucket, Key=key, Range=f"bytes=0-{_MARKER_BYTES - 1}")
            data = got["Body"].read(_MARKER_BYTES)
        except client_errors() as exc:
            if error_code(exc) in ("404", "NoSuchKey", "NotFound"):
                return None
            raise blobs.failure(exc, f"reading the store's blob marker {key}") from None
        store_id = data.decode("ascii", "replace").strip()
        return Marker(store_id, (got.get("Metadata") or {}).get(_OWNER_KEY)) if store_id else None

    def write(store_id: str, owner: str) -> None:
        try:
            blobs.client().put_object(Bucket=blobs.bucket, Key=key, Body=store_id.encode("ascii") + b"\n",
                                      Metadata={_OWNER_KEY: owner})
        except client_errors() as exc:  # one line naming the endpoint and the fix, as every request's failure
            raise blobs.failure(exc, f"writing the store's blob marker {key}") from None

    return read, write


def s3_owner(blobs: Any) -> Callable[[], str | None]:
    """``read_owner`` of :class:`OwnerCheck` for an :class:`~scratchfs.engine.s3_blobs.S3Blobs`: the owner its
    marker's metadata names, by one ``HEAD`` (``None``: no marker, or one naming no owner). Raises StorageError."""
    key = (f"{blobs.prefix}/" if blobs.prefix else "") + MARKER_NAME

    def read() -> str | None:
        found = blobs.head(key)
        return None if found is None else (found.get("Metadata") or {}).get(_OWNER_KEY)

    return read


def local_owner(index: Any, read_marker: Callable[[], Marker | None]) -> Callable[[], str | None]:
    """``read_owner`` of :class:`OwnerCheck` for local files, whose ``store-id`` file names no owner: how this index
    names itself as an owner (:func:`owner_of`) while the file holds the store id of this index's pairing (both read
    from the index once, at the first call), else ``None`` (the full check decides). One small file read.
    Raises StorageError (the file, or the index at the first call)."""
    mine: list[tuple[str | None, str]] = []

    def read() -> str | None:
        marker = read_marker()
        if marker is None:
            return None
        if not mine:
            record = _record(index)
            mine.append((record[0] if record else None, owner_of(index)))
        paired, owner = mine[0]
        return owner if paired is not None and marker.id == paired else None

    return read


def owner_reader(index: Any, blobs: Any, read_marker: Callable[[], Marker | None],
                 local: bool) -> Callable[[], str | None]:
    """The ``read_owner`` of ``blobs``' :class:`OwnerCheck`: :func:`local_owner` for local files (``local``),
    :func:`s3_owner` for an S3 prefix."""
    return local_owner(index, read_marker) if local else s3_owner(blobs)


def _open_root(root: Path) -> int:
    """The store root's descriptor. The root as given is followed when it is a link, as :mod:`~scratchfs.engine.root`
    and the blob store open it (hostile19: ``O_NOFOLLOW`` here refused a root linked to its directory, "Not a
    directory", after the root had been prepared); nothing below it is (the marker: ``safe_fs``)."""
    try:
        return os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as exc:
        raise storage_error(exc, f"cannot open the store root {root}") from None
