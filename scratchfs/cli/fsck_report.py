"""What ``fsck`` prints and how it ends: its report run with or without a progress bar, its summary lines (entries
checked, segment files' dead bytes, incomplete multipart uploads, a rebuild's skips), the continuation of a bounded
check, and the "not clean" error (exit code 3) that names what remains by kind and what ``fsck --repair`` does to it.
The command itself (its options, the store it opens) is :func:`scratchfs.cli.admin.fsck_command`."""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

import click

from scratchfs.api.fsck_problems import REPAIRS
from scratchfs.api.inspector import FsckReport, fsck, stats_in_sql
from scratchfs.api.store import ScratchStore
from scratchfs.cli.admin import entries_said, root_words
from scratchfs.cli.app import as_invoked, echo_json, warn
from scratchfs.cli.shell import FLEET_STORE_NOTE, shell_command
from scratchfs.foundation.errors import CorruptBlob, ScratchError

_PROGRESS_MIN_BYTES = 64 * 1024 * 1024
_PROGRESS_MIN_ENTRIES = 1000


def report_fsck(store: ScratchStore, repair: bool, quick: bool, rebuild_index: bool, limit: int | None,
                after: str | None, progress: bool | None, as_json: bool) -> None:
    """Run ``fsck`` on the opened ``store`` (with a progress bar on stderr when ``progress``, or when it is None on a
    terminal for a store over 64 MiB or 1000 entries) and print its report: JSON, or the summary lines and the table
    of problems; the next ``--cursor`` of a check bounded by ``limit`` on stderr.

    Raises :class:`~scratchfs.foundation.errors.CorruptBlob` when the index fails its integrity check, and a
    "not clean" :class:`~scratchfs.foundation.errors.ScratchError` (exit code 3) when problems remain."""
    sizes = stats_in_sql(store, store.now())  # totals for the progress bar, aggregated by the index
    total, count = sum(r.bytes_in for r in sizes), sum(r.entries for r in sizes)
    if progress is None:
        progress = sys.stderr.isatty() and (total >= _PROGRESS_MIN_BYTES or count >= _PROGRESS_MIN_ENTRIES)
    if progress and not quick:
        from rich.console import Console
        from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn

        with Progress(TextColumn("fsck"), BarColumn(), DownloadColumn(binary_units=True), TimeRemainingColumn(),
                      console=Console(stderr=True), transient=True) as bar:
            task = bar.add_task("verify", total=total)
            report = fsck(store, repair=repair, deep=True, progress=lambda n: bar.advance(task, n),
                          rebuild_index=rebuild_index, after=after, limit=limit)
    else:
        report = fsck(store, repair=repair, deep=not quick, rebuild_index=rebuild_index, after=after, limit=limit)
    print_report(report, store.root, store.embedded, store.settings.orphan_grace, root_words(store),
                 _repair_command(store), (repair, quick, limit, as_json))


def print_report(report: FsckReport, root: Path, embedded: bool, grace: float, words: list[str], again: str,
                 asked: tuple[bool, bool, int | None, bool]) -> None:
    """``report`` printed, of the store at ``root`` (``embedded``: a local one; ``grace``: its orphan_grace, seconds;
    ``words``: the options naming the store, ``--root ROOT``; ``again``: the quoted command that repairs it;
    ``asked``: the call's ``(repair, quick, limit, as_json)``): JSON, or the summary lines and the table of problems;
    the next ``--cursor`` of a bounded check on stderr. Raises CorruptBlob (the index alone failed its check) and the
    "not clean" ScratchError (exit code 3) when problems remain."""
    repair, quick, limit, as_json = asked
    if as_json:
        echo_json(report.to_dict())
    else:
        from scratchfs.cli.render import human_bytes, problems_listing, show

        counts = report.counts()
        if report.rebuilt is not None:
            click.echo(as_invoked(f"rebuilt the index: {report.rebuilt.restored} entries restored from their blobs, "
                                  f"{len(report.rebuilt.skipped)} blob files skipped{_skips(report.rebuilt.reasons)}",
                                  str(root) if embedded else None))
        click.echo(f"checked {report.entries_checked} entries ({human_bytes(report.bytes_checked)} verified) and "
                   f"{report.files_checked} files; index: {report.index}; missing {counts['missing']}, "
                   f"corrupt {counts['corrupt']}, orphaned {counts['orphaned']}, unexpected {counts['unexpected']}, "
                   f"incomplete writes {counts['incomplete']}, repaired {counts['repaired']}"
                   + (f"; adoptable {counts['adoptable']} (an old host's writes after a takeover: the sweep adopts "
                      "them)" if counts["adoptable"] else ""))
        if report.segments is not None and (report.segments.dead_bytes or report.segments.dead_segments):
            click.echo(_segments_line(report.segments, grace))  # (all live: nothing to say)
        if report.uploads is not None and report.uploads[0]:
            click.echo(_uploads_line(*report.uploads, grace))
        if report.problems:
            where = str(root) if embedded else None  # (a detail's `scratchfs fsck --repair`: this store's)
            show(problems_listing([replace(p, detail=as_invoked(p.detail, where)) for p in report.problems],
                                  str(root)))
    if report.next_cursor:
        words = ["fsck", *(["--repair"] if repair else []), *(["--quick"] if quick else []), "--limit", str(limit),
                 "--cursor", report.next_cursor, *(["--json"] if as_json else []), *words]
        warn(f"stopped after {entries_said(report.entries_checked)}; next: {shell_command(words, embedded)}",
             whole=True)
    if not report.clean:
        left = report.remaining
        hint = "" if repair else _repair_hint(report.problems, again)
        if not left:
            raise CorruptBlob(f"the index failed its integrity check: {report.index}")
        raise _NotClean(f"{_remain(report.problems)}{hint}")


class _NotClean(ScratchError):
    """``fsck`` found problems that remain (exit code 3, as corrupt data): named by what they are -- an object the
    store did not write is ``unexpected``, not corruption -- where :class:`CorruptBlob` would say "corrupt"."""

    kind = "not clean"  # (the JSON report's "clean": false)
    exit_code = CorruptBlob.exit_code


def _remain(problems: list) -> str:
    """``"1 problem remains (unexpected)"``, ``"3 problems remain (1 missing, 2 unexpected)"``: the problems not
    repaired nor the sweep's, counted by kind as the table names them."""
    count = Counter(p.kind for p in problems if not (p.repaired or p.sweeps))
    left = count.total()
    kinds = [kind for kind in _KINDS if count[kind]] + sorted(set(count) - set(_KINDS))
    said = ", ".join(f"{count[kind]} {kind}" for kind in kinds) if left > 1 else kinds[0]
    return f"{'1 problem remains' if left == 1 else f'{left} problems remain'} ({said})"


_KINDS = ("missing", "corrupt", "orphaned", "unexpected", "incomplete", "adoptable")
"""The kinds of problem in the order of ``fsck``'s summary line."""


def _segments_line(seg, grace: float) -> str:
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


def _uploads_line(count: int, oldest_age: float | None, grace: float) -> str:
    """The line of ``fsck`` for an S3 store's incomplete multipart uploads (what they are, what ends them);
    ``grace``: the store's ``orphan_grace``, seconds."""
    age = "" if oldest_age is None else f", the oldest begun {oldest_age / 3600:.1f} h ago"
    return (f"incomplete multipart uploads under the prefix: {count}{age} (spills in flight, or ones a killed writer "
            "or a store that stopped answering in the middle left); they hold storage until aborted: the sweep aborts "
            f"those of blob objects begun over orphan_grace ({grace:g} s) ago; a lifecycle rule that aborts "
            "incomplete multipart uploads (AbortIncompleteMultipartUpload, DaysAfterInitiation 1; README: S3 "
            "permissions) is still recommended, for a prefix no sweeper runs for")


_SKIPS = {"unbound": "with no binding frame (written before it, by the first scratchfs: no row can be rebuilt from "
                     "it; `scratchfs fsck --repair` binds it while an index names it)",
          "expired": "expired (left to the sweeper)", "superseded": "superseded (a newer entry holds the key)",
          "foreign": "bound to another token or scope", "corrupt": "that do not verify",
          "vanished": "removed while their row was written", "unreadable": "unreadable",
          "segment": "local store segment files (.zseg) that an S3 store does not read (named below as unexpected)",
          "not a blob": "objects that are not scratchfs blobs (named below as unexpected)"}


def _skips(reasons: dict[str, int]) -> str:
    """``": 5 with no binding frame (...), 1 expired (...)"`` for a rebuild's skips counted per reason."""
    return ": " + ", ".join(f"{n} {_SKIPS.get(why, why)}" for why, n in reasons.items()) if reasons else ""


def _repair_command(store: ScratchStore) -> str:
    """The command that repairs ``store``, in backquotes (``scratchfs fsck --repair --root ROOT``), pasted as it is."""
    again = f"`{shell_command(['fsck', '--repair', *root_words(store)], True)}`"
    return again if store.embedded else f"{again} {FLEET_STORE_NOTE}"


def _repair_hint(problems: list, again: str) -> str:
    """What ``fsck --repair`` (``again``: the quoted command that runs it on this store) does to the problems that
    remain, kind by kind (each one's ``fix``, :data:`~scratchfs.api.fsck_problems.REPAIRS`): "; `...` removes 1
    orphan, makes private (0700, 0600) 2 directories or files open to other users and leaves 1 as it is (...)". What
    no repair touches -- the root's own files and directories out of place (``journal``, ``reserve``, ``runs/`` a
    link), a file scratchfs did not write -- is said so, with no command to run for it."""
    left = [p for p in problems if not (p.repaired or p.sweeps)]
    count = Counter(p.fix for p in left)
    verbs: dict[str, list[str]] = {}
    for fix, (verb, one, more) in REPAIRS.items():
        if count[fix] and fix not in ("leave", "own"):
            verbs.setdefault(verb, []).append(f"{count[fix]} {one if count[fix] == 1 else more}")
    done = [f"{verb} {_and(what)}" for verb, what in verbs.items()]
    kept = count["leave"]
    hint = ""
    if done:
        verb, one, more = REPAIRS["leave"]
        hint = f"; {again} {_and(done + ([f'{verb} {kept} {one if kept == 1 else more}'] if kept else []))}"
    elif kept:
        hint = ("; no repair touches it (its detail says what it is)" if kept == 1 else
                f"; no repair touches these {kept} (their details say what they are)")
    verb, one, more = REPAIRS["own"]
    if count["own"] == 1:
        hint += f"; it is the {one}, which {verb}: move it away (its detail says what it is)"
    elif count["own"]:
        hint += f"; {count['own']} are the {more}, which {verb}: move them away (their details say what they are)"
    return hint


def _and(words: list[str]) -> str:
    """``"a"``, ``"a and b"``, ``"a, b and c"``."""
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


__all__ = ["print_report", "report_fsck"]
