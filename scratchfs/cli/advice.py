"""The calls a refusal advises (:class:`~scratchfs.foundation.calls.Call`, kept as data by the error), written as
the shell commands that make them: ``read_handle(handle="h_...", line=-50, lines=50)`` is ``scratchfs read-handle
h_... --line -50 --lines 50 --root R --run r --agent a``. A tool call pasted in a shell runs nothing; the command
does what the advice said, on the same store and scope.
"""

from __future__ import annotations

import json
import re
from typing import Any

import click

from scratchfs.api.column_words import NUMBER_PREFIX
from scratchfs.api.store import ScratchStore
from scratchfs.api.store_listing import decode_cursor
from scratchfs.cli.shell import QUOTED_TEXT, shell_command, shell_word
from scratchfs.engine.backend_urls import local_blobs
from scratchfs.foundation.calls import Call
from scratchfs.foundation.errors import BadCursor, ScratchError

_NAMED_FIRST = {"read_handle": "handle", "scratch_read": "key"}
"""The verbs written as commands, each with the argument its command takes as its first word."""
_OPTIONS = {"columns": "--column"}
"""Arguments whose option is not ``--`` and their name with ``-`` for ``_``."""
_DROPPED = {"scratch_list": ("budget",)}
"""Arguments a command has no option for (``scratch-list`` prints the entries whole, in no budget)."""


_VERBS = ("read_handle", "scratch_read", "scratch_write", "scratch_list", "scratch_delete")
"""The tools a message may start with the name of, each written as its command (``read-handle: row: ...``)."""


def call_command(call: Call, run_id: str, agent_id: str, root: str | None) -> str:
    """The command that makes ``call`` on the store at ``root`` (``None``: a fleet's, named by ``--index`` and
    ``--blobs`` or their variables) in the scope ``run_id``, ``agent_id``, quoted for a POSIX shell: flags given
    when true and left out when false, a list as its option once per item, a text starting with ``-`` as
    ``--option=TEXT``; a ``scratch_read`` with more than its key as ``--json`` (the command prints the raw value
    whole otherwise). A call of a verb the command line has no command for is written as the tool call."""
    first = _NAMED_FIRST.get(call.verb)
    if first is None and call.verb not in _DROPPED:
        return str(call)
    lead: list[str] = []
    options: list[str] = []
    for name, value in call.arguments:
        if name == first:
            lead = [str(value)]
        elif name not in _DROPPED.get(call.verb, ()):
            options += _option(name, value)
    if call.verb == "scratch_read" and options:
        options.insert(0, "--json")
    return read_command(call.verb.replace("_", "-"), lead, options, run_id, agent_id, root)


def elsewhere_said(exc: ScratchError, root: str | None) -> str:
    """What the CLI adds to ``exc``, a NotFound of a name that may be another scope's
    (:attr:`~scratchfs.foundation.errors.NotFound.elsewhere`): the command that lists every live entry with its run
    and agent on the store at ``root`` (``None``: a fleet's), whose run and agent read it -- the model's tools list
    their own scope alone, a shell user's ``ls`` every scope; ``""`` for any other error."""
    if not getattr(exc, "elsewhere", False):
        return ""
    return f"; {listing_said(root, root is not None)}"


def listing_start(cursor: str | None, words: list[str], local: bool) -> tuple[str, float, int] | None:
    """The position ``ls``'s or ``fsck``'s ``--cursor`` names (:func:`~scratchfs.api.store_listing.decode_cursor`;
    ``None`` for none).

    Raises:
        BadCursor: not such a cursor (forged, cut, another command's: ``scratch-list``'s), naming the command
            ``words`` (the same, without the cursor; ``local``: they name the store's root) that starts it again:
            the refusal said only "not a cursor printed by scratchfs".
    """
    if cursor is None:
        return None
    try:
        return decode_cursor(cursor)
    except BadCursor as exc:
        raise BadCursor(f"{exc}: pass the cursor as a next: line printed it, or start again without one: "
                        f"{shell_command(words, local)}") from None


def hint_root(store: ScratchStore) -> str | None:
    """The ``--root`` a printed continuation of a command on ``store`` names: its root when its blobs are files
    under it -- a local store, or a PostgreSQL index with local files, whose root holds the data (its hints named
    none, and the command pasted opened the default root: refused) -- else ``None`` (S3 blobs: the root holds none
    of them, and the hint says to give the store's ``--index`` and ``--blobs``)."""
    return str(store.root) if local_blobs(store.blobs_url) else None


def listing_said(root: str | None, local: bool) -> str:
    """``scratchfs ls [--root ROOT] lists every live entry with the run and agent that hold it (...)``: where a shell
    user learns the scope of a handle or key, on the store at ``root`` (``None``: the default one, or a fleet's when
    not ``local``, whose command is said to need its ``--index`` and ``--blobs``)."""
    listing = shell_command(["ls", *(["--root", root] if root is not None else [])], local)
    return f"{listing} lists every live entry with the run and agent that hold it (give them as --run and --agent)"


def unfiltered_said(own: list[str], local: bool) -> str:
    """What ``ls`` or ``stats`` with no ``--run`` says on stderr when ``$SCRATCHFS_RUN_ID`` is set: every run is
    shown (an agent's exported scope filters no listing: ``scratchfs ls`` lists where a handle lives), and ``own``,
    the same command with that ``--run``, shows its run's alone (``local``: as :func:`shell_command` writes it)."""
    return (f"every run shown: $SCRATCHFS_RUN_ID ({own[2]}) filters no listing; {shell_command(own, local)} shows "
            "its entries alone")


def scope_missing_said(command: str | None, root: str | None, local: bool) -> str:
    """What the refusal of ``command`` run without its run or agent adds: for a command that reads or removes what
    is stored, ``: scratchfs ls ... lists every live entry with the run and agent that hold it ...``
    (:func:`listing_said`: a handle read in a new shell, the run exported in another, is found there); ``""`` for a
    write, whose ids are the writer's to choose."""
    return "" if command in _WRITES else f": {listing_said(root, local)}"


_WRITES = frozenset({"spill", "scratch-write", "load"})
"""The commands with a scope that write: a listing finds no ids of theirs."""


def _option(name: str, value: object) -> list[str]:
    option = _OPTIONS.get(name, f"--{name.replace('_', '-')}")
    if value is True:
        return [option]
    if value is False:
        return []
    if isinstance(value, list):  # (a column's number as number:N: digits alone name a column the header holds)
        numbered = name == "columns"
        return [word for item in value
                for word in _option(name, f"{NUMBER_PREFIX}{item}" if numbered and type(item) is int else item)]
    text = str(value)
    return [f"{option}={text}"] if isinstance(value, str) and text.startswith("-") else [option, text]


def read_command(command: str, lead: list[str], options: list[str], run_id: str, agent_id: str,
                 root: str | None) -> str:
    """``command LEAD OPTIONS`` with the store's ``root`` (when local) and the scope, quoted for a shell
    (:func:`~scratchfs.cli.shell.shell_command`); a ``lead`` word starting with ``-`` (a key) goes last, after
    ``--``, where it is taken for no option."""
    scope = [*(["--root", root] if root is not None else []), "--run", run_id, "--agent", agent_id]
    if lead and lead[0].startswith("-"):
        return shell_command([command, *options, *scope, "--", *lead], root is not None)
    return shell_command([command, *lead, *options, *scope], root is not None)


def advised(exc: ScratchError, scope: tuple[str, str, str | None] | None) -> str:
    """``exc``'s message, each call it advises written as the command that makes it on the store and scope the
    command ran on (``scope``: run, agent and the root of a local store, else ``None``, :data:`SCOPE_META`;
    :func:`call_command`): a tool call pasted in a shell runs nothing; a tool's name it starts with (the check of
    the tool's arguments: ``read_handle: budget: ...``) written as the command's, and the argument it names next as
    the command's option when it has one: ``read-handle: --budget: ...``."""
    text = str(exc) if scope is None else exc.written(lambda call: call_command(call, *scope), options_said)  # (the
    # words around the calls name options too: "read it by lines (--line, --lines)")
    verb, _, rest = text.partition(": ")  # (a check of a tool's arguments names the tool first: read_handle: row: ..)
    if verb not in _VERBS:
        ctx = click.get_current_context(silent=True)
        command = None if ctx is None else ctx.find_root().invoked_subcommand
        return text if command is None else option_first(text, command)
    name, said, after = rest.partition(": ")
    option = _OPTIONS.get(name, f"--{name.replace('_', '-')}")
    if said and option in _options_of(verb):
        return f"{verb.replace('_', '-')}: {option}{said}{after}"
    return f"{verb.replace('_', '-')}: {option_first(rest, verb)}"  # (read_handle: match is empty: ...)


_LEADING_ARGUMENT = re.compile(r"(?P<name>[a-z][a-z_]*)(?= (?:must|goes with|applies|is) )")
"""A refusal's first words when they name the argument it refuses: ``line must be ...``, ``raw_offset goes with
...``, ``encoding applies to ...``, ``match is empty``."""


def option_first(text: str, command: str) -> str:
    """``text`` (a refusal's message) with the argument it opens with (``line must be a line number from 1 ...``,
    ``raw_offset goes with ...``: :data:`_LEADING_ARGUMENT`) written as the option of ``command`` (a command's
    name, ``read-handle``) the user gave: ``--line must be ...``; as it is when no option of the command is that
    argument (``scratch-read`` has no ``--line``), or one a variable may give too (``blobs must be ...`` of
    ``$SCRATCHFS_BLOBS`` or ``--blobs``: which one was given is not known here), or it opens otherwise."""
    found = _LEADING_ARGUMENT.match(text)
    if found is None:
        return text
    option = _OPTIONS.get(found["name"], f"--{found['name'].replace('_', '-')}")
    return option + text[found.end():] if option in _options_of(command, variables=False) else text


_ARGUMENT_SAID = re.compile(rf"(?:{QUOTED_TEXT})"
                            r'|(?<![^\s(/])(?P<name>[a-z][a-z_]*)=(?P<value>true\b|-?\d+\b|"(?:[^"\\]|\\.)*"|'
                            r'(?=[\s,;.:)/]|$))')
"""An argument as a refusal's text names it to a model, after a space, a bracket or a slash, never inside a quoted
text (a value the message echoes, ``no key 'dir/line=5'``: kept as given): bare (``line=``, ``row=/rows=``,
``takes no jq=:``), a flag (``slurp=true``), a number (``line=-1``) or a JSON string literal (``jq="keys[]"``)."""


def options_said(text: str) -> str:
    """``text`` (a refusal's message) with each argument of ``read_handle`` it names in the model's words written
    as the command's option: ``(line=, lines=)`` as ``(--line, --lines)``, ``jq= with slurp=true`` as ``--jq with
    --slurp``, ``view="text"`` as ``--view text`` (a value quoted for a shell by the one rule of the commands the CLI
    writes, :func:`~scratchfs.cli.shell.shell_word`: pasted, it gives the value back, a newline or a control
    character in it too, where ``shlex.quote`` put them inside quotes, which the one-line stderr then wrote as
    ``\\n``); a word that is no option of the command (or outside a command line's run), or a value that ends in a
    newline (no one shell word writes it), stays as it is."""
    options = _options_of("read_handle")

    def option(found: re.Match[str]) -> str:
        name, value = found["name"], found["value"]
        if name is None:  # (a quoted text)
            return found[0]
        said = _OPTIONS.get(name, f"--{name.replace('_', '-')}")
        if said not in options:
            return found[0]
        if value.startswith('"'):
            try:  # (json's error, a value ending in a newline, a lone surrogate: ValueErrors)
                return f"{said} {shell_word(json.loads(value))}"
            except ValueError:
                return found[0]
        return said if value in ("", "true") else f"{said} {value}"

    return _ARGUMENT_SAID.sub(option, text)


def _options_of(verb: str, variables: bool = True) -> set[str]:
    """The options of the command of the tool ``verb`` (``read-handle``'s for ``read_handle``; a command's own name
    too), none outside a command line's run; not ``variables``: only those no environment variable gives."""
    ctx = click.get_current_context(silent=True)
    group = None if ctx is None else ctx.find_root().command
    command = group.commands.get(verb.replace("_", "-")) if isinstance(group, click.Group) else None
    return {opt for param in command.params for opt in param.opts
            if variables or getattr(param, "envvar", None) is None} if command is not None else set()


def keep_scope(store: ScratchStore, kwargs: dict[str, Any]) -> ScratchStore:
    """Keep the running command's store and scope (when it has one: ``run_id`` and ``agent_id`` among its
    ``kwargs``) under :data:`SCOPE_META`, for :func:`advised`; returns ``store``."""
    ctx = click.get_current_context(silent=True)
    if ctx is not None and isinstance(kwargs.get("run_id"), str) and isinstance(kwargs.get("agent_id"), str):
        ctx.meta[SCOPE_META] = (kwargs["run_id"], kwargs["agent_id"], hint_root(store))
    return store


SCOPE_META = "scratchfs.scope"
"""Where :func:`keep_scope` keeps the running command's run, agent and local root (click's ``meta``, shared by
nested contexts)."""


__all__ = ["SCOPE_META", "advised", "call_command", "elsewhere_said", "hint_root", "keep_scope", "listing_said",
           "listing_start", "option_first", "options_said", "read_command", "scope_missing_said",
           "unfiltered_said"]
