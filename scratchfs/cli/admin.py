"""More ``scratchfs`` commands: the inspector (``ls``, ``stats``, ``fsck``), ``load``, and the MCP faces (``mcp``,
``mcp-proxy``). Registered on :data:`scratchfs.cli.main` when that module is imported.

Exit codes as for every command (see :mod:`scratchfs.cli`); ``fsck`` exits 3 (corrupt data) when it finds problems
that it did not repair, or the index fails its integrity check.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from scratchfs.api.inspector import DEFAULT_SOON, fsck, stats
from scratchfs.api.store import ScratchStore
from scratchfs.cli.app import _TTL, _echo_json, _root_option, _scope_options, _with_store, main
from scratchfs.loader import load_dir

_JSON = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
_PROGRESS_MIN_BYTES = 64 * 1024 * 1024
_PROGRESS_MIN_ENTRIES = 1000


def _print(renderable: Any) -> None:
    from scratchfs.cli.render import print_table

    print_table(renderable)


@main.command("ls")
@_root_option
@click.option("--run", "run_id", default=None, help="Only this run [default: every run].")
@click.option("--agent", "agent_id", default=None, help="Only this agent.")
@_JSON
@_with_store
def ls(store: ScratchStore, run_id: str | None, agent_id: str | None, as_json: bool) -> None:
    """List live entries (no content): kind, key, agent, size, on disk, compression ratio, expires in, source tool."""
    entries = store.list_entries_for_run(run_id) if run_id is not None else store.list_entries()
    if agent_id is not None:
        entries = [e for e in entries if e.agent_id == agent_id]
    if as_json:
        _echo_json([entry.to_dict() for entry in entries])
        return
    from scratchfs.cli.render import entries_table

    title = (f"run {run_id}" if run_id else "all runs") + (f", agent {agent_id}" if agent_id else "")
    _print(entries_table(entries, store.now(), title=f"{title}: {len(entries)} entries", show_run=run_id is None))


@main.command("stats")
@_root_option
@click.option("--run", "run_id", default=None, help="Only this run [default: every run].")
@click.option("--soon", type=click.FloatRange(min=0), default=DEFAULT_SOON, show_default=True,
              help="Seconds: entries expiring within this count as expiring soon.")
@_JSON
@_with_store
def stats_command(store: ScratchStore, run_id: str | None, soon: float, as_json: bool) -> None:
    """Per run and agent: entries, bytes in, bytes on disk, oldest entry, entries expiring soon."""
    entries = store.list_entries_for_run(run_id) if run_id is not None else store.list_entries()
    rows = stats(entries, store.now(), soon)
    if as_json:
        _echo_json([row.to_dict() for row in rows])
        return
    from scratchfs.cli.render import stats_table

    _print(stats_table(rows, soon, title=f"{'run ' + run_id if run_id else 'all runs'} at {store.root}"))


@main.command("fsck")
@_root_option
@click.option("--repair", is_flag=True, help="Remove what is broken: rows of missing and corrupt entries, corrupt "
                                             "and orphaned files.")
@click.option("--quick", is_flag=True, help="Check seek tables and sizes only, without decompressing every frame.")
@click.option("--rebuild-index", "rebuild_index", is_flag=True,
              help="First restore the index rows of sound, live blobs that no row names, from the bindings the blobs "
                   "carry (after a lost or damaged index).")
@click.option("--progress/--no-progress", default=None,
              help="Show a progress bar on stderr [default: on a terminal, for stores over 64 MiB or 1000 entries].")
@_JSON
@_with_store
def fsck_command(store: ScratchStore, repair: bool, quick: bool, rebuild_index: bool, progress: bool | None,
                 as_json: bool) -> None:
    """Check the index against the blob files: missing, orphaned and corrupt entries (exit code 3 if any remain)."""
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
        _echo_json(report.to_dict())
    else:
        from scratchfs.cli.render import human_bytes, problems_table

        counts = report.counts()
        if report.rebuilt is not None:
            click.echo(f"rebuilt the index: {report.rebuilt.restored} entries restored from their blobs, "
                       f"{len(report.rebuilt.skipped)} blob files skipped")
        click.echo(f"checked {report.entries_checked} entries ({human_bytes(report.bytes_checked)} verified) and "
                   f"{report.files_checked} files; index: {report.index}; missing {counts['missing']}, "
                   f"corrupt {counts['corrupt']}, orphaned {counts['orphaned']}, repaired {counts['repaired']}")
        if report.problems:
            _print(problems_table(report.problems))
    if not report.clean:
        left = sum(not p.repaired for p in report.problems)
        hint = "" if repair else "; `scratchfs fsck --repair` removes them"
        remain = "1 problem remains" if left == 1 else f"{left} problems remain"
        what = f"{remain}{hint}" if left else f"the index failed its integrity check: {report.index}"
        click.echo(f"scratchfs: corrupt: {what}", err=True)
        sys.exit(3)


@main.command("load")
@_scope_options
@click.argument("folder", type=click.Path(exists=True, file_okay=False))
@click.option("--tool", default=None, help="Source tool recorded for every file [default: each file's name "
                                           "without its last suffix].")
@_TTL
@click.option("--json", "as_json", is_flag=True, help="Accepted for uniformity: this command always prints JSON.")
@_with_store
def load(store: ScratchStore, run_id: str, agent_id: str, folder: str, tool: str | None, ttl: float | None,
         as_json: bool) -> None:
    """Spill every file of FOLDER (recorded tool outputs, recursively) into the scope; print the handles as JSON."""
    stubs = load_dir(store.scope(run_id, agent_id), folder, tool=tool, ttl=ttl)
    _echo_json([{"file": name, "handle": stub.handle, "size": stub.size, "source_tool": stub.source_tool}
                for name, stub in stubs.items()])


def _missing_mcp(exc: ImportError) -> None:
    click.echo(f"scratchfs: missing dependency: {exc}", err=True)
    sys.exit(2)


_MCP_SCOPE_HELP = " (a client may name another per request in _meta 'scratchfs/run_id', 'scratchfs/agent_id')"


@main.command("mcp")
@_root_option
@click.option("--run", "run_id", envvar="SCRATCHFS_RUN_ID", default=None,
              help="Run id of the calls [env: SCRATCHFS_RUN_ID]" + _MCP_SCOPE_HELP + ".")
@click.option("--agent", "agent_id", envvar="SCRATCHFS_AGENT_ID", default=None,
              help="Agent id of the calls [env: SCRATCHFS_AGENT_ID].")
def mcp_command(root: str | None, run_id: str | None, agent_id: str | None) -> None:
    """Serve read_handle and the scratchpad tools to an MCP client over stdio (needs: pip install 'scratchfs[mcp]')."""
    from scratchfs.mcp import server as mcp_server

    try:
        mcp_server.run(root, run_id, agent_id)
    except ImportError as exc:
        _missing_mcp(exc)
    except KeyboardInterrupt:
        sys.exit(130)


def _parse_classes(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> dict[str, str]:
    from scratchfs.mcp.proxy import RESULT_CLASSES

    classes = {}
    for value in values:
        tool, sep, cls = value.rpartition("=")
        if not sep or not tool or cls not in RESULT_CLASSES:
            raise click.BadParameter(f"{value!r}: expected TOOL=CLASS with CLASS one of {', '.join(RESULT_CLASSES)}")
        classes[tool] = cls
    return classes


@main.command("mcp-proxy", context_settings={"allow_interspersed_args": False})
@_root_option
@click.option("--run", "run_id", envvar="SCRATCHFS_RUN_ID", default=None,
              help="Run id of spills and calls [env: SCRATCHFS_RUN_ID; default: a fresh mcp-proxy-<random>].")
@click.option("--agent", "agent_id", envvar="SCRATCHFS_AGENT_ID", default=None,
              help="Agent id [env: SCRATCHFS_AGENT_ID; default: 'default'].")
@click.option("--threshold", type=click.IntRange(min=0), default=8192, show_default=True, metavar="BYTES",
              help="Spill text results larger than this many bytes.")
@click.option("--class", "classes", multiple=True, metavar="TOOL=CLASS", callback=_parse_classes,
              help="Result class of an upstream tool: query, workspace, browser (spilled when large) or effect "
                   "(never spilled). Repeatable.")
@click.option("--default-class", type=click.Choice(["query", "workspace", "browser", "effect"]), default="query",
              show_default=True, help="Result class of the tools not named by --class.")
@click.option("--ttl", type=float, default=3600.0, show_default=True,
              help="Seconds a spilled result lives (and scratchpad values written without a ttl).")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=60.0, show_default=True,
              help="Seconds to wait for the upstream server to start and for each of its answers.")
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
def mcp_proxy_command(root: str | None, run_id: str | None, agent_id: str | None, threshold: int,
                      classes: dict[str, str], default_class: str, ttl: float, timeout: float,
                      command: tuple[str, ...]) -> None:
    """Run the MCP server COMMAND behind a proxy that spills its large text results (stdio; use -- before COMMAND).

    Offers the upstream's tools unchanged plus read_handle and the scratchpad tools (needs the mcp extra).
    """
    from scratchfs.mcp import proxy as mcp_proxy

    config = mcp_proxy.ProxyConfig(command=command[0], args=list(command[1:]), threshold=threshold,
                                   classes=classes, default_class=default_class, ttl=ttl, timeout=timeout,
                                   root=root, run_id=run_id, agent_id=agent_id)
    try:
        mcp_proxy.run(config)
    except ImportError as exc:
        _missing_mcp(exc)
    except KeyboardInterrupt:
        sys.exit(130)


# Commands whose output is JSON already accept --json too, so that every command takes it (the MCP servers aside:
# their stdout is the protocol).
for _name in ("spill", "scratch-write", "scratch-list", "scratch-delete", "delete-run", "delete-agent", "sweep"):
    _command = main.commands.get(_name)
    if _command is not None and not any("--json" in getattr(p, "opts", ()) for p in _command.params):
        _command.params.append(click.Option(["--json"], is_flag=True, expose_value=False,
                                            help="Accepted for uniformity: this command always prints JSON."))
