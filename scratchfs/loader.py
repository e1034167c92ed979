"""Load a folder of recorded tool outputs into a scope (``scratchfs load DIR``), for tests that start from fixtures."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from scratchfs.api.scope import Scope
from scratchfs.api.stub import Stub
from scratchfs.foundation.errors import InvalidArgument


def iter_files(folder: str | os.PathLike[str], skipped: list[str] | None = None) -> list[Path]:
    """Every regular file under ``folder``, recursively, sorted by relative path; names starting with ``.`` (and
    everything under such folders) are skipped, and symbolic links are not followed. The relative paths (with
    ``/``) of the other entries left out -- links, FIFOs, devices, sockets -- are appended to ``skipped`` when given.

    Raises:
        InvalidArgument: ``folder`` is not a directory.
    """
    root = Path(folder)
    if not root.is_dir():
        raise InvalidArgument(f"not a folder: {str(root)!r}")
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        # os.walk lists a link to a directory among the directories (and does not enter it)
        links = {d for d in dirnames if not d.startswith(".") and Path(dirpath, d).is_symlink()}
        if skipped is not None:
            skipped.extend(Path(dirpath, d).relative_to(root).as_posix() for d in links)
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in links)
        for name in filenames:
            path = Path(dirpath, name)
            if name.startswith("."):
                continue
            if path.is_symlink() or not path.is_file():
                if skipped is not None:
                    skipped.append(path.relative_to(root).as_posix())
                continue
            found.append(path)
    if skipped is not None:
        skipped.sort()
    return sorted(found, key=lambda p: p.relative_to(root).as_posix())


def load_dir(scope: Scope, folder: str | os.PathLike[str], *, tool: str | None = None,
             ttl: float | None = None, skipped: list[str] | None = None) -> dict[str, Stub]:
    """Spill every file of ``folder`` (see :func:`iter_files`) into ``scope``, streaming each from disk.

    Args:
        tool: the source tool recorded for every file; default: each file's name without its last suffix
            (``browser.get.html`` -> ``browser.get``).
        ttl: seconds until the entries expire (default: the store's).
        skipped: a list the relative paths of entries that are not regular files are appended to (as
            :func:`iter_files`), including one that became a link or another kind of file after it was listed.

    Returns:
        ``{relative path (with "/"): stub}``, in the order spilled.

    Raises:
        InvalidArgument: ``folder`` is not a directory, or a bad ``tool`` or ``ttl``.
        StorageError, StoreBusy: as :meth:`Scope.spill`; files spilled before the failure stay in the store.
    """
    root = Path(folder)
    stubs: dict[str, Stub] = {}
    for path in iter_files(root, skipped):
        name = path.relative_to(root).as_posix()
        try:  # no link followed, no FIFO waited on: what changed since it was listed is skipped
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError:
            fd = None
        if fd is not None and not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            fd = None
        if fd is None:
            if skipped is not None:
                skipped.append(name)
            continue
        with os.fdopen(fd, "rb") as f:
            stubs[name] = scope.spill(f, source_tool=tool or path.stem, ttl=ttl)
    return stubs


__all__ = ["iter_files", "load_dir"]
