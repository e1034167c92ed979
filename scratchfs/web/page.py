"""The web inspector's page: one HTML shell per view (runs, a run, an entry, a scratchpad value) and the two static
assets it loads, ``/static/app.js`` and ``/static/app.css``.

The shell carries only the view's name and its ids (HTML-escaped attributes) and the CSRF token; the script
(no build step, no framework, nothing from the network) fetches the JSON API and builds the page with DOM calls
that set text only (``textContent``, never ``innerHTML``), so an entry holding ``<script>`` shows as text. The
assets are read from the package once, at import, and served from memory by name: no request path reaches the file
system, and there is no directory to list. Every handler here is a coroutine, run on the event loop, never waiting
for a thread of the pool the API's reads run on: 60 searches running to their time limit kept the page (and
``/api/health``) waiting 10 s for one.
"""

from __future__ import annotations

import html
from importlib import resources

from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response

from scratchfs.foundation import checks
from scratchfs.foundation.errors import InvalidArgument
from scratchfs.web.security import csrf_token

_STATIC = resources.files("scratchfs.web") / "static"
ASSETS: dict[str, tuple[bytes, str]] = {
    "app.js": ((_STATIC / "app.js").read_bytes(), "text/javascript; charset=utf-8"),
    "app.css": ((_STATIC / "app.css").read_bytes(), "text/css; charset=utf-8"),
}
"""The static assets by name: ``(bytes, content type)``."""


async def asset(request: Request) -> Response:
    """``/static/app.js`` or ``/static/app.css`` from memory (the route names them; nothing else is served)."""
    found = ASSETS.get(request.path_params["name"])
    if found is None:
        return PlainTextResponse("404 not found: no such asset\n", status_code=404)
    return Response(found[0], media_type=found[1])


def _shell(request: Request, view: str, title: str, **data: str) -> HTMLResponse:
    attrs = "".join(f' data-{name.replace("_", "-")}="{html.escape(value)}"' for name, value in data.items())
    allow = "true" if request.app.state.allow_delete else "false"
    csrf = csrf_token(request.app.state.token)
    text = f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="scratchfs-csrf" content="{csrf}">
<title>{html.escape(title)} · scratchfs</title>
<link rel="stylesheet" href="/static/app.css">
<script src="/static/app.js" defer></script>
</head>
<body data-view="{view}" data-allow-delete="{allow}"{attrs}>
<header><a class="brand" href="/">scratchfs inspector</a><nav id="crumbs"></nav><span id="status"></span></header>
<main id="app"><noscript>This page needs JavaScript (served by this server, nothing from the network).</noscript></main>
</body>
</html>
"""
    return HTMLResponse(text)


def _bad(exc: InvalidArgument) -> PlainTextResponse:
    return PlainTextResponse(f"400 invalid argument: {exc}\n", status_code=400)


async def runs_page(request: Request) -> Response:
    """The runs: agents, entry counts, bytes, next expiry."""
    return _shell(request, "runs", "runs")


async def run_page(request: Request) -> Response:
    """One run's entries, refreshed live."""
    try:
        run = checks.check_run_id(request.path_params["run"])
    except InvalidArgument as exc:
        return _bad(exc)
    return _shell(request, "run", f"run {run}", run=run)


async def handle_page(request: Request) -> Response:
    """One spilled entry: lines, search, JSON tree, CSV table."""
    try:
        run = checks.check_run_id(request.path_params["run"])
        agent = checks.check_agent_id(request.path_params["agent"])
        handle = checks.check_handle(request.path_params["handle"])
    except InvalidArgument as exc:
        return _bad(exc)
    return _shell(request, "handle", handle, run=run, agent=agent, handle=handle)


async def scratch_page(request: Request) -> Response:
    """One scratchpad value (``?key=``)."""
    try:
        run = checks.check_run_id(request.path_params["run"])
        agent = checks.check_agent_id(request.path_params["agent"])
        keys = request.query_params.getlist("key")
        if len(keys) != 1:  # as the API answers: a missing or repeated parameter is named, not guessed at
            raise InvalidArgument("query parameter key " + ("is required" if not keys else "given twice"))
        key = checks.check_key(keys[0])
    except InvalidArgument as exc:
        return _bad(exc)
    return _shell(request, "scratch", f"key {key}", run=run, agent=agent, key=key)


__all__ = ["ASSETS", "asset", "handle_page", "run_page", "runs_page", "scratch_page"]
