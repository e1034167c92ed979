"""The web inspector as one ASGI application: :func:`create_app` assembles the routes of the JSON API
(:mod:`scratchfs.web.api`) and its downloads (:mod:`scratchfs.web.download`), its OpenAPI description
(:mod:`scratchfs.web.openapi`) and the page (:mod:`scratchfs.web.page`) behind the guard
(:mod:`scratchfs.web.security`).

Framework: Starlette (a small, well-kept ASGI toolkit by the authors of uvicorn and httpx, BSD-licensed, typed;
routing, requests and responses, a thread pool for blocking handlers, and a test client) -- enough for a JSON API and
a page, without the weight of a full framework. :mod:`scratchfs.cli.serve` runs the app under uvicorn.

Routes are listed one by one (there is no static-file mount and no catch-all): a path that is not one of them is a
JSON 404 under ``/api/`` and a plain-text 404 elsewhere; a method not allowed is a 405.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from scratchfs.api.deferred_store import DeferredStore
from scratchfs.api.store import ScratchStore
from scratchfs.foundation.errors import ScratchError
from scratchfs.foundation.text import clipped, one_line
from scratchfs.web import api, download, page
from scratchfs.web.download import DownloadSlots, content_endpoint
from scratchfs.web.endpoint import endpoint, error_response
from scratchfs.web.openapi import openapi
from scratchfs.web.security import Guard


def _http_error(request: Request, exc: Exception) -> Response:
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    kind = {403: "forbidden", 404: "not found", 405: "method not allowed"}.get(status, "error")
    message = "no such route" if status == 404 else str(getattr(exc, "detail", "error"))
    if status == 405:
        message = _method_said(request, getattr(exc, "headers", None) or {})
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": {"kind": kind, "message": message}}, status_code=status,
                            headers=getattr(exc, "headers", None))
    return PlainTextResponse(f"{status} {kind}: {message}\n", status_code=status,
                             headers=getattr(exc, "headers", None))


def _method_said(request: Request, headers: dict[str, str]) -> str:
    """What a 405 says: the method given and the ones the route takes, from the ``Allow`` header Starlette's route
    sets (``HEAD`` left out beside ``GET``): ``GET is not allowed on /api/runs/r/delete: it takes POST (see
    /api/openapi.json)``, where it said only "Method Not Allowed". The method and the path are said on one line (a
    ``%0A`` in the path escaped, :func:`~scratchfs.foundation.text.one_line`) and cut to 40 and 160 characters: a
    request's path of 20,000 bytes is not echoed whole."""
    allowed = [m.strip() for m in headers.get("Allow", "").split(",") if m.strip()]
    named = [m for m in allowed if m != "HEAD"] or allowed
    takes = f"it takes {' or '.join(named)}" if named else "it takes no method"
    method, path = clipped(one_line(request.method), 40), clipped(one_line(request.url.path), 160)
    return f"{method} is not allowed on {path}: {takes} (see /api/openapi.json)"


async def _openapi(request: Request) -> JSONResponse:
    return JSONResponse(openapi())


async def health(request: Request) -> JSONResponse:
    """``GET /api/health``: ``{"store": "open"}`` (200) once the store is open; while it is not (its index out of
    reach since the start-up: :class:`~scratchfs.api.deferred_store.DeferredStore`), the 503 every store route
    answers, with ``Retry-After`` (seconds), saying why and when to retry. Asks nothing of the index."""
    store = request.app.state.store
    if isinstance(store, DeferredStore) and store.store is None:
        try:
            store.get()
        except ScratchError as exc:
            return error_response(exc)
    return JSONResponse({"store": "open"})


async def _no_icon(request: Request) -> Response:
    return Response(status_code=204)


def routes() -> list[Route]:
    """Every route of the app."""
    h = "/api/runs/{run}/agents/{agent}/handles/{handle}"
    s = "/api/runs/{run}/agents/{agent}/scratchpad"
    get, post = ["GET"], ["POST"]
    return [
        Route("/", page.runs_page, methods=get),
        Route("/runs/{run}", page.run_page, methods=get),
        Route("/runs/{run}/agents/{agent}/handles/{handle}", page.handle_page, methods=get),
        Route("/runs/{run}/agents/{agent}/scratchpad", page.scratch_page, methods=get),
        Route("/static/{name:str}", page.asset, methods=get),
        Route("/favicon.ico", _no_icon, methods=get),
        Route("/api/openapi.json", _openapi, methods=get),
        Route("/api/health", health, methods=get),
        Route("/api/runs", endpoint(api.list_runs), methods=get),
        Route("/api/runs/{run}/scratch", endpoint(api.run_entries), methods=get),
        Route(h, endpoint(api.handle_meta), methods=get),
        Route(h + "/read", endpoint(api.handle_read), methods=get),
        Route(h + "/tree", endpoint(api.handle_tree), methods=get),
        Route(h + "/table", endpoint(api.handle_table), methods=get),
        Route(h + "/text", endpoint(api.handle_text), methods=get),
        Route(h + "/content", content_endpoint("handle"), methods=get),
        Route(s, endpoint(api.scratch_meta), methods=get),
        Route(s + "/read", endpoint(api.scratch_read), methods=get),
        Route(s + "/content", content_endpoint("scratch"), methods=get),
        Route("/api/stats", endpoint(api.stats_view), methods=get),
        Route("/api/fsck", endpoint(api.fsck_view), methods=get),
        Route("/api/runs/{run}/delete", endpoint(api.delete_run), methods=post),
        Route("/api/runs/{run}/agents/{agent}/delete", endpoint(api.delete_agent), methods=post),
        Route(h + "/delete", endpoint(api.delete_handle), methods=post),
        Route(s + "/delete", endpoint(api.delete_scratch), methods=post),
    ]


def create_app(store: ScratchStore | DeferredStore, token: str, *, allow_delete: bool = False,
               hosts: Iterable[str] = (), allow_hosts: Iterable[str] = (), stall_seconds: float | None = None) -> Any:
    """The inspector's ASGI app over ``store``, guarded by the access ``token``.

    Args:
        store: the open store to inspect, or a :class:`~scratchfs.api.deferred_store.DeferredStore` that may open
            later (until then its routes answer 503 with ``Retry-After``); the caller closes it.
        token: the access token every request must carry (see :mod:`scratchfs.web.security`).
        allow_delete: serve the delete routes (POST); without it they answer 403.
        hosts: the names a request's ``Host`` may give besides this machine's loopback and the address the
            connection came in on, with the port it came in on (:func:`~scratchfs.web.security.host_problem`; any
            other is a 421).
        allow_hosts: more names ``Host`` may give, ``NAME`` (any port) or ``NAME:PORT``: those a reverse proxy in
            front sends (:func:`~scratchfs.web.security.allowed_host`).
        stall_seconds: how long a download may wait for a client that takes nothing of it before it is cut short,
            its connection closed and its slot (one of 16), its blob and its frames read ahead given back
            (:func:`~scratchfs.web.download.watched_send`); None: :data:`~scratchfs.web.download.STALL_SECONDS`
            (30), ``math.inf``: never.

    The app guards what it holds under any ASGI server: its token and ``Host`` checks, its downloads' slots and
    stall deadline. The connections are the server's: under plain uvicorn an embedder sets what ``scratchfs serve``
    sets -- a deadline for each request's headers and a bound on connections, which
    ``uvicorn.Config(http=scratchfs.cli.serve_guard.guarded_h11())`` gives, ``timeout_graceful_shutdown``, and
    ``access_log=False`` (the first request's URL carries the token). The stall deadline judges a client by the
    bytes it takes when the server's ``send`` is a method of an object holding the connection's asyncio transport
    (uvicorn's), else by how long one write waits (which cut a client reading 40 KB/s on loopback after 30 s).

    Returns:
        An ASGI application (the :class:`~scratchfs.web.security.Guard` around a Starlette app).

    Raises:
        ValueError: an empty token, an ``allow_hosts`` item that is no host name, or ``stall_seconds`` not over 0.
    """
    if stall_seconds is not None and not stall_seconds > 0:
        raise ValueError(f"stall_seconds must be over 0 (math.inf: no deadline), not {stall_seconds!r}")
    app = Starlette(routes=routes(), exception_handlers={HTTPException: _http_error, Exception: _http_error})
    app.state.store = store
    app.state.token = token
    app.state.allow_delete = bool(allow_delete)
    app.state.fsck_cache, app.state.fsck_lock = {}, threading.Lock()  # GET /api/fsck: the last report, one check
    app.state.downloads = DownloadSlots()  # the downloads streamed at once
    app.state.stall_seconds = download.STALL_SECONDS if stall_seconds is None else float(stall_seconds)
    return Guard(app, token, hosts, allow_hosts)


__all__ = ["create_app", "routes"]
