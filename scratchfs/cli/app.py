"""The ``scratchfs`` click group, its error handling, and the options its commands share.

Exit codes: 0 success, 1 not found, 2 bad usage or invalid argument, 3 corrupt data (or problems fsck found that
remain), 4 busy or I/O failure (disk full, permissions; ``output:`` or ``input:`` when stdout or the file read failed,
:mod:`scratchfs.cli.output`), 5 quota exceeded, 130 interrupted (SIGINT), 143 terminated (SIGTERM), 129 hung up (SIGHUP;
a write in flight removes its partial blob on all three). Errors are one line on stderr (``scratchfs: <kind>:
<message>``), never a traceback. The commands live in :mod:`scratchfs.cli`'s modules (``verbs``, ``scratchpad``,
``admin``, ``servers``, ``serve``); importing :mod:`scratchfs.cli` registers them all.
"""

from __future__ import annotations

import errno
import functools
import json
import os
import re
import signal
import sys
from collections.abc import Callable
from typing import Any

import click

from scratchfs.api.settings import SEGMENTS_ENV, Settings, default_segment_entry_bytes
from scratchfs.api.store import ScratchStore, existing_store
from scratchfs.api.tools import meant_argument
from scratchfs.cli.advice import SCOPE_META, advised, elsewhere_said, keep_scope, scope_missing_said
from scratchfs.cli.environment import (
    BUSY_TIMEOUT_ENV,
    ENV_PREFIX,
    empty_message,
    empty_variables,
    misspelt_variables,
)
from scratchfs.cli.option_types import Seconds
from scratchfs.cli.output import InputError, OutputError, RootText, tagged_stdout
from scratchfs.cli.shell import QUOTED_TEXT, command_line, program
from scratchfs.cli.termination import Terminated, handle_termination, restore_signals
from scratchfs.cli.usage import ScratchCommand, name_the_command_meant
from scratchfs.foundation.checks import check_int, check_seconds
from scratchfs.foundation.errors import InvalidArgument, ScratchError
from scratchfs.foundation.limits import BUSY_TIMEOUT, MAX_BUSY_TIMEOUT, MAX_SEGMENT_ENTRY_BYTES
from scratchfs.foundation.text import not_a_size, one_line, within_chars

EXIT_CODES_HELP = """\b
Exit codes:
  0    success
  1    not found (a handle or key of another scope, expired, deleted or missing; or changed: a scratchpad
       value written again between two pages of a --json read)
  2    bad usage or invalid argument
  3    corrupt data, or problems fsck found that remain ("not clean:", named by kind)
  4    busy (lock timeout) or I/O failure (disk full, permissions; "output:" or "input:" when it is stdout or
       the file read that failed), or out of memory (ulimit -v)
  5    quota exceeded (the run holds too many bytes or entries; stdin past --max-stdin-bytes)
  129  hung up (SIGHUP)
  130  interrupted (SIGINT)
  143  terminated (SIGTERM)
"""


_NO_ARGS: type[Exception] = getattr(click.exceptions, "NoArgsIsHelpError", type("_Never", (Exception,), {}))
"""What click raises for a group called with no arguments (8.2 and later; before, it printed the help itself)."""

def _name_the_option_meant(exc: click.UsageError) -> None:
    """An unknown option gets the command's own one it means, as the tools and the web API name it (``read-handle
    --regex``: ``Did you mean '--pattern'?``, where click's loose guesses named ``--agent``; ``meant_argument``)."""
    if not isinstance(exc, click.NoSuchOption) or exc.ctx is None:
        return
    options = {o[2:].replace("-", "_"): o for p in exc.ctx.command.params for o in p.opts if o.startswith("--")}
    meant = meant_argument(exc.option_name.lstrip("-").replace("-", "_"), options,
                           (exc.ctx.command.name or "").replace("-", "_"))
    exc.possibilities = None if meant is None else [options[meant]]  # type: ignore[misc]  # (click's field; Final)


_SERVES_STDIN = frozenset({"mcp", "mcp-proxy"})
"""The commands whose standard input is their client's requests (a closed one is refused before the store opens)."""


class ScratchGroup(click.Group):
    """A click group that turns every error -- usage, scratchfs, I/O, interrupt -- into one stderr line and its exit
    code."""

    command_class = ScratchCommand  # (a usage error names the command's --help)

    def main(self, *args: Any, standalone_mode: bool = True, **kwargs: Any) -> Any:
        if not standalone_mode:
            return super().main(*args, standalone_mode=False, **kwargs)
        replaced = handle_termination()
        try:
            code = self._main(*args, **kwargs)
        finally:
            restore_signals(replaced)
        sys.exit(code if isinstance(code, int) else 0)

    def _main(self, *args: Any, **kwargs: Any) -> Any:
        """click's main, not standalone: every error as one stderr line and its exit code (``SystemExit``)."""
        try:
            return super().main(*args, standalone_mode=False, **kwargs)
        except _NO_ARGS as exc:  # a bare `scratchfs`: its help, as --help gives it (click >= 8.2 raises for it)
            click.echo(exc.ctx.get_help() if exc.ctx else str(exc))
            return 0
        except click.UsageError as exc:
            name_the_variable(exc)
            _name_the_option_meant(exc)
            name_the_command_meant(exc)
            where = f"{program()} {exc.ctx.info_name} --help" if exc.ctx and exc.ctx.parent else f"{program()} --help"
            fail(f"usage: {exc.format_message()}{self._after_the_command(exc)} (see {where})", exc.exit_code)
        except click.ClickException as exc:
            fail(f"error: {exc.format_message()}", exc.exit_code)
        except (click.Abort, KeyboardInterrupt, _Interrupted):
            fail("interrupted", 130)
        except Terminated as exc:
            fail("hung up" if exc.signum == getattr(signal, "SIGHUP", -1) else "terminated", 128 + exc.signum)

    def _after_the_command(self, exc: click.UsageError) -> str:
        """For an option of some commands given before the command (``scratchfs --durable spill``): where it goes."""
        if not isinstance(exc, click.NoSuchOption) or (exc.ctx is not None and exc.ctx.parent is not None):
            return ""
        takers = [name for name, command in self.commands.items() if any(
            exc.option_name in (*param.opts, *param.secondary_opts) for param in command.params)]
        return f" It is an option of {', '.join(takers)}: give it after the command's name" if takers else ""

    def resolve_command(self, ctx: click.Context, args: list[str]) -> Any:
        """click's, refusing a variable the command reads that is set to empty text, which click reads as unset: a
        silent default (:func:`~scratchfs.cli.environment.empty_variables`; its option given wins); help reads none."""
        name, command, rest = super().resolve_command(ctx, args)
        if command is not None and "--help" not in rest and (empty := empty_variables(ctx, command, os.environ, rest)):
            raise click.UsageError(empty_message(empty))
        return name, command, rest

    def invoke(self, ctx: click.Context) -> Any:
        try:
            if sys.stdout is None and ctx.protected_args:  # every command's output goes there: a closed stdout is
                raise OutputError(errno.EBADF, "standard output is closed")  # an I/O failure up front, not lost
            if sys.stdin is None and ctx.protected_args and ctx.protected_args[0] in _SERVES_STDIN:  # (its fd 0 would
                raise InputError(errno.EBADF, "standard input is closed: an MCP server reads its client's requests "
                                 "there")  # be the next file the store opens, read as requests: 'Is a directory')
            with tagged_stdout():
                return super().invoke(ctx)
        except ScratchError as exc:  # (its advice, `scratchfs fsck --rebuild-index`, names the store it was given)
            scope = ctx.meta.get(SCOPE_META)
            elsewhere = elsewhere_said(exc, scope[2]) if scope else ""  # (a name of another scope? `ls` finds it)
            warn(f"{exc.kind}: {advised(exc, scope)}{elsewhere}", ctx.meta.get(_ROOT_META),
                 whole=bool(scope and (exc.calls or elsewhere)))  # (the commands it names whole: cut, another argv)
            ctx.exit(exc.exit_code)
        except BrokenPipeError:
            sys.stderr.close()  # the reader went away (e.g. `| head`): not an error worth a line
            ctx.exit(0)
        except InputError as exc:  # the file read's failure, not the store's (scratchfs.cli.output)
            warn(f"input: {exc.strerror}")
            ctx.exit(4)
        except OutputError as exc:  # stdout's failure, not the store's (scratchfs.cli.output)
            warn(f"output: {exc.strerror or exc}" + ("" if exc.errno == errno.EBADF else " (writing standard output)"))
            ctx.exit(4)
        except OSError as exc:
            warn(f"storage: {exc.strerror or exc}")
            ctx.exit(4)
        except (ImportError, MemoryError, SystemError) as exc:  # ulimit -v or the machine's memory (a module loaded
            if not isinstance(exc, MemoryError) and not any(w in str(exc) for w in _OUT_OF_MEMORY_WORDS):
                raise  # when first used, its shared object not mapped; CPython's import failing an allocation: memory
                # too): a resource, as a full disk
            warn("out of memory: the command stopped (the process's memory limit, ulimit -v, or the machine's); a "
                 "write in flight took effect whole or not at all")
            ctx.exit(4)
        except KeyboardInterrupt:  # past click's main, which prints a blank line first; a terminal's ^C echo ended
            if sys.stderr is not None and sys.stderr.isatty():
                click.echo(err=True)
            raise _Interrupted from None


_OUT_OF_MEMORY_WORDS = ("failed to map", "allocate memory", "error return without exception set",
                        "without setting an exception")
"""What an ImportError (a shared object not mapped) or a SystemError (CPython's import machinery when an allocation
failed under ``ulimit -v``: "error return without exception set", seen in CI at 1 MiB of margin,
tests/test_resource_limits.py) says when the command ran out of memory."""


def name_the_variable(exc: click.UsageError) -> None:
    """Name in ``exc`` -- a bad value of an option that came from the option's environment variable -- that variable
    (``Invalid value for $SCRATCHFS_ROOT: ...``), not the option the user did not give (``'--root'``)."""
    param = getattr(exc, "param", None)
    if (isinstance(exc, click.BadParameter) and exc.param_hint is None and exc.ctx is not None and param is not None
            and param.name and isinstance(param.envvar, str)
            and exc.ctx.get_parameter_source(param.name) is click.core.ParameterSource.ENVIRONMENT):
        exc.param_hint = f"${param.envvar}"


class _Interrupted(BaseException):
    """SIGINT in a command: one line, ``scratchfs: interrupted``, exit 130."""


def warn(message: str, root: str | None = None, whole: bool = False) -> None:
    """Print ``scratchfs: <message>`` on stderr as one line, always (:func:`~scratchfs.foundation.text.one_line`:
    a newline, NUL or terminal escape in a message -- a CSV header's, a file name's -- is written as its escape); a
    command it writes names the program as it was invoked, and the store's ``root`` when given (:func:`as_invoked`).
    A message over 2,000 characters is cut in its middle unless ``whole`` or a command in it names ``root`` (a
    command to paste, cut, gave another argv: a long pattern's next page another pattern, a long --root another)."""
    line = one_line(said := as_invoked(str(message), root))
    whole = whole or (root is not None and said != str(message))
    click.echo(f"scratchfs: {line if whole else within_chars(line)}", err=True)


def as_invoked(text: str, root: str | None = None) -> str:
    """``text`` with each command it writes -- ``scratchfs`` then one of the CLI's command names or ``--help``,
    e.g. a store error's ``scratchfs fsck --rebuild-index`` -- naming :func:`program`, and after the command's
    options ``--root ROOT`` when ``root`` (the store the failed command was given) is, ``text`` names no ``--root``
    and the command takes one (not ``migrate-index``, ``grants``): pasted, the advice acts on that store, not on the
    default one (``fsck --rebuild-index`` of another store's index)."""
    name = program()
    if (name == "scratchfs" and root is None) or "scratchfs " not in text:
        return text
    words = "|".join(re.escape(command) for command in sorted(main.commands, key=len, reverse=True))
    rooted = root is not None and "--root" not in text  # (a command the CLI wrote with its --root already)

    def command(found: re.Match[str]) -> str:  # (--root after its options: `fsck --lost-blobs --repair`)
        takes = found[1] in main.commands and any(p.name == "root" for p in main.commands[found[1]].params)
        return command_line(f"{name} {found[1]}{found[2]}", ["--root", root] if rooted and takes else [])

    # (a command written by program() already, `python3 -m scratchfs ls`, is left as it is: the `-m ` before it;
    # a quoted text -- a key, a value, a name, as repr() or JSON writes it -- is the user's words, left as they are)
    return re.sub(rf"{QUOTED_TEXT}|(?<![\w./-])(?<!-m )scratchfs ({words}|--help)(?![\w-])((?: --[a-z][\w-]*)*)",
                  lambda found: found[0] if found[1] is None else command(found), text)


def fail(message: str, code: int) -> None:
    """Print ``scratchfs: <message>`` on stderr (:func:`warn`) and exit with ``code``."""
    try:
        warn(message)
    finally:
        sys.exit(code)


def stdout_bytes() -> Any:
    """The binary stdout. Raises OutputError when stdout is closed."""
    if sys.stdout is None:
        raise OutputError(errno.EBADF, "standard output is closed")
    return sys.stdout.buffer


@click.group(cls=ScratchGroup, epilog=EXIT_CODES_HELP)
@click.option("--root", type=RootText(file_okay=False), envvar="SCRATCHFS_ROOT", default=None,
              help="Store root directory, for every command [env: SCRATCHFS_ROOT; default: the user cache directory].")
@click.option("--run", "run_id", envvar="SCRATCHFS_RUN_ID", default=None, help="Run id [env: SCRATCHFS_RUN_ID].")
@click.option("--agent", "agent_id", envvar="SCRATCHFS_AGENT_ID", default=None,
              help="Agent id [env: SCRATCHFS_AGENT_ID].")
@click.version_option(package_name="scratchfs")
@click.pass_context
def main(ctx: click.Context, root: str | None, run_id: str | None, agent_id: str | None) -> None:
    """scratchfs: an out-of-context scratch store for LLM agents.

    Large tool results are spilled under a handle, read back (read-handle) by byte range, by lines, by substring or
    pattern match, or by structure: a jq filter over JSON, JSON-lines records, CSV/TSV rows, the text of an HTML
    page (or terminal output) and of what a CSS selector matches; keep a per-run scratchpad. The store lives at
    --root, else $SCRATCHFS_ROOT, else the user cache directory; a fleet's (a PostgreSQL index and S3 blobs) at
    --index URL and --blobs URL, or $SCRATCHFS_INDEX and $SCRATCHFS_BLOBS. --root, --run, --agent: before or after.
    """
    ctx.obj = {"root": root, "run_id": run_id, "agent_id": agent_id}
    for line in misspelt_variables(ctx.command, os.environ):
        warn(line)


def global_option(name: str) -> str | None:
    """The value of a global option (``root``, ``run_id``, ``agent_id``: given before the command, else from its
    environment variable), or ``None``."""
    ctx = click.get_current_context(silent=True)
    obj = ctx.find_root().obj if ctx is not None else None
    return (obj or {}).get(name)


def given_before(name: str) -> str | None:
    """A global option (``run_id``, ``agent_id``) as given on the command line before the command, else ``None``
    (its environment variable is no filter: ``ls`` and ``stats`` without ``--run`` show every run)."""
    ctx = click.get_current_context(silent=True)
    if ctx is None:
        return None
    top = ctx.find_root()
    if top.get_parameter_source(name) is not click.core.ParameterSource.COMMANDLINE:
        return None
    return (top.obj or {}).get(name)


def resolve_root(root: str | None) -> str | None:
    """The store root: the command's ``--root``, else the global one (or ``$SCRATCHFS_ROOT``), else ``None``; kept
    for the advice of the command's errors (:func:`as_invoked`)."""
    root = root if root is not None else global_option("root")
    context = click.get_current_context(silent=True)
    if context is not None and root is not None:
        context.meta[_ROOT_META] = os.path.abspath(root)
    return root


_ROOT_META = "scratchfs.root"
"""Where :func:`resolve_root` keeps the running command's store root (click's ``meta``, shared by nested contexts)."""


def resolve_scope(run_id: str | None, agent_id: str | None, root: str | None = None) -> tuple[str, str]:
    """The command's ``--run``/``--agent``, else the global ones (or the environment); ``root``: its ``--root``.

    Raises:
        click.UsageError: one of them is given nowhere (:func:`~scratchfs.cli.advice.scope_missing_said`).
    """
    run_id = run_id if run_id is not None else global_option("run_id")
    agent_id = agent_id if agent_id is not None else global_option("agent_id")
    for value, option, env in ((run_id, "--run", "SCRATCHFS_RUN_ID"), (agent_id, "--agent", "SCRATCHFS_AGENT_ID")):
        if value is None:
            command = getattr(click.get_current_context(silent=True), "info_name", None)
            said = scope_missing_said(command, resolve_root(root), "index" not in command_store())
            raise click.UsageError(f"Missing option '{option}' (or ${env}){said}")
    return run_id, agent_id  # type: ignore[return-value]


def root_option(func: Callable) -> Callable:
    """``--root``: the store root (also accepted before the command)."""
    return click.option("--root", type=RootText(file_okay=False), default=None,
                        help="Store root directory [default: $SCRATCHFS_ROOT, else the user cache directory].")(func)


def scope_options(func: Callable) -> Callable:
    """``--run``/``--agent`` (needed: here, before the command, or from the environment) and ``--root``."""

    @functools.wraps(func)
    def resolved(*args: Any, run_id: str | None = None, agent_id: str | None = None, **kwargs: Any) -> Any:
        run_id, agent_id = resolve_scope(run_id, agent_id, kwargs.get("root"))
        return func(*args, run_id=run_id, agent_id=agent_id, **kwargs)

    wrapped: Callable = click.option("--agent", "agent_id", default=None,
                                     help="Agent id [env: SCRATCHFS_AGENT_ID].")(resolved)
    wrapped = click.option("--run", "run_id", default=None, help="Run id [env: SCRATCHFS_RUN_ID].")(wrapped)
    return root_option(wrapped)


def json_accepted(func: Callable) -> Callable:
    """``--json`` on a command whose output is JSON already (every command takes it, the MCP servers aside)."""
    return click.option("--json", "as_json", is_flag=True, expose_value=False,
                        help="Accepted for uniformity: this command always prints JSON.")(func)


SETTINGS_META = "scratchfs.settings"
"""The key in click's ``ctx.meta`` under which the settings options (:mod:`scratchfs.cli.settings_options`) keep
the values given to them: a dict of :class:`~scratchfs.api.settings.Settings` field name -> checked value."""


STORE_META = "scratchfs.store"
"""The key in click's ``ctx.meta`` under which ``--index`` and ``--blobs`` (:mod:`scratchfs.cli.settings_options`)
keep the URLs given to them: a dict of :class:`~scratchfs.api.store.ScratchStore` keyword -> URL."""


def command_store() -> dict[str, str]:
    """The keywords of :class:`~scratchfs.api.store.ScratchStore` the running command's ``--index`` and ``--blobs``
    give (only those given, or read from ``$SCRATCHFS_INDEX`` / ``$SCRATCHFS_BLOBS`` by the option: the store reads
    the same variables when they are not given)."""
    ctx = click.get_current_context(silent=True)
    return dict(ctx.meta.get(STORE_META) or {}) if ctx is not None else {}


def command_settings() -> Settings | None:
    """The :class:`~scratchfs.api.settings.Settings` the running command's settings options (or their environment
    variables) give, or ``None`` when none is given: the store's defaults. Raises
    :class:`click.UsageError` for a bad ``$SCRATCHFS_BUSY_TIMEOUT`` or ``$SCRATCHFS_SEGMENT_ENTRY_BYTES`` (read
    here: not every command has their options; each option's value was checked as it was parsed)."""
    ctx = click.get_current_context(silent=True)
    given = dict(ctx.meta.get(SETTINGS_META) or {}) if ctx is not None else {}
    env = os.environ.get(BUSY_TIMEOUT_ENV, "").strip()
    if "busy_timeout" not in given and env:  # a command without --busy-timeout (ls, stats, fsck) still waits it
        try:
            given["busy_timeout"] = check_seconds(Seconds(zero_ok=True, maximum=MAX_BUSY_TIMEOUT).number(env),
                                                  "busy_timeout", MAX_BUSY_TIMEOUT, zero_ok=True)
        except InvalidArgument as exc:
            raise click.UsageError(f"${BUSY_TIMEOUT_ENV}: {exc}") from None
    segments = os.environ.get(SEGMENTS_ENV, "").strip()
    if segments:  # read by the store's settings themselves: a bad value is a usage error all the same
        size = default_segment_entry_bytes()
        if not isinstance(size, int):
            raise click.UsageError(f"${SEGMENTS_ENV}: {not_a_size(segments)}")
        try:
            check_int(size, "segment_entry_bytes", 0, MAX_SEGMENT_ENTRY_BYTES)
        except InvalidArgument as exc:
            raise click.UsageError(f"${SEGMENTS_ENV}: {exc}") from None
    return Settings(**given) if given else None


def command_busy_timeout() -> float:
    """The busy timeout the running command opens its store with (:func:`command_settings`), seconds."""
    settings = command_settings()
    return settings.busy_timeout if settings is not None else BUSY_TIMEOUT


def opened(store: ScratchStore) -> ScratchStore:
    """``store``, after saying on stderr (one line) that opening it migrated its index in place, if it did."""
    if store.migrated_from is not None:
        warn(f"note: the index was made by an earlier scratchfs (schema version {store.migrated_from}) and was "
             "migrated in place as it opened: that earlier version can no longer open this store")
    return store


def with_store(func: Callable) -> Callable:
    """Open the store from --root (with :func:`command_settings`) for the command and close it afterwards."""

    @functools.wraps(func)
    def wrapper(root: str | None, **kwargs: Any) -> Any:
        with ScratchStore(resolve_root(root), settings=command_settings(), **command_store()) as store:
            return func(opened(keep_scope(store, kwargs)), **kwargs)

    return wrapper


def with_existing_store(func: Callable) -> Callable:
    """:func:`with_store` for a command that only reads or removes: a root where nothing is is an error (exit code 1,
    :func:`~scratchfs.api.store.existing_store`), not a new empty store made there."""

    @functools.wraps(func)
    def wrapper(root: str | None, **kwargs: Any) -> Any:
        urls = command_store()
        path = existing_store(resolve_root(root), busy_timeout=command_busy_timeout(), **urls)
        with ScratchStore(path, settings=command_settings(), **urls) as store:
            return func(opened(keep_scope(store, kwargs)), **kwargs)

    return wrapper


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def echo_json(value: Any) -> None:
    """Print a value as indented JSON (non-ASCII kept as is; a lone surrogate -- a byte of a file name that is no
    UTF-8, as ``os.fsdecode`` keeps it -- as its ``\\uXXXX`` escape, so the output stays UTF-8, and ``json.loads``
    then ``os.fsencode`` give the name's bytes back)."""
    text = json.dumps(value, ensure_ascii=False, indent=2)
    click.echo(_LONE_SURROGATE.sub(lambda found: f"\\u{ord(found[0]):04x}", text))


__all__ = ["BUSY_TIMEOUT_ENV", "ENV_PREFIX", "EXIT_CODES_HELP", "SETTINGS_META", "STORE_META",
           "ScratchGroup", "as_invoked", "command_busy_timeout",
           "command_settings", "command_store", "echo_json", "fail", "given_before", "global_option",
           "json_accepted", "main", "misspelt_variables", "name_the_variable", "opened",
           "program", "resolve_root", "resolve_scope", "root_option", "scope_options",
           "stdout_bytes", "warn", "with_existing_store", "with_store"]
