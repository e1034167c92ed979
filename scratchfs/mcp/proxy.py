"""``scratchfs mcp-proxy -- COMMAND [ARGS...]``: spill for any MCP server.

The proxy starts the upstream MCP server ``COMMAND`` as a child process (stdio), connects to it with the official
client (the 2025-11-25 ``initialize`` handshake, which 1.x and 2.x servers both speak) and serves, over its own stdio,
the upstream's tools unchanged plus the scratchfs tools (:mod:`scratchfs.mcp_server`; an upstream tool with the name
of one of them is hidden, with a warning in the log). The client may speak either protocol era the SDK serves.

An upstream tool result goes back unchanged unless all of these hold, in which case it is spilled to the store and
the client gets one text block holding the stub as compact JSON:

* it is not an error (``isError``) and carries no ``_meta`` (an empty one counts), no ``resultType`` but
  ``"complete"`` and no structured content (meaning a stub would strip)
  -- except structured content that only mirrors the text, ``{"result": <the same text>}``, which the SDK's
  ``MCPServer`` adds to every tool that returns a string: that result is spilled, its structured content becoming
  ``{"result": <the stub>}`` (so it still fits the tool's output schema); and likewise the mirror of a ``list[str]``
  result, a text block per item and ``{"result": [<the same texts>]}``, stored joined and becoming
  ``{"result": [<the stub>]}``;
* every content block is plain text (no images, audio, resources, annotations or block ``_meta``, empty or
  not); several text blocks are stored joined by ``"\\n"``, and judged as the blocks the client receives (each past
  the first costs 24 bytes more than the newline: :data:`~scratchfs.mcp.proxy_spill.BLOCK_JSON_BYTES`);
* the store's spill policy allows it (:func:`scratchfs.policy.should_spill`): larger than ``--threshold`` bytes as a
  JSON string (escapes included, as the SDK writes it), the tool's result class (``--class TOOL=CLASS``, else
  ``--default-class``) is one that floods the context, and the tool is not one of the never-spilled verbs.

A failed spill passes the whole result through (logged at ERROR level), as does every result while the store is not
open yet (its index out of reach at start-up: the proxy serves and opens it when it answers,
:mod:`scratchfs.api.deferred_store`); so does structured content, and a result
the policy would otherwise spill is then logged at WARNING level, once per tool, with what to do
(:func:`scratchfs.mcp.proxy_spill.spill_result`). Everything else passes through untouched:
tool-list, prompt-list and resource-list changes (to clients of both eras: ``notifications/*/list_changed`` on the
handshake era, ``subscriptions/listen`` on 2026-07-28), upstream JSON-RPC errors, resources, resource templates,
subscriptions, prompts and completions (each served only when the upstream offers it), progress notifications of a
call. ``_meta`` keys starting with ``scratchfs/`` (the scope, see :mod:`scratchfs.mcp_server`) and the SDK's reserved
``io.modelcontextprotocol/`` keys are removed from every request before it goes upstream.

When the upstream server cannot be started, exits, or does not answer within ``--timeout`` seconds (a call's whole
time, :mod:`scratchfs.mcp.upstream`), its tool calls become tool errors whose text starts with ``upstream
unavailable:``, its other requests JSON-RPC errors with that
message, and the proxy keeps serving its own tools (and lists the upstream's last known tools). A line the upstream
writes that is no JSON-RPC message (bytes that are not UTF-8 included: each reads as U+FFFD) is logged and skipped.

Scope of spills and of the scratchfs tools: ``--run`` / ``--agent`` (or ``$SCRATCHFS_RUN_ID`` /
``$SCRATCHFS_AGENT_ID``, or the request's ``_meta``); without them the proxy uses a fresh run id
``mcp-proxy-<random>`` and agent ``default``, so that what it spills is readable through itself.

The proxy's own stdio is :func:`scratchfs.mcp.stdio.stdio_transport`, as the server's: every request line gets
exactly one JSON-RPC reply.
"""

from __future__ import annotations

import functools
import logging
import secrets
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from scratchfs.api.contract import error_text
from scratchfs.api.deferred_store import DeferredStore, out_of_reach
from scratchfs.api.policy import KNOWN_CLASSES, SPILL_CLASSES, check_result_class
from scratchfs.api.settings import Settings
from scratchfs.api.store import ScratchStore
from scratchfs.api.tools import TOOL_SPECS
from scratchfs.foundation.errors import InvalidArgument, ScratchError, UpstreamUnavailable
from scratchfs.foundation.limits import DEFAULT_TTL, SPILL_THRESHOLD_BYTES, SWEEP_INTERVAL
from scratchfs.mcp.protocol_errors import named_methods
from scratchfs.mcp.proxy_spill import spill_result
from scratchfs.mcp.server import (
    INSTRUCTIONS,
    META_PREFIX,
    ScopeResolver,
    announce,
    initialize_first,
    malformed_calls,
    require_mcp,
    run_scratch_tool,
    scratch_tools,
    store_name,
    text_result,
)
from scratchfs.mcp.thread_calls import run_given_up_on_cancel
from scratchfs.mcp.upstream import Upstream

if sys.version_info < (3, 11):  # pragma: no cover
    from exceptiongroup import BaseExceptionGroup

log = logging.getLogger(__name__)

RESULT_CLASSES = tuple(sorted(KNOWN_CLASSES))
"""Result classes accepted by ``--class`` and ``--default-class`` (``effect`` is never spilled; from Python, a
:class:`ProxyConfig` may name the store's own ``spill_classes`` too)."""
RESERVED_META_PREFIX = "io.modelcontextprotocol/"


@dataclass
class ProxyConfig:
    """What ``scratchfs mcp-proxy`` was started with.

    Attributes:
        command, args: the upstream server's command line.
        threshold: spill text results larger than this many bytes of JSON (escapes included).
        classes: result class per upstream tool name; ``default_class`` for the others.
        ttl: seconds a spilled result (and a scratchpad value written without a ttl) lives.
        timeout: seconds a call waits for the upstream server, its start included (the start itself is waited for
            as long as it takes: :mod:`scratchfs.mcp.upstream`); the proxy waits as long for it before serving.
        root, run_id, agent_id: the store and the default scope (see the module docstring).
        allow_meta_scope: accept a request's ``_meta`` scope even when ``run_id``/``agent_id`` pin it.
        env: the upstream's environment (default: this process's).
        store: more keywords of :class:`~scratchfs.api.store.ScratchStore` (``index``, ``blobs``, a setting such
            as ``segment_entry_bytes``); unset, the index and blobs come from ``$SCRATCHFS_INDEX`` /
            ``$SCRATCHFS_BLOBS``.
    """

    command: str
    args: list[str] = field(default_factory=list)
    threshold: int = SPILL_THRESHOLD_BYTES
    classes: dict[str, str] = field(default_factory=dict)
    default_class: str = "query"
    ttl: float = DEFAULT_TTL
    timeout: float = 60.0
    root: str | None = None
    run_id: str | None = None
    agent_id: str | None = None
    env: dict[str, str] | None = None
    allow_meta_scope: bool = False
    store: dict[str, Any] = field(default_factory=dict)

    def class_of(self, tool: str) -> str:
        """The result class of an upstream tool."""
        return self.classes.get(tool, self.default_class)

    def check_classes(self, spill_classes: frozenset[str] = SPILL_CLASSES) -> None:
        """Check every class this configuration names (``classes``, ``default_class``) against the known ones and
        the store's ``spill_classes``: a misspelled class would mean "never spilled", silently.

        Raises:
            InvalidArgument: the first unknown class, named with the known ones and the closest
                (:func:`~scratchfs.api.policy.check_result_class`).
        """
        for tool, cls in self.classes.items():
            check_result_class(cls, spill_classes, what=f"result class of {tool!r}")
        check_result_class(self.default_class, spill_classes, what="default class")


def parse_class_option(value: str) -> tuple[str, str]:
    """One ``--class TOOL=CLASS`` option as ``(tool, class)`` (split at the last ``=``).

    Raises:
        InvalidArgument: no ``=`` or no tool name, or a class that is not known (the message names the known classes
            and the closest one).
    """
    tool, sep, cls = value.rpartition("=")
    if not sep or not tool:
        raise InvalidArgument(f"{value!r}: expected TOOL=CLASS with CLASS one of {', '.join(RESULT_CLASSES)}")
    return tool, check_result_class(cls, what=f"result class of {tool!r}")


def strip_meta(meta: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """``_meta`` as it goes upstream: without ``scratchfs/*`` keys, the SDK's reserved keys and the progress token
    (the upstream session sets its own). ``None`` when nothing is left."""
    if not meta:
        return None
    kept = {k: v for k, v in meta.items()
            if not k.startswith((META_PREFIX, RESERVED_META_PREFIX)) and k not in ("progressToken", "progress_token")}
    return kept or None


def _without_meta(params: Any) -> Any:
    """A copy of request params with ``_meta`` stripped for the upstream (``None`` stays ``None``)."""
    if params is None:
        return None
    return params.model_copy(update={"meta": strip_meta(params.meta)})


class Proxy:
    """The proxy's MCP server over one :class:`Upstream` and one store.

    Raises:
        InvalidArgument: a class of ``config`` is not known (:meth:`ProxyConfig.check_classes`).
    """

    def __init__(self, config: ProxyConfig, store: ScratchStore | DeferredStore) -> None:
        config.check_classes(store.settings.spill_classes)
        from mcp.server.subscriptions import InMemorySubscriptionBus

        self.config = config
        self.store = store
        run_id = config.run_id or f"mcp-proxy-{secrets.token_hex(6)}"
        self.resolver = ScopeResolver(store, run_id, config.agent_id or "default", pin_run=config.run_id is not None,
                                      pin_agent=config.agent_id is not None, allow_meta_scope=config.allow_meta_scope)
        self.upstream = Upstream(config, self._on_upstream_notification)
        self.own_tools = scratch_tools(store.settings)
        self._upstream_tools: list[Any] | None = None
        self._noted: set[str] = set()  # the tools whose structured result was logged as passed through whole
        self._bus = InMemorySubscriptionBus()
        self._handshake_session: Any = None  # the latest handshake-era client session, for notifications

    # -- upstream notifications -----------------------------------------------------------------------------------

    async def _on_upstream_notification(self, note: Any) -> None:
        import mcp_types as types
        from mcp.server.subscriptions import PromptsListChanged, ResourcesListChanged, ResourceUpdated, ToolsListChanged

        session = self._handshake_session
        if isinstance(note, types.ToolListChangedNotification):
            self._upstream_tools = None
            await self._bus.publish(ToolsListChanged())
            if session is not None:
                await session.send_tool_list_changed()
        elif isinstance(note, types.PromptListChangedNotification):
            await self._bus.publish(PromptsListChanged())
            if session is not None:
                await session.send_prompt_list_changed()
        elif isinstance(note, types.ResourceListChangedNotification):
            await self._bus.publish(ResourcesListChanged())
            if session is not None:
                await session.send_resource_list_changed()
        elif isinstance(note, types.ResourceUpdatedNotification):
            await self._bus.publish(ResourceUpdated(str(note.params.uri)))
            if session is not None:
                await session.send_resource_updated(note.params.uri)

    # -- tools ----------------------------------------------------------------------------------------------------

    async def upstream_tools(self) -> list[Any]:
        """The upstream's tools (every page, read within ``--timeout`` and bounded:
        :func:`~scratchfs.mcp.tool_listing.read_tools`), cached until it says its list changed; a listing it cut
        short (unavailable, or past ``--timeout``) offered as far as it was read, not cached; none while it is
        unavailable."""
        from scratchfs.mcp.tool_listing import read_tools

        if self._upstream_tools is not None:
            return self._upstream_tools
        listed = await read_tools(self.upstream.request, {t.name for t in self.own_tools}, self.config.timeout)
        if listed is None:
            return []
        if listed.whole:
            self._upstream_tools = listed.tools
        return listed.tools

    async def list_tools(self, ctx: Any, params: Any) -> Any:
        import mcp_types as types

        return types.ListToolsResult(tools=[*await self.upstream_tools(), *self.own_tools])

    async def call_tool(self, ctx: Any, params: Any) -> Any:
        import anyio.to_thread
        import mcp_types as types

        meta = dict(ctx.meta or {})
        if params.name in TOOL_SPECS:  # (a cancelled read is given up: scratchfs.mcp.thread_calls)
            return await run_given_up_on_cancel(run_scratch_tool, self.resolver, params.name, params.arguments, meta)
        try:
            scope: Any = self.resolver.resolve(meta)
        except ScratchError as exc:
            if not out_of_reach(exc):
                return text_result(error_text(exc), is_error=True)
            scope = None  # the store is not open yet: the result goes as a failed spill's does
        progress = None
        if meta.get("progress_token", meta.get("progressToken")) is not None:  # the SDK names it progress_token
            session = ctx.session

            async def progress(value: float, total: float | None, message: str | None) -> None:
                await session.report_progress(value, total, message)

        request = types.CallToolRequest(params=_without_meta(params))
        try:
            result = await self.upstream.request(request, types.CallToolResult, progress)
        except UpstreamUnavailable as exc:
            return text_result(error_text(exc), is_error=True)
        return await anyio.to_thread.run_sync(spill_result, scope, self.config, params.name, result,
                                              self._noted, self.store.settings)

    # -- everything else passes through ---------------------------------------------------------------------------

    def _forward(self, request_type: Any, result_type: Any) -> Callable[..., Any]:
        async def handler(ctx: Any, params: Any) -> Any:
            from mcp.shared.exceptions import MCPError
            from mcp_types import INTERNAL_ERROR

            try:
                return await self.upstream.request(request_type(params=_without_meta(params)), result_type)
            except UpstreamUnavailable as exc:
                raise MCPError(code=INTERNAL_ERROR, message=error_text(exc)) from None

        return handler

    def build_server(self) -> Any:
        """The MCP ``Server``; prompts, resources and completions are served when the upstream offers them."""
        import mcp_types as types
        from mcp.server.lowlevel import Server
        from mcp.server.subscriptions import ListenHandler
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        from scratchfs import __version__

        caps = self.upstream.capabilities
        handlers: dict[str, Any] = {}
        if caps is not None and caps.resources is not None:
            handlers["on_list_resources"] = self._forward(types.ListResourcesRequest, types.ListResourcesResult)
            handlers["on_list_resource_templates"] = self._forward(types.ListResourceTemplatesRequest,
                                                                   types.ListResourceTemplatesResult)
            handlers["on_read_resource"] = self._forward(types.ReadResourceRequest, types.ReadResourceResult)
            if caps.resources.subscribe:
                handlers["on_subscribe_resource"] = self._forward(types.SubscribeRequest, types.EmptyResult)
                handlers["on_unsubscribe_resource"] = self._forward(types.UnsubscribeRequest, types.EmptyResult)
        if caps is not None and caps.prompts is not None:
            handlers["on_list_prompts"] = self._forward(types.ListPromptsRequest, types.ListPromptsResult)
            handlers["on_get_prompt"] = self._forward(types.GetPromptRequest, types.GetPromptResult)
        if caps is not None and caps.completions is not None:
            handlers["on_completion"] = self._forward(types.CompleteRequest, types.CompleteResult)
        upstream_info = getattr(self.upstream.session, "server_info", None) if self.upstream.session else None
        instructions = INSTRUCTIONS
        upstream_instructions = getattr(self.upstream.session, "instructions", None) if self.upstream.session else None
        if upstream_instructions:
            instructions = f"{upstream_instructions}\n\n{INSTRUCTIONS}"
        name = f"scratchfs-proxy({upstream_info.name})" if upstream_info is not None else "scratchfs-proxy"
        server = Server(name, version=__version__, instructions=instructions, on_list_tools=self.list_tools,
                        on_call_tool=self.call_tool, on_subscriptions_listen=ListenHandler(self._bus), **handlers)

        async def remember_session(ctx: Any, call_next: Any) -> Any:
            if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
                self._handshake_session = ctx.session
            return await call_next(ctx)

        server.middleware += [remember_session, initialize_first, malformed_calls, named_methods(server)]
        return server

    def initialization_options(self, server: Any) -> Any:
        from mcp.server.lowlevel.server import NotificationOptions

        return server.create_initialization_options(
            NotificationOptions(prompts_changed=True, resources_changed=True, tools_changed=True))

    async def serve(self) -> None:
        """Start the upstream, wait for it (up to the timeout), serve stdio until the client leaves, stop it.

        Raises:
            WireFailed: writing replies to the client failed (see :func:`scratchfs.mcp.stdio.stdio_transport`).
        """
        import anyio

        from scratchfs.mcp.stdio import wire_failure

        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(self.upstream.run)
                with anyio.move_on_after(self.config.timeout):
                    await self.upstream.ready.wait()
                server = self.build_server()
                if not self.upstream.ready.is_set():  # (slower than --timeout: its tools are told of once it answers)
                    tg.start_soon(self._tools_when_ready)
                try:
                    await _serve_stdio_with(server, self.initialization_options(server))
                finally:
                    self.upstream.stop()
        except BaseExceptionGroup as group:  # the wire's failure comes alone, as the server's (scratchfs mcp) does
            failure = wire_failure(group)
            if failure is None:
                raise
            raise failure from None

    async def _tools_when_ready(self) -> None:
        """Tell the client the tool list changed once an upstream slower to start than ``--timeout`` answered."""
        import mcp_types as types

        await self.upstream.ready.wait()
        if self.upstream.session is not None:
            await self._on_upstream_notification(types.ToolListChangedNotification())


async def _serve_stdio_with(server: Any, options: Any) -> None:
    from scratchfs.mcp.stdio import stdio_transport

    async with stdio_transport(server="scratchfs mcp-proxy") as (read_stream, write_stream):
        await server.run(read_stream, write_stream, options)


def run(config: ProxyConfig, sweep_interval: float = SWEEP_INTERVAL, settings: Settings | None = None) -> None:
    """``scratchfs mcp-proxy``: open the store, run the proxy until the client leaves, close the store. The store's
    settings are ``settings`` (``None``: the defaults) with ``config.ttl``, ``config.threshold`` and
    ``sweep_interval`` in place of theirs.

    Raises:
        ImportError: the ``mcp`` package is missing (the message says how to install it).
        ScratchError: the store cannot be opened for another reason than an outage (one is waited out: the upstream
            is served meanwhile, :class:`~scratchfs.api.deferred_store.DeferredStore`), or a setting is invalid
            (InvalidArgument: a class of ``config`` that is not known, :meth:`ProxyConfig.check_classes`).
    """
    require_mcp()
    from scratchfs.mcp.stdio import serve_until_stopped

    settings = (settings or Settings()).with_changes(default_ttl=config.ttl, spill_threshold_bytes=config.threshold,
                                                     sweep_interval=sweep_interval)
    on_open = (lambda store: store.start_sweeper(sweep_interval)) if sweep_interval > 0 else None
    with DeferredStore(functools.partial(ScratchStore, config.root, settings=settings, **config.store), settings,
                       on_open=on_open, name=store_name(config.store)) as store:
        proxy = Proxy(config, store)
        announce("mcp-proxy", proxy.resolver)
        serve_until_stopped(proxy.serve)  # (a signal's exception alone, as the CLI expects it)


__all__ = ["RESULT_CLASSES", "Proxy", "ProxyConfig", "Upstream", "UpstreamUnavailable", "parse_class_option", "run",
           "spill_result", "strip_meta"]
