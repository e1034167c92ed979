"""Incomplete multipart uploads under an S3 store's prefix: what ``fsck`` counts, with the oldest one's age.

A large spill is a multipart upload (:mod:`scratchfs.engine.s3_blobs`). One that failed is aborted -- unless the
store stopped answering in the middle, where an abort would wait as long again: that upload stays, holding its parts'
storage (billed, and invisible to a listing of objects) until the bucket's lifecycle rule for incomplete multipart
uploads ends it. ``fsck`` says how many there are and how old the oldest is, so that a bucket without the rule is
noticed. Library: boto3's ``ListMultipartUploads`` paginator (IAM: ``s3:ListBucketMultipartUploads``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scratchfs.engine.s3_client import client_errors

__all__ = ["IncompleteUploads", "incomplete_uploads"]


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
