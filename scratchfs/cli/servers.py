"""The MCP faces on the command line: ``scratchfs mcp`` (the server) and ``scratchfs mcp-proxy``."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import click

from scratchfs.api.settings import SEGMENTS_ENV
from scratchfs.cli.app import command_settings, command_store, global_option, main, resolve_root, root_option, warn
from scratchfs.cli.option_types import Seconds
from scratchfs.cli.settings_options import PASSTHROUGH_OPTION, Size, setting_env, settings_options
from scratchfs.foundation.checks import check_int
from scratchfs.foundation.errors import InvalidArgument
from scratchfs.foundation.limits import DEFAULT_TTL, MAX_SEGMENT_ENTRY_BYTES, SPILL_THRESHOLD_BYTES, SWEEP_INTERVAL


def _missing_mcp(exc: ImportError) -> None:
    warn(f"missing dependency: {exc}")
    sys.exit(2)


def _wire_failed(exc: OSError) -> None:
    """Writing replies to the client failed (stdout on a full disk, an I/O error): ``output:`` and exit code 4, as
    for any command's stdout; any other :class:`OSError` is the store's (``storage:``, the CLI's own handling)."""
    from scratchfs.mcp.stdio import WireFailed

    if not isinstance(exc, WireFailed):
        raise exc
    warn(f"output: {exc.strerror}")
    sys.exit(4)


_MCP_SCOPE_HELP = " (the server is pinned to it: see --allow-meta-scope)"
SWEEP_INTERVAL_OPTION = click.option(
    "--sweep-interval", type=Seconds(zero_ok=True), default=SWEEP_INTERVAL, show_default=True, metavar="SECONDS",
    help="While serving, sweep expired entries (and orphans past their grace) every this many seconds; 0: never.")


def store_options(func: Callable) -> Callable:
    """``--segment-entry-bytes`` (also read from its environment variable): what else a server's store is opened
    with -- an MCP client starts a server with a minimal environment (HOME, PATH, ...), so every setting the server
    reads from the environment can be given as an option of its own too (``--index`` and ``--blobs`` come with
    :func:`~scratchfs.cli.settings_options.settings_options`, as on every command that opens a store)."""
    return click.option("--segment-entry-bytes", type=Size(), default=None, metavar="SIZE", envvar=SEGMENTS_ENV,
                        show_envvar=True, callback=_segment_bound,
                        help="Store contents of at most this size in segment files (bytes, or with KiB, MiB; at most "
                             "1MiB); 0: a file per entry [default: 64KiB].")(func)


def _segment_bound(ctx: click.Context, param: click.Parameter, value: int | None) -> int | None:
    """``--segment-entry-bytes`` within its bounds (0 to 1 MiB), checked as :class:`Settings` checks it: else a usage
    error naming the option (or its variable)."""
    if value is not None:
        try:
            check_int(value, "segment_entry_bytes", 0, MAX_SEGMENT_ENTRY_BYTES)
        except InvalidArgument as exc:
            raise click.BadParameter(str(exc), ctx, param) from None
    return value


def store_arguments(segment_entry_bytes: int | None) -> dict[str, Any]:
    """The keywords of :class:`~scratchfs.api.store.ScratchStore` given on the command line: ``--index``,
    ``--blobs`` (:func:`~scratchfs.cli.app.command_store`) and ``--segment-entry-bytes`` (only those given)."""
    given = {**command_store(), "segment_entry_bytes": segment_entry_bytes}
    return {name: value for name, value in given.items() if value is not None}


ALLOW_META_SCOPE = click.option(
    "--allow-meta-scope", is_flag=True,
    help="Let a request name another run or agent in its _meta ('scratchfs/run_id', 'scratchfs/agent_id') even "
         "where --run/--agent pin the scope [default: only ids the server was not given may come from _meta].")


@main.command("mcp")
@root_option
@click.option("--run", "run_id", default=None,
              help="Run id of the calls [env: SCRATCHFS_RUN_ID]" + _MCP_SCOPE_HELP + ".")
@click.option("--agent", "agent_id", default=None,
              help="Agent id of the calls [env: SCRATCHFS_AGENT_ID].")
@store_options
@ALLOW_META_SCOPE
@SWEEP_INTERVAL_OPTION
@settings_options()
def mcp_command(root: str | None, run_id: str | None, agent_id: str | None, segment_entry_bytes: int | None,
                allow_meta_scope: bool, sweep_interval: float) -> None:
    """Serve read_handle and the scratchpad tools to an MCP client over stdio (needs: pip install 'scratchfs[mcp]').

    An MCP client starts the server with a minimal environment: give the store and scope here (--root, --run,
    --agent, --index, --blobs) or in the client configuration's "env".
    """
    from scratchfs.mcp import server as mcp_server

    try:
        mcp_server.run(resolve_root(root), run_id if run_id is not None else global_option("run_id"),
                       agent_id if agent_id is not None else global_option("agent_id"),
                       sweep_interval, allow_meta_scope=allow_meta_scope, settings=command_settings(),
                       store=store_arguments(segment_entry_bytes))
    except ImportError as exc:
        _missing_mcp(exc)
    except OSError as exc:
        _wire_failed(exc)


def _parse_classes(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> dict[str, str]:
    from scratchfs.mcp.proxy import parse_class_option

    try:
        return dict(parse_class_option(value) for value in values)
    except InvalidArgument as exc:
        raise click.BadParameter(str(exc)) from None


def _check_default_class(ctx: click.Context, param: click.Parameter, value: str) -> str:
    from scratchfs.api.policy import check_result_class

    try:
        return check_result_class(value, what="default class")
    except InvalidArgument as exc:
        raise click.BadParameter(str(exc)) from None


@main.command("mcp-proxy", context_settings={"allow_interspersed_args": False})
@root_option
@click.option("--run", "run_id", default=None,
              help="Run id of spills and calls [env: SCRATCHFS_RUN_ID; default: a fresh mcp-proxy-<random>].")
@click.option("--agent", "agent_id", default=None,
              help="Agent id [env: SCRATCHFS_AGENT_ID; default: 'default'].")
@click.option("--threshold", type=Size(), default=SPILL_THRESHOLD_BYTES, envvar=setting_env("spill_threshold_bytes"),
              show_default=True, metavar="SIZE",
              help="Spill text results larger than this many bytes (or KiB, MiB), counted as JSON text (escapes "
                   "included) [env: SCRATCHFS_SPILL_THRESHOLD_BYTES].")
@click.option("--class", "classes", multiple=True, metavar="TOOL=CLASS", callback=_parse_classes,
              help="Result class of an upstream tool: query, workspace, browser (spilled when large) or effect "
                   "(never spilled). Repeatable.")
@click.option("--default-class", default="query", callback=_check_default_class, show_default=True,
              metavar="CLASS", help="Result class of the tools not named by --class: query, workspace, browser or "
                                    "effect.")
@click.option("--ttl", "--default-ttl", "ttl", type=Seconds(ttl=True), default=DEFAULT_TTL, show_default=True,
              envvar=setting_env("default_ttl"),
              help="Seconds a spilled result lives (and scratchpad values written without a ttl), at least 1 "
                   "[env: SCRATCHFS_DEFAULT_TTL].")
@click.option("--timeout", type=Seconds(), default=60.0, show_default=True,
              help="Seconds to wait for the upstream server to start and for each of its answers.")
@store_options
@ALLOW_META_SCOPE
@SWEEP_INTERVAL_OPTION
@settings_options(ttl=False)
@PASSTHROUGH_OPTION
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
def mcp_proxy_command(root: str | None, run_id: str | None, agent_id: str | None, threshold: int,
                      classes: dict[str, str], default_class: str, ttl: float, timeout: float,
                      segment_entry_bytes: int | None, allow_meta_scope: bool, sweep_interval: float,
                      command: tuple[str, ...]) -> None:
    """Run the MCP server COMMAND behind a proxy that spills its large text results (stdio; use -- before COMMAND).

    Offers the upstream's tools unchanged plus read_handle and the scratchpad tools (needs the mcp extra).
    """
    from scratchfs.mcp import proxy as mcp_proxy

    config = mcp_proxy.ProxyConfig(command=command[0], args=list(command[1:]), threshold=threshold,
                                   classes=classes, default_class=default_class, ttl=ttl, timeout=timeout,
                                   root=resolve_root(root),
                                   run_id=run_id if run_id is not None else global_option("run_id"),
                                   agent_id=agent_id if agent_id is not None else global_option("agent_id"),
                                   allow_meta_scope=allow_meta_scope,
                                   store=store_arguments(segment_entry_bytes))
    try:
        mcp_proxy.run(config, sweep_interval, settings=command_settings())
    except ImportError as exc:
        _missing_mcp(exc)
    except OSError as exc:
        _wire_failed(exc)


__all__ = ["mcp_command", "mcp_proxy_command", "store_arguments", "store_options"]
