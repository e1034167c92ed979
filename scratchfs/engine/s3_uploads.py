"""An S3 store's uploads: one object's upload (:class:`Upload`: one ``PUT``, or a multipart upload of parts of
:data:`~scratchfs.engine.s3_blobs.PART_BYTES` drained from the writer's spool, :func:`drain`), and the incomplete
multipart uploads under its prefix: what ``fsck`` counts, with the oldest one's age, and what the fleet sweep aborts.

A large spill is a multipart upload (:mod:`scratchfs.engine.s3_blobs`). One that failed is aborted -- unless the
store stopped answering in the middle, where an abort would wait as long again -- and one whose writer was killed
(``SIGKILL`` after its first part) is never aborted by it: such an upload holds its parts' storage (billed, and
invisible to a listing of objects). The fleet sweep ends them (:func:`end_stale_uploads`): the incomplete uploads of
blob keys under the prefix begun over ``orphan_grace`` ago (their ``Initiated`` on this host's clock, as objects'
``LastModified``: :func:`~scratchfs.engine.s3_client.clock_skew`) are aborted, as objects no row names are removed
once that old. A spill still uploading then (one slower than the grace) fails with StorageError at its next part or
its completion (``NoSuchUpload``: :class:`Upload` says what happened), nothing stored. No adoption rule applies: an
incomplete upload holds no object, so no row of a previous owner (:mod:`scratchfs.engine.takeover`) can name it.
The bucket's lifecycle rule for incomplete multipart uploads is still recommended for a prefix no sweeper runs for.
``fsck`` says how many there are and how old the oldest is. Library: boto3's ``ListMultipartUploads`` paginator
(IAM: ``s3:ListBucketMultipartUploads``; the abort: ``s3:AbortMultipartUpload``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from scratchfs.engine.s3_client import client_errors, clock_skew, error_code
from scratchfs.foundation.errors import StorageError, StoreBusy

__all__ = ["EndedUploads", "IncompleteUploads", "Upload", "drain", "end_stale_uploads", "incomplete_uploads"]


@dataclass(frozen=True)
class IncompleteUploads:
    """Multipart uploads begun under the prefix and neither completed nor aborted.

    Attributes:
        count: how many.
        oldest: when the oldest began, epoch seconds (``None`` when there is none).
    """

    count: int = 0
    oldest: float | None = None


def incomplete_uploads(blobs: Any) -> IncompleteUploads | None:
    """The incomplete multipart uploads under ``blobs``' prefix (an :class:`~scratchfs.engine.s3_blobs.S3Blobs`);
    ``None`` for a blob store that makes none (files under a root). Uploads in flight now count too (a spill being
    written).

    Raises:
        StorageError: the object store refused (no ``s3:ListBucketMultipartUploads``) or did not answer.
    """
    if getattr(blobs, "bucket", None) is None:
        return None
    count, oldest = 0, None
    try:
        for page in _listing(blobs):
            for upload in page.get("Uploads", []):
                count += 1
                began = upload["Initiated"].timestamp()
                oldest = began if oldest is None else min(oldest, began)
    except client_errors() as exc:
        raise blobs.failure(exc, "listing incomplete multipart uploads") from None
    return IncompleteUploads(count, oldest)


@dataclass(frozen=True)
class EndedUploads:
    """What :func:`end_stale_uploads` did.

    Attributes:
        aborted: incomplete uploads aborted.
        failed: aborts the store refused or did not answer (every one due when the pairing check before them
            failed), plus 1 when the listing itself failed (then no upload was looked at).
        error: the first of those failures (``None``: none).
    """

    aborted: int = 0
    failed: int = 0
    error: StorageError | None = None


def end_stale_uploads(blobs: Any, grace: float, clock: Callable[[], float],
                      fence: Callable[[], None] = lambda: None) -> EndedUploads:
    """Abort the incomplete multipart uploads of blob keys under the prefix of ``blobs`` (an
    :class:`~scratchfs.engine.s3_blobs.S3Blobs`: its :meth:`~scratchfs.engine.s3_blobs.S3Blobs.is_blob_key`; no
    other key of the bucket is touched) begun ``grace`` seconds or more before ``clock()`` (epoch seconds): their
    ``Initiated``, on the store's clock, plus :func:`~scratchfs.engine.s3_client.clock_skew` of the listing, as
    objects' ``LastModified``. ``fence()`` (the store's pairing check) is called once before the first abort. An
    upload completed or aborted since the listing (``NoSuchUpload``) is counted neither aborted nor failed.

    Raises:
        InvalidArgument: another index owns the prefix now (``fence``; nothing aborted). A failure of the listing,
            of an abort or of ``fence``'s check itself (StorageError, StoreBusy: then none is aborted) is returned
            (:class:`EndedUploads`), never raised: the sweep goes on.
    """
    due: list[tuple[str, str]] = []
    try:
        for page in _listing(blobs):
            skew, at = clock_skew(page), clock()
            due += [(u["Key"], u["UploadId"]) for u in page.get("Uploads", [])
                    if blobs.is_blob_key(u["Key"]) and at - (u["Initiated"].timestamp() + skew) >= grace]
    except client_errors() as exc:
        return EndedUploads(0, 1, blobs.failure(exc, "listing incomplete multipart uploads"))
    except (StorageError, StoreBusy) as exc:  # (a check left to the store's first request: blobs.gate)
        return EndedUploads(0, 1, exc)
    try:
        if due:
            fence()  # the prefix is still this index's, right before its uploads are ended
    except (StorageError, StoreBusy) as exc:  # (not known: none is aborted)
        return EndedUploads(0, len(due), exc)
    aborted, failed, first = 0, 0, None
    for key, upload_id in due:
        try:
            blobs.client().abort_multipart_upload(Bucket=blobs.bucket, Key=key, UploadId=upload_id)
            aborted += 1
        except client_errors() as exc:
            if error_code(exc) != "NoSuchUpload":
                failed += 1
                first = first or blobs.failure(exc, f"aborting the incomplete upload of {key}")
    return EndedUploads(aborted, failed, first)


class Upload:
    """One object's upload (:meth:`S3Blobs.write <scratchfs.engine.s3_blobs.S3Blobs.write>`): a single ``PUT`` when
    it ends within its first part, else a multipart upload. ``blobs``: the :class:`~scratchfs.engine.s3_blobs.S3Blobs`
    (its client, bucket and failure messages); ``key``: the object's key. Each request that fails raises
    :class:`StorageError` naming the endpoint -- or, for a multipart upload aborted meanwhile (``NoSuchUpload``: the
    fleet sweep ends uploads begun over ``orphan_grace`` ago), naming that; :meth:`abort` never raises."""

    def __init__(self, blobs: Any, key: str) -> None:
        self.blobs = blobs
        self.key = key
        self.upload_id: str | None = None
        self.parts: list[dict] = []
        self.began = 0.0  # time.monotonic() as the multipart upload began

    def _call(self, doing: str, method: str, **kwargs: Any) -> dict:
        try:
            return getattr(self.blobs.client(), method)(Bucket=self.blobs.bucket, Key=self.key, **kwargs)
        except client_errors() as exc:
            if error_code(exc) == "NoSuchUpload" and self.upload_id is not None:
                raise StorageError(
                    f"the multipart upload of {self.key} was aborted before it completed, "
                    f"{time.monotonic() - self.began:.0f} s after it began (error NoSuchUpload): the fleet sweep "
                    "aborts uploads begun over orphan_grace ago (as does the bucket's lifecycle rule after its "
                    "days), so a spill that takes longer fails; nothing of it is stored: retry it, and set "
                    "orphan_grace above the longest spill") from None
            raise self.blobs.failure(exc, f"{doing} {self.key}") from None

    def part(self, data: bytes) -> None:
        """Upload ``data`` as the next part (the multipart upload begun with the first). Raises StorageError; one
        naming what happened when the upload was aborted meanwhile (a sweep, ``NoSuchUpload``)."""
        if self.upload_id is None:
            self.began = time.monotonic()
            self.upload_id = self._call("starting the upload of", "create_multipart_upload")["UploadId"]
        number = len(self.parts) + 1
        got = self._call("uploading", "upload_part", UploadId=self.upload_id, PartNumber=number, Body=data)
        self.parts.append({"PartNumber": number, "ETag": got["ETag"]})

    def finish(self, data: bytes) -> None:
        """Upload the last bytes and complete the object (one ``PUT`` when no part was uploaded)."""
        if self.upload_id is None:
            self._call("uploading", "put_object", Body=data)
            return
        if data:
            self.part(data)
        self._call("completing the upload of", "complete_multipart_upload", UploadId=self.upload_id,
                   MultipartUpload={"Parts": self.parts})
        self.upload_id = None

    def abort(self) -> None:
        """Abort a multipart upload begun (nothing for a single ``PUT``). Never raises."""
        if self.upload_id is not None:
            try:
                self._call("aborting the upload of", "abort_multipart_upload", UploadId=self.upload_id)
            except StorageError:
                pass  # an incomplete upload holds no object; the fleet sweep (end_stale_uploads) ends it
            self.upload_id = None


def drain(fd: int) -> bytes:
    """All the bytes of the spool open at ``fd`` (a regular file, read whole into memory: what the writer wrote
    since the last drain, :data:`~scratchfs.engine.s3_blobs.PART_BYTES` or more for a part, any size for the last
    bytes); the spool is then emptied and its position put back at 0 (the writer goes on writing at its start).
    Raises OSError as ``pread``/``ftruncate`` do."""
    size = os.fstat(fd).st_size
    data = os.pread(fd, size, 0)
    os.ftruncate(fd, 0)
    os.lseek(fd, 0, os.SEEK_SET)
    return data


def _listing(blobs: Any) -> Any:
    """The pages of ``ListMultipartUploads`` under ``blobs``' prefix (boto3's paginator: each a dict whose
    ``Uploads`` lists ``Key``, ``UploadId``, ``Initiated``). Raises the client's errors as it is iterated."""
    base = f"{blobs.prefix}/" if blobs.prefix else ""
    return blobs.client().get_paginator("list_multipart_uploads").paginate(Bucket=blobs.bucket, Prefix=base)
