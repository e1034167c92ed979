"""The ``scratchfs`` command line: the store's verbs for shells and scripts, JSON on stdout where output is structured.

Exit codes: 0 success, 1 not found, 2 bad usage or invalid argument, 3 corrupt data, 4 busy or I/O failure (disk
full, permissions), 5 quota exceeded, 130 interrupted. Errors are one line on stderr
(``scratchfs: <kind>: <message>``), never a traceback.
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from typing import Any

import click

from scratchfs.api.store import MAX_READ_BYTES, LineSlice, Matches, ScratchStore, Slice
from scratchfs.foundation.errors import InvalidArgument, ScratchError, StorageError

EXIT_CODES_HELP = """\b
Exit codes:
  0  success
  1  not found (a handle or key of another scope, expired, deleted or missing)
  2  bad usage or invalid argument
  3  corrupt data
  4  busy (lock timeout) or I/O failure (disk full, permissions)
  5  quota exceeded (the run holds too many bytes or entries)
"""


class _Group(click.Group):
    """A click group that turns every error -- usage, scratchfs, I/O, interrupt -- into one stderr line and its exit
    code."""

    def main(self, *args: Any, standalone_mode: bool = True, **kwargs: Any) -> Any:
        if not standalone_mode:
            return super().main(*args, standalone_mode=False, **kwargs)
        try:
            code = super().main(*args, standalone_mode=False, **kwargs)
        except click.UsageError as exc:
            where = f"scratchfs {exc.ctx.info_name} --help" if exc.ctx and exc.ctx.parent else "scratchfs --help"
            _fail(f"usage: {exc.format_message()} (see {where})", exc.exit_code)
        except click.ClickException as exc:
            _fail(f"error: {exc.format_message()}", exc.exit_code)
        except (click.Abort, KeyboardInterrupt):
            _fail("interrupted", 130)
        sys.exit(code if isinstance(code, int) else 0)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except ScratchError as exc:
            click.echo(f"scratchfs: {exc.kind}: {exc}", err=True)
            ctx.exit(exc.exit_code)
        except BrokenPipeError:
            sys.stderr.close()  # the reader went away (e.g. `| head`): not an error worth a line
            ctx.exit(0)
        except OSError as exc:
            click.echo(f"scratchfs: storage: {exc.strerror or exc}", err=True)
            ctx.exit(4)


def _fail(message: str, code: int) -> None:
    try:
        click.echo(f"scratchfs: {message}", err=True)
    finally:
        sys.exit(code)


def _stdout() -> Any:
    """The binary stdout. Raises StorageError when stdout is closed."""
    if sys.stdout is None:
        raise StorageError("standard output is closed")
    return sys.stdout.buffer


@click.group(cls=_Group, epilog=EXIT_CODES_HELP)
@click.version_option(package_name="scratchfs")
def main() -> None:
    """scratchfs: an out-of-context scratch store for LLM agents.

    Large tool results are spilled to the store under a handle; read them back by range or by match; keep a per-run
    scratchpad. The store lives at --root, else $SCRATCHFS_ROOT, else the user cache directory.
    """


def _root_option(func: Callable) -> Callable:
    return click.option("--root", type=click.Path(file_okay=False), default=None,
                        help="Store root directory [default: $SCRATCHFS_ROOT, else the user cache directory].")(func)


def _scope_options(func: Callable) -> Callable:
    func = click.option("--agent", "agent_id", envvar="SCRATCHFS_AGENT_ID", required=True,
                        help="Agent id [env: SCRATCHFS_AGENT_ID].")(func)
    func = click.option("--run", "run_id", envvar="SCRATCHFS_RUN_ID", required=True,
                        help="Run id [env: SCRATCHFS_RUN_ID].")(func)
    return _root_option(func)


def _with_store(func: Callable) -> Callable:
    """Open the store from --root for the command and close it afterwards."""

    @functools.wraps(func)
    def wrapper(root: str | None, **kwargs: Any) -> Any:
        with ScratchStore(root) as store:
            return func(store, **kwargs)

    return wrapper


def _echo_json(value: Any) -> None:
    click.echo(json.dumps(value, ensure_ascii=False, indent=2))


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def slice_to_dict(result: Slice | LineSlice) -> dict[str, Any]:
    """A range or line read as JSON: bytes as UTF-8 text (invalid bytes replaced) beside their offsets and length,
    and how to go on."""
    out: dict[str, Any] = {"handle": result.handle, "offset": result.offset, "length": len(result.data),
                           "size": result.size, "next_offset": result.next_offset}
    if isinstance(result, LineSlice):
        out.update(first_line=result.first_line, lines=result.lines, total_lines=result.total_lines,
                   next_line=result.next_line, cut=result.cut)
    out.update(remaining=result.remaining, next_call=result.next_call, data=_text(result.data))
    return out


def matches_to_dict(result: Matches) -> dict[str, Any]:
    """A search as JSON: each window's bytes as UTF-8 text (invalid bytes replaced) beside their offsets, lines and
    matches, and how to go on."""
    what: dict[str, Any] = ({"pattern": result.pattern, "ignore_case": result.ignore_case}
                            if result.pattern is not None else {"match": _text(result.match or b"")})
    return {
        "handle": result.handle, **what, "size": result.size, "next_offset": result.next_offset,
        "more": result.more, "remaining": result.remaining, "next_call": result.next_call,
        "windows": [
            {"match_offset": w.match_offset, "line": w.line, "offset": w.offset, "length": w.length,
             "matches": [{"offset": h.offset, "length": h.length, "line": h.line} for h in w.matches],
             "data": _text(w.data)}
            for w in result.windows
        ],
    }


_TTL = click.option("--ttl", type=float, default=None, help="Seconds until the entry expires [default: 3600].")
_INPUT = click.argument("source", type=click.File("rb", lazy=False), default="-", required=False)


@main.command()
@_scope_options
@click.option("--tool", default=None, help="Name of the tool whose result this is.")
@_TTL
@_INPUT
@_with_store
@click.option("--preview", type=click.Choice(["head", "head+tail"]), default=None,
              help="Preview of the stub [default: head].")
def spill(store: ScratchStore, run_id: str, agent_id: str, tool: str | None, ttl: float | None, source,
          preview: str | None) -> None:
    """Store FILE (or stdin) out of context and print its stub as JSON."""
    stub = store.scope(run_id, agent_id).spill(source, source_tool=tool, ttl=ttl, preview=preview)
    _echo_json(stub.to_dict())


@main.command("read-handle")
@_scope_options
@click.argument("handle")
@click.option("--offset", type=int, default=None,
              help="First byte to read [default: 0]; with --match or --pattern, where the search starts.")
@click.option("--length", type=int, default=None, help=f"Bytes to read [default: 4096; at most {MAX_READ_BYTES}].")
@click.option("--line", type=int, default=None, help="First line to read (1-based; lines end at \\n).")
@click.option("--lines", type=int, default=None, help="Lines to read from --line [default: 50].")
@click.option("--match", "needle", default=None, help="Search for this text; print the windows as JSON.")
@click.option("--pattern", default=None, help="Search for this regular expression (Python re syntax, ^ and $ per "
              "line); print the windows as JSON.")
@click.option("--ignore-case", is_flag=True, default=None, help="Match --pattern or --match ignoring ASCII case.")
@click.option("--context", type=int, default=None, help="Bytes of context on each side of a match [default: 200].")
@click.option("--max-matches", type=int, default=None, help="Most matches to print [default: 20].")
@click.option("--json", "as_json", is_flag=True, help="Print a range or line read as JSON instead of raw bytes.")
@_with_store
def read_handle(store: ScratchStore, run_id: str, agent_id: str, handle: str, as_json: bool, **options: Any) -> None:
    """Read a spilled result: raw bytes of a byte or line range to stdout, or the windows of a search as JSON.

    A raw read that stops before the end prints where the next read starts on stderr.
    """
    given = {name: value for name, value in options.items() if value is not None}
    if "needle" in given:
        given["match"] = given.pop("needle")
    result = store.scope(run_id, agent_id).read_handle(handle, **given)
    if isinstance(result, Matches):
        _echo_json(matches_to_dict(result))
        return
    if as_json:
        _echo_json(slice_to_dict(result))
        return
    out = _stdout()
    out.write(result.data)
    out.flush()
    if result.next_call is not None:
        click.echo(f"scratchfs: {len(result.data)} bytes from offset {result.offset}; {result.remaining} bytes "
                   f"follow; next: {result.next_call}", err=True)


@main.command("scratch-write")
@_scope_options
@click.argument("key")
@_INPUT
@_TTL
@_with_store
def scratch_write(store: ScratchStore, run_id: str, agent_id: str, key: str, source, ttl: float | None) -> None:
    """Write FILE (or stdin) to the scratchpad under KEY (an overwrite is atomic); print the entry as JSON."""
    entry = store.scope(run_id, agent_id).scratch_write(key, source, ttl=ttl)
    _echo_json(entry.to_dict())


@main.command("scratch-read")
@_scope_options
@click.argument("key")
@click.option("--json", "as_json", is_flag=True,
              help="Print the value as a JSON range object ({key, offset, length, size, next_offset, remaining, "
                   "next_call, data}; base64 if not UTF-8).")
@_with_store
def scratch_read(store: ScratchStore, run_id: str, agent_id: str, key: str, as_json: bool) -> None:
    """Write the value of KEY to stdout, as raw bytes (or JSON with --json)."""
    data = store.scope(run_id, agent_id).scratch_read(key)
    if as_json:
        from scratchfs.api.contract import range_result

        _echo_json(range_result(Slice(key, 0, data, len(data), None), name="key"))
        return
    out = _stdout()
    out.write(data)
    out.flush()


@main.command("scratch-list")
@_scope_options
@click.option("--prefix", default="", help="Only keys starting with this text (exact, case-sensitive).")
@_with_store
def scratch_list(store: ScratchStore, run_id: str, agent_id: str, prefix: str) -> None:
    """List the scratchpad's live keys as JSON."""
    _echo_json([entry.to_dict() for entry in store.scope(run_id, agent_id).scratch_list(prefix)])


@main.command("scratch-delete")
@_scope_options
@click.argument("key")
@_with_store
def scratch_delete(store: ScratchStore, run_id: str, agent_id: str, key: str) -> None:
    """Delete KEY from the scratchpad (exit code 1 if there was no live value)."""
    if not store.scope(run_id, agent_id).scratch_delete(key):
        click.echo(f"scratchfs: not found: no key {key!r} in this scope (or it has expired)", err=True)
        sys.exit(1)
    _echo_json({"key": key, "deleted": True})


@main.command("delete-run")
@_root_option
@click.argument("run_id")
@_with_store
def delete_run(store: ScratchStore, run_id: str) -> None:
    """Delete every entry of RUN_ID, with its directory."""
    _echo_json({"run_id": run_id, "rows_deleted": store.delete_run(run_id)})


@main.command("delete-agent")
@_root_option
@click.option("--run", "run_id", envvar="SCRATCHFS_RUN_ID", required=True, help="Run id [env: SCRATCHFS_RUN_ID].")
@click.option("--agent", "agent_id", envvar="SCRATCHFS_AGENT_ID", required=True,
              help="Agent id [env: SCRATCHFS_AGENT_ID].")
@_with_store
def delete_agent(store: ScratchStore, run_id: str, agent_id: str) -> None:
    """Delete every entry of one agent of a run, with its directory."""
    _echo_json({"run_id": run_id, "agent_id": agent_id, "rows_deleted": store.delete_agent(run_id, agent_id)})


@main.command("sweep")
@_root_option
@_with_store
def sweep_command(store: ScratchStore) -> None:
    """Delete expired entries and their files, and reconcile orphans; print the counts as JSON."""
    _echo_json(store.sweep().to_dict())


@main.command()
@_root_option
@click.option("--fixtures", "fixtures_dir", type=click.Path(exists=True, file_okay=False), default=None,
              help="Folder of recorded tool outputs [default: fixtures/ of this clone].")
@click.option("--json", "as_json", is_flag=True, help="Print the run's entries as JSON instead of the report.")
@_with_store
def demo(store: ScratchStore, fixtures_dir: str | None, as_json: bool) -> None:
    """Run the main job on real tool outputs: spill each, read a range and a match back, use the scratchpad."""
    import contextlib
    import io

    from scratchfs.demo import RUN_ID, run_demo

    try:
        if not as_json:
            run_demo(store, fixtures_dir)
            return
        with contextlib.redirect_stdout(io.StringIO()):
            run_demo(store, fixtures_dir)
    except FileNotFoundError as exc:
        raise InvalidArgument(str(exc)) from None
    _echo_json([entry.to_dict() for entry in store.list_entries_for_run(RUN_ID)])


if __name__ == "__main__":  # pragma: no cover
    main()
