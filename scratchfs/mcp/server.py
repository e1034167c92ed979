"""``scratchfs mcp``: the store's tools over the Model Context Protocol (stdio), with the official ``mcp`` SDK (2.x).

Tools: ``read_handle``, ``scratch_write``, ``scratch_read``, ``scratch_list``, ``scratch_delete`` (descriptions and
input schemas in :mod:`scratchfs.toolkit`). Every result is the contract's JSON object twice: as the text of one
text block and as the result's structured content. A failure is a tool error (``isError``) whose text is
``"<kind>: <message>"`` with kind ``not found``, ``invalid argument``, ``corrupt``, ``busy`` or ``storage`` -- never a
crash of the server.

Scope: one server serves one ``(run_id, agent_id)``, from ``--run`` / ``--agent`` or ``$SCRATCHFS_RUN_ID`` /
``$SCRATCHFS_AGENT_ID``, and is pinned to it: a request's ``_meta`` (``scratchfs/run_id``, ``scratchfs/agent_id``)
may name the scope only where the server was given none, or when it was started with ``--allow-meta-scope``
(:class:`ScopeResolver`). A call with no run id or agent id from either source is a tool error (invalid argument).

Both protocol eras the SDK serves work: the 2025-11-25 ``initialize`` handshake and the sessionless 2026-07-28 one.
The SDK does not check arguments against ``inputSchema``; :func:`scratchfs.toolkit.check_arguments` does.
Stdio is :func:`scratchfs.mcp.stdio.stdio_transport`: every request line gets exactly one JSON-RPC reply (a line the
SDK cannot read is answered by the transport, with -32700 or -32600).
"""

from __future__ import annotations

import functools
import logging
import sys
from collections.abc import Mapping
from typing import Any

from scratchfs.api.contract import ScratchTools, error_text, reply_text
from scratchfs.api.deferred_store import DeferredStore, store_name
from scratchfs.api.scope import Scope
from scratchfs.api.settings import Settings
from scratchfs.api.store import ScratchStore
from scratchfs.api.tools import TOOL_SPECS, check_arguments, tool_specs
from scratchfs.engine.backend_urls import local_blobs
from scratchfs.foundation import checks as ids
from scratchfs.foundation.errors import InvalidArgument, ScratchError
from scratchfs.foundation.limits import SWEEP_INTERVAL
from scratchfs.foundation.text import one_line
from scratchfs.mcp.protocol_errors import named_methods, quoted_name
from scratchfs.mcp.thread_calls import run_given_up_on_cancel

log = logging.getLogger(__name__)

META_RUN_ID = "scratchfs/run_id"
"""Request ``_meta`` key naming the run of this call."""
META_AGENT_ID = "scratchfs/agent_id"
"""Request ``_meta`` key naming the agent of this call."""
META_PREFIX = "scratchfs/"
"""Prefix of every ``_meta`` key of scratchfs (stripped by the proxy before a request goes upstream)."""

INSTALL_HINT = ("the MCP faces need the mcp package (2.x): pip install 'scratchfs[mcp]' "
                "(from a clone: pip install -e '.[mcp]')")

INSTRUCTIONS = (
    "scratchfs keeps large tool results out of your context. When a result was too large you receive a stub "
    "{handle, preview, size, note}; read the rest with read_handle (search with `match`, or read ranges with "
    "`offset`/`length`). Keep notes for later in this run with scratch_write / scratch_read / scratch_list / "
    "scratch_delete. scratch_list(spilled=true) lists your handles."
)

_ANNOTATIONS = {
    "read_handle": {"read_only_hint": True, "idempotent_hint": True, "open_world_hint": False},
    "scratch_read": {"read_only_hint": True, "idempotent_hint": True, "open_world_hint": False},
    "scratch_list": {"read_only_hint": True, "idempotent_hint": True, "open_world_hint": False},
    "scratch_write": {"read_only_hint": False, "destructive_hint": True, "idempotent_hint": True,
                      "open_world_hint": False},
    "scratch_delete": {"read_only_hint": False, "destructive_hint": True, "idempotent_hint": True,
                       "open_world_hint": False},
}


def require_mcp() -> None:
    """Import the SDK or raise :class:`ImportError` with the install hint."""
    try:
        import mcp  # noqa: F401
        import mcp_types  # noqa: F401
    except ImportError as exc:
        raise ImportError(INSTALL_HINT) from exc


class ScopeResolver:
    """Picks the scope of each call: the server's own ids, or ids a request names in its ``_meta``.

    A server started with a run id (or agent id) is *pinned* to it: a request whose ``_meta`` names another is refused
    (invalid argument), so that a client cannot reach another run's entries through it -- unless the server was started
    with ``allow_meta_scope`` (``--allow-meta-scope``). An id the server was not given may come from ``_meta``.

    Args:
        store: the store, or a :class:`~scratchfs.api.deferred_store.DeferredStore` (a face's store that may open
            later: a call before then raises its ``StorageError``).
        run_id, agent_id: the server's ids (``None``: none; a call must then name it in ``_meta``).
        pin_run, pin_agent: whether the given ids pin the scope (default: yes, when given); the proxy's generated
            default ids do not.
        allow_meta_scope: accept ``_meta`` ids even where the scope is pinned.

    Raises:
        InvalidArgument: a bad id.
    """

    def __init__(self, store: ScratchStore | DeferredStore, run_id: str | None, agent_id: str | None, *,
                 pin_run: bool | None = None, pin_agent: bool | None = None, allow_meta_scope: bool = False) -> None:
        self.opener = store if isinstance(store, DeferredStore) else None
        self._store = None if isinstance(store, DeferredStore) else store
        self.settings = store.settings
        self.run_id = ids.check_run_id(run_id) if run_id is not None else None
        self.agent_id = ids.check_agent_id(agent_id) if agent_id is not None else None
        self.pin_run = (run_id is not None if pin_run is None else pin_run) and not allow_meta_scope
        self.pin_agent = (agent_id is not None if pin_agent is None else pin_agent) and not allow_meta_scope

    @property
    def store(self) -> ScratchStore | None:
        """The store, or ``None`` while a deferred one is not open yet (:mod:`scratchfs.api.deferred_store`)."""
        return self._store if self.opener is None else self.opener.store

    def resolve(self, meta: Mapping[str, Any] | None) -> Scope:
        """The scope for a request with this ``_meta`` (its ids checked first, then the store asked for).

        Raises:
            InvalidArgument: an id in ``_meta`` is malformed, names another scope than a pinned one, or no run id or
                agent id is known.
            StorageError: a deferred store is not open yet (``unavailable``; :meth:`DeferredStore.get`).
        """
        meta = meta or {}
        run_id = self._pick(meta, META_RUN_ID, self.run_id, self.pin_run, "run", "--run")
        agent_id = self._pick(meta, META_AGENT_ID, self.agent_id, self.pin_agent, "agent", "--agent")
        store = self._store if self.opener is None else self.opener.get()
        return store.scope(run_id, agent_id)  # type: ignore[union-attr]

    @staticmethod
    def _pick(meta: Mapping[str, Any], key: str, default: str | None, pinned: bool, what: str, option: str) -> str:
        given = meta.get(key)
        if given is not None and pinned and given != default:
            raise InvalidArgument(f"this server is pinned to {what} {default!r}; a request's _meta may not name "
                                  f"another {what} (start the server with --allow-meta-scope to allow it)")
        value = default if given is None else given
        if value is None:
            env = "SCRATCHFS_RUN_ID" if what == "run" else "SCRATCHFS_AGENT_ID"
            raise InvalidArgument(f"no {what} id: start the server with {option} or ${env}, or pass _meta {key!r} in "
                                  "the request")
        return value


def scratch_tools(settings: Settings | None = None) -> list:
    """The scratchfs tools as ``mcp_types.Tool`` objects, as a store with ``settings`` (``None``: the defaults)
    answers them: its default reply budget and TTL are the ones the descriptions and schemas give."""
    import mcp_types as types

    specs = TOOL_SPECS if settings is None else tool_specs(settings.reply_budget_bytes, settings.default_ttl)
    return [types.Tool(name=spec.name, title=spec.name.replace("_", " "), description=spec.description,
                       input_schema=spec.input_schema, annotations=types.ToolAnnotations(**_ANNOTATIONS[spec.name]))
            for spec in specs.values()]


def text_result(text: str, *, is_error: bool = False, structured: Any = None) -> Any:
    """A ``CallToolResult`` of one text block (and structured content, when given)."""
    import mcp_types as types

    return types.CallToolResult(content=[types.TextContent(text=text)], structured_content=structured,
                                is_error=is_error)


def run_scratch_tool(resolver: ScopeResolver, name: str, arguments: Mapping[str, Any] | None,
                     meta: Mapping[str, Any] | None) -> Any:
    """Run one scratchfs tool (blocking: call it from a worker thread) and return its ``CallToolResult``.

    Never raises for a failure of the call: a :class:`~scratchfs.errors.ScratchError` becomes a tool error whose
    text is ``"<kind>: <message>"``; anything unexpected is logged and becomes a tool error too. The arguments are
    checked before the scope is resolved (:meth:`ScratchTools.call` asks for it only then): a call with bad ones is
    told its mistake even while a deferred store is not open.
    """
    try:
        result = ScratchTools(lambda: resolver.resolve(meta)).call(name, arguments)
    except ScratchError as exc:
        return text_result(error_text(exc), is_error=True)
    except Exception as exc:  # a bug must not take the server down: report it to the caller and the log
        log.exception("scratchfs: tool %s failed", name)
        return text_result(error_text(exc), is_error=True)
    return text_result(reply_text(result), structured=result)  # (the calls its note names: structured alone)


def fleet_name(store: ScratchStore) -> str:
    """An open store with a ``postgresql://`` index as a start-up line says it, in the words of one not open yet
    (:func:`~scratchfs.api.deferred_store.store_name`: no password, no query), its root named only when it holds the
    blobs: ``the store with index postgresql://scratch@db:5432/platform and blobs s3://agent-scratch/prod``."""
    where = store_name({"index": store.index_url, "blobs": store.blobs_url})
    return f"{where} under {store.root}" if local_blobs(store.blobs_url) else where


def announce(face: str, resolver: ScopeResolver) -> None:
    """Say on stderr, in one line, which store and scope the server ``face`` serves through ``resolver`` (a client
    that started it without its fleet settings otherwise found its handles 'not found' in a local store it did not
    know of): each id as the server has it -- pinned, a default a call's ``_meta`` may replace (the proxy's
    generated run), or none (each call names it). A stderr that is closed or fails is passed over."""
    store = resolver.store
    scope = ", ".join(_id_words(what, value, pinned) for what, value, pinned in (
        ("run", resolver.run_id, resolver.pin_run), ("agent", resolver.agent_id, resolver.pin_agent)))
    opener = resolver.opener
    if store is None and opener is not None:
        where = (f"{opener.name}, not open yet ({opener.failure}; its tools answer 'storage' errors until it opens, "
                 f"tried again every {opener.retry:g} s)")
    else:
        where = f"the local store at {store.root}" if store.embedded else fleet_name(store)  # type: ignore[arg-type]
    try:
        sys.stderr.write(one_line(f"scratchfs {face}: serving {where}; {scope}") + "\n")
        sys.stderr.flush()
    except (AttributeError, OSError, ValueError):
        pass


def _id_words(what: str, value: str | None, pinned: bool) -> str:
    if value is None:
        return f"the {what} each call's _meta names"
    return f"{what} {value!r}" + ("" if pinned else " unless a call's _meta names another")


def build_server(resolver: ScopeResolver) -> Any:
    """A low-level MCP ``Server`` exposing the scratchfs tools over ``resolver``'s store."""
    import mcp_types as types
    from mcp.server.lowlevel import Server

    from scratchfs import __version__

    tools = scratch_tools(resolver.settings)

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: Any) -> Any:
        if params.name not in TOOL_SPECS:
            from mcp.shared.exceptions import MCPError

            raise MCPError(code=types.INVALID_PARAMS, message=unknown_tool(params.name))
        # (a read whose request is cancelled -- by the client, or at the end of the input -- is given up: its
        # search or jq read stops now, not at its time limit: scratchfs.mcp.thread_calls)
        return await run_given_up_on_cancel(run_scratch_tool, resolver, params.name, params.arguments,
                                            dict(ctx.meta or {}))

    server = Server("scratchfs", version=__version__, instructions=INSTRUCTIONS,
                    on_list_tools=list_tools, on_call_tool=call_tool)
    server.middleware += [initialize_first, malformed_calls, named_methods(server)]
    return server


def unknown_tool(name: str) -> str:
    """The message of the ``-32602`` error for a ``tools/call`` of ``name``, no tool of this server: the name, quoted
    shortened (the error quotes no flood), the tool likely meant and the tools there are, as
    :func:`~scratchfs.api.tools.check_arguments` tells the adapter's caller ("Unknown tool: NAME" alone named no way
    on)."""
    meant = ids.closest(name, TOOL_SPECS)
    return (f"Unknown tool: {quoted_name(name)}{f' (did you mean {meant!r}?)' if meant else ''}; the tools are "
            f"{', '.join(sorted(TOOL_SPECS))}")


_GATE_MESSAGE = "Invalid request parameters"
"""The message of the SDK's pre-initialize gate (``ServerRunner``: a request other than ``ping`` before the
handshake), the very one a malformed request gets."""


async def initialize_first(ctx: Any, call_next: Any) -> Any:
    """Server middleware (``Server.middleware``): a request the SDK refuses because it came before the session was
    initialized -- a raw ``tools/list`` or ``tools/call`` sent first -- is answered with a message saying so and what
    to send first, not the SDK's bare "Invalid request parameters" (the code stays -32602, INVALID_PARAMS, which
    the SDK pins for it). Every other outcome passes through unchanged.

    Raises:
        MCPError: what ``call_next`` raises, the gate's refusal with that message.
    """
    from mcp.shared.exceptions import MCPError
    from mcp_types import INVALID_PARAMS

    try:
        return await call_next(ctx)
    except MCPError as exc:
        refused = (exc.error.code == INVALID_PARAMS and exc.error.message == _GATE_MESSAGE and not exc.error.data
                   and ctx.request_id is not None and ctx.method != "initialize" and ctx.session.client_params is None)
        if not refused:
            raise
        method = ctx.method if len(ctx.method) <= 100 else ctx.method[:97] + "..."
        raise MCPError(code=INVALID_PARAMS, data={"method": method}, message=(
            f"the session is not initialized: send an initialize request first and, once it is answered, the "
            f"notifications/initialized notification; then {method} (a request of the sessionless 2026-07-28 "
            "protocol names its version in params._meta instead)")) from None


async def malformed_calls(ctx: Any, call_next: Any) -> Any:
    """Server middleware (``Server.middleware``): a ``tools/call`` whose params the SDK's check refuses (a pydantic
    ``ValidationError``, which the SDK answers with a bare "Invalid request parameters") -- ``arguments`` not an
    object, ``name`` not text, no params -- is answered with a message saying which and what is taken (the code
    stays -32602, INVALID_PARAMS), in the words :meth:`~scratchfs.api.contract.ScratchTools.call` has for the same
    arguments. Every other outcome passes through unchanged.

    Raises:
        MCPError: a malformed call's refusal with that message; what ``call_next`` raises otherwise.
    """
    from mcp.shared.exceptions import MCPError
    from mcp_types import INVALID_PARAMS
    from pydantic import ValidationError

    try:
        return await call_next(ctx)
    except ValidationError as exc:
        said = _malformed_call(ctx.params, exc.errors()) if ctx.method == "tools/call" else None
        if said is None:
            raise
        raise MCPError(code=INVALID_PARAMS, message=said) from None


def _malformed_call(params: object, errors: list[Any]) -> str | None:
    """What is wrong with a ``tools/call``'s ``params`` (any JSON value), given the SDK's check's ``errors``
    (pydantic's: ``loc`` and ``msg`` each): no params or no ``name``; else
    :func:`~scratchfs.api.tools.check_arguments`' refusal of a ``name`` not text or ``arguments`` not an object (an
    unknown tool's name first, as ``ScratchTools.call`` says); else another param by its name and the check's first
    complaint; ``None`` when this cannot tell."""
    shape = 'tools/call takes params {"name": <a tool\'s name>, "arguments": {...}}'
    if not isinstance(params, dict):
        return f"{shape}, not {'no params' if params is None else type(params).__name__}"
    if params.get("name") is None:
        return f"{shape}: it names no tool ({'no name' if 'name' not in params else 'name is null'})"
    name, arguments = params["name"], params.get("arguments")
    if not isinstance(name, str) or (arguments is not None and not isinstance(arguments, dict)):
        try:
            check_arguments(name, arguments)
        except InvalidArgument as exc:
            return f"{shape}: {exc}" if not isinstance(name, str) else str(exc)
    where = [str(part) for part in errors[0].get("loc", ())] if errors else []
    where = where[1:] if where[:1] == ["params"] else where  # (the request's check: its loc starts at params)
    if not where or where[0] not in params:  # (task, requestState, _meta: a param MCP defines, given malformed)
        return None
    at = ".".join(where)[:200]
    return f"tools/call's param {where[0][:100]} is malformed ({at}: {str(errors[0].get('msg', ''))[:200]})"


async def serve_stdio(server: Any) -> None:
    """Serve ``server`` over this process's stdin and stdout until the client closes the connection."""
    from scratchfs.mcp.stdio import stdio_transport

    async with stdio_transport() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def run(root: str | None, run_id: str | None, agent_id: str | None, sweep_interval: float = SWEEP_INTERVAL, *,
        allow_meta_scope: bool = False, settings: Settings | None = None,
        store: Mapping[str, Any] | None = None) -> None:
    """``scratchfs mcp``: open the store (with ``settings``; ``None``: the defaults), serve the tools over stdio,
    close the store when the client leaves. A store whose index is out of reach at start-up is served anyway and
    opened when it answers (:class:`~scratchfs.api.deferred_store.DeferredStore`); meanwhile each tool call is a
    ``storage`` tool error saying so and when to retry.

    Args:
        store: more keywords of :class:`~scratchfs.api.store.ScratchStore` (``index``, ``blobs``, a setting such as
            ``segment_entry_bytes``); unset, the index and blobs come from ``$SCRATCHFS_INDEX`` /
            ``$SCRATCHFS_BLOBS``.

    Raises:
        ImportError: the ``mcp`` package is missing (the message says how to install it).
        ScratchError: the store cannot be opened for another reason than an outage (a setting to fix), or a default
            id is malformed.
    """
    require_mcp()
    from scratchfs.mcp.stdio import serve_until_stopped

    def start_sweeper(opened: ScratchStore) -> None:
        if sweep_interval > 0:
            opened.start_sweeper(sweep_interval)

    deferred = DeferredStore(functools.partial(ScratchStore, root, settings=settings, **(store or {})), settings,
                             on_open=start_sweeper, name=store_name(store))
    with deferred:
        resolver = ScopeResolver(deferred, run_id, agent_id, allow_meta_scope=allow_meta_scope)
        announce("mcp", resolver)
        serve_until_stopped(serve_stdio, build_server(resolver))  # (a signal's exception alone, as the CLI expects it)


__all__ = ["META_AGENT_ID", "META_PREFIX", "META_RUN_ID", "ScopeResolver", "announce", "build_server", "fleet_name",
           "initialize_first", "malformed_calls", "run", "run_scratch_tool", "scratch_tools", "store_name",
           "unknown_tool"]
