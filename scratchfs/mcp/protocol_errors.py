"""The words of the MCP faces' protocol errors that the SDK writes bare: a method the server lacks, and params
malformed for a method other than ``tools/call`` (whose own are :func:`scratchfs.mcp.server.malformed_calls`').

The SDK answers a method it has no handler for with ``-32601 Method not found`` and the method, whole, as ``data``:
a method name of 3 MB came back as a reply of 3 MB, naming nothing the server serves. It answers params its check
refuses (``tools/list`` with ``"cursor": 5``, ``logging/setLevel`` with a level it lacks, ``ping`` with ``_meta``
not an object) with a bare ``-32602 Invalid request parameters`` and ``data`` ``""``: no word of which param, nor
what is taken. :func:`named_methods` makes a middleware that says both, within :data:`MOST_ERROR_BYTES`; the codes
stay the SDK's.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

MOST_NAME_CHARS = 100
"""Most characters of a method's or a param's name an error quotes (``...`` ends a longer one), as the unknown tool's
error quotes its name."""
MOST_ERROR_BYTES = 2048
"""Most bytes of JSON text of one protocol error's message and data together (a tool error's text has the same
bound)."""
SPEC_METHODS = ("initialize", "ping", "tools/list", "tools/call", "resources/list", "resources/templates/list",
                "resources/read", "resources/subscribe", "resources/unsubscribe", "prompts/list", "prompts/get",
                "completion/complete", "logging/setLevel", "subscriptions/listen")
"""The client requests of MCP a server may serve, in the order an error names those it serves."""


def quoted_name(name: object) -> str:
    """``name`` (a method's or a param's, any JSON value) as an error quotes it: text cut to
    :data:`MOST_NAME_CHARS` characters, ending in ``...`` when cut."""
    text = name if isinstance(name, str) else repr(name)
    return text if len(text) <= MOST_NAME_CHARS else text[:MOST_NAME_CHARS - 3] + "..."


def served_methods(server: Any) -> list[str]:
    """The methods of :data:`SPEC_METHODS` that ``server`` (the SDK's low-level ``Server``) serves: ``initialize``
    always (the SDK answers it itself), the others by their handlers."""
    return [m for m in SPEC_METHODS if m == "initialize" or server.get_request_handler(m) is not None]


def not_found(method: object, served: list[str]) -> str:
    """The message of ``-32601`` for ``method``: the method, quoted shortened, and the methods served."""
    return f"Method not found: {quoted_name(method)}; this server serves {', '.join(served)}"


def malformed_params(method: str, params: object, errors: list[Any]) -> str | None:
    """What is malformed in the params of a request of ``method`` (any JSON value as ``params``), given the SDK's
    check's ``errors`` (pydantic's: ``loc`` and ``msg`` each): the first complaint's param, where in it, and the
    check's words, each bounded; ``None`` when the complaint names no param given (the SDK's words stand)."""
    given = {} if params is None else params
    if not isinstance(given, Mapping):
        return f"{quoted_name(method)} takes params as a JSON object, not {type(params).__name__}"
    where = [str(part) for part in errors[0].get("loc", ())] if errors else []
    where = where[1:] if where[:1] == ["params"] else where  # (the request's check: its loc starts at params)
    if not where:  # (params required, none given)
        return f"{quoted_name(method)} takes params, a JSON object: none were given" if params is None and errors[
            0].get("type") == "missing" else None
    if where[0] not in given:  # (a param MCP requires, not given: said so; anything else, the SDK's words)
        return f"{quoted_name(method)} needs the param {quoted_name(where[0])}" if errors[0].get(
            "type") == "missing" and len(where) == 1 else None
    at = quoted_name(".".join(where))
    return (f"{quoted_name(method)}'s param {quoted_name(where[0])} is malformed ({at}: "
            f"{str(errors[0].get('msg', ''))[:200]})")


def bounded_error(code: int, message: str, data: Any = None) -> tuple[str, Any]:
    """The ``message`` and ``data`` of a JSON-RPC error another server wrote (``mcp-proxy``'s upstream), within
    :data:`MOST_ERROR_BYTES` of JSON text together: unchanged when they fit; else ``data`` kept when it fits in
    half the bound (an error's data may be meaning a client acts on), else left out, and the message cut to the
    rest, saying how long it was (characters) and what was left out. ``code`` is the error's (named in the words).
    An upstream's ``Unknown tool: NAME`` for a 100,000-character name came to the client as 100 KB."""
    import json

    def size(text: str, value: Any) -> int:
        return len(json.dumps({"message": text, "data": value}, ensure_ascii=False).encode())

    if size(message, data) <= MOST_ERROR_BYTES:
        return message, data
    kept = data if size("", data) <= MOST_ERROR_BYTES // 2 else None
    tail = (f"... (the upstream's error {code}: its message of {len(message):,} characters is cut"
            f"{'' if kept is not None or data is None else ', its data left out'})")
    head = message[:MOST_ERROR_BYTES]
    while head and size(head + tail, kept) > MOST_ERROR_BYTES:  # (a character costs 1 to 6 bytes of JSON)
        head = head[:len(head) * 3 // 4]
    return head + tail, kept


Middleware = Callable[[Any, Callable[[Any], Awaitable[Any]]], Awaitable[Any]]


def named_methods(server: Any) -> Middleware:
    """A server middleware (``Server.middleware``) for ``server``: a request of a method it lacks gets ``-32601``
    whose message names the method (shortened) and the methods served (:func:`not_found`) and whose ``data`` is the
    method shortened (:func:`quoted_name`), where the SDK echoed it whole (a method it serves that answers so -- a
    proxy's upstream lacking it after all -- is passed as it came); params that the SDK's check refuses for a
    method other than ``tools/call`` get ``-32602`` naming the param and what is wrong (:func:`malformed_params`).
    Every other outcome passes through unchanged.

    Raises:
        MCPError: those refusals; what the rest of the chain raises otherwise.
    """
    from mcp.shared.exceptions import MCPError
    from mcp_types import INVALID_PARAMS, METHOD_NOT_FOUND
    from pydantic import ValidationError

    async def middleware(ctx: Any, call_next: Callable[[Any], Awaitable[Any]]) -> Any:
        try:
            return await call_next(ctx)
        except MCPError as exc:
            served = served_methods(server)
            if exc.error.code != METHOD_NOT_FOUND or ctx.method in served:  # (one served says what it lacks: a
                raise  # proxy's upstream, a method of another protocol version)
            raise MCPError(code=METHOD_NOT_FOUND, message=not_found(ctx.method, served),
                           data=quoted_name(ctx.method)) from None
        except ValidationError as exc:
            said = None if ctx.method == "tools/call" else malformed_params(ctx.method, ctx.params, exc.errors())
            if said is None:
                raise
            raise MCPError(code=INVALID_PARAMS, message=said) from None

    return middleware


__all__ = ["MOST_ERROR_BYTES", "MOST_NAME_CHARS", "SPEC_METHODS", "bounded_error", "malformed_params",
           "named_methods", "not_found", "quoted_name", "served_methods"]
