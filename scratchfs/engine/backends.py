"""Opening the two storage backends of a store: the index and the blob store, chosen by a location.

Today's backends are the embedded ones: a SQLite index (``index.sqlite`` under the root) and per-run/per-agent
directories of blob files (``runs/`` under the root). The API layer calls :func:`open_backends` and holds what it
returns through the protocols of :mod:`scratchfs.engine.protocols`, so it never names SQLite or a path.
"""

from __future__ import annotations

from pathlib import Path

from scratchfs.engine.local_blobs import BLOB_NAME_RE, BLOB_SUFFIX, Blobs
from scratchfs.engine.protocols import BlobStore, IndexBackend
from scratchfs.engine.root import prepare_root
from scratchfs.engine.sqlite_index import Index


def open_backends(root: Path, *, busy_timeout: float, durable: bool, frame_bytes: int,
                  level: int) -> tuple[IndexBackend, BlobStore]:
    """The index and the blob store of the store at ``root``, created private (0700/0600) when missing and checked
    when not (:func:`scratchfs.engine.root.prepare_root`).

    Args:
        root: the store's root directory.
        busy_timeout: seconds to wait for a busy index or lock.
        durable: ``fsync`` blobs and their directories, ``synchronous=FULL`` for SQLite.
        frame_bytes: decompressed bytes per blob frame. level: the zstd level.

    Raises:
        StorageError: the root cannot be created or is not private and ours (see ``prepare_root``); the index cannot
            be opened, is not a scratchfs index, or is empty or missing beside existing
            blobs. StoreBusy: it stayed locked past ``busy_timeout``.
    """
    prepare_root(root)  # 0700 root, 0600 index files before SQLite opens them; no links followed
    blobs = Blobs(root, frame_bytes, level, durable)
    index = Index(root / "index.sqlite", root / "locks", busy_timeout, durable,
                  existing_data=lambda: bool(blobs.blob_files()))  # an empty index beside blobs is refused
    return index, blobs


def create_empty_index(root: Path, *, busy_timeout: float) -> None:
    """Give the store at ``root`` an empty index where its index is missing or empty, even beside existing blobs
    (which :func:`open_backends` refuses, so that a lost index is never silently replaced): the first step of
    rebuilding the index from the blobs. A file that is not an empty or scratchfs index is still refused.

    Raises:
        StorageError: the root or the index cannot be created, or the index is another application's file.
        StoreBusy: it stayed locked.
    """
    prepare_root(root)  # private modes before SQLite creates the file
    Index(root / "index.sqlite", root / "locks", busy_timeout).close()


__all__ = ["BLOB_NAME_RE", "BLOB_SUFFIX", "create_empty_index", "open_backends"]  # the blob names, for fsck
