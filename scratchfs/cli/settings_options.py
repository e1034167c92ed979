"""A store's settings as command-line options, each with its environment variable, for every command that opens a
store: ``@settings_options()`` on the command is all it takes. Every such command takes the fleet's ``--index URL``
(``$SCRATCHFS_INDEX``), ``--blobs URL`` (``$SCRATCHFS_BLOBS``) and ``--busy-timeout`` alike; the others below go to
the commands they change something for (``fleet_only``: ``ls``, ``stats``, ``fsck``, ``sweep``, the deletes, have
only those three).

The options an operator sets (a deployment that starts ``scratchfs mcp`` from a JSON config and writes no Python):

==========================  ================================  ============================================
option                      environment variable              :class:`~scratchfs.api.settings.Settings`
==========================  ================================  ============================================
``--default-ttl``           ``SCRATCHFS_DEFAULT_TTL``         ``default_ttl`` (seconds)
``--run-quota-bytes``       ``SCRATCHFS_RUN_QUOTA_BYTES``     ``run_quota_bytes`` (a size)
``--run-quota-entries``     ``SCRATCHFS_RUN_QUOTA_ENTRIES``   ``run_quota_entries``
``--reply-budget-bytes``    ``SCRATCHFS_REPLY_BUDGET_BYTES``  ``reply_budget_bytes`` (a size)
``--pattern-timeout``       ``SCRATCHFS_PATTERN_TIMEOUT``     ``pattern_timeout`` (seconds)
``--busy-timeout``          ``SCRATCHFS_BUSY_TIMEOUT``        ``busy_timeout`` (seconds)
``--durable/--no-durable``  ``SCRATCHFS_DURABLE``             ``durable`` (1/0, true/false, yes/no, on/off)
``--refresh-on-read/...``   ``SCRATCHFS_REFRESH_ON_READ``     ``refresh_on_read`` (as ``durable``)
==========================  ================================  ============================================

A size is bytes in ASCII digits, optionally followed by ``B``, ``KiB``, ``MiB`` or ``GiB`` (``64KiB`` is 65536).
An option given wins over its environment variable; neither given leaves the setting at its default. The rest of
the settings (frame size, zstd level, orphan grace, previews, spill lists) are tuning, set from Python.

How the values reach the store: each option (a :class:`SettingOption`) checks its value with :class:`Settings`
(its own checks, so a bad value is the same refusal as from Python) and keeps it in click's ``ctx.meta``; the
command's store is opened with :func:`~scratchfs.cli.app.command_settings`, which builds the :class:`Settings`
from them. A bad value is a usage error: one stderr line naming the option -- or the environment variable it came
from -- and :class:`~scratchfs.foundation.errors.InvalidArgument`'s text, exit code 2.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click
from click.core import ParameterSource

from scratchfs.api.settings import Settings
from scratchfs.cli.app import SETTINGS_META, STORE_META
from scratchfs.cli.option_types import Integer, Seconds
from scratchfs.engine.backends import ENV_BLOBS, ENV_INDEX
from scratchfs.foundation import limits
from scratchfs.foundation.errors import InvalidArgument
from scratchfs.foundation.text import SIZE_UNITS, not_a_size, size_bytes


class Size(click.ParamType):
    """A click option type for a number of bytes: ASCII digits, optionally followed by ``B``, ``KiB``, ``MiB`` or
    ``GiB`` (binary units, any case, one space allowed before the unit): ``65536``, ``64KiB``, ``1 GiB``. Anything
    else -- a sign, a fraction, ``KB`` or ``MB`` (decimal or binary? not guessed), Unicode digits -- is a usage error
    (exit 2, one line). Parsed by :func:`~scratchfs.foundation.text.size_bytes`, as ``$SCRATCHFS_SEGMENT_ENTRY_BYTES``
    is. Bounds are the setting's own (checked by :class:`Settings`)."""

    name = "size"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        size = size_bytes(str(value))
        if size is None:
            self.fail(not_a_size(str(value)), param, ctx)
        return size


class SettingOption(click.Option):
    """An option that sets one field of :class:`Settings` (its ``name``): its value is checked by ``Settings`` and
    kept in ``ctx.meta[SETTINGS_META]``, not passed to the command. A bad value names the environment variable it
    came from when it came from one."""

    def process_value(self, ctx: click.Context, value: Any) -> Any:
        try:
            value = super().process_value(ctx, value)
            if value is not None and self.name is not None:
                try:  # one field alone (segment_entry_bytes pinned: its own variable is not this option's fault)
                    Settings(segment_entry_bytes=limits.SEGMENT_ENTRY_BYTES, **{self.name: value})
                except InvalidArgument as exc:
                    raise click.BadParameter(str(exc), ctx, self) from None
                ctx.meta.setdefault(SETTINGS_META, {})[self.name] = value
        except click.BadParameter as exc:
            if exc.param_hint is None and ctx.get_parameter_source(self.name or "") is ParameterSource.ENVIRONMENT:
                exc.param_hint = f"${self.envvar}"
            raise
        return value


def setting_env(name: str) -> str:
    """The environment variable of the :class:`Settings` field ``name``: ``SCRATCHFS_`` and the name in capitals
    (``default_ttl`` -> ``SCRATCHFS_DEFAULT_TTL``)."""
    return f"SCRATCHFS_{name.upper()}"


def _option(flags: str, name: str, kind: click.ParamType | None, help_text: str,
            default: str) -> Callable[[Callable], Callable]:
    env = setting_env(name)
    extra: dict[str, Any] = {} if kind is None else {"type": kind, "metavar": kind.name.upper()}
    return click.option(flags, name, cls=SettingOption, envvar=env, default=None, expose_value=False,
                        help=f"{help_text} [env: {env}; default: {default}].", **extra)


def _kib(size: int) -> str:
    return f"{size // 1024} KiB" if size % 1024 == 0 else f"{size} bytes"


def setting_default(name: str) -> str:
    """The default of an option whose value, when not given, is the store's setting ``name`` (a :class:`Settings`
    field of :data:`_OPTIONS`), as its help says it: the setting's option, then its variable, then its own default
    -- ``"--reply-budget-bytes, else $SCRATCHFS_REPLY_BUDGET_BYTES, else 8 KiB"`` (``read-handle --budget``'s said
    ``8192``, whatever the store's budget was). Raises KeyError for a name of no setting option."""
    flags, _, _, _, default = next(option for option in _OPTIONS if option[1] == name)
    return f"{flags.split('/')[0]}, else ${setting_env(name)}, else {default}"


_OPTIONS: tuple[tuple[str, str, click.ParamType | None, str, str], ...] = (
    ("--default-ttl", "default_ttl", Seconds(ttl=True),
     "Seconds an entry written without a TTL (--ttl, the tool's ttl) lives, 1 to 30 days",
     f"{limits.DEFAULT_TTL:.0f}"),
    ("--run-quota-bytes", "run_quota_bytes", Size(),
     "Most stored (compressed) bytes one run may hold, e.g. 64MiB; a write past it is refused (exit 5; over MCP "
     "the tool's error)", "no quota"),
    ("--run-quota-entries", "run_quota_entries", Integer(),
     "Most entries (spills and scratchpad keys) one run may hold", "no quota"),
    ("--reply-budget-bytes", "reply_budget_bytes", Size(),
     f"Most bytes of one model-facing JSON reply when the call names no budget, {_kib(limits.MIN_REPLY_BYTES)} "
     f"to {_kib(limits.MAX_REPLY_BYTES)}", _kib(limits.REPLY_BUDGET_BYTES)),
    ("--pattern-timeout", "pattern_timeout", Seconds(maximum=limits.MAX_PATTERN_TIMEOUT),
     "Seconds one pattern search or jq read may run", f"{limits.PATTERN_TIMEOUT:g}"),
    ("--busy-timeout", "busy_timeout", Seconds(zero_ok=True, maximum=limits.MAX_BUSY_TIMEOUT),
     "Seconds to wait for a busy index or lock before giving up (exit 4; a sweep that finds another still running "
     "then says skipped, exit 0)", f"{limits.BUSY_TIMEOUT:g}"),
    ("--durable/--no-durable", "durable", None,
     "fsync each write before it returns, so that it survives a power loss, not only a crash", "off"),
    ("--refresh-on-read/--no-refresh-on-read", "refresh_on_read", None,
     "A read pushes the entry's expiry forward by its TTL", "off"),
)


_READ_SETTINGS = frozenset({"reply_budget_bytes", "pattern_timeout", "busy_timeout", "refresh_on_read"})
"""The settings a command that only reads uses (a quota, a TTL or durability would change nothing it does)."""
_FLEET_SETTINGS = frozenset({"busy_timeout"})
"""The settings of a command that only lists, counts, checks or removes (``ls``, ``stats``, ``fsck``, ``sweep``,
the deletes): how long it waits for a busy or unreachable index."""


class StoreOption(click.Option):
    """``--index`` or ``--blobs``: a URL of the store's backends, kept in ``ctx.meta[STORE_META]`` (read by
    :func:`~scratchfs.cli.app.command_store`), not passed to the command. Given or from its variable, it wins over
    nothing else: unset, the store reads the same variable itself."""

    def process_value(self, ctx: click.Context, value: Any) -> Any:
        value = super().process_value(ctx, value)
        if value is not None and not value.strip():  # as --root "" is refused: unset means the local default
            raise click.BadParameter(f"{value!r} is empty: leave the option out for the default (or give "
                                     f"{'sqlite' if self.name == 'index' else 'file'})", ctx, self)
        if value is not None and self.name is not None:
            ctx.meta.setdefault(STORE_META, {})[self.name] = value
        return value


_STORE_OPTIONS = (
    ("--index", "index", ENV_INDEX, "Index: postgresql://user@host:port/db (?schema=, ?runs_table=; the fleet's) "
                                    "[env: SCRATCHFS_INDEX; default: the SQLite file under the root]."),
    ("--blobs", "blobs", ENV_BLOBS, "Blob store: s3://bucket/prefix (needs a PostgreSQL index; AWS credentials from "
                                    "the environment) [env: SCRATCHFS_BLOBS; default: files under the root]."),
)


def settings_options(*, ttl: bool = True, reads: bool = False, fleet_only: bool = False
                     ) -> Callable[[Callable], Callable]:
    """The decorator giving a command every settings option (see the module docstring) and the fleet's ``--index``
    and ``--blobs``; ``ttl=False`` leaves out ``--default-ttl``, for a command whose own ``--ttl`` sets it
    (``mcp-proxy``); ``reads=True`` gives only those a read uses (:data:`_READ_SETTINGS`: ``read-handle``,
    ``scratch-read``); ``fleet_only=True`` only ``--busy-timeout`` beside the URLs (:data:`_FLEET_SETTINGS`: a
    command that lists, counts, checks or removes). The command opens its store with
    :func:`~scratchfs.cli.app.command_settings` and :func:`~scratchfs.cli.app.command_store` (``with_store`` and
    ``with_existing_store`` do)."""

    def decorate(func: Callable) -> Callable:
        for flags, name, kind, help_text, default in reversed(_OPTIONS):
            if (ttl or name != "default_ttl") and (not reads or name in _READ_SETTINGS) and (
                    not fleet_only or name in _FLEET_SETTINGS):
                func = _option(flags, name, kind, help_text, default)(func)
        for flags, name, env, help_text in reversed(_STORE_OPTIONS):
            func = click.option(flags, name, cls=StoreOption, envvar=env, default=None, expose_value=False,
                                metavar="URL", help=help_text)(func)
        return func

    return decorate


TTL_OPTION = click.option("--ttl", type=Seconds(ttl=True), default=None, help="Seconds until the entry expires, at "
                          f"least 1 [default: {setting_default('default_ttl')}].")
"""A write's ``--ttl``: unset, the store's ``default_ttl`` (``--default-ttl``, ``$SCRATCHFS_DEFAULT_TTL``), which
:func:`settings_options` gives the same command."""
BUDGET_WORDS = f"a size: {limits.MIN_REPLY_BYTES} to {limits.MAX_REPLY_BYTES}, 8KiB"
"""How a read's ``--budget`` help says the sizes it takes."""


STDIN_CAP_BYTES = 1 << 30
"""The default most bytes a command stores from standard input (``--max-stdin-bytes``): 1 GiB."""
STDIN_CAP_OPTION = click.option(
    "--max-stdin-bytes", "max_stdin_bytes", type=Size(), default=STDIN_CAP_BYTES, envvar="SCRATCHFS_MAX_STDIN_BYTES",
    show_envvar=True, metavar="SIZE",
    help="Most bytes stored from standard input (SOURCE - or none); past it nothing is stored, one line on stderr, "
         "exit 5 (`yes | scratchfs spill` ends) [default: 1GiB]. A pipe or device named (/dev/stdin, a FIFO) has "
         "it too; a regular file named is stored whatever its size.")
"""The cap of a command that stores standard input (``spill``, ``scratch-write``)."""


PASSTHROUGH_OPTION = _option(
    "--passthrough-max-bytes", "passthrough_max_bytes", Size(),
    "Most bytes of a result (as the model receives it) passed through whole when its spill fails (the store out of "
    "reach, a full disk); past it the model gets a preview and a notice, nothing kept; 0: always the notice",
    _kib(limits.PASSTHROUGH_MAX_BYTES))
"""``mcp-proxy``'s bound on what a failed spill passes through whole (the store's ``passthrough_max_bytes``,
:mod:`scratchfs.api.spill_failure`): the one command that passes results through; a :class:`SettingOption`."""


def budget_default() -> str:
    """How a read's ``--budget`` help says its default: the store's ``reply_budget_bytes``
    (:func:`setting_default`), which the tools take when the call names no budget."""
    return setting_default("reply_budget_bytes")


__all__ = ["BUDGET_WORDS", "PASSTHROUGH_OPTION", "SIZE_UNITS", "STDIN_CAP_BYTES", "STDIN_CAP_OPTION", "TTL_OPTION",
           "SettingOption", "Size", "StoreOption", "budget_default",
           "setting_default", "setting_env", "settings_options"]
