"""The trash of a store root (``trash/``): a run's or agent's directory is renamed there first (atomic: no new file
can land in it), then removed with everything in it, following no link; what cannot be removed now is left for the
sweeper, which empties the trash (:mod:`scratchfs.engine.local_blobs`, :mod:`scratchfs.engine.sweeper`). Every
directory is reached from the root's descriptor one component at a time (:mod:`scratchfs.engine.safe_fs`)."""

from __future__ import annotations

import logging
import os

from scratchfs.engine import safe_fs
from scratchfs.foundation import checks as ids
from scratchfs.foundation.errors import ScratchError, storage_error

__all__ = ["move_to_trash", "remove_from_trash"]

log = logging.getLogger(__name__)


def move_to_trash(root_fd: int, parts: tuple[str, ...]) -> str | None:
    """Rename the directory ``parts`` (below the root whose descriptor is ``root_fd``) into ``trash/`` under a new
    random name, which is returned; ``None`` if the directory did not exist. A link found there is moved as it is
    (never followed), and removed from the trash like the rest.

    Raises:
        StorageError: the rename failed, or ``trash/`` or a directory on the way is not a directory.
    """
    target = ids.new_token()
    try:
        parent = safe_fs.walk(root_fd, parts[:-1])
    except FileNotFoundError:
        return None
    try:
        trash = safe_fs.walk(root_fd, ("trash",), create=True)
        try:
            os.rename(parts[-1], target, src_dir_fd=parent, dst_dir_fd=trash)
        finally:
            os.close(trash)
    except FileNotFoundError:
        return None
    except ScratchError:
        raise
    except OSError as exc:
        raise storage_error(exc, "cannot remove the directory") from exc
    finally:
        os.close(parent)
    return target


def remove_from_trash(root_fd: int, name: str) -> bool:
    """Remove the entry ``name`` of ``trash/`` and everything in it, following no link (a link is removed itself).
    Errors are logged, not raised: the sweeper retries. Returns True if it is gone."""
    try:
        trash = safe_fs.walk(root_fd, ("trash",))
    except FileNotFoundError:
        return True
    except (OSError, ScratchError) as exc:
        log.warning("scratchfs: cannot empty the trash (%s)", exc)
        return False
    try:
        safe_fs.remove_tree_at(trash, name)
        return True
    except FileNotFoundError:
        return True
    except OSError as exc:
        log.warning("scratchfs: cannot remove trash/%s (%s); a later sweep will", name, exc.strerror or exc)
        return False
    finally:
        os.close(trash)
