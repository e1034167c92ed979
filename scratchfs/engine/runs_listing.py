"""One walk of a local store's ``runs/`` for fsck: every run directory, agent directory and file name with its
``lstat``, listed once (:func:`walk_runs`) and read by each check that judges them -- the blob files
(:meth:`scratchfs.engine.local_blobs.Blobs.blob_files`), the odd and foreign names
(:mod:`scratchfs.api.odd_names`), the segments' usage (:func:`scratchfs.engine.segment_sweep.segment_usage`) and
the loose modes (:func:`scratchfs.engine.private_modes.loose_modes`). Links are never followed. Each segment file is
read once too: the blob walk's scan of it is kept in the listing (:attr:`RunsListing.scans`) for its usage."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from typing import NamedTuple

from scratchfs.engine.safe_fs import list_stats
from scratchfs.engine.segments import Record
from scratchfs.foundation.errors import ScratchError

__all__ = ["Listed", "RunsListing", "SegmentScan", "walk_runs"]

Listed = list[tuple[str, os.stat_result]]
"""``(name, lstat)`` of each entry of a directory, sorted by name."""
SegmentScan = tuple[list[Record], int, str | None]
"""A segment's scan: ``(records, size in bytes, problem or None)``
(:meth:`~scratchfs.engine.local_blobs.Blobs.scan_segment`)."""


class RunsListing(NamedTuple):
    """``runs`` (the entries of ``runs/``) and ``inside``: the entries of each run directory (parts ``("runs",
    run)``) and agent directory (``("runs", run, agent)``) that could be listed (one that is a link, or gone, is
    absent); ``scans``: each segment's scan once made (parts ``("runs", run, agent, name)`` -> what
    :meth:`~scratchfs.engine.local_blobs.Blobs.scan_segment` returned), filled by the first check that reads
    it, so that the next one reads no byte of it again."""

    runs: Listed
    inside: dict[tuple[str, ...], Listed]
    scans: dict[tuple[str, ...], SegmentScan]

    def agent_dirs(self) -> Iterator[tuple[str, str, Listed]]:
        """``(run, agent, entries)`` of each agent directory that could be listed, in listing order."""
        for run, run_st in self.runs:
            for agent, agent_st in self.inside.get(("runs", run), []) if stat.S_ISDIR(run_st.st_mode) else []:
                parts = ("runs", run, agent)
                if stat.S_ISDIR(agent_st.st_mode) and parts in self.inside:
                    yield run, agent, self.inside[parts]


def walk_runs(root_fd: int) -> RunsListing:
    """List ``runs/`` below ``root_fd``, each run directory in it and each agent directory in those (sorted; a
    directory that is a link, or cannot be listed, is left out of :attr:`RunsListing.inside`).

    Raises:
        StorageError: ``runs/`` is a link or not a directory, or cannot be read.
    """
    runs = list_stats(root_fd, ("runs",))
    inside: dict[tuple[str, ...], Listed] = {}
    for run, run_st in runs:
        if stat.S_ISDIR(run_st.st_mode) and (agents := _quietly(root_fd, ("runs", run))) is not None:
            inside[("runs", run)] = agents
            for agent, agent_st in agents:
                if stat.S_ISDIR(agent_st.st_mode) and (names := _quietly(root_fd, ("runs", run, agent))) is not None:
                    inside[("runs", run, agent)] = names
    return RunsListing(runs, inside, {})


def _quietly(root_fd: int, parts: tuple[str, ...]) -> Listed | None:
    """:func:`list_stats`, or ``None`` when the directory cannot be listed (swapped for a link meanwhile)."""
    try:
        return list_stats(root_fd, parts)
    except ScratchError:
        return None
