"""The class of every ``scratchfs`` command (:class:`ScratchCommand`): a usage error raised while its arguments are
parsed names the command, so that its one stderr line points at the command's own ``--help``."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, TypeVar

import click

from scratchfs.cli.shell import shell_word

F = TypeVar("F", bound=Callable[..., Any])


class ScratchCommand(click.Command):
    """A click command whose usage errors carry its context: click's parser raises an option given without its
    value (``read-handle h_... --match``) with none, and the line then named ``scratchfs --help``, not
    ``scratchfs read-handle --help``. A parse that fails closes what its parameters opened (SOURCE, opened as it is
    parsed: an extra argument after it left the file open, a descriptor held by a program running the CLI
    in-process)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> Any:
        given = list(args)  # (click's parser consumes the list it is given)
        try:
            self._one_spelling_each(ctx, given)
            return super().parse_args(ctx, args)
        except click.UsageError as exc:
            if exc.ctx is None:
                exc.ctx = ctx
            ctx.close()
            if exc.message.startswith("Got unexpected extra argument"):
                exc.message += self._scope_as_options(ctx, given)
            raise

    def _one_spelling_each(self, ctx: click.Context, args: list[str]) -> None:
        """An option of two spellings (``--cursor`` and its older name ``--after``, ``--ttl`` and ``--default-ttl``)
        given under both is one usage error naming both: the last one given silently won. The arguments are parsed
        as click does, each spelling stored apart (a ``--match --after`` is a text to match, not the option); one
        click's parser refuses is left for its own parse to say.

        Raises:
            click.UsageError: two spellings of one option given together."""
        twice = [param for param in self.params if isinstance(param, click.Option) and len(param.opts) > 1
                 and not (param.is_flag or param.multiple or param.count)]
        if not twice:
            return
        parser = self.make_parser(ctx)
        for param in twice:
            for spelling in param.opts:  # (re-added under its own name: replaces the shared one)
                parser.add_option(obj=param, opts=[spelling], dest=f"{param.name} {spelling}", nargs=param.nargs)
        try:
            opts, _, _ = parser.parse_args(args=list(args))
        except click.UsageError:
            return
        for param in twice:
            both = [spelling for spelling in param.opts if f"{param.name} {spelling}" in opts]
            if len(both) > 1:
                raise click.UsageError(f"{' and '.join(both)} are one option under {len(both)} names: give it once "
                                       f"(as {param.opts[0]})", ctx)

    def _scope_as_options(self, ctx: click.Context, args: list[str]) -> str:
        """For a command whose run and agent are options and that takes no argument (``delete-agent``, ``ls``,
        ``stats``, ``scratch-list``, ``mcp``), its extra arguments said as those options: ``delete-agent RUN
        AGENT``, written as ``delete-run RUN`` is, was told only "Got unexpected extra arguments (RUN AGENT)".
        ``""`` for any other command."""
        names = {param.name for param in self.params if isinstance(param, click.Option)}
        if any(isinstance(param, click.Argument) for param in self.params) or not {"run_id", "agent_id"} <= names:
            return ""
        opts, extra, _ = self.make_parser(ctx).parse_args(args=list(args))
        missing = [option for name, option in (("run_id", "--run"), ("agent_id", "--agent")) if name not in opts]
        said = ": " + " ".join(f"{option} {shell_word(word)}" for option, word in zip(missing, extra, strict=False))
        return (f"; {ctx.info_name} takes the run and agent as options (--run RUN, --agent AGENT), not as arguments"
                + (said if extra and len(extra) <= len(missing) else ""))


_READS = ("Did you mean 'read-handle' (a spilled result, h_...: --all writes every byte, --line and --lines some) or "
          "'scratch-read' (a scratchpad value)?")
_MEANT: dict[str, str] = {
    **dict.fromkeys(("cat", "read", "show", "get", "view", "open", "head", "tail", "less", "more", "print", "dump"),
                    _READS),
    **dict.fromkeys(("grep", "search", "find"), "Did you mean 'read-handle' (HANDLE --match TEXT or --pattern REGEX: "
                                                "the windows around each match)?"),
    **dict.fromkeys(("rm", "del", "delete", "remove", "unlink"),
                    "Did you mean 'scratch-delete' (a scratchpad value), 'delete-run' or 'delete-agent' (every entry "
                    "of a run or an agent; a spilled result, h_..., is not deleted alone: it expires, and 'sweep' "
                    "removes what has)?"),
    **dict.fromkeys(("list", "dir"), "Did you mean 'ls' (every live entry) or 'scratch-list' (a scope's scratchpad "
                                     "keys)?"),
    **dict.fromkeys(("web", "ui", "inspect", "inspector", "server", "http"), "Did you mean 'serve' (the web "
                                                                             "inspector)?"),
    **dict.fromkeys(("check", "verify", "doctor"), "Did you mean 'fsck' (the index checked against the files)?"),
    **dict.fromkeys(("gc", "clean", "cleanup", "prune", "purge", "expire", "vacuum"),
                    "Did you mean 'sweep' (expired entries and their files deleted)?"),
    **dict.fromkeys(("write", "put", "save", "set", "store"),
                    "Did you mean 'scratch-write' (a scratchpad value under a key) or 'spill' (a tool result, its "
                    "stub printed)?"),
    **dict.fromkeys(("status", "info", "du", "df"), "Did you mean 'stats' (entries and bytes per run and agent)?"),
}
"""A newcomer's word for a verb (``cat``, ``rm``) and the commands it means: click guesses a misspelling (``stat``:
``stats``), never another word for the same verb."""
_NO_SUCH = re.compile(r"No such command '(.*)'\.", re.DOTALL)


def name_the_command_meant(exc: click.UsageError) -> None:
    """An unknown command that is a newcomer's word for one (``scratchfs cat h_...``, ``rm``, ``list``, ``web``)
    gets the commands it means, in click's words for a guess (``No such command 'cat'. Did you mean 'read-handle'
    (...) or 'scratch-read' (...)?``); any other error is left as it is."""
    name = getattr(exc, "command_name", None)
    if name is None and (found := _NO_SUCH.fullmatch(exc.message)):  # (click before 8.4: no NoSuchCommand)
        name = found[1]
    meant = _MEANT.get(name.lower()) if isinstance(name, str) else None
    if meant is not None:
        exc.message = f"No such command {name!r}. {meant}"
        exc.possibilities = None  # type: ignore[attr-defined,misc]  # (click's guesses; Final)


def takes_no_scope(why: str, instead: Callable[[str, str], str] | None = None) -> Callable[[F], F]:
    """Hidden ``--run`` and ``--agent`` options for a command that takes neither (it works on the whole store, or
    names its run as an argument), so that one given after the command is the usage error of one rule,
    ``<command> takes no --run or --agent: <why>`` and ``instead(option, value)`` when given (what does what was
    meant with the value given, e.g. ``; to delete every entry of that run: scratchfs delete-run run-px``), where
    click said only "No such option '--run'". Given before the command (``scratchfs --run X sweep``, which swept
    every run's expired entries as if it were not there) they are refused in the same words; set by
    ``$SCRATCHFS_RUN_ID`` and ``$SCRATCHFS_AGENT_ID`` they are let be (an agent's environment sets them for every
    command it runs)."""

    def refuse(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
        top = ctx.find_root()
        name = "run_id" if param.name == "no_run" else "agent_id"
        given = top.get_parameter_source(name) is click.core.ParameterSource.COMMANDLINE
        if value is None and top is not ctx and given:
            value = top.params.get(name)  # (given before the command: as if given after it)
        if value is not None:
            option = "--run" if param.name == "no_run" else "--agent"
            raise click.UsageError(f"{ctx.info_name} takes no --run or --agent: {why}"
                                   + (instead(option, value) if instead is not None else ""), ctx)

    def decorate(func: F) -> F:
        for name, option in (("no_agent", "--agent"), ("no_run", "--run")):
            func = click.option(option, name, default=None, hidden=True, expose_value=False, callback=refuse)(func)
        return func

    return decorate


__all__ = ["ScratchCommand", "name_the_command_meant", "takes_no_scope"]
