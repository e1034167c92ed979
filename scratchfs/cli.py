"""The ``scratchfs`` command line: the store's verbs for shells and scripts, JSON on stdout where output is structured.

Exit codes: 0 success, 1 not found, 2 bad usage or invalid argument, 3 corrupt data, 4 busy or I/O failure (disk
full, permissions). Errors are one line on stderr (``scratchfs: <kind>: <message>``), never a traceback.
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from typing import Any

import click

from .errors import ScratchError
from .store import MAX_READ_BYTES, Matches, ScratchStore, Slice

EXIT_CODES_HELP = """\b
Exit codes:
  0  success
  1  not found (a handle or key of another scope, expired, deleted or missing)
  2  bad usage or invalid argument
  3  corrupt data
  4  busy (lock timeout) or I/O failure (disk full, permissions)
"""


class _Group(click.Group):
    """A click group that turns every scratchfs error into one stderr line and its exit code."""

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


def slice_to_dict(result: Slice) -> dict[str, Any]:
    """A range read as JSON: bytes as UTF-8 text (invalid bytes replaced) beside their offsets and length."""
    return {"handle": result.handle, "offset": result.offset, "length": len(result.data), "size": result.size,
            "next_offset": result.next_offset, "data": _text(result.data)}


def matches_to_dict(result: Matches) -> dict[str, Any]:
    """A search as JSON: each window's bytes as UTF-8 text (invalid bytes replaced) beside their offsets."""
    return {
        "handle": result.handle, "match": _text(result.match), "size": result.size,
        "next_offset": result.next_offset,
        "windows": [{"match_offset": w.match_offset, "offset": w.offset, "length": w.length, "data": _text(w.data)}
                    for w in result.windows],
    }


_TTL = click.option("--ttl", type=float, default=None, help="Seconds until the entry expires [default: 3600].")
_INPUT = click.argument("source", type=click.File("rb", lazy=False), default="-", required=False)


@main.command()
@_scope_options
@click.option("--tool", required=True, help="Name of the tool whose result this is.")
@_TTL
@_INPUT
@_with_store
def spill(store: ScratchStore, run_id: str, agent_id: str, tool: str, ttl: float | None, source) -> None:
    """Store FILE (or stdin) out of context and print its stub as JSON."""
    stub = store.scope(run_id, agent_id).spill(source, source_tool=tool, ttl=ttl)
    _echo_json(stub.to_dict())


@main.command("read-handle")
@_scope_options
@click.argument("handle")
@click.option("--offset", type=int, default=0, show_default=True,
              help="First byte to read; with --match, where the search starts.")
@click.option("--length", type=int, default=None, help=f"Bytes to read [default: 4096; at most {MAX_READ_BYTES}].")
@click.option("--match", "needle", default=None, help="Search for this text and print the windows around matches.")
@click.option("--context", type=int, default=200, show_default=True, help="Bytes of context on each side of a match.")
@click.option("--max-matches", type=int, default=20, show_default=True, help="Most windows to print.")
@click.option("--json", "as_json", is_flag=True, help="Print a range read as JSON instead of raw bytes.")
@_with_store
def read_handle(store: ScratchStore, run_id: str, agent_id: str, handle: str, offset: int, length: int | None,
                needle: str | None, context: int, max_matches: int, as_json: bool) -> None:
    """Read a spilled result: raw bytes of a range to stdout, or (with --match) the windows as JSON."""
    scope = store.scope(run_id, agent_id)
    if needle is not None:
        found = scope.read_handle(handle, offset, match=needle, context=context, max_matches=max_matches)
        _echo_json(matches_to_dict(found))
        return
    result = scope.read_handle(handle, offset, length)
    if as_json:
        _echo_json(slice_to_dict(result))
    else:
        sys.stdout.buffer.write(result.data)
        sys.stdout.buffer.flush()


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
@click.option("--json", "as_json", is_flag=True, help="Print {key, size, data} as JSON (base64 if not UTF-8).")
@_with_store
def scratch_read(store: ScratchStore, run_id: str, agent_id: str, key: str, as_json: bool) -> None:
    """Write the value of KEY to stdout, as raw bytes (or JSON with --json)."""
    data = store.scope(run_id, agent_id).scratch_read(key)
    if as_json:
        from .toolkit import range_result

        _echo_json(range_result(Slice(key, 0, data, len(data), None), name="key"))
        return
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


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
@click.option("--run", "run_id", required=True, help="Run id.")
@click.option("--agent", "agent_id", required=True, help="Agent id.")
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
    from .demo import RUN_ID, run_demo

    if not as_json:
        run_demo(store, fixtures_dir)
        return
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()):
        run_demo(store, fixtures_dir)
    _echo_json([entry.to_dict() for entry in store.list_entries_for_run(RUN_ID)])


from . import cli_extra  # noqa: E402, F401  (registers ls, stats, fsck, load, mcp, mcp-proxy)

if __name__ == "__main__":  # pragma: no cover
    main()
