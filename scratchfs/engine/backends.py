"""Opening the two storage backends of a store: the index and the blob store, chosen by a location.

Today's backends are the embedded ones: a SQLite index (``index.sqlite`` under the root) and per-run/per-agent
directories of blob files (``runs/`` under the root). The API layer calls :func:`open_backends` and holds what it
returns through the protocols of :mod:`scratchfs.engine.protocols`, so it never names SQLite or a path.
"""

from __future__ import annotations

from pathlib import Path

from scratchfs.engine.local_blobs import Blobs
from scratchfs.engine.protocols import BlobStore, IndexBackend
from scratchfs.engine.sqlite_index import Index


def open_backends(root: Path, *, busy_timeout: float, durable: bool, frame_bytes: int,
                  level: int) -> tuple[IndexBackend, BlobStore]:
    """The index and the blob store of the store at ``root`` (which exists: see the store's root preparation).

    Args:
        root: the store's root directory.
        busy_timeout: seconds to wait for a busy index or lock.
        durable: ``fsync`` blobs and their directories, ``synchronous=FULL`` for SQLite.
        frame_bytes: decompressed bytes per blob frame. level: the zstd level.

    Raises:
        StorageError: the index cannot be opened, is not a scratchfs index, or is empty or missing beside existing
            blobs. StoreBusy: it stayed locked past ``busy_timeout``.
    """
    blobs = Blobs(root, frame_bytes, level, durable)
    index = Index(root / "index.sqlite", root / "locks", busy_timeout, durable,
                  existing_data=lambda: bool(blobs.blob_files()))  # an empty index beside blobs is refused
    return index, blobs


__all__ = ["open_backends"]
