"""The web API's endpoint plumbing: a function of a request becomes a Starlette endpoint whose path parameters went
through the store's id checks and whose query parameters are checked (unknown, repeated or missing ones refused;
integers and booleans as the tools' schemas take them), and whose :class:`~scratchfs.foundation.errors.ScratchError`
becomes a JSON error ``{"error": {"kind", "message"}}`` with the HTTP status of its kind (:data:`STATUS_OF_KIND`),
never a traceback. The endpoints themselves are :mod:`scratchfs.web.api`'s and :mod:`scratchfs.web.download`'s.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import quote

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse

from scratchfs.api.deferred_store import DeferredStore
from scratchfs.api.store import ScratchStore
from scratchfs.api.store_listing import iter_entries
from scratchfs.api.tools import TOOL_SPECS, meant_argument
from scratchfs.foundation import checks
from scratchfs.foundation.errors import InvalidArgument, NotFound, ScratchError
from scratchfs.foundation.text import shorten

log = logging.getLogger("scratchfs.web.api")  # (the logger these lines always had: hosts filter on it)

STATUS_OF_KIND = {"not found": 404, "changed": 409, "invalid argument": 400, "corrupt": 500, "quota exceeded": 507,
                  "busy": 503, "storage": 500, "closed": 503}
"""HTTP status per :attr:`ScratchError.kind` (anything else: 500); a ``storage`` error whose server is out of reach
for now (its ``unavailable`` flag: the index database or object store down, not answering, or busy) is 503."""
RETRY_AFTER = 5
"""Seconds a 503 for a busy or unreachable index or object store asks a client to wait (``Retry-After``)."""

INTEGER_RE = re.compile(r"-?[0-9]+\Z")
"""A query parameter written as an integer: decimal digits, an optional ``-``."""
_INT_DIGITS = 18
_INT_MAX = 10**_INT_DIGITS - 1


def error_response(exc: ScratchError, request: Request | None = None) -> JSONResponse:
    """The JSON error of a :class:`ScratchError` with the status of its kind (:data:`STATUS_OF_KIND`), and
    ``calls``, the calls its message advises as ``{"tool", "arguments"}`` (when it names any); a busy or
    unreachable store's 503 carries ``Retry-After`` (the error's ``retry_after`` seconds, rounded up, else
    :data:`RETRY_AFTER`). A NotFound of an entry of the run (and agent) ``request``'s path names is told in words for
    a person, with ``see``, the page to go on from (:func:`person_not_found`), not the model's advice."""
    body: dict[str, Any] = {"kind": exc.kind, "message": str(exc)}
    if hasattr(exc, "resume_offset"):
        body["resume_offset"] = exc.resume_offset
    if isinstance(exc, NotFound) and exc.fact is not None and request is not None and "run" in request.path_params:
        body["message"], body["see"] = person_not_found(exc, request)
    elif exc.calls:  # (the calls its message names, as data: each the tool its route reads with, and its arguments)
        body["calls"] = [call.to_json() for call in exc.calls]
    away = exc.kind == "busy" or getattr(exc, "unavailable", False)
    wait = math.ceil(getattr(exc, "retry_after", RETRY_AFTER))  # (a store not open yet: its own retry period)
    return JSONResponse({"error": body}, status_code=503 if away else STATUS_OF_KIND.get(exc.kind, 500),
                        headers={"Retry-After": str(wait)} if away else None)


def person_not_found(exc: NotFound, request: Request) -> tuple[str, dict[str, str]]:
    """``(message, see)`` of ``exc``, a NotFound of an entry of the run and agent of ``request``'s path, for a person
    at the inspector or a client of its API, where the model's words said to copy a handle from its stub, run the
    tool again or call ``scratch_list``: what is known (:attr:`~scratchfs.foundation.errors.NotFound.fact`), then
    the live entry likely meant, else the run's listing when it holds live entries, else the runs' (``see``:
    ``{"href", "text"}``, the page's path and its link's text)."""
    run, agent = request.path_params["run"], request.path_params.get("agent", "")
    if exc.meant is not None:
        kind, name = exc.meant
        base = f"/runs/{quote(run, safe='')}/agents/{quote(agent, safe='')}"
        href = f"{base}/handles/{quote(name, safe='')}" if kind == "handle" else f"{base}/scratchpad?key=" + quote(
            name, safe="")
        return f"{exc.fact}; did you mean {name!r}? ({href})", {"href": href, "text": name}
    elsewhere = "; an entry is found only under the run and agent that wrote it" if exc.elsewhere else ""
    try:
        store = app_store(request)
        live = next(iter(iter_entries(store, store.now(), run, limit=1)), None) is not None
    except ScratchError:  # (the index cannot say: the run's page says what it holds)
        live = True
    path = quote(run, safe="")
    if live:
        return (f"{exc.fact}{elsewhere}; the live entries of run {run!r} are listed at /runs/{path} (JSON: "
                f"/api/runs/{path}/scratch)", {"href": f"/runs/{path}", "text": f"run {run}"})
    return (f"{exc.fact}{elsewhere}; run {run!r} holds no live entries (they expired or were deleted, or it never "
            "had any): the runs are listed at / (JSON: /api/runs)", {"href": "/", "text": "runs"})


def internal_error(request: Request) -> JSONResponse:
    """The JSON 500 of a bug met while answering ``request``, without details; the exception being handled is
    logged with its traceback (call it from an ``except`` block)."""
    log.exception("web API %s failed", request.url.path)
    return JSONResponse({"error": {"kind": "internal", "message": "internal error (see the server log)"}},
                        status_code=500)


def endpoint(func: Callable[..., Any]) -> Callable[[Request], Any]:
    """Wrap an API function ``func(request, **checked path params) -> JSON value``: errors become JSON errors, never a
    traceback."""

    def handler(request: Request) -> JSONResponse:
        try:
            params = path_params(request)
            return JSONResponse(func(request, **params))
        except ScratchError as exc:
            return error_response(exc, request)
        except HTTPException:  # 403 for a delete without --allow-delete: the app's handler renders it
            raise
        except Exception:  # a bug: logged, and a JSON 500 without details
            return internal_error(request)

    handler.__name__ = func.__name__
    handler.__doc__ = func.__doc__
    return handler


def path_params(request: Request) -> dict[str, str]:
    """The path parameters of ``request`` (``run``, ``agent``, ``handle``), each through its id check
    (:mod:`scratchfs.foundation.checks`). Raises InvalidArgument for a malformed id."""
    checkers = {"run": checks.check_run_id, "agent": checks.check_agent_id, "handle": checks.check_handle}
    return {name: checkers[name](value) for name, value in request.path_params.items()}


def query_params(request: Request, allowed: Iterable[str], repeatable: tuple[str, ...] = (),
                 required: tuple[str, ...] = (), tool: str | None = None) -> dict[str, str]:
    """The query parameters, each at most once, of ``allowed`` (and ``repeatable``, skipped), each of ``required``
    present. Raises InvalidArgument naming the parameter that is unknown (and the one meant: ``tool``'s, as its
    tool refuses it), repeated or missing."""
    allowed = set(allowed) | {"token"}
    out: dict[str, str] = {}
    for name, value in request.query_params.multi_items():
        if name in repeatable:
            continue
        if name not in allowed:
            known = (allowed | set(repeatable)) - {"token"}
            meant = meant_argument(name, known, tool)
            raise InvalidArgument(f"unknown query parameter {shorten(name)}"
                                  f"{f' (did you mean {meant!r}?)' if meant else ''}; allowed: "
                                  f"{', '.join(sorted(known)) or 'none'}")
        if name in out:
            raise InvalidArgument(f"query parameter {name} given twice")
        if name != "token":
            out[name] = value
    for name in required:
        if name not in out:
            raise InvalidArgument(f"query parameter {name} is required")
    return out


def int_param(value: str, name: str, low: int = -_INT_MAX, high: int = _INT_MAX, tool: str | None = None) -> int:
    """The integer a query parameter writes (decimal digits, an optional ``-``), in ``[low, high]`` (``tool``: the
    range the tool's schema gives the argument ``name``, where it gives one; only a number of more than 18 digits is
    refused here, the tool checks the others with the words it says them in over MCP).

    Raises:
        InvalidArgument: not an integer ("must be an integer"), or out of the range ("is out of range", naming it).
    """
    if not INTEGER_RE.match(value):
        raise InvalidArgument(f"{name} must be an integer: {shorten(value)}")
    if tool is not None:
        schema = TOOL_SPECS[tool].input_schema["properties"].get(name, {})
        low, high = schema.get("minimum", low), schema.get("maximum", high)
    huge = len(value.lstrip("-").lstrip("0")) > _INT_DIGITS
    if huge or (tool is None and not low <= int(value) <= high):
        raise InvalidArgument(f"{name} is out of range: {shorten(value)} is not between {low} and {high}")
    return int(value)


def bool_param(value: str, name: str) -> bool:
    """The boolean a query parameter writes: ``true`` or ``1``, ``false`` or ``0``. Raises InvalidArgument ("must be
    true or false") for anything else."""
    if value in ("true", "1"):
        return True
    if value in ("false", "0"):
        return False
    raise InvalidArgument(f"{name} must be true or false: {shorten(value)}")


def app_store(request: Request) -> ScratchStore:
    """The app's store; one not open yet (a :class:`~scratchfs.api.deferred_store.DeferredStore`) raises its
    ``StorageError`` (``unavailable``: a 503 with ``Retry-After``)."""
    store = request.app.state.store
    return store.get() if isinstance(store, DeferredStore) else store


__all__ = ["INTEGER_RE", "RETRY_AFTER", "STATUS_OF_KIND", "app_store", "bool_param", "endpoint", "error_response",
           "int_param", "internal_error", "path_params", "person_not_found", "query_params"]
