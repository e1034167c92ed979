"""The scratchpad's verbs on the command line: ``scratch-write``, ``scratch-read``, ``scratch-list`` and
``scratch-delete``.

A value goes to stdout as raw bytes; structured output is JSON. ``scratch-read --json`` prints the model-facing
contract of :mod:`scratchfs.api.contract` -- byte for byte the JSON text an MCP client receives for the same call.
"""

from __future__ import annotations

import json

import click

from scratchfs.api.store import ScratchStore
from scratchfs.cli.advice import call_command, hint_root
from scratchfs.cli.app import echo_json, json_accepted, main, scope_options, warn, with_existing_store, with_store
from scratchfs.cli.option_types import Integer
from scratchfs.cli.output import INPUT_ARGUMENT
from scratchfs.cli.settings_options import (
    BUDGET_WORDS,
    STDIN_CAP_OPTION,
    TTL_OPTION,
    budget_default,
    settings_options,
)
from scratchfs.cli.verbs import INT, SIZE, STDIN_CAP_SAID, warn_reply, write_all
from scratchfs.foundation.calls import Call
from scratchfs.foundation.checks import HANDLE_RE
from scratchfs.foundation.errors import BadCursor, InvalidArgument
from scratchfs.foundation.limits import MAX_LIST_ENTRIES, MAX_READ_BYTES


@main.command("scratch-write")
@scope_options
@click.argument("key")
@INPUT_ARGUMENT
@STDIN_CAP_OPTION
@TTL_OPTION
@settings_options()
@json_accepted
@with_store
def scratch_write(store: ScratchStore, run_id: str, agent_id: str, key: str, source, max_stdin_bytes: int,
                  ttl: float | None) -> None:
    """Write SOURCE (a file; - or none: stdin) to the scratchpad under KEY (an overwrite is atomic); print the
    entry as JSON."""
    source.cap_stdin(max_stdin_bytes, STDIN_CAP_SAID)
    entry = store.scope(run_id, agent_id).scratch_write(key, source, ttl=ttl)
    echo_json(entry.to_dict())


@main.command("scratch-read")
@scope_options
@click.argument("key")
@click.option("--json", "as_json", is_flag=True,
              help="Print the JSON a model receives (the MCP scratch_read result: {key, offset, length, size, "
                   "next_offset, remaining, next_call, data}) instead of the raw value.")
@click.option("--offset", type=INT, default=None, help="With --json: the first byte [default: 0].")
@click.option("--length", type=SIZE, default=None,
              help=f"With --json: most bytes (a size: 4096, 4KiB) [default: {MAX_READ_BYTES}].")
@click.option("--version", "version", default=None,
              help="With --json: the version a next_call gave; a value written again since exits 1 (changed).")
@click.option("--budget", type=SIZE, default=None,
              help=f"With --json: most bytes of the JSON reply ({BUDGET_WORDS}) [default: {budget_default()}].")
@settings_options(reads=True)
@with_existing_store
def scratch_read(store: ScratchStore, run_id: str, agent_id: str, key: str, as_json: bool, offset: int | None,
                 length: int | None, version: str | None, budget: int | None) -> None:
    """Write the value of KEY to stdout, as raw bytes (or JSON with --json)."""
    scope = store.scope(run_id, agent_id)
    given = {name: value for name, value in (("offset", offset), ("length", length), ("version", version),
                                             ("budget", budget)) if value is not None}
    if as_json:
        from scratchfs.api.contract import ScratchTools, to_json  # (loaded for a JSON reply alone)

        reply = ScratchTools(scope).call("scratch_read", {"key": key, **given})
        click.echo(to_json(reply))
        warn_reply(reply, run_id, agent_id, hint_root(store))
        return
    if given:  # (the same read with --json: the command named whole, on this store and scope)
        with_json = call_command(Call.of("scratch_read", key=key, **given), run_id, agent_id,
                                 hint_root(store))
        raise InvalidArgument("--offset, --length, --version and --budget apply to --json reads; the raw value is "
                              f"printed whole: {with_json}")
    write_all(scope.iter_content("scratch", key))


@main.command("scratch-list")
@scope_options
@click.option("--prefix", default="", help="Only keys starting with this text (exact, case-sensitive).")
@click.option("--spilled", is_flag=True, default=False,
              help="List this scope's live spilled results (their handles, h_...) instead of the scratchpad's keys, "
                   "newest first, as the model's scratch_list(spilled=true) does (no --prefix).")
@click.option("--limit", type=Integer(minimum=0), default=0,
              help="Print at most this many entries; when keys remain, stderr names the command that prints the "
                   "next page (--cursor) [default: 0, all].")
@click.option("--cursor", "--after", "cursor", default=None, metavar="CURSOR",
              help="Go on after this cursor (a next: line's, or a scratch_list reply's next_call's; --after too, as "
                   "ls once named it).")
@json_accepted
@settings_options(fleet_only=True)
@with_existing_store
def scratch_list(store: ScratchStore, run_id: str, agent_id: str, prefix: str, spilled: bool, limit: int,
                 cursor: str | None) -> None:
    """List the scratchpad's live keys as JSON, oldest first (--spilled: the scope's spilled results, newest first;
    --limit: one page, the next one's command on stderr).

    A --prefix with --spilled is a usage error (exit 2): the prefix filters scratchpad keys.
    """
    if spilled and prefix:
        raise InvalidArgument("--prefix filters scratchpad keys; spilled results are listed whole, newest first: "
                              "give --spilled without --prefix")
    scope, opened, shown, more = store.scope(run_id, agent_id), False, 0, None
    while True:  # a page at a time, printed as read (atk28: the whole list, 437 MB for 100,000 keys, was held)
        want = MAX_LIST_ENTRIES if not limit else min(MAX_LIST_ENTRIES, limit - shown)
        try:
            page = (scope.spilled_page(limit=want, cursor=cursor) if spilled else
                    scope.scratch_page(prefix, limit=want, cursor=cursor))
        except BadCursor as exc:  # (the listing from its start, as the model's tool names it)
            raise exc.from_start(Call.of("scratch_list", spilled=spilled or None, prefix=prefix or None,
                                         limit=limit or None),
                                 ": pass the cursor as a next: line gave it, or list from the start: ") from None
        if page.entries:  # the page's entries as json.dumps of the whole list (indent=2) writes them
            text = json.dumps([entry.to_dict() for entry in page.entries], ensure_ascii=False, indent=2)[2:-2]
            click.echo((",\n" if opened else "[\n") + text, nl=False)
            opened, shown = True, shown + len(page.entries)
        if not page.more:
            break
        cursor = page.next_cursor
        if limit and shown >= limit:
            more = cursor
            break
    click.echo("\n]" if opened else "[]")
    if more is not None:
        next_call = Call.of("scratch_list", spilled=spilled or None, prefix=prefix or None, limit=limit, cursor=more)
        warn(f"{shown:,} entr{'y' if shown == 1 else 'ies'} shown; next: "
             + call_command(next_call, run_id, agent_id, hint_root(store)), whole=True)


@main.command("scratch-delete")
@scope_options
@click.argument("key")
@json_accepted
@settings_options(fleet_only=True)
@with_existing_store
def scratch_delete(store: ScratchStore, run_id: str, agent_id: str, key: str) -> None:
    """Delete KEY from the scratchpad (exit code 1 if there was no live value)."""
    scope = store.scope(run_id, agent_id)
    if not scope.scratch_delete(key):
        missing = store.entries.not_found(run_id, agent_id, "scratch", key, reading=False)  # Deleted, Expired
        if HANDLE_RE.match(key):  # as MCP's scratch_delete notes it; delete-run and delete-agent remove spills
            from scratchfs.api.contract import A_HANDLE_IS_NO_KEY  # (loaded for this refusal alone)
            raise type(missing)(f"{missing}; {A_HANDLE_IS_NO_KEY.format(delete='scratch-delete')} (or go with "
                                "delete-run, delete-agent)")
        raise missing
    echo_json({"key": key, "deleted": True})


__all__ = [
    "scratch_delete",
    "scratch_list",
    "scratch_read",
    "scratch_write",
]
