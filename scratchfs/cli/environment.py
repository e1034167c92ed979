"""The ``SCRATCHFS_*`` environment variables the command line reads: the ``envvar`` of its options, and those the
store reads itself (``$SCRATCHFS_INDEX``, ``$SCRATCHFS_BLOBS``, ``$SCRATCHFS_SEGMENT_ENTRY_BYTES``) or every command
does (``$SCRATCHFS_BUSY_TIMEOUT``). A misspelt one is named (:func:`misspelt_variables`); one set to empty text is
refused (:func:`empty_variables`), as the option given ``""`` is, never read as unset: ``SCRATCHFS_ROOT=`` opened
the default root, where ``--root ""`` is refused.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import click

from scratchfs.api.settings import SEGMENTS_ENV
from scratchfs.engine.backends import ENV_BLOBS, ENV_INDEX
from scratchfs.foundation.checks import closest

ENV_PREFIX = "SCRATCHFS_"
BUSY_TIMEOUT_ENV = "SCRATCHFS_BUSY_TIMEOUT"
"""The environment variable of ``busy_timeout``, read by every command that opens a store (one without
``--busy-timeout`` too: newuser7's ``ls`` against a hung index waited its default, 30 s, with it set to 5)."""
OTHER_VARIABLES = frozenset({ENV_INDEX, ENV_BLOBS, SEGMENTS_ENV, BUSY_TIMEOUT_ENV})
"""The variables every command that opens a store reads, whether or not an option of it names them."""


def _envvars(commands: Iterable[click.Command], nested: bool) -> set[str]:
    """The ``envvar`` of every option of ``commands`` (and of their subcommands when ``nested``)."""
    known: set[str] = set()
    todo = list(commands)
    while todo:
        cmd = todo.pop()
        if nested:
            todo += list(getattr(cmd, "commands", {}).values())
        for param in cmd.params:
            envvar = getattr(param, "envvar", None)
            known.update([envvar] if isinstance(envvar, str) else envvar or [])
    return known


def misspelt_variables(command: click.Command, environ: Mapping[str, str]) -> list[str]:
    """One line for each variable of ``environ`` that starts with ``SCRATCHFS_``, is none of the CLI's (the
    ``envvar`` of every option of ``command`` and its subcommands, and the store's own) and is a near miss of one
    (:func:`~scratchfs.foundation.checks.closest`): a misspelt variable is otherwise ignored, silently.
    ``$SCRATCHFS_DEFAULT_TL is no scratchfs variable (did you mean $SCRATCHFS_DEFAULT_TTL?); ignored``."""
    given = [name for name in environ if name.startswith(ENV_PREFIX)]
    if not given:
        return []
    known = _envvars([command], nested=True) | OTHER_VARIABLES
    suffixes = [name[len(ENV_PREFIX):] for name in known if name.startswith(ENV_PREFIX)]
    lines = []
    for name in sorted(set(given) - known):
        meant = closest(name[len(ENV_PREFIX):], suffixes)  # (the prefix alone would make every name a near miss)
        if meant is not None:
            lines.append(f"${name[:100]} is no scratchfs variable (did you mean ${ENV_PREFIX}{meant}?); ignored")
    return lines


def empty_variables(ctx: click.Context, command: click.Command | None, environ: Mapping[str, str],
                    args: list[str] | None = None) -> list[str]:
    """The variables ``command`` (a subcommand of ``ctx.command``, the group, whose options it reads too) reads that
    ``environ`` sets to empty text (or only spaces), sorted: click reads an empty variable as unset, and the store
    did too, so ``SCRATCHFS_ROOT=`` silently opened the default root. Such a variable is refused, as its option
    given ``""`` is (:func:`empty_message`) -- unless that option is given on the command line (before the command,
    or in its ``args``), which wins over it: it is not read (:func:`given_instead`)."""
    group = ctx.command
    read = _envvars([group, *([command] if command is not None else [])], nested=False) | OTHER_VARIABLES
    return sorted(name for name in read if name in environ and not environ[name].strip() and not (
        command is not None and given_instead(ctx, command, args or [], name)))


def given_instead(ctx: click.Context, command: click.Command, args: list[str], name: str) -> bool:
    """Whether an option that variable ``name`` stands for is given on the command line, where it wins over the
    variable (then not read, so not refused): before the command (``ctx``: the group's, parsed; ``--run X``) or
    after it (``args``: the command's, not yet parsed; ``spill --run X``, ``--run=X``, before any ``--``, not
    another option's value: ``--tool --run`` gives no ``--run``) -- an
    option of the same name as one whose ``envvar`` is ``name`` (the command's ``--run`` is the group's, read by
    :func:`~scratchfs.cli.app.resolve_scope` first)."""
    group = ctx.command
    names = {param.name for param in [*group.params, *command.params] if name in (
        [param.envvar] if isinstance(getattr(param, "envvar", None), str) else getattr(param, "envvar", None) or [])}
    if any(ctx.get_parameter_source(each) is click.core.ParameterSource.COMMANDLINE
           for each in names if each is not None and each in ctx.params):
        return True
    return bool(names & _options_given(ctx, command, args))


def _options_given(ctx: click.Context, command: click.Command, args: list[str]) -> set[str]:
    """The names of ``command``'s parameters that ``args`` give, as click's parser reads them (an option's value is
    no option: ``--tool --root`` gives ``--tool``; ``--`` ends them); none when they do not parse (the command's own
    parse then says why)."""
    try:
        parsed = command.make_parser(click.Context(command, parent=ctx, resilient_parsing=True)).parse_args(
            list(args))[0]
    except click.ClickException:
        return set()
    return {name for name in parsed if name is not None}


def empty_message(names: list[str]) -> str:
    """The usage error of :func:`empty_variables`' ``names`` (at least one): what to do instead."""
    which = ", ".join(f"${name}" for name in names)
    return (f"{which} {'is' if len(names) == 1 else 'are'} set to empty text: unset "
            f"{'it' if len(names) == 1 else 'them'} (unset means the default) or give a value")


__all__ = ["BUSY_TIMEOUT_ENV", "ENV_PREFIX", "OTHER_VARIABLES", "empty_message", "empty_variables", "given_instead",
           "misspelt_variables"]
