"""The inspector on the command line (``ls``, ``stats``, ``fsck``) and ``load`` (spill a folder of recorded outputs).

Exit codes as for every command (see :mod:`scratchfs.cli`); ``fsck`` exits 3 (corrupt data) when it finds problems
that it did not repair, or the index fails its integrity check.
"""

from __future__ import annotations

import sys

import click

from scratchfs.api.inspector import fsck, stats
from scratchfs.api.rebuild import open_for_rebuild
from scratchfs.api.store import ScratchStore
from scratchfs.cli.app import TTL_OPTION, echo_json, main, resolve_root, root_option, scope_options, with_store
from scratchfs.foundation.errors import CorruptBlob
from scratchfs.foundation.limits import SOON_SECONDS
from scratchfs.loader import load_dir

JSON_TABLE = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
_PROGRESS_MIN_BYTES = 64 * 1024 * 1024
_PROGRESS_MIN_ENTRIES = 1000


@main.command("ls")
@root_option
@click.option("--run", "run_id", default=None, help="Only this run [default: every run].")
@click.option("--agent", "agent_id", default=None, help="Only this agent.")
@JSON_TABLE
@with_store
def ls(store: ScratchStore, run_id: str | None, agent_id: str | None, as_json: bool) -> None:
    """List live entries (no content): kind, key, agent, size, on disk, compression ratio, expires in, source tool."""
    entries = store.list_entries_for_run(run_id) if run_id is not None else store.list_entries()
    if agent_id is not None:
        entries = [e for e in entries if e.agent_id == agent_id]
    if as_json:
        echo_json([entry.to_dict() for entry in entries])
        return
    from scratchfs.cli.render import entries_listing, show

    title = (f"run {run_id}" if run_id else "all runs") + (f", agent {agent_id}" if agent_id else "")
    show(entries_listing(entries, store.now(), title=f"{title}: {len(entries)} entries", show_run=run_id is None))


@main.command("stats")
@root_option
@click.option("--run", "run_id", default=None, help="Only this run [default: every run].")
@click.option("--soon", type=click.FloatRange(min=0), default=SOON_SECONDS, show_default=True,
              help="Seconds: entries expiring within this count as expiring soon.")
@JSON_TABLE
@with_store
def stats_command(store: ScratchStore, run_id: str | None, soon: float, as_json: bool) -> None:
    """Per run and agent: entries, bytes in, bytes on disk, oldest entry, entries expiring soon."""
    entries = store.list_entries_for_run(run_id) if run_id is not None else store.list_entries()
    rows = stats(entries, store.now(), soon)
    if as_json:
        echo_json([row.to_dict() for row in rows])
        return
    from scratchfs.cli.render import show, stats_listing

    show(stats_listing(rows, soon, title=f"{'run ' + run_id if run_id else 'all runs'} at {store.root}"))


@main.command("fsck")
@root_option
@click.option("--repair", is_flag=True, help="Remove what is broken: rows of missing and corrupt entries, corrupt "
                                             "and orphaned files.")
@click.option("--quick", is_flag=True, help="Check seek tables and sizes only, without decompressing every frame.")
@click.option("--rebuild-index", "rebuild_index", is_flag=True,
              help="First restore the index rows of sound, live blobs that no row names, from the bindings the blobs "
                   "carry (after a lost or damaged index).")
@click.option("--progress/--no-progress", default=None,
              help="Show a progress bar on stderr [default: on a terminal, for stores over 64 MiB or 1000 entries].")
@JSON_TABLE
def fsck_command(root: str | None, repair: bool, quick: bool, rebuild_index: bool, progress: bool | None,
                 as_json: bool) -> None:
    """Check the index against the blob files: missing, orphaned and corrupt entries (exit code 3 if any remain)."""
    root = resolve_root(root)
    store = open_for_rebuild(root) if rebuild_index and root is not None else ScratchStore(root)
    with store:
        entries = store.list_entries()
        total = sum(e.size for e in entries)
        if progress is None:
            progress = sys.stderr.isatty() and (total >= _PROGRESS_MIN_BYTES or len(entries) >= _PROGRESS_MIN_ENTRIES)
        if progress and not quick:
            from rich.console import Console
            from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn

            with Progress(TextColumn("fsck"), BarColumn(), DownloadColumn(binary_units=True), TimeRemainingColumn(),
                          console=Console(stderr=True), transient=True) as bar:
                task = bar.add_task("verify", total=total)
                report = fsck(store, repair=repair, deep=True, progress=lambda n: bar.advance(task, n),
                              rebuild_index=rebuild_index)
        else:
            report = fsck(store, repair=repair, deep=not quick, rebuild_index=rebuild_index)
        if as_json:
            echo_json(report.to_dict())
        else:
            from scratchfs.cli.render import human_bytes, problems_listing, show

            counts = report.counts()
            if report.rebuilt is not None:
                click.echo(f"rebuilt the index: {report.rebuilt.restored} entries restored from their blobs, "
                           f"{len(report.rebuilt.skipped)} blob files skipped")
            click.echo(f"checked {report.entries_checked} entries ({human_bytes(report.bytes_checked)} verified) and "
                       f"{report.files_checked} files; index: {report.index}; missing {counts['missing']}, "
                       f"corrupt {counts['corrupt']}, orphaned {counts['orphaned']}, repaired {counts['repaired']}")
            if report.problems:
                show(problems_listing(report.problems, str(store.root)))
        if not report.clean:
            left = sum(not p.repaired for p in report.problems)
            hint = "" if repair else "; `scratchfs fsck --repair` removes them"
            remain = "1 problem remains" if left == 1 else f"{left} problems remain"
            what = f"{remain}{hint}" if left else f"the index failed its integrity check: {report.index}"
            raise CorruptBlob(what)


@main.command("load")
@scope_options
@click.argument("folder", type=click.Path(exists=True, file_okay=False))
@click.option("--tool", default=None, help="Source tool recorded for every file [default: each file's name "
                                           "without its last suffix].")
@TTL_OPTION
@click.option("--json", "as_json", is_flag=True, help="Accepted for uniformity: this command always prints JSON.")
@with_store
def load(store: ScratchStore, run_id: str, agent_id: str, folder: str, tool: str | None, ttl: float | None,
         as_json: bool) -> None:
    """Spill every file of FOLDER (recorded tool outputs, recursively) into the scope; print the handles as JSON."""
    stubs = load_dir(store.scope(run_id, agent_id), folder, tool=tool, ttl=ttl)
    echo_json([{"file": name, "handle": stub.handle, "size": stub.size, "source_tool": stub.source_tool}
                for name, stub in stubs.items()])


__all__ = ["fsck_command", "load", "ls", "stats_command"]
