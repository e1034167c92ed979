"""Blobs in an S3-compatible object store: one object per blob, in the seekable format, read by HTTP range requests.

Layout in the bucket (``s3://bucket/prefix``)::

    <prefix>/<run>/<agent>/<token>.zst     one seekable blob per entry (see :mod:`scratchfs.engine.seekable`)

``<run>`` and ``<agent>`` are :func:`scratchfs.foundation.checks.path_part` encodings (injective, so two scopes never
share a key prefix); ``<token>`` is a fresh random token per write, so an object is never rewritten: an overwrite
writes a new object and the index row moves to it.

**Writing.** The seekable writer compresses into a private spool file (0600, in the system temp directory); each time
the spool holds :data:`PART_BYTES` it is sent as one part of a multipart upload and emptied, so memory and disk stay
bounded by about one part whatever the size of the content. A content smaller than one part is sent with one
``PUT``. An object appears whole or not at all (S3 makes an upload visible at ``PUT``/``CompleteMultipartUpload``); a
failed upload is aborted and leaves nothing. A multipart upload left incomplete -- its writer killed, or the store
not answering its abort -- is aborted by the fleet sweep once begun over ``orphan_grace`` ago (a write slower than
that then fails with StorageError, nothing stored: :mod:`scratchfs.engine.s3_uploads`). As on local disk, the object
is complete before the row that names it is committed (:class:`S3Pending`); the row's transaction checks the
object is still there with a ``HEAD``.

**Reading.** :meth:`S3Blobs.open_source` fetches the last :data:`TAIL_BYTES` of the object with one suffix-range
``GET``, which gives the object's size (``Content-Range``) and, for any blob of up to about 1,300 frames, its whole
seek table; a read of bytes within one frame then costs one more range ``GET`` (two requests in all), and a blob that
fits in the tail costs no more. An object never changes under its key (a new token per write), so the tail is kept
in a bounded cache (:data:`TAIL_CACHE_BYTES`): opening the same blob again costs no request, and a read within one
frame one. :attr:`~scratchfs.engine.s3_readers.S3Source.requests` counts them. (An object removed from outside
after it was cached is then noticed by the range ``GET`` -- ``FileNotFoundError`` -- or not at all when the whole blob
is in the tail: the bytes returned are still the blob's own.) An object this process is reading is deleted -- by an
overwrite, a delete or a sweep here -- only once its last reader closes it (:mod:`scratchfs.engine.s3_readers`), as
a file is.

**Removing.** Deletes are batched (``DeleteObjects``, up to 1,000 keys a request). Deleting a run or an agent lists
its key prefix and deletes what is there, under the index's exclusive delete lock (a PostgreSQL advisory lock,
passed in as ``delete_lock``: writes hold it shared while they check and commit their row), so no row is committed
for an object that the delete removes. Orphans -- objects no row names, older than the grace period by their
``LastModified`` -- are found by listing (:meth:`S3Blobs.blob_files`) and removed by the fleet sweeper.

**Failures**: a missing object raises ``FileNotFoundError`` from :meth:`open_source` (the store reads it as not
found); every other failure (connection refused, timeout, throttling past the retries, an error status) raises
:class:`StorageError` within about ``timeout`` seconds a request, its attempts included, in one line naming the
endpoint and what to do (:mod:`scratchfs.engine.s3_client`).

**Client**: boto3 (botocore), AWS's own SDK: the standard credential chain and environment (``AWS_ACCESS_KEY_ID``,
``AWS_SECRET_ACCESS_KEY``, ``AWS_SESSION_TOKEN``, ``AWS_REGION``, ``AWS_ENDPOINT_URL`` for any S3-compatible store:
MinIO, Ceph RGW, ...), thread-safe clients, range GETs, multipart uploads, batched deletes and bounded retries, with
no native build. (obstore also worked here and is faster per request, but is younger and does not read the AWS
config files.) Credentials are never printed or logged by this module; error messages name the bucket and key only.
"""

from __future__ import annotations

import errno
import logging
import os
import re
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from typing import Any, NamedTuple
from urllib.parse import urlsplit

from scratchfs.engine.binding import Binding
from scratchfs.engine.caches import LRU
from scratchfs.engine.pairing import MARKER_NAME, OWNER_CHECK_SECONDS, Gate, unchecked
from scratchfs.engine.protocols import BlobFile, BlobInfo
from scratchfs.engine.s3_client import client_errors, clock_skew, error_code, make_client, storage_error
from scratchfs.engine.s3_readers import HeldKeys, S3Source
from scratchfs.engine.s3_uploads import Upload, drain
from scratchfs.engine.seekable import SeekableWriter
from scratchfs.foundation import checks as ids
from scratchfs.foundation import forks
from scratchfs.foundation.errors import InvalidArgument, StorageError, StoreBusy
from scratchfs.foundation.text import digits_int, shorten

__all__ = ["BUCKET_RULE", "OTHER_UNREAD", "PART_BYTES", "SEGMENT_UNREAD", "TAIL_BYTES", "S3Blobs", "S3Object",
           "S3Pending", "S3Source", "parse_s3_url", "unread_why"]

log = logging.getLogger(__name__)

PART_BYTES = 8 * 1024 * 1024
"""Bytes per part of a multipart upload (S3 requires at least 5 MiB for every part but the last)."""
TAIL_BYTES = 16 * 1024
"""Bytes fetched from the end of an object when it is opened (size and seek table in one request)."""
TAIL_CACHE_BYTES = 16 * 1024 * 1024
"""Most bytes of object tails kept in memory per store (see the module docstring)."""
DELETE_BATCH = 1000
"""Most keys per ``DeleteObjects`` request (the S3 limit)."""
_BUCKET_RE = re.compile(r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]\Z")
BUCKET_RULE = ("a bucket name is 3 to 63 lower-case letters, digits, '.' and '-', beginning and ending with a letter "
               "or digit, with no '..' (s3://bucket/prefix)")
"""What :func:`parse_s3_url` says a bucket name must be, where it refuses one: the refusal named the name alone, and
a newcomer's ``s3://ab/x`` or ``s3://My_Bucket/x`` was left to guess S3's rule (newuser22)."""
_PREFIX_RE = re.compile(r"[A-Za-z0-9._/-]{0,512}\Z")
_KEY_RE = re.compile(r"(?P<run>[^/]+)/(?P<agent>[^/]+)/(?P<token>[a-z2-7]{24})\.zst\Z")
_MISSING = {"404", "NoSuchKey", "NotFound"}
SEGMENT_UNREAD = ("a local store's segment file (its small entries, in one file): an S3 store keeps each entry in an "
                  "object of its own and does not read a local store's segment files, so its entries are not here; "
                  "read them where that store's root is (or spill them again into this store)")
"""Why an S3 store leaves a ``.zseg`` object under its prefix unread (:meth:`S3Blobs.unread`)."""
OTHER_UNREAD = "not a blob object of scratchfs (<run>/<agent>/<token>.zst): left alone"
"""Why an S3 store leaves another object under its prefix alone."""


def unread_why(key: str) -> str:
    """Why an S3 store leaves the object ``key`` under its prefix unread: :data:`SEGMENT_UNREAD` or
    :data:`OTHER_UNREAD`."""
    return SEGMENT_UNREAD if key.endswith(".zseg") else OTHER_UNREAD


def parse_s3_url(url: str) -> tuple[str, str]:
    """``(bucket, prefix)`` of ``s3://bucket/prefix`` (the prefix without slashes at either end; may be empty).

    Raises:
        InvalidArgument: not an ``s3://`` URL, a bucket name S3 would refuse, or a prefix with other characters than
            letters, digits, ``. _ - /``.
    """
    parts = urlsplit(url)
    if parts.scheme != "s3" or parts.query or parts.fragment or parts.username or parts.password:
        raise InvalidArgument("blobs URL must look like s3://bucket/prefix")
    bucket, prefix = parts.netloc, parts.path.strip("/")
    if not _BUCKET_RE.match(bucket) or ".." in bucket:
        raise InvalidArgument(f"not a valid S3 bucket name: {shorten(bucket)}: {BUCKET_RULE}")
    if not _PREFIX_RE.match(prefix) or "//" in prefix or any(p in (".", "..") for p in prefix.split("/") if prefix):
        raise InvalidArgument(f"S3 prefix must be letters, digits, '._-' and single '/': {shorten(prefix)}")
    return bucket, prefix


class S3Object(NamedTuple):
    """A blob found by :meth:`S3Blobs.blob_files`: encoded ``run`` and ``agent`` names, object ``location`` (the
    key), ``token``, and the object's ``size`` (bytes) and ``modified`` time (epoch seconds, on this host's clock:
    its ``LastModified`` plus :func:`~scratchfs.engine.s3_client.clock_skew`)."""

    run: str
    agent: str
    location: str
    token: str
    size: int = 0
    modified: float = 0.0


class S3Pending:
    """An object uploaded completely but not yet named by a row (see the module docstring)."""

    gone_means_deleted = False  # (PendingWrite's: a HEAD finding no object cannot tell who removed it)

    def __init__(self, blobs: S3Blobs, key: str, info: BlobInfo, began: float) -> None:
        self._blobs, self.info = blobs, info
        self.key = self.path = key
        self.began = began  # time.monotonic() as the upload began: a delete that removes it comes after

    def exists(self) -> bool:
        """True while the object is still there (``HEAD``; called inside the row's transaction, under the delete
        lock), once the prefix is known to be this index's still (:attr:`S3Blobs.owned`, as old as
        ``OWNER_CHECK_SECONDS``: an upload longer than that is checked again before its row). Raises StorageError
        when the store cannot say; InvalidArgument when another index owns the prefix now (no row is written)."""
        self._blobs.owned(OWNER_CHECK_SECONDS)
        return self._blobs.head(self.key) is not None

    def release(self) -> None:
        """The row is committed: nothing is held (idempotent)."""

    def discard(self) -> None:
        """The row was not written: delete the object (a failure is left to the orphan sweep). Never raises."""
        self._blobs.delete_keys([self.key])


class S3Blobs:
    """The blobs of one store in an S3-compatible bucket (see the module docstring).

    Args:
        url: ``s3://bucket/prefix``.
        frame_bytes: decompressed bytes per frame; level: zstd compression level.
        timeout: seconds a request may take, its attempts (at most three, each with connect and read timeouts of a
            third of it) and the waits between them included (:mod:`scratchfs.engine.s3_client`).
        delete_lock: ``delete_lock(exclusive, timeout)`` context manager shared by every host (the PostgreSQL
            index's); ``None``: a lock within this process only (one host).
        client: a boto3 S3 client to use instead of one made from the AWS environment.

    Raises:
        InvalidArgument: a bad URL. StorageError: boto3 is missing.
    """

    def __init__(self, url: str, frame_bytes: int, level: int, *, timeout: float = 30.0,
                 delete_lock: Callable[[bool, float], AbstractContextManager[None]] | None = None,
                 client: Any = None) -> None:
        self.bucket, self.prefix = parse_s3_url(url)
        self.url = url
        self.unread_listed: list[str] = []
        """The keys under the prefix that the last full :meth:`list_objects` found not to be blob objects (nor the
        marker): what :meth:`unread` names and the fleet sweep counts."""
        self.frame_bytes = frame_bytes
        self.level = level
        self.timeout = timeout
        self._external_lock = delete_lock
        self._local_lock = forks.renewed_in_child(self, "_local_lock", threading.RLock)
        self._client = client
        self._client_pid = os.getpid() if client is not None else -1
        self._client_lock = forks.renewed_in_child(self, "_client_lock", threading.Lock)
        self._tails: LRU[str, tuple[int, str, bytes]] = LRU(4096, max_weight=TAIL_CACHE_BYTES,
                                                            weigh=lambda found: len(found[2]))
        self.held = HeldKeys()  # objects this process reads: their deletion by an entry's removal waits
        self.gate = Gate()  # a check every request waits for: the store's pairing, when it could not be made at open
        self.owned: Callable[[float], None] = unchecked  # the index's OwnerCheck (a fleet store's: backends.py)

    # -- client ---------------------------------------------------------------------------------------------------

    def client(self) -> Any:
        """This process's boto3 S3 client (made from the AWS environment on first use; a fork child makes its own).
        A check left to :attr:`gate` runs first (raising what it raises)."""
        self.gate.wait()
        if self._client is not None and self._client_pid == os.getpid():
            return self._client
        with self._client_lock:
            if self._client is None or self._client_pid != os.getpid():
                self._client = make_client(self.timeout, _data_loader)
                self._client_pid = os.getpid()
        return self._client

    def _errors(self) -> tuple[type[BaseException], ...]:
        return client_errors()

    def failure(self, exc: BaseException, doing: str) -> StorageError:
        """The :class:`StorageError` of a failed request while ``doing``, naming the endpoint (one line)."""
        client = self._client
        endpoint = getattr(getattr(client, "meta", None), "endpoint_url", None) if client is not None else None
        return storage_error(exc, doing, endpoint, self.timeout)

    # -- keys -----------------------------------------------------------------------------------------------------

    def scope_prefix(self, run_id: str, agent_id: str | None = None) -> str:
        """The key prefix (ending in ``/``) of a validated run, or of one agent of it."""
        base = f"{self.prefix}/" if self.prefix else ""
        base += ids.path_part(run_id) + "/"
        return base if agent_id is None else base + ids.path_part(agent_id) + "/"

    def key(self, run_id: str, agent_id: str, token: str) -> str:
        """The object key of blob ``token`` of a scope.

        Raises:
            FileNotFoundError: ``token`` is not a blob token (a row another kind of store wrote, such as a local
                segment location): no object of this store can hold it, so it reads as a missing blob.
        """
        key = self.object_key(run_id, agent_id, token)
        if key is None:
            raise FileNotFoundError(errno.ENOENT, f"no object of this store can hold the blob {token!r}")
        return key

    def object_key(self, run_id: str, agent_id: str, token: str) -> str | None:
        """:meth:`key`, or ``None`` for a row's blob that is not a blob token."""
        return f"{self.scope_prefix(run_id, agent_id)}{token}.zst" if ids.TOKEN_RE.match(token) else None

    def is_blob_key(self, key: str) -> bool:
        """Whether ``key`` is the key of a blob object under this store's prefix (``<prefix>/<run>/<agent>/<token>
        .zst``: what this store writes; the marker and any other key are not)."""
        root = f"{self.prefix}/" if self.prefix else ""
        return key.startswith(root) and _KEY_RE.match(key[len(root):]) is not None

    def path(self, run_id: str, agent_id: str, token: str) -> str:
        """``s3://bucket/key`` of a blob (for reports)."""
        key = self.object_key(run_id, agent_id, token)
        if key is None:
            return f"s3://{self.bucket}/{self.scope_prefix(run_id, agent_id)} (no object: {shorten(token)!r} is " \
                   "not a blob token)"
        return f"s3://{self.bucket}/{key}"

    # -- writing --------------------------------------------------------------------------------------------------

    def write(self, run_id: str, agent_id: str, token: str, chunks: Iterable,
              bound: Mapping | None = None) -> S3Pending:
        """Upload a new blob from byte chunks (multipart when larger than :data:`PART_BYTES`) and return it,
        pending its row.

        Args:
            bound: what the blob belongs to besides its token and scope -- ``kind``, ``key``, ``tool``, ``ttl``
                (seconds), ``created_at`` (epoch seconds) -- written into its binding frame, as on local disk
                (:mod:`scratchfs.engine.binding`).

        Raises:
            StorageError: the object store refused or did not answer, or a sweep aborted the multipart upload (one
                begun over ``orphan_grace`` ago: :func:`~scratchfs.engine.s3_uploads.end_stale_uploads`); no object
                is left behind (a multipart upload is aborted, unless the store did not answer: then it is left to
                the fleet sweep, once older than ``orphan_grace``, or to the bucket's lifecycle rule).
            InvalidArgument: from ``chunks`` (bad content); no object is left behind; or another index owns the
                prefix now (:attr:`owned`, checked at most every ``OWNER_CHECK_SECONDS``): nothing is written.
        """
        key, began = self.key(run_id, agent_id, token), time.monotonic()
        self.owned(OWNER_CHECK_SECONDS)
        fields = {"kind": "", "key": "", "tool": None, "ttl": 0.0, "created_at": time.time(), **(bound or {})}
        fd, spool = tempfile.mkstemp(prefix="scratchfs-s3-")  # mode 0600
        os.unlink(spool)  # nothing else can open it; it vanishes with the descriptor
        upload = Upload(self, key)
        writer = None
        try:
            writer = SeekableWriter(fd, self.frame_bytes, self.level, count_lines=True)
            for chunk in chunks:
                writer.write(chunk)
                if os.fstat(fd).st_size >= PART_BYTES:
                    upload.part(drain(fd))
            writer.close(lambda w: Binding(token, run_id, agent_id, size=w.size, frames=w.frames,
                                           content=w.digest(), **fields).encode())
            upload.finish(drain(fd))
        except BaseException as exc:
            if (writer is None or not writer.forked) and not getattr(exc, "unavailable", False):
                upload.abort()  # (not in a fork() child: the upload is the parent's, still going on; nor to a store
                # that did not answer: the abort would wait as long again, the whole spill bounded no more)
            if isinstance(exc, OSError) and not isinstance(exc, StorageError):
                raise StorageError(f"cannot spool the blob: {exc.strerror or exc}") from exc
            raise
        finally:
            os.close(fd)
        info = BlobInfo(writer.size, writer.stored_size, writer.frames, writer.frame_newlines.tobytes())
        return S3Pending(self, key, info, began)

    # -- reading --------------------------------------------------------------------------------------------------

    def open_source(self, run_id: str, agent_id: str, token: str) -> S3Source:
        """Open a blob for reading with one suffix-range ``GET``, or none when its tail is cached (see
        :class:`S3Source`).

        Raises:
            FileNotFoundError: there is no such object (the caller decides what that means).
            StorageError: any other failure of the object store.
        """
        return self._open_key(self.key(run_id, agent_id, token))

    def _open_key(self, key: str) -> S3Source:
        cached = self._tails.get(key)
        if cached is not None:
            return S3Source(self, key, *cached, requests=0)
        got, tail = self._ranged_get(key, f"bytes=-{TAIL_BYTES}", f"no object {key}", f"opening {key}")
        total = got.get("ContentRange", "").rpartition("/")[2]
        size = digits_int(total)
        size = len(tail) if size is None else size
        if len(tail) > size:
            raise StorageError(f"the object store sent {len(tail)} bytes of an object of {size}")
        etag = str(got.get("ETag", ""))
        self._tails.put(key, (size, etag, tail))
        return S3Source(self, key, size, etag, tail)

    def open_file(self, found: BlobFile) -> S3Source:
        """Open a blob listed by :meth:`blob_files` for reading. Raises FileNotFoundError, StorageError."""
        return self._open_key(found.location)

    def locate(self, run_id: str | None = None, agent_id: str | None = None, token: str | None = None) -> str:
        """``s3://bucket/key`` of a blob, for reports; without arguments, where the blobs are."""
        if run_id is None or agent_id is None or token is None:
            return f"s3://{self.bucket}/{self.prefix}"
        return self.path(run_id, agent_id, token)

    def key_of(self, where: tuple[str, str], token: str) -> str:
        """The key of blob ``token`` listed under ``where`` (its encoded run and agent names, as listed)."""
        if not ids.TOKEN_RE.match(token) or any("/" in part or not part for part in where):
            raise ValueError(f"not a listed blob: {where!r} {token!r}")
        return (f"{self.prefix}/" if self.prefix else "") + f"{where[0]}/{where[1]}/{token}.zst"

    def get_range(self, key: str, start: int, end: int) -> bytes:
        """Bytes ``[start, end)`` of an object, by one range ``GET``.

        Raises:
            FileNotFoundError: the object is gone (deleted after it was opened). StorageError: any other failure.
        """
        _, data = self._ranged_get(key, f"bytes={start}-{end - 1}",
                                   f"the object {key} is gone (deleted while it was being read)", f"reading {key}")
        if len(data) > end - start:
            raise StorageError(f"the object store sent {len(data)} bytes for a range of {end - start}")
        return data

    def _ranged_get(self, key: str, ranged: str, missing: str, doing: str) -> tuple[dict, bytes]:
        """One ``GET`` of an HTTP byte range (``ranged``, RFC 9110 syntax) of an object: its response and body.
        Raises FileNotFoundError (``missing``) when the object is gone, StorageError (``doing``) otherwise."""
        try:
            got = self.client().get_object(Bucket=self.bucket, Key=key, Range=ranged)
            return got, got["Body"].read()
        except self._errors() as exc:
            if error_code(exc) in _MISSING:
                raise FileNotFoundError(missing) from None
            raise self.failure(exc, doing) from None

    def head(self, key: str) -> dict | None:
        """The object's metadata, or ``None`` if there is no such object. Raises StorageError."""
        try:
            return self.client().head_object(Bucket=self.bucket, Key=key)
        except self._errors() as exc:
            if error_code(exc) in _MISSING:
                return None
            raise self.failure(exc, f"checking {key}") from None

    # -- removing -------------------------------------------------------------------------------------------------

    def delete_keys(self, keys: Iterable[str]) -> int:
        """Delete objects, :data:`DELETE_BATCH` keys per request; return how many the store confirmed. Failures are
        left to the orphan sweep. Never raises."""
        return len(self.delete_confirmed(keys)[0])

    def delete_confirmed(self, keys: Iterable[str]) -> tuple[set[str], list[str]]:
        """Delete objects, :data:`DELETE_BATCH` keys per request; return ``(the keys the store confirmed deleted,
        the keys it did not)`` -- a key the store reported an error for, or one of a request that failed. A key
        this process is reading is in neither: its deletion waits for its last reader (:attr:`held`,
        :mod:`scratchfs.engine.s3_readers`). Never raises: what was not deleted is left to the next sweep."""
        keys = self.held.defer(keys)
        done: set[str] = set()
        for start in range(0, len(keys), DELETE_BATCH):
            batch = keys[start : start + DELETE_BATCH]
            try:
                got = self.client().delete_objects(Bucket=self.bucket, Delete={
                    "Objects": [{"Key": k} for k in batch], "Quiet": False})
            except (*self._errors(), StorageError):
                continue
            done.update(str(d.get("Key")) for d in got.get("Deleted", []))
        return done, [k for k in keys if k not in done]

    def exists(self, run_id: str, agent_id: str, token: str) -> bool:
        """True if the blob's object is there (one HEAD request).

        Raises:
            StorageError: the object store failed or refused.
        """
        key = self.object_key(run_id, agent_id, token)
        return key is not None and self.head(key) is not None

    def forget(self, run_id: str, agent_id: str, token: str) -> None:
        """Nothing to do: :meth:`unlink` deleted the object (no object outlives its row)."""

    def unlink(self, run_id: str, agent_id: str, token: str) -> int:
        """Delete a blob whose row is gone (once this process's readers of it are done: :mod:`s3_readers`); return
        the bytes freed (0 if it was already gone, the store failed -- a later sweep removes objects no row names --,
        it waits for its readers, or another index owns the prefix now: :attr:`owned`, checked right before, since
        the object may be an entry a rebuild restored there). Never raises."""
        key = self.object_key(run_id, agent_id, token)
        if key is None or not self.held.defer([key]):
            return 0
        if not self.still_owned():
            return 0
        try:
            found = self.head(key)
        except StorageError:
            return 0
        if found is None:
            return 0
        return int(found.get("ContentLength", 0)) if self.delete_keys([key]) else 0

    def still_owned(self) -> bool:
        """Whether the prefix is this index's still, checked now (:attr:`owned`: one ``HEAD`` of the marker), before
        deleting an object whose row this index removed (an overwrite's old value, a deleted key, a deletion that
        waited for its readers): after a takeover the object may be an entry the rebuild restored. False, logging
        why, when another index owns it or the store could not say (the object is left to the owner's sweep).
        Never raises."""
        try:
            self.owned(0.0)
        except (InvalidArgument, StorageError) as exc:
            log.warning("scratchfs: an object left in place, not deleted: %s", exc)
            return False
        return True

    def unlink_many(self, blobs: list[tuple[str, str, str]]) -> int:
        """Delete many blobs ``(run_id, agent_id, token)`` with batched requests (no ``HEAD`` first); return how
        many objects the store confirmed deleted. Never raises."""
        return self.delete_keys(key for key in (self.object_key(*b) for b in blobs) if key is not None)

    @contextmanager
    def _process_lock(self, exclusive: bool, timeout: float) -> Iterator[None]:
        del exclusive  # one lock for both: correct, if less concurrent, within a process
        if not self._local_lock.acquire(timeout=max(timeout, 0.001)):
            raise StoreBusy(f"the delete lock stayed busy past the busy timeout ({timeout:g} s)")
        try:
            yield
        finally:
            self._local_lock.release()

    def delete_lock(self, exclusive: bool, timeout: float) -> AbstractContextManager[None]:
        """The delete lock: the index's (shared by every host) when given, else one within this process."""
        if self._external_lock is not None:
            return self._external_lock(exclusive, timeout)
        return self._process_lock(exclusive, timeout)

    def detach_scope(self, run_id: str, agent_id: str | None) -> int | None:
        """Delete every object of a run (or one agent) now, under the exclusive delete lock, so that a write in
        flight finds its object gone and fails instead of committing a row for it. Returns the objects deleted,
        or ``None`` if there were none. Raises StorageError if the listing fails (the rows are already gone: the
        sweeper reclaims what is left), InvalidArgument if another index owns the prefix now (checked first)."""
        self.owned(0.0)  # one HEAD: a fenced-off index deletes none of the new owner's objects
        keys = [obj.location for obj in self.list_objects(self.scope_prefix(run_id, agent_id))]
        return self.delete_keys(keys) if keys else None  # (those being read: when they are done)

    def purge(self, detached: object) -> None:
        """Nothing is left to remove after :meth:`detach_scope` (it deleted the objects already)."""

    def list_objects(self, prefix: str | None = None) -> list[S3Object]:
        """Every blob object under ``prefix`` (default: the store's), sorted by key; other keys are not ours and
        are left alone. Raises StorageError."""
        base = (f"{self.prefix}/" if self.prefix else "") if prefix is None else prefix
        root = f"{self.prefix}/" if self.prefix else ""
        found, other, skew = [], [], None
        try:
            pages = self.client().get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=base)
            for page in pages:
                skew = clock_skew(page) if skew is None else skew  # (modified: on this host's clock, not the store's)
                for item in page.get("Contents", []):
                    match = _KEY_RE.match(item["Key"][len(root):])
                    if match and item["Key"].startswith(root):
                        found.append(S3Object(match["run"], match["agent"], item["Key"], match["token"],
                                              int(item.get("Size", 0)), item["LastModified"].timestamp() + skew))
                    elif item["Key"] != f"{root}{MARKER_NAME}":
                        other.append(item["Key"])
        except self._errors() as exc:
            raise self.failure(exc, "listing blobs") from None
        if prefix is None:
            self.unread_listed = sorted(other)
        return sorted(found, key=lambda o: o.location)

    def unread(self) -> list[tuple[str, str]]:
        """``(key, why)`` of every object under the store's prefix that is not a blob object of an S3 store (nor its
        marker): a local store's segment files (``.zseg``, copied here with its blob files) and anything else. They
        are left alone, but never silently: fsck names them, a rebuild counts them skipped. Raises StorageError."""
        self.list_objects()
        return [(key, unread_why(key)) for key in self.unread_listed]

    def blob_files(self) -> list[BlobFile]:
        """Every blob of the store, as :class:`~scratchfs.engine.protocols.BlobFile` records (location = key), for
        fsck; the sweeper uses :meth:`list_objects` (with sizes and times)."""
        return [BlobFile(o.run, o.agent, o.location, o.token) for o in self.list_objects()]

    def close(self) -> None:
        """Forget the client (its pooled connections close with it). Idempotent."""
        self._client = None


_LOADER: list = []
_LOADER_LOCK = forks.renewed_in_child(sys.modules[__name__], "_LOADER_LOCK", threading.Lock)


def _data_loader(session: Any) -> Any:
    """One botocore data loader per process (it caches the parsed service model: a client costs 60 ms, not 300)."""
    with _LOADER_LOCK:
        if not _LOADER:
            _LOADER.append(session.get_component("data_loader"))
        return _LOADER[0]
