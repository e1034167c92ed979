"""The inspector on the command line (``ls``, ``stats``, ``fsck``) and ``load`` (spill a folder of recorded outputs).

Exit codes as for every command (see :mod:`scratchfs.cli`); ``fsck`` exits 3 (as for corrupt data) when it finds
problems that it did not repair ("not clean: ...", named by kind: a file the store did not write is
``unexpected``, not corrupt), or the index fails its integrity check ("corrupt: ...").
"""

from __future__ import annotations

import json
import os
import sys
from typing import TYPE_CHECKING

import click

from scratchfs.api.fsck_problems import linked_index
from scratchfs.api.inspector import FsckReport, stats_in_sql
from scratchfs.api.rebuild import open_for_rebuild, open_lost_blobs
from scratchfs.api.store import ScratchStore, existing_store
from scratchfs.api.store_listing import PAGE_ROWS, check_filter, encode_cursor, iter_entries
from scratchfs.cli.advice import listing_start, unfiltered_said
from scratchfs.cli.app import (
    command_busy_timeout,
    command_settings,
    command_store,
    echo_json,
    given_before,
    main,
    opened,
    resolve_root,
    root_option,
    scope_options,
    warn,
    with_existing_store,
    with_store,
)
from scratchfs.cli.option_types import Folder, Integer, Seconds
from scratchfs.cli.settings_options import TTL_OPTION, Size, settings_options
from scratchfs.cli.shell import command_line, program, shell_command
from scratchfs.cli.usage import takes_no_scope
from scratchfs.engine.backend_urls import local_blobs
from scratchfs.engine.backends import ENV_INDEX
from scratchfs.foundation.errors import InvalidArgument, ScratchError, StorageError
from scratchfs.foundation.limits import SOON_SECONDS
from scratchfs.loader import MAX_FILE_BYTES, Skipped, load_dir

if TYPE_CHECKING:
    from scratchfs.api.stub import Stub

JSON_TABLE = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
TERMINAL_LIMIT = 50
"""Entries ``ls`` shows on a terminal unless ``--limit`` says otherwise."""


def _filters(run_id: str | None, agent_id: str | None, store: ScratchStore, command: str) -> tuple[str | None, ...]:
    """``ls``'s and ``stats``'s run and agent: the command's own, else those given before the command (which were
    passed over: ``scratchfs --run R ls`` listed every run), never the environment's (:func:`unfiltered_said`)."""
    run_id = run_id if run_id is not None else given_before("run_id")
    if run_id is None and (scoped := os.environ.get("SCRATCHFS_RUN_ID", "").strip()):
        warn(unfiltered_said([command, "--run", scoped, *root_words(store)], store.embedded), whole=True)
    return run_id, agent_id if agent_id is not None else given_before("agent_id")


@main.command("ls")
@root_option
@click.option("--run", "run_id", default=None, help="Only this run [default: every run].")
@click.option("--agent", "agent_id", default=None, help="Only this agent.")
@click.option("--limit", type=Integer(minimum=0), default=None,
              help=f"Show at most this many entries; 0 for all [default: {TERMINAL_LIMIT} on a terminal, else all].")
@click.option("--cursor", "--after", "after", default=None, metavar="CURSOR",
              help="Go on after this cursor (printed on stderr when --limit cut a listing short; --cursor, as "
                   "scratch-list and read-handle page; --after, its older name, still works).")
@JSON_TABLE
@settings_options(fleet_only=True)
@with_existing_store
def ls(store: ScratchStore, run_id: str | None, agent_id: str | None, limit: int | None, after: str | None,
       as_json: bool) -> None:
    """List live entries (no content): kind, key, agent, size, on disk, compression ratio, expires in, source tool.

    Entries are read a page at a time and printed as they are read (constant memory at any size), ordered by run
    and age. --run/--agent given before the command (scratchfs --run R ls) filter as after it."""
    run_id, agent_id = _filters(run_id, agent_id, store, "ls")
    if limit is None:
        limit = TERMINAL_LIMIT if sys.stdout.isatty() else 0
    start = listing_start(after, ["ls", *(["--run", run_id] if run_id is not None else []),
                                  *(["--agent", agent_id] if agent_id is not None else []),
                                  *(["--limit", str(limit)] if limit else []), *(["--json"] if as_json else []),
                                  *root_words(store)], store.embedded)
    now = store.now()
    entries = iter_entries(store, now, run_id, agent_id, start, None if limit == 0 else limit + 1)
    shown, last = 0, None
    title = (f"run {run_id}" if run_id else "all runs") + (f", agent {agent_id}" if agent_id else "")
    if as_json:
        click.echo("[", nl=False)
    more = None  # the cursor to go on from, when the limit cut the listing short (said after the table)
    while True:
        page = []
        for entry, cursor in entries:
            if limit and shown + len(page) == limit:  # one more than the limit: there is more to show
                more = encode_cursor(last)
                break
            page.append(entry)
            last = cursor
            if len(page) == PAGE_ROWS:
                break
        if not page:
            break
        _print_page(page, shown, as_json, store, title, run_id is None,  # (a listing cut short says its range)
                    single=shown == 0 and len(page) < PAGE_ROWS and more is None, resumed=start is not None)
        shown += len(page)
        if len(page) < PAGE_ROWS:
            break
    if as_json:
        click.echo("]")
    elif shown == 0:
        _print_page([], 0, False, store, title, run_id is None, single=True)
    if shown == 0 and start is None:  # (a mistyped run, or nothing live: not just a table's header)
        sys.stdout.flush()
        warn(_none_of(run_id, agent_id))
    if more is not None:
        sys.stdout.flush()
        words = ["ls", *(["--run", run_id] if run_id is not None else []),
                 *(["--agent", agent_id] if agent_id is not None else []), "--limit", str(limit), "--cursor", more,
                 *(["--json"] if as_json else []), *root_words(store)]
        warn(f"{entries_said(limit)} shown; next: {shell_command(words, store.embedded)}", whole=True)


def _none_of(run_id: str | None, agent_id: str | None) -> str:
    """The stderr line of ``ls`` and ``stats`` with no live entries -- of the run or agent they are filtered to, as
    ``delete-run`` and ``delete-agent`` say it, or of the store (exit code 0: an empty listing is no error)."""
    whose = " in ".join([f"agent '{agent_id}'"] * bool(agent_id) + [f"run '{run_id}'"] * bool(run_id))
    return f"no entries of {whose}" if whose else "no live entries in this store"


def entries_said(count: int) -> str:
    """``"1 entry"``, ``"2 entries"``: ``count`` entries, as ``ls`` and ``fsck`` say them."""
    return "1 entry" if count == 1 else f"{count} entries"


def root_words(store: ScratchStore) -> list[str]:
    """``--root ROOT`` (absolute) of a local store, which a printed continuation names; none of a fleet's store
    (:data:`~scratchfs.cli.shell.FLEET_STORE_NOTE` says what it needs instead)."""
    return ["--root", str(store.root)] if local_blobs(store.blobs_url) else []


def _print_page(page: list, shown: int, as_json: bool, store: ScratchStore, title: str, show_run: bool,
                single: bool, resumed: bool = False) -> None:
    """Print a page of ``ls`` (``shown`` entries before it); its table titled with its count (``single``: the
    listing's one page) or its range, ``after the cursor`` when the listing goes on from ``--cursor`` (``resumed``:
    entries 1-2 of a listing's third page were its 5th and 6th)."""
    if as_json:
        for i, entry in enumerate(page):
            sep = "," if shown + i else ""
            click.echo(sep + "\n" + json.dumps(entry.to_dict(), ensure_ascii=False), nl=False)
        return
    from scratchfs.cli.render import entries_listing, show

    what = (entries_said(len(page)) if single else f"entries {shown + 1}-{shown + len(page)}") + (
        " after the cursor" if resumed else "")
    listing = entries_listing(page, store.now(), title=f"{title}: {what}", show_run=show_run)
    if shown and not sys.stdout.isatty():  # tab-separated rows: one header for the whole listing
        sys.stdout.write(listing.tsv().split("\n", 1)[1])
        sys.stdout.flush()
        return
    show(listing)


@main.command("stats")
@root_option
@click.option("--run", "run_id", default=None, help="Only this run [default: every run].")
@click.option("--agent", "agent_id", default=None, help="Only this agent (of every run, or of --run's).")
@click.option("--soon", type=Seconds(zero_ok=True), default=SOON_SECONDS, show_default=True,
              help="Seconds: entries expiring within this count as expiring soon.")
@JSON_TABLE
@settings_options(fleet_only=True)
@with_existing_store
def stats_command(store: ScratchStore, run_id: str | None, agent_id: str | None, soon: float, as_json: bool) -> None:
    """Per run and agent: entries, bytes in, bytes on disk, oldest entry, entries expiring soon, entries expired
    but not swept yet with the bytes the index stores for them (a sweep's bytes_freed counts the files it removes:
    a segment's header too, and a segment only once no live entry shares it) -- aggregated by the index: no entry
    is loaded. --run/--agent given before the command filter as after it."""
    run_id, agent_id = _filters(run_id, agent_id, store, "stats")
    check_filter(run_id, agent_id)
    rows = [row for row in stats_in_sql(store, store.now(), soon, run_id)
            if agent_id is None or row.agent_id == agent_id]
    if as_json:
        echo_json([row.to_dict() for row in rows])
    if not rows:  # (a mistyped run, or nothing live: not just a table's header)
        sys.stdout.flush()
        warn(_none_of(run_id, agent_id))
    if as_json:
        return
    from scratchfs.cli.render import show, stats_listing

    where = store.root if store.embedded else repr(store)
    title = f"{'run ' + run_id if run_id else 'all runs'}{', agent ' + agent_id if agent_id else ''} at {where}"
    show(stats_listing(rows, soon, title=title))


def _one_run(option: str, value: str) -> str:
    """What shows the run (or agent) ``value`` of an ``option`` fsck does not take: its entries, counted and
    listed."""
    words = ["--run", value] if option == "--run" else ["--run", "RUN", "--agent", value]
    return (f"; for one {option[2:]} see {command_line(program(), ['stats', *words])} or "
            f"{command_line(program(), ['ls', *words])}, or bound a check with --limit")


@main.command("fsck")
@root_option
@click.option("--repair", is_flag=True, help="Remove what is broken: rows of missing and corrupt entries, corrupt "
                                             "and orphaned files; bind the blobs of the first scratchfs (written "
                                             "before the binding frame) instead of removing them.")
@click.option("--quick", is_flag=True, help="Check seek tables and sizes only, without decompressing every frame.")
@click.option("--rebuild-index", "rebuild_index", is_flag=True,
              help="First restore the index rows of sound, live blobs that no row names, from the bindings the blobs "
                   "carry (after a lost or damaged index).")
@click.option("--lost-blobs", "lost_blobs", is_flag=True,
              help="With --repair, for a PostgreSQL index whose blobs were lost (its S3 prefix emptied: no store-id "
                   "marker and none of its newest entries' blobs, which every command refuses): pair the index with "
                   "the blobs again and drop the rows whose blobs are gone.")
@click.option("--limit", type=Integer(minimum=1), default=None,
              help="Check at most this many entries (then print a cursor to resume with --cursor); orphan files are "
                   "looked for only by a check that reaches the last entry.")
@click.option("--cursor", "--after", "after", default=None, metavar="CURSOR",
              help="Resume after this cursor (--after, its older name, still works).")
@click.option("--progress/--no-progress", default=None,
              help="Show a progress bar on stderr [default: on a terminal, for stores over 64 MiB or 1000 entries].")
@takes_no_scope("it checks the whole store (an orphan blob belongs to no run's row)", _one_run)
@JSON_TABLE
@settings_options(fleet_only=True)
def fsck_command(root: str | None, repair: bool, quick: bool, rebuild_index: bool, lost_blobs: bool,
                 limit: int | None, after: str | None, progress: bool | None, as_json: bool) -> None:
    """Check the index against the blob files: missing, orphaned and corrupt entries, and what the store did not
    write (exit code 3 if any remain: "not clean: N problems remain (...)", named by kind).

    Entries are read a page at a time (constant memory); --limit bounds a check and --cursor resumes one. It checks
    the whole store: it takes no --run or --agent."""
    if lost_blobs and (not repair or rebuild_index or limit is not None or after is not None):
        raise click.UsageError("--lost-blobs goes with --repair (it drops the rows whose blobs are gone, so the whole "
                               "index is checked: no --limit or --cursor), not with --rebuild-index")
    root = resolve_root(root)  # --root, else the global --root or $SCRATCHFS_ROOT, else the default root
    urls = command_store()
    listing_start(after, ["fsck", *(["--repair"] if repair else []), *(["--quick"] if quick else []),  # (a bad
                          *(["--limit", str(limit)] if limit is not None else []), *(["--json"] if as_json else []),
                          *([] if urls else ["--root", root])], not urls)  # cursor: a usage error before any work)
    settings = command_settings()  # $SCRATCHFS_BUSY_TIMEOUT, as every command that opens a store reads it
    path = existing_store(root, new_index_ok=rebuild_index, busy_timeout=command_busy_timeout(), **urls)  # (a
    # rebuild too: a mistyped root has no blobs to restore; but a PostgreSQL schema lost whole is made again)
    if linked := linked_index(path):  # (an index file with other names: a problem, never opened, so never written)
        from scratchfs.cli import fsck_report

        again = f"`{shell_command(['fsck', '--repair', '--root', str(path)], True)}`"
        fsck_report.print_report(FsckReport(index="not checked (an index file has other names)", problems=linked),
                                 path, True, 0.0, ["--root", str(path)], again, (repair, quick, limit, as_json))
        return  # (0.0: orphan_grace, for a segments line the report has none of)
    store = (open_for_rebuild(path, settings=settings, **urls) if rebuild_index
             else open_lost_blobs(path, settings=settings, **urls) if lost_blobs
             else ScratchStore(path, settings=settings, **urls))
    with store:
        from scratchfs.cli import fsck_report

        fsck_report.report_fsck(opened(store), repair, quick, rebuild_index, limit, after, progress, as_json)


@main.command("migrate-index")
@takes_no_scope("the index's schema serves every run")
@click.option("--json", "as_json", is_flag=True, help="Print {schema, found, version} as JSON.")
@settings_options(fleet_only=True)
def migrate_index_command(as_json: bool) -> None:
    """Create or migrate a PostgreSQL index's schema (--index or $SCRATCHFS_INDEX, with its ?schema= and
    ?runs_table=) and nothing else: run it as a role that may create in the schema, once per scratchfs upgrade, so
    that the fleet's runtime roles need no CREATE privilege (README: Beyond one host)."""
    from scratchfs.engine.backends import migrate_index

    schema, found, now = migrate_index(command_store().get("index", os.environ.get(ENV_INDEX)),
                                       busy_timeout=command_busy_timeout())
    if as_json:
        echo_json({"schema": schema, "found": found, "version": now})
        return
    done = "created" if not found else "already current" if found == now else f"migrated from version {found}"
    click.echo(f"index schema {schema!r}: {done} (version {now})")
    if 0 < found < now:  # (a step may have added a table, which a runtime role's grant ON ALL TABLES does not cover)
        click.echo("grant each runtime role again (a host whose role lacks a table an upgrade added is refused as it "
                   "opens): scratchfs grants --role ROLE (with this --index or $SCRATCHFS_INDEX) prints the SQL; run "
                   "it as this role")


@main.command("grants")
@takes_no_scope("a role's grants on the index serve every run")
@click.option("--role", required=True, help="The runtime role the fleet's hosts connect as.")
@click.option("--json", "as_json", is_flag=True, help="Print {schema, role, grants, default_privileges} as JSON.")
@settings_options(fleet_only=True)
def grants_command(role: str, as_json: bool) -> None:
    """Print the SQL an admin runs so that ROLE may use the PostgreSQL index (--index or $SCRATCHFS_INDEX, its
    ?schema=): USAGE on the schema, SELECT, INSERT, UPDATE, DELETE on its tables, USAGE on its sequence -- again
    after an upgrade that adds a table -- and the ALTER DEFAULT PRIVILEGES that grant ROLE a table a later upgrade
    adds as migrate-index makes it (run them as that admin). One statement a line, for psql; connects to nothing."""
    from scratchfs.engine.backends import local_index, split_postgres_url

    url = command_store().get("index", os.environ.get(ENV_INDEX))
    if local_index(url):
        raise InvalidArgument(f"grants needs a postgresql:// index URL (--index or ${ENV_INDEX}): a local SQLite "
                              "index has no roles")
    if not role or "\0" in role or len(role.encode("utf-8", "surrogatepass")) > 63:
        raise InvalidArgument("--role must name a PostgreSQL role: 1 to 63 bytes, no NUL")
    from scratchfs.engine.postgres_schema import grant_statements

    schema = split_postgres_url(url)[1]  # type: ignore[arg-type]
    grants = grant_statements(schema, role)
    defaults = grant_statements(schema, role, defaults=True)[len(grants):]
    if as_json:
        echo_json({"schema": schema, "role": role, "grants": grants, "default_privileges": defaults})
        return
    click.echo(f"-- what role {role!r} needs on the index schema {schema!r} (run after each migrate-index):")
    click.echo(";\n".join(grants) + ";")
    click.echo("-- tables and sequences a later upgrade adds, granted as they are made (run as the role that runs "
               "migrate-index):")
    click.echo(";\n".join(defaults) + ";")


@main.command("load")
@scope_options
@click.argument("folder", type=Folder())
@click.option("--tool", default=None, help="Source tool recorded for every file [default: each file's name "
                                           "without its last suffix].")
@TTL_OPTION
@click.option("--max-file-bytes", type=Size(), default=str(MAX_FILE_BYTES), metavar="SIZE",
              help="Leave out, unread, a file larger than this (bytes, or with KiB, MiB, GiB); 0: no limit "
                   "[default: 4 GiB].")
@click.option("--json", "as_json", is_flag=True, help="Accepted for uniformity: this command always prints JSON.")
@settings_options()
@with_store
def load(store: ScratchStore, run_id: str, agent_id: str, folder: str, tool: str | None, ttl: float | None,
         max_file_bytes: int, as_json: bool) -> None:
    """Spill every regular file of FOLDER (recorded tool outputs, recursively) into the scope; print the handles as
    JSON.

    Entries that are not regular files (links, never followed; FIFOs, sockets, devices) and files larger than
    --max-file-bytes (left unread) are skipped and named, with what they are, in one line on stderr; exit code 0.
    A file or folder that cannot be read (permissions, a path longer than the system's limit, gone mid-load, a read
    error) is skipped too and the rest are loaded: their handles are printed, one line on stderr names what was not
    loaded and why, and the exit code is 4.
    """
    skipped: list[Skipped] = []
    stubs: dict[str, Stub] = {}
    try:
        load_dir(store.scope(run_id, agent_id), folder, tool=tool, ttl=ttl, skipped=skipped, into=stubs,
                 max_file_bytes=max_file_bytes or None)
    except ScratchError as exc:  # the store refused (a quota, a full disk): what it stored is printed first
        if stubs:
            _print_loaded(stubs)
            raise type(exc)(f"{exc} (after loading {len(stubs)} files, printed)") from None
        raise
    _print_loaded(stubs)
    failed = [entry for entry in skipped if entry.failed]
    ruled = "that are not tool outputs"
    if any(entry.too_large for entry in skipped):
        ruled += " or are larger than --max-file-bytes"
    if failed:
        rest = len(skipped) - len(failed)
        also = f"; also skipped {rest} {ruled}" if rest else ""
        raise StorageError(f"loaded {len(stubs)} files; could not load {len(failed)}: {_named(failed)}{also}")
    if skipped:
        warn(f"skipped {len(skipped)} {ruled}: {_named(skipped)}")


def _print_loaded(stubs: dict[str, Stub]) -> None:
    echo_json([{"file": _decoded(name), "handle": stub.handle, "size": stub.size, "source_tool": stub.source_tool}
               for name, stub in stubs.items()])


def _decoded(name: str) -> str:
    """A file name as text that prints: bytes that are not UTF-8 (kept by ``os.fsdecode`` as surrogates) as U+FFFD."""
    return os.fsencode(name).decode("utf-8", "replace")


def _named(skipped: list[Skipped]) -> str:
    """The first five of ``skipped`` as ``path (reason)``, a long path shortened in the middle, then how many
    more."""
    from scratchfs.cli.render import middle_ellipsis

    shown = []
    for entry in skipped[:5]:
        path = "".join(char if char.isprintable() else "?" for char in _decoded(entry.path))
        shown.append(f"{middle_ellipsis(path, 100)} ({entry.reason})")
    return ", ".join(shown) + (f" and {len(skipped) - 5} more" if len(skipped) > 5 else "")


__all__ = ["entries_said", "fsck_command", "load", "ls", "root_words", "stats_command"]
