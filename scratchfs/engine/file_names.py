"""The names of the files a local store writes in an agent directory: a blob file ``<token>.zst``
(:data:`BLOB_NAME_RE`) and a segment ``<name>.zseg`` (:data:`~scratchfs.engine.segments.SEGMENT_NAME_RE`); whatever
else is named otherwise is not the store's (:func:`name_kind`: one check for fsck's walk, its loose modes and its odd
and foreign names)."""

from __future__ import annotations

import re

from scratchfs.engine.segments import SEGMENT_NAME_RE

__all__ = ["BLOB_NAME_RE", "BLOB_SUFFIX", "blob_token", "name_kind"]

BLOB_SUFFIX = ".zst"
BLOB_NAME_RE = re.compile(r"([a-z2-7]{24})\.zst\Z")
"""A blob file's name; its group 1 is the blob's token."""


def name_kind(name: str) -> str | None:
    """What a name in an agent directory says the store wrote there: ``"blob"`` (``<token>.zst``), ``"segment"``
    (``<name>.zseg``), ``None`` (neither)."""
    return "blob" if BLOB_NAME_RE.match(name) else "segment" if SEGMENT_NAME_RE.match(name) else None


def blob_token(name: str) -> str | None:
    """The token of a blob file's name ``<token>.zst`` (:func:`name_kind` ``"blob"``); ``None`` for any other name."""
    return name[: -len(BLOB_SUFFIX)] if name_kind(name) == "blob" else None
