"""The store's verbs on the command line: ``spill``, ``read-handle``, ``delete-run``, ``delete-agent``, ``sweep``
and ``demo`` (the scratchpad's, ``scratch-*``, are :mod:`scratchfs.cli.scratchpad`'s).

Content goes to stdout as raw bytes; structured output is JSON. ``--json`` output of ``read-handle`` is the model-facing
contract of :mod:`scratchfs.api.contract` -- byte for byte the JSON text an MCP client receives for the same call.
"""

from __future__ import annotations

import contextlib
import io
import tempfile
from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import click

from scratchfs.api.encodings import ENCODINGS, WIDE, check_encoding, decode_single, least_bytes, sought_in
from scratchfs.api.store import ScratchStore
from scratchfs.cli.advice import call_command, hint_root, options_said
from scratchfs.cli.app import (
    as_invoked,
    echo_json,
    json_accepted,
    main,
    resolve_root,
    root_option,
    scope_options,
    stdout_bytes,
    warn,
    with_existing_store,
    with_store,
)
from scratchfs.cli.option_types import Folder, Integer
from scratchfs.cli.output import INPUT_ARGUMENT, RootText, end_shared_line
from scratchfs.cli.passthrough import passes_small_through
from scratchfs.cli.settings_options import (
    BUDGET_WORDS,
    STDIN_CAP_OPTION,
    TTL_OPTION,
    Size,
    budget_default,
    settings_options,
)
from scratchfs.cli.shell import command_line, program
from scratchfs.cli.usage import takes_no_scope
from scratchfs.foundation.call_text import calls_in, parse_call
from scratchfs.foundation.calls import Call
from scratchfs.foundation.checks import CONTEXT_FORMS
from scratchfs.foundation.errors import InvalidArgument
from scratchfs.foundation.limits import LINE_WINDOW_BYTES, MAX_LINES, MAX_READ_BYTES
from scratchfs.foundation.text import is_digits, one_line

if TYPE_CHECKING:
    from scratchfs.api.results import LineSlice, Slice

INT = Integer()
"""The type of every integer option here but sizes: ASCII digits only (:class:`~scratchfs.cli.option_types.Integer`)."""
SIZE = Size()
"""The type of the options that are numbers of bytes (``--length``, ``--budget``): digits with an optional unit,
``4096`` or ``4KiB``, as the size settings take them (:class:`~scratchfs.cli.settings_options.Size`)."""


class Context(Integer):
    """``--context``: ``line`` (windows of whole lines) or a number of bytes, in ASCII digits as :data:`INT` takes
    them (the tool checks the range); anything else is a usage error naming both forms."""

    name = "integer|line"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int | str:
        if value == "line":
            return "line"
        if isinstance(value, str) and not is_digits(value.removeprefix("-")):
            self.fail(f"{value[:40]!r} is not {CONTEXT_FORMS}", param, ctx)
        return super().convert(value, param, ctx)


STDIN_CAP_SAID = "give a larger --max-stdin-bytes (or $SCRATCHFS_MAX_STDIN_BYTES)"
"""The words a refusal of stdin over ``--max-stdin-bytes`` ends with (``spill``, ``scratch-write``)."""


@main.command()
@passes_small_through(STDIN_CAP_SAID)
@scope_options
@click.option("--tool", default=None, help="Name of the tool whose result this is.")
@TTL_OPTION
@INPUT_ARGUMENT
@STDIN_CAP_OPTION
@click.option("--preview", type=click.Choice(["head", "head+tail"]), default=None,
              help="Preview of the stub [default: head].")
@click.option("--threshold", type=Size(), default=None, metavar="SIZE",
              help="Spill SOURCE only when it is larger than SIZE bytes (or KiB, MiB) as a model receives it (its "
                   "text as a JSON string, escapes included); a smaller one is written to stdout unchanged, nothing "
                   "stored, exit 0, whatever --max-stdin-bytes [default: always spill; 8KiB is the store's spill "
                   "threshold].")
@settings_options()
@json_accepted
@with_store
def spill(store: ScratchStore, run_id: str, agent_id: str, tool: str | None, ttl: float | None, source,
          preview: str | None) -> None:
    """Store SOURCE (a file; - or none: stdin) out of context and print its stub as JSON (--threshold: only when
    it is large; a small one is printed as it is).

    Each read the stub's note names is written on stderr as the command that makes it (a REGEX or JQ in it is
    yours to fill in), e.g. "scratchfs: the note's call as a command: scratchfs read-handle h_... --line -50 ..."
    (several: "scratchfs: the note's calls as commands, one a line:", then each command alone on its line);
    a binary entry's range read with --json, whose data is the hex dump the note names, not the raw bytes.
    """
    stub = store.scope(run_id, agent_id).spill(source, source_tool=tool, ttl=ttl, preview=preview)
    echo_json(stub.to_dict())
    calls = calls_in(stub.note)
    if stub.content_type == "binary":  # (a raw range read of binary bytes writes them into a shell: the hex dump
        calls = [as_hex_dump(verb, arguments) for verb, arguments in calls]  # the note names is --json's data)
    warn_calls(calls, run_id, agent_id, hint_root(store))


def as_hex_dump(verb: str, arguments: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """A binary entry's note's call (the tool's name and its arguments) as the command that prints what the note
    says it gives: a byte-range ``read_handle`` (``offset``, ``length``, ``end`` alone) with ``json=True``, whose
    data is the hex dump a model reads (text bytes, a tar member's, as text), not the raw bytes; any other call as
    it is."""
    if verb != "read_handle" or not set(arguments) - {"handle"} <= {"offset", "length", "end"}:
        return verb, arguments
    return verb, {**arguments, "json": True}


@main.command("read-handle")
@scope_options
@click.argument("handle")
@click.option("--offset", type=INT, default=None,
              help="First byte to read [default: 0]; with --match or --pattern, where the search starts.")
@click.option("--length", type=SIZE, default=None,
              help=f"Bytes to read (a size: 4096, 4KiB) [default: 4096; at most {MAX_READ_BYTES}].")
@click.option("--end", type=INT, default=None,
              help="Range, lines and search: the byte to stop before (a tar or zip member's end, as --view members "
                   "gives it; a search from --offset finds the matches that end by it); prints JSON, whose next_call "
                   "stays before it.")
@click.option("--line", type=INT, default=None,
              help="First line to read (1-based; lines end at \\n; negative from the end: -1 the last line).")
@click.option("--lines", type=INT, default=None, help="Lines to read from --line [default: 50].")
@click.option("--match", "needle", default=None, help="Search for this text; print the windows as JSON.")
@click.option("--pattern", default=None, help="Search for this regular expression (Python re syntax, ^ and $ per "
              "line); print the windows as JSON.")
@click.option("--ignore-case", is_flag=True, default=None, help="Match --pattern or --match ignoring ASCII case.")
@click.option("--context", type=Context(), default=None,
              help="Bytes of context on each side of a match [default: 200], or 'line': the line holding it (at most "
                   f"{LINE_WINDOW_BYTES} bytes a side).")
@click.option("--max-matches", type=INT, default=None, help="Most matches to print [default: 20].")
@click.option("--before", type=INT, default=None,
              help="With --match or --pattern: the last matches starting before this byte (the size: the very last).")
@click.option("--count", is_flag=True, default=None,
              help="Count the matches of --match or --pattern, and their lines, instead of printing windows.")
@click.option("--jq", default=None, help="Structure: a jq filter over the JSON document (prints JSON).")
@click.option("--slurp", is_flag=True, default=None,
              help="Structure, with --jq: run it once over the array of all JSON-lines records or CSV/TSV rows.")
@click.option("--record", type=INT, default=None, help="Structure: the first JSON-lines record (from 1).")
@click.option("--records", type=INT, default=None,
              help="Structure: most JSON-lines records a page (fewer when the budget fills first).")
@click.option("--row", type=INT, default=None, help="Structure: the first CSV/TSV row (from 1, after the header; "
              "from the first line when the shape says \"no header\").")
@click.option("--rows", type=INT, default=None,
              help="Structure: most CSV/TSV rows a page (fewer when the budget fills first).")
@click.option("--column", "columns", multiple=True, help="Structure: only this CSV/TSV column (repeatable): a name "
              "the header holds, else a number from 0 (digits, or number:N); a number only when the shape says "
              "\"no header\".")
@click.option("--view", type=click.Choice(["text", "members"]), default=None,
              help="Structure: the text of an HTML page, or terminal output as rendered; members: every member "
                   "of a tar or zip, page by page.")
@click.option("--raw-offset", "raw_offset", type=INT, default=None,
              help="With --view text on terminal output: start at the rendered line holding this byte of the raw "
                   "output (a search window's offset).")
@click.option("--select", default=None, help="Structure: the HTML or XML elements this CSS selector matches.")
@click.option("--encoding", type=click.Choice(list(ENCODINGS)), default=None,
              help="Range, lines, search: the text's encoding; latin-1 or cp1252: each byte one character, printed as "
                   "UTF-8 (a search's text written in it).")
@click.option("--cursor", default=None, help="Structure: where the next page starts (a previous reply's cursor).")
@click.option("--budget", type=SIZE, default=None,
              help=f"Most bytes of the JSON reply ({BUDGET_WORDS}), which a read given it prints, as --json does "
                   f"[default: {budget_default()}].")
@click.option("--json", "as_json", is_flag=True,
              help="Print the result as the JSON a model receives (the MCP read_handle result) instead of raw bytes.")
@click.option("--all", "whole", is_flag=True,
              help="Write every byte of the result to stdout, whatever its size (in constant memory; no other "
                   "read option applies).")
@settings_options(reads=True)
@with_existing_store
def read_handle(store: ScratchStore, run_id: str, agent_id: str, handle: str, as_json: bool, whole: bool,
                **options: Any) -> None:
    """Read the spilled result HANDLE (h_..., from a stub): raw bytes of a byte or line range to stdout, or as JSON
    the windows of a search or a page of a structure read (--jq, --jq with --slurp, --record, --row, --view
    text, --select); --all
    writes the whole result.

    A read that stops before the end prints the command that reads on, on stderr.
    """
    _read(store, run_id, agent_id, handle, as_json, whole, options)


def _read(store: ScratchStore, run_id: str, agent_id: str, handle: str, as_json: bool, whole: bool,
          options: dict[str, Any]) -> None:
    from scratchfs.api.bounds import past_bytes  # (the reads' modules load with a read: not for every command)
    from scratchfs.api.column_words import column_words
    from scratchfs.api.contract import STRUCTURE_ARGUMENTS, ScratchTools, to_json
    from scratchfs.api.results import LineSlice
    from scratchfs.api.wide_lines import wide_lines

    given = {name: value for name, value in options.items() if value not in (None, ())}
    scope = store.scope(run_id, agent_id)
    tools = ScratchTools(scope)
    if whole:
        if given or as_json:
            raise InvalidArgument("--all writes the whole result raw and takes no other read option (nor --json)")
        write_all(scope.iter_content("handle", tools.check("read_handle", {"handle": handle})["handle"]))
        return
    check_read_caps(given, as_json)
    if "needle" in given:
        given["match"] = given.pop("needle")
    if "columns" in given:  # (a name the header holds wins over a number: a column named "2020")
        given["columns"] = column_words(tools, handle, list(given["columns"]))
    arguments = tools.check("read_handle", {"handle": handle, **given})  # one rule with MCP and --json
    if as_json or given.keys() & {"match", "pattern", "count", "budget", "end", *STRUCTURE_ARGUMENTS}:
        reply = tools.call("read_handle", arguments)
        click.echo(to_json(reply))
        warn_reply(reply, run_id, agent_id, hint_root(store), as_json, options=True)
        return
    single = sought_in(check_encoding(arguments.pop("encoding", None)),  # ("utf-16": the one its mark names)
                       lambda: scope.read_range(handle, 0, 2).data, arguments)[0]
    if single in WIDE and arguments.keys() & {"line", "lines"}:  # (UTF-16: lines end at its newlines' code units)
        result = wide_lines(scope, handle, single, arguments.get("line"), arguments.get("lines"),
                            offset=arguments.get("offset") or None)
    else:
        if single in WIDE and arguments.get("length") is not None:  # (a character at least, as the tool reads)
            arguments["length"] = max(arguments["length"], least_bytes(single))
        result = replace(scope.read_handle(**arguments), encoding=single)  # (the next command names it too)
    result, written = _shown(scope, result, single)
    out = stdout_bytes()
    out.write(written)
    out.flush()
    end_shared_line(written)  # (the stderr lines after it start lines of their own in one stream)
    note = result.note if isinstance(result, LineSlice) else past_bytes(result)  # (a line read from the end before
    if note:  # the first, or one from the content's end, as --json says: its calls as commands)
        root = hint_root(store)
        if isinstance(note, str):
            warn(note)
        else:
            warn(note.written(lambda c: call_command(c, run_id, agent_id, root), options_said), root, whole=True)
    if result.next_call is not None:  # (a read from the end that reached it goes on backwards: LineSlice.next_call)
        back = isinstance(result, LineSlice) and result.next_line is None
        follow = ", the content's last; the lines before them" if back else f"; {result.remaining} bytes follow; next"
        warn(f"{len(result.data)} bytes from offset {result.offset}{follow}: "
             f"{shell_next(result, run_id, agent_id, hint_root(store))}", whole=True)


def _shown(scope: Any, result: Any, single: str | None) -> tuple[Any, bytes]:
    """``(result, bytes printed)`` of a raw read (``result``: a Slice or LineSlice) in ``single`` (``None``: UTF-8,
    its bytes as they are): a UTF-16 range as the tool's range read shows it (:func:`~scratchfs.api.views.piece`:
    from an even offset, whole characters, a surrogate pair its end cuts left to the next read, ``result`` cut to
    the bytes shown) -- each half of a pair was printed as U+FFFD, and the next command read on after it."""
    from scratchfs.api.results import Slice
    from scratchfs.api.views import piece

    if single is None:
        return result, result.data
    if single in WIDE and isinstance(result, Slice):
        lead = min(2, result.offset)
        before = scope.read_range(result.handle, result.offset - lead, lead).data if lead else b""
        shown = piece(result.data, result.offset, result.bound, False, single, before=before)
        at = shown.offset - result.offset
        part = replace(result, offset=shown.offset, data=result.data[at : at + shown.length]).prefix(shown.length)
        return part, shown.data.encode("utf-8")
    return result, decode_single(result.data[result.offset % 2 if single in WIDE else 0 :], single).encode("utf-8")


def warn_calls(calls: list[tuple[str, dict[str, Any]]], run_id: str, agent_id: str, root: str | None) -> None:
    """Print ``calls`` (a note's: the tool's name and its arguments) on stderr as the commands that make them on the
    same store and scope (a stub's note and a JSON reply's ``calls`` alike): one as ``scratchfs: the note's call as
    a command: scratchfs read-handle h_... --line -50 --root ... --run ... --agent ...``; several under one line,
    ``scratchfs: the note's calls as commands, one a line:``, each command a line of its own, as it pastes."""
    commands = [call_command(Call.of(verb, **arguments), run_id, agent_id, root) for verb, arguments in calls]
    if len(commands) == 1:
        warn("the note's call as a command: " + commands[0], whole=True)
    elif commands:  # (the words said once, not on each line: a stub names up to 6 reads)
        warn("the note's calls as commands, one a line:")
        for command in commands:
            click.echo(one_line(as_invoked(command)), err=True)


def warn_reply(reply: dict[str, Any], run_id: str, agent_id: str, root: str | None, as_json: bool = False,
               options: bool = False) -> None:
    """Print on stderr, for a JSON reply the command printed, every read its ``note`` names as a command a shell user
    runs (:func:`warn_calls`): the reply's ``calls`` and any call the note's text writes that they lack (a note the
    budget cut); with ``options`` (``read-handle``'s replies), a note that names arguments in the model's words and
    no call (``count=true counts them all; before=23056 shows the last ones``) again as this command's options
    (``--count ... --before 23056 ...``); then its ``next_call`` (:func:`warn_next`). Raises what ``warn_next``
    raises."""
    calls = [(call["tool"], call["arguments"]) for call in reply.get("calls", ())]
    note = reply.get("note")
    if isinstance(note, str):
        written = calls_in(note)
        calls += [call for call in written if call not in calls]
        if options and not written and (said := options_said(note)) != note:
            warn("the note in this command's options: " + said, whole=True)
    warn_calls(calls, run_id, agent_id, root)
    warn_next(reply, run_id, agent_id, root, as_json)


def warn_next(reply: dict[str, Any], run_id: str, agent_id: str, root: str | None, as_json: bool = False) -> None:
    """Print a JSON reply's ``next_call``, when it goes on, on stderr as the command that makes it on the same store
    and scope (``scratchfs: next: scratchfs read-handle h_... --row 51 ...``; ``as_json``: with ``--json``, so the
    next page prints as this one did), as a raw read prints its ``next:``. Raises InvalidArgument only for a
    ``next_call`` :func:`~scratchfs.foundation.call_text.parse_call` cannot read (none scratchfs writes)."""
    if isinstance(reply.get("next_call"), str):
        verb, then = parse_call(reply["next_call"])
        warn("next: " + call_command(Call.of(verb, **then, json=as_json or None), run_id, agent_id, root), whole=True)


def check_read_caps(given: dict[str, Any], as_json: bool) -> None:
    """Refuse a ``--length`` over the bytes one read returns (:data:`MAX_READ_BYTES`) or ``--lines`` over
    :data:`MAX_LINES`, naming what reads more: ``--all`` (every byte, raw), or the next read each one names (the
    ``next:`` line, or ``next_call`` with ``--json``). The tools' own refusal named only the bound.

    Raises:
        InvalidArgument: a length or line count over its bound.
    """
    for option, bound, unit in (("length", MAX_READ_BYTES, "bytes"), ("lines", MAX_LINES, "lines")):
        value = given.get(option)
        if isinstance(value, int) and value > bound:
            on = (f"give --{option} {bound} or less and follow each reply's next_call" if as_json else
                  f"--all writes every byte, whatever the size; or give --{option} {bound} or less, and each read "
                  f"prints the command that reads on")
            raise InvalidArgument(f"--{option} {value} is more than one read returns ({bound:,} {unit}): {on}")


def shell_next(result: Slice | LineSlice, run_id: str, agent_id: str, root: str | None) -> str:
    """The shell command that reads on after a raw read (the CLI's twin of ``next_call``): it names the program as it
    was invoked (:func:`~scratchfs.cli.app.program`) and the store's ``root`` as well as the scope, so it reads the
    same store whatever the environment it is run in. A fleet's store (``root`` None) is named by
    ``--index`` and ``--blobs`` (or ``$SCRATCHFS_INDEX`` and ``$SCRATCHFS_BLOBS``), which the command is said to need
    instead: not printed, they may hold a password. It is ``result.next_call`` as a command (:func:`call_command`),
    so it goes where the call goes: on, or back before the first line of a read from the end. ``result`` must go on
    (``next_call`` not None)."""
    verb, then = parse_call(result.next_call)
    return call_command(Call.of(verb, **then), run_id, agent_id, root)


def write_all(chunks: Iterator[bytes]) -> None:
    """Write ``chunks`` to stdout as raw bytes, one at a time (constant memory), and flush."""
    out = stdout_bytes()
    for chunk in chunks:
        out.write(chunk)
    out.flush()




def _deleted_by(option: str, value: str) -> str:
    """The command deleting every entry of the run (or agent) ``value`` of an ``option`` a command does not take."""
    if option == "--run":
        return f"; every entry of that run, live ones too: {command_line(program(), ['delete-run', value])}"
    return ("; every entry of that agent of a run, live ones too: "
            f"{command_line(program(), ['delete-agent', '--run', 'RUN', '--agent', value])}")


@main.command("delete-run")
@takes_no_scope("it takes the run as its argument", _deleted_by)
@root_option
@click.argument("run_id")
@json_accepted
@settings_options(fleet_only=True)
@with_existing_store
def delete_run(store: ScratchStore, run_id: str) -> None:
    """Delete every entry of RUN_ID, with its directory; print {run_id, rows_deleted} as JSON.

    A run with no entries (never written, mistyped, deleted already) is deleted already: exit 0, rows_deleted 0, and
    one line on stderr, "no entries of run 'RUN_ID'".
    """
    rows = store.delete_run(run_id)
    echo_json({"run_id": run_id, "rows_deleted": rows})
    if not rows:
        warn(f"no entries of run '{run_id}'")


@main.command("delete-agent")
@scope_options
@json_accepted
@settings_options(fleet_only=True)
@with_existing_store
def delete_agent(store: ScratchStore, run_id: str, agent_id: str) -> None:
    """Delete every entry of one agent of a run, with its directory; print {run_id, agent_id, rows_deleted} as JSON.

    An agent with no entries in the run is deleted already: exit 0, rows_deleted 0, and one line on stderr,
    "no entries of agent 'AGENT' in run 'RUN'".
    """
    rows = store.delete_agent(run_id, agent_id)
    echo_json({"run_id": run_id, "agent_id": agent_id, "rows_deleted": rows})
    if not rows:
        warn(f"no entries of agent '{agent_id}' in run '{run_id}'")


@main.command("sweep")
@takes_no_scope("it deletes the expired entries of every run at once (an expired entry reads as expired already) "
                "and the files no row names", _deleted_by)
@root_option
@json_accepted
@settings_options(fleet_only=True)
@with_existing_store
def sweep_command(store: ScratchStore) -> None:
    """Delete expired entries and their files, and reconcile orphans; print the counts as JSON.

    Store-wide: every run's expired entries at once, so --run and --agent are refused, after the command or before
    it (set by $SCRATCHFS_RUN_ID/$SCRATCHFS_AGENT_ID they are let be). One run's entries, live ones too: delete-run.
    """
    echo_json(store.sweep().to_dict())


@main.command()
@takes_no_scope("it writes a run of its own, 'demo' (in a temporary store unless --root names one)")
@click.option("--root", type=RootText(file_okay=False), default=None,  # (root_option's, its default told right)
              help="Store root directory [default: $SCRATCHFS_ROOT, else a new temporary one, removed at the end].")
@click.option("--fixtures", "fixtures_dir", type=Folder(), default=None,
              help="Folder of recorded tool outputs [default: fixtures/ of this clone].")
@click.option("--json", "as_json", is_flag=True, help="Print the run's entries as JSON instead of the report.")
def demo(root: str | None, fixtures_dir: str | None, as_json: bool) -> None:
    """Run the main job on real tool outputs: spill each, read a range and a match back, use the scratchpad.

    The store is a new temporary directory (removed at the end, index and blobs in it even when $SCRATCHFS_INDEX
    and $SCRATCHFS_BLOBS name a fleet) unless --root or $SCRATCHFS_ROOT names one.
    """
    from scratchfs.demo import RUN_ID, run_demo

    root = resolve_root(root)
    with contextlib.ExitStack() as stack:
        local: dict[str, str] = {}
        if root is None:  # all of it local and removed at the end, whatever fleet $SCRATCHFS_INDEX/_BLOBS name
            root = stack.enter_context(tempfile.TemporaryDirectory(prefix="scratchfs-demo-"))
            local = {"index": "sqlite", "blobs": "file"}
            if not as_json:
                click.echo(f"(a temporary store at {root}, removed at the end; pass --root DIR to keep it)")
        store = stack.enter_context(ScratchStore(root, **local))
        try:
            if not as_json:
                run_demo(store, fixtures_dir)
                return
            with contextlib.redirect_stdout(io.StringIO()):
                run_demo(store, fixtures_dir)
        except FileNotFoundError as exc:
            raise InvalidArgument(str(exc)) from None
        echo_json([entry.to_dict() for entry in store.list_entries_for_run(RUN_ID)])


__all__ = [
    "INT",
    "SIZE",
    "STDIN_CAP_SAID",
    "as_hex_dump",
    "delete_agent",
    "delete_run",
    "demo",
    "read_handle",
    "shell_next",
    "spill",
    "sweep_command",
    "warn_reply",
    "write_all",
]
