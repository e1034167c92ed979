"""The lines ``scratchfs fsck`` prints beside its summary: segment files holding dead bytes, an S3 store's incomplete
multipart uploads."""

from __future__ import annotations

__all__ = ["segments_line", "uploads_line"]


def segments_line(seg, grace: float) -> str:
    """The line of ``fsck`` for segment files holding dead bytes (``seg``: a
    :class:`~scratchfs.engine.segment_sweep.SegmentUsage`; ``grace``: orphan_grace, seconds): how many, and when the
    sweep reclaims them."""
    from scratchfs.cli.render import human_bytes

    wholly = f"{seg.dead_segments} segment{'' if seg.dead_segments == 1 else 's'} wholly dead"
    if seg.dead_dated_ahead:
        wholly += (f", {seg.dead_dated_ahead} of them dated more than orphan_grace ahead, which the sweep leaves "
                   "until that date")
    return (f"segment files: {seg.segments} ({human_bytes(seg.bytes)}), {human_bytes(seg.dead_bytes)} dead ({wholly}); "
            f"the sweep removes a wholly dead segment last written over orphan_grace ({grace:g} s) ago, other dead "
            "bytes stay until their segment is wholly dead (compaction is off)")


def uploads_line(count: int, oldest_age: float | None, grace: float) -> str:
    """The line of ``fsck`` for an S3 store's incomplete multipart uploads (what they are, what ends them);
    ``grace``: the store's ``orphan_grace``, seconds."""
    age = "" if oldest_age is None else f", the oldest begun {oldest_age / 3600:.1f} h ago"
    return (f"incomplete multipart uploads under the prefix: {count}{age} (spills in flight, or ones a killed writer "
            "or a store that stopped answering in the middle left); they hold storage until aborted: the sweep aborts "
            f"those of blob objects begun over orphan_grace ({grace:g} s) ago; a lifecycle rule that aborts "
            "incomplete multipart uploads (AbortIncompleteMultipartUpload, DaysAfterInitiation 1; README: S3 "
            "permissions) is still recommended, for a prefix no sweeper runs for")
