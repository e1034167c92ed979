"""Load a folder of recorded tool outputs into a scope (``scratchfs load DIR``), for tests that start from fixtures."""

from __future__ import annotations

import os
from pathlib import Path

from scratchfs.api.scope import Scope
from scratchfs.api.stub import Stub
from scratchfs.foundation.errors import InvalidArgument


def iter_files(folder: str | os.PathLike[str]) -> list[Path]:
    """Every regular file under ``folder``, recursively, sorted by relative path; names starting with ``.`` (and
    everything under such folders) are skipped, and symbolic links are not followed.

    Raises:
        InvalidArgument: ``folder`` is not a directory.
    """
    root = Path(folder)
    if not root.is_dir():
        raise InvalidArgument(f"not a folder: {str(root)!r}")
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in filenames:
            path = Path(dirpath, name)
            if not name.startswith(".") and path.is_file() and not path.is_symlink():
                found.append(path)
    return sorted(found, key=lambda p: p.relative_to(root).as_posix())


def load_dir(scope: Scope, folder: str | os.PathLike[str], *, tool: str | None = None,
             ttl: float | None = None) -> dict[str, Stub]:
    """Spill every file of ``folder`` (see :func:`iter_files`) into ``scope``, streaming each from disk.

    Args:
        tool: the source tool recorded for every file; default: each file's name without its last suffix
            (``browser.get.html`` -> ``browser.get``).
        ttl: seconds until the entries expire (default: the store's).

    Returns:
        ``{relative path (with "/"): stub}``, in the order spilled.

    Raises:
        InvalidArgument: ``folder`` is not a directory, or a bad ``tool`` or ``ttl``.
        StorageError, StoreBusy: as :meth:`Scope.spill`; files spilled before the failure stay in the store.
    """
    root = Path(folder)
    stubs: dict[str, Stub] = {}
    for path in iter_files(root):
        with open(path, "rb") as f:
            stubs[path.relative_to(root).as_posix()] = scope.spill(f, source_tool=tool or path.stem, ttl=ttl)
    return stubs


__all__ = ["iter_files", "load_dir"]
