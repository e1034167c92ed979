"""An S3 store's uploads: one object's upload (:class:`Upload`: one ``PUT``, or a multipart upload of parts of
:data:`~scratchfs.engine.s3_blobs.PART_BYTES` drained from the writer's spool, :func:`drain`), and the incomplete
multipart uploads under its prefix: what ``fsck`` counts, with the oldest one's age.

A large spill is a multipart upload (:mod:`scratchfs.engine.s3_blobs`). One that failed is aborted -- unless the
store stopped answering in the middle, where an abort would wait as long again: that upload stays, holding its parts'
storage (billed, and invisible to a listing of objects) until the bucket's lifecycle rule for incomplete multipart
uploads ends it. ``fsck`` says how many there are and how old the oldest is, so that a bucket without the rule is
noticed. Library: boto3's ``ListMultipartUploads`` paginator (IAM: ``s3:ListBucketMultipartUploads``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from scratchfs.engine.s3_client import client_errors
from scratchfs.foundation.errors import StorageError

__all__ = ["IncompleteUploads", "Upload", "drain", "incomplete_uploads"]


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
    base = f"{blobs.prefix}/" if blobs.prefix else ""
    count, oldest = 0, None
    try:
        pages = blobs.client().get_paginator("list_multipart_uploads").paginate(Bucket=blobs.bucket, Prefix=base)
        for page in pages:
            for upload in page.get("Uploads", []):
                count += 1
                began = upload["Initiated"].timestamp()
                oldest = began if oldest is None else min(oldest, began)
    except client_errors() as exc:
        raise blobs.failure(exc, "listing incomplete multipart uploads") from None
    return IncompleteUploads(count, oldest)


class Upload:
    """One object's upload (:meth:`S3Blobs.write <scratchfs.engine.s3_blobs.S3Blobs.write>`): a single ``PUT`` when
    it ends within its first part, else a multipart upload. ``blobs``: the :class:`~scratchfs.engine.s3_blobs.S3Blobs`
    (its client, bucket and failure messages); ``key``: the object's key. Each request that fails raises
    :class:`StorageError` naming the endpoint; :meth:`abort` never raises."""

    def __init__(self, blobs: Any, key: str) -> None:
        self.blobs = blobs
        self.key = key
        self.upload_id: str | None = None
        self.parts: list[dict] = []

    def _call(self, doing: str, method: str, **kwargs: Any) -> dict:
        try:
            return getattr(self.blobs.client(), method)(Bucket=self.blobs.bucket, Key=self.key, **kwargs)
        except client_errors() as exc:
            raise self.blobs.failure(exc, f"{doing} {self.key}") from None

    def part(self, data: bytes) -> None:
        """Upload ``data`` as the next part (the multipart upload begun with the first)."""
        if self.upload_id is None:
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
                pass  # an incomplete upload holds no object; the bucket's lifecycle rule or a later abort ends it
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
