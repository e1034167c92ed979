"""Where the last sweep's slices stopped (:mod:`scratchfs.engine.sweeper`: steps 2 to 4 check a bounded slice each
sweep): the last row id checked, and the last ``(run, agent)`` directory, kept as JSON in the root's
``locks/sweep.cursor``. The file is reached from the root's descriptor without following a link
(:mod:`scratchfs.engine.safe_fs`), overwritten in place at a fixed size, and a link, FIFO or directory found at its
name -- or a file with another name too (a hard link: writing it in place would change a file elsewhere) -- is removed
(logged) so that the cursor can be written again; a cursor that cannot be read or written only makes the next sweep
start its slices over."""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable

from scratchfs.engine import safe_fs
from scratchfs.engine.local_blobs import Blobs
from scratchfs.foundation.errors import ScratchError, StorageError

__all__ = ["CURSOR_NAME", "SweepCursor"]

log = logging.getLogger(__name__)

CURSOR_NAME = "sweep.cursor"
"""Where the last sweep's slices stopped, in the root's ``locks/``."""
_CURSOR_BYTES = 4096


class SweepCursor:
    """Where the last sweep's slices stopped: the last row id checked, and the last ``(run, agent)`` directory."""

    def __init__(self, row: int = 0, run: str = "", agent: str = "") -> None:
        self.row, self.run, self.agent = row, run, agent

    @classmethod
    def load(cls, blobs: Blobs) -> SweepCursor:
        """The cursor the last sweep saved under ``blobs``' root; one at the beginning when there is none yet, or it
        cannot be read (the slices start over: no harm done). Raises nothing."""
        try:
            data = json.loads(_cursor_file(blobs, os.O_RDONLY, lambda fd: os.pread(fd, _CURSOR_BYTES, 0)))
            return cls(int(data["row"]), str(data["run"]), str(data["agent"]))
        except (OSError, ScratchError, ValueError, KeyError, TypeError):
            return cls()  # no cursor yet (or unreadable): start from the beginning

    def save(self, blobs: Blobs) -> None:
        """Overwrite the cursor in place, padded to a fixed size: no truncation, which on ext4 would flush the file
        (``auto_da_alloc``) and cost a sweep milliseconds. Errors are ignored (a full disk: the next sweep starts
        over, no harm done)."""
        text = json.dumps({"row": self.row, "run": self.run, "agent": self.agent}).encode()
        for _ in range(2):
            try:
                _cursor_file(blobs, os.O_WRONLY | os.O_CREAT,
                             lambda fd: os.pwrite(fd, text.ljust(max(_CURSOR_BYTES, len(text))), 0))
                return
            except ScratchError:
                # a link, FIFO or directory at its name: every sweep would start over, silently; a hard link: written
                # in place, a file elsewhere would change
                if not _clear_cursor(blobs):
                    return
            except OSError:
                return


def _clear_cursor(blobs: Blobs) -> bool:
    """Remove what is at ``locks/sweep.cursor`` and is no regular file of its own -- a link itself (never its
    target), a FIFO, an empty directory, a file with other names (only this name) -- so that a cursor can be written
    there again; True if it went (logged)."""
    try:
        locks = safe_fs.walk(blobs.root_fd, ("locks",))
    except (OSError, ScratchError):
        return False
    try:
        found = safe_fs.describe(locks, CURSOR_NAME)
        if found == "a regular file" and os.lstat(CURSOR_NAME, dir_fd=locks).st_nlink > 1:
            found = "a file with other names (a hard link)"
        elif found in ("a regular file", "missing"):
            return False
        (os.rmdir if found == "a directory" else os.unlink)(CURSOR_NAME, dir_fd=locks)
        log.warning("scratchfs: removed %s at locks/%s (where the sweep keeps its place) to write the cursor",
                    found, CURSOR_NAME)
        return True
    except OSError as exc:
        log.warning("scratchfs: cannot remove what is at locks/%s (%s): each sweep starts its slices over", CURSOR_NAME,
                    exc)
        return False
    finally:
        os.close(locks)


def _cursor_file(blobs: Blobs, flags: int, use: Callable[[int], object]) -> object:
    """``use(fd)`` of ``locks/sweep.cursor``, reached without following a link. Raises StorageError for a file with
    other names (a hard link), never used."""
    locks = safe_fs.walk(blobs.root_fd, ("locks",))
    try:
        fd, found = safe_fs.open_file_stat(locks, CURSOR_NAME, flags, "locks/" + CURSOR_NAME)
        try:
            if found.st_nlink > 1:
                raise StorageError(f"locks/{CURSOR_NAME} has {found.st_nlink} names (a hard link): never written")
            return use(fd)
        finally:
            os.close(fd)
    finally:
        os.close(locks)
