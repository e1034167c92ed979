"""The web inspector's guard: the access token, the token cookie, CSRF checks and the security headers of every
response, as one pure ASGI middleware (:class:`Guard`) in front of the whole app.

* Before anything else, a request's ``Host`` must name this server (:func:`host_problem`: loopback's names, the
  address the connection came in on, the names the server was started with, and its port), else 421: a page of a
  name made to resolve to 127.0.0.1 (DNS rebinding) is same-origin with itself as far as its browser knows. Names
  a reverse proxy in front sends are let through only when given (``allow_hosts``, :func:`allowed_host`: exact
  names, no wildcards). A target in absolute form (``GET http://NAME/path``) is judged by its authority in place of
  ``Host`` (RFC 9112 section 3.2.2), then served by its path (:func:`origin_form`).
* Every request needs the access token, also on loopback: as ``Authorization: Bearer <token>``, as the cookie this
  guard sets, or as ``?token=`` in the URL (the URL printed at start, as Jupyter does). A page opened with
  ``?token=`` is redirected (303) to the same URL without it, with the token moved into a cookie (``HttpOnly``,
  ``SameSite=Strict``, ``Path=/``; its name carries the port, since cookies are not kept apart by port), so the
  token stays out of later URLs, the history and ``Referer`` headers. A request without a valid token gets 401.
  Tokens are compared in constant time (:func:`hmac.compare_digest`). A token given twice (``?token=`` twice, two
  ``Authorization`` headers) is a 400 whatever the order; one given in the URL or the header must be right whatever
  cookie goes with it (the cookie counts only for a request that gives neither).
* Requests that change state (every method but GET and HEAD) also need proof that they come from the page or from a
  script that holds the token, never from another site riding on the cookie: an ``Authorization: Bearer`` header,
  or the cookie together with an ``X-Scratchfs-Csrf`` header equal to :func:`csrf_token` (which the page reads
  from its own HTML; another origin cannot read the page, and cannot set a custom header on a cross-site request
  without a CORS preflight, which this app never grants). A request whose ``Origin`` or ``Sec-Fetch-Site`` says it
  comes from another site is refused (403) whatever it carries.
* A request another site's or origin's page made as a subresource (an ``<img>``, a ``<script>``, a frame, a
  ``fetch``: its ``Sec-Fetch-Site`` is ``same-site`` or ``cross-site`` and it is no top-level navigation), a
  navigation of its to the JSON API (``/api/``), and any prefetch or prerender (``Sec-Purpose``) are refused (403)
  whatever method they use: every port of a host is the same site, so the token cookie goes with the requests of
  any page served on another port of 127.0.0.1, and such a page could make the inspector run deep checks and
  searches for it. A link followed from elsewhere still opens a page.
* A URL whose path or query is not UTF-8 once its %-escapes are decoded is refused (400): the server would read
  those bytes as U+FFFD, naming another entry than the one asked for.
* Every response, errors included, carries :data:`SECURITY_HEADERS`: a ``Content-Security-Policy`` that allows
  scripts, styles and fetches from this origin only (no inline script or style, no frames, no forms, no plugins),
  ``X-Content-Type-Options: nosniff``, ``Referrer-Policy: no-referrer``, ``X-Frame-Options: DENY`` and
  ``Cache-Control: no-store``.

The policy follows the OWASP cheat sheets "Cross-Site Request Forgery Prevention" (custom request headers, Fetch
Metadata) and "Content Security Policy".
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import re
import secrets
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qsl, quote, unquote, unquote_to_bytes, urlencode

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
       "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
"""The ``Content-Security-Policy`` of every response."""
SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cache-control", b"no-store"),
    (b"cross-origin-resource-policy", b"same-origin"),
)
"""Headers added to every response (lower-case names, as ASGI sends them)."""
CSRF_HEADER = "x-scratchfs-csrf"
"""The request header that carries :func:`csrf_token` on a state-changing request from the page."""
TOKEN_PARAM = "token"
"""The query parameter that may carry the access token."""
TRANSPORT_KEY = "scratchfs.transport"
"""The scope key :class:`Guard` puts the server's asyncio transport of the connection under (uvicorn's: its
``send`` is a method of an object that holds it), or None: what a download's stall deadline watches."""
_SAFE_METHODS = frozenset({"GET", "HEAD"})


def new_access_token() -> str:
    """A fresh random access token: 32 URL-safe characters from 192 bits of :mod:`secrets` randomness."""
    return secrets.token_urlsafe(24)


def csrf_token(token: str) -> str:
    """The CSRF token that goes with an access token: ``HMAC-SHA256(token, "scratchfs csrf")``, hex, 64 characters.
    It grants nothing alone (reads need the access token too), and reveals nothing about the access token."""
    return hmac.new(token.encode(), b"scratchfs csrf", hashlib.sha256).hexdigest()


def cookie_name(port: int | None) -> str:
    """The name of the token cookie for a server on ``port`` (cookies are shared between the ports of a host)."""
    return f"scratchfs_token_{port or 0}"


def _same(supplied: str | None, expected: str) -> bool:
    return supplied is not None and hmac.compare_digest(supplied.encode("utf-8", "replace"), expected.encode())


def _headers(scope: Scope) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, value in scope.get("headers", []):
        out.setdefault(name.decode("latin-1").lower(), value.decode("latin-1"))
    return out


def _cookie_values(scope: Scope, name: str) -> list[str]:
    """Every value of the cookie ``name`` in the request's ``Cookie`` headers, read as browsers send them: ``;``
    separated ``name=value`` pairs (RFC 6265 section 5.4), a pair without ``=`` or a value with quotes, spaces or
    other bytes RFC 6265 leaves out taken as it comes and skipped past. (:class:`http.cookies.SimpleCookie` stops
    at the first pair it cannot read, so a cookie of another port's app -- a JSON value, say -- hid the token
    cookie after it.) A name may come more than once: another port's page may set a cookie of the same name with a
    narrower path, which the browser sends first."""
    values = []
    for header, value in scope.get("headers", []):
        if header.lower() != b"cookie":
            continue
        for pair in value.decode("latin-1").split(";"):
            key, sep, rest = pair.partition("=")
            if sep and key.strip() == name:
                rest = rest.strip()
                values.append(rest[1:-1] if len(rest) > 1 and rest[0] == rest[-1] == '"' else rest)
    return values


def _port(scope: Scope) -> int | None:
    server = scope.get("server")
    return server[1] if server else None


class CutShort(Exception):
    """Raised by a response body streamed after its headers went out that cannot end whole (a download meeting a
    damaged frame), once what went wrong is logged: :class:`Guard` ends the request there without completing the
    response, so the server closes the connection and the client sees the transfer cut short -- without the
    server's traceback of an unexpected exception. (The ASGI HTTP spec has no message that aborts a response: an
    application that returns before its last ``http.response.body`` leaves the server to close the connection;
    https://asgi.readthedocs.io/en/latest/specs/www.html.)"""


class Guard:
    """ASGI middleware: the token check, the token cookie, the CSRF check and the security headers (see the module
    docstring).

    Args:
        app: the application behind the guard.
        token: the access token (any non-empty text).
        hosts: names (or addresses) a request's ``Host`` may give besides ``localhost``, ``127.0.0.1``, ``[::1]`` and
            the address the connection came in on (:func:`host_problem`), with the server's port: the ``--host`` the
            server was bound to.
        allow_hosts: more names a request's ``Host`` may give, as ``NAME`` (with any port) or ``NAME:PORT``
            (:func:`allowed_host`): those a reverse proxy in front of the server sends.

    Raises:
        ValueError: an empty token, or an ``allow_hosts`` item that is no host name (:func:`allowed_host`).
    """

    def __init__(self, app: ASGIApp, token: str, hosts: Iterable[str] = (), allow_hosts: Iterable[str] = ()) -> None:
        if not token:
            raise ValueError("the access token must not be empty")
        self.app = app
        self.token = token
        self.hosts = frozenset(_bare(host) for host in hosts)
        self.allowed = frozenset(allowed_host(host) for host in allow_hosts)
        self.csrf = csrf_token(token)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":  # the app has no websocket route: refuse before anything else
            await send({"type": "websocket.close", "code": 1008})
            return
        if scope["type"] != "http":  # lifespan
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(n, v) for n, v in SECURITY_HEADERS if n not in names]
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        misdirected = host_problem(scope, self.hosts, self.allowed)
        if misdirected:  # before anything else: a page of another name (DNS rebinding) learns nothing here
            await _refuse(origin_form(scope), send_with_headers, *misdirected)  # (JSON under /api/, else text)
            return
        scope = origin_form(scope)  # (GET http://HOST/path: served as GET /path once HOST passed)
        scope[TRANSPORT_KEY] = getattr(getattr(send, "__self__", None), "transport", None)
        headers = _headers(scope)
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
        from_query, bearer, problem = _given_credentials(scope, query)
        problem = problem or self._token_problem(scope, from_query, bearer)
        if problem:
            await _refuse(scope, send_with_headers, *problem)
            return
        foreign = _foreign_subresource(headers, scope["path"])
        if foreign:
            await _refuse(scope, send_with_headers, 403, "forbidden", foreign)
            return
        garbled = _not_utf8(scope)
        if garbled:
            await _refuse(scope, send_with_headers, 400, "invalid argument", garbled)
            return
        method = scope.get("method", "GET")
        if method not in _SAFE_METHODS:
            problem = self._csrf_problem(headers, bearer)
            if problem:
                await _refuse(scope, send_with_headers, 403, "forbidden", problem)
                return
        elif from_query is not None and not scope["path"].startswith("/api/"):
            await _redirect_into_cookie(scope, send_with_headers, query, self.token)
            return
        try:
            await self.app(scope, receive, send_with_headers)
        except CutShort:
            return  # the response started and is left incomplete: the server closes the connection

    def _token_problem(self, scope: Scope, from_query: str | None, bearer: str | None) -> tuple[int, str, str] | None:
        """The 401 of a request without the right token, or None. A token given in the URL or in an
        ``Authorization: Bearer`` header must be right, whatever else the request carries; a request that gives
        neither passes on one of its token cookies (a cookie of an earlier server on this port, or one another
        port's page set with a narrower path, goes with it too: the browser sends them all)."""
        wrong = [where for where, value in (("the URL's ?token=", from_query), ("the Authorization header", bearer))
                 if value is not None and not _same(value, self.token)]
        if wrong:
            return 401, "unauthorized", (f"the access token in {' and in '.join(wrong)} is wrong: open the URL that "
                                         "`scratchfs serve` printed")
        if from_query is None and bearer is None and not any(
                _same(value, self.token) for value in _cookie_values(scope, cookie_name(_port(scope)))):
            return 401, "unauthorized", ("the access token is missing or wrong: open the URL that `scratchfs serve` "
                                         "printed")
        return None

    def _csrf_problem(self, headers: dict[str, str], bearer: str | None) -> str | None:
        """Why a state-changing request is refused, or None."""
        site = headers.get("sec-fetch-site")
        if site is not None and site not in ("same-origin", "none"):
            return f"a cross-site request ({site}) may not change anything"
        origin = headers.get("origin")
        if origin is not None and origin.split("://", 1)[-1] != headers.get("host"):
            return "a request from another origin may not change anything"
        if _same(bearer, self.token) or _same(headers.get(CSRF_HEADER), self.csrf):
            return None
        return f"a request that changes something needs an Authorization: Bearer header or {CSRF_HEADER}"


LOCAL_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
"""The names a request's ``Host`` may always give (with the server's port): this machine's loopback."""


def _bare(host: str) -> str:
    """``host`` lower-case, without the brackets of an IPv6 address."""
    return host.strip().lower().removeprefix("[").removesuffix("]")


_HOST_RE = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[^:\[\]@/?#%\\]+)(?::([0-9]{1,5}))?\Z")
_LABEL = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
_NAME_RE = re.compile(rf"(?=.{{1,253}}\Z){_LABEL}(?:\.{_LABEL})*\Z")
_ABSOLUTE_RE = re.compile(rb"([A-Za-z][A-Za-z0-9+.-]*)://([^/]*)")


def allowed_host(text: str) -> tuple[str, int | None]:
    """``text`` -- a name a reverse proxy in front of the inspector puts in ``Host``: ``NAME`` or ``NAME:PORT``, an
    IPv4 address, or an IPv6 one in brackets (``[::1]:8080``) or without (``fe80::1``, no port then) -- as
    ``(name, port)``: the name lower-case, without brackets or a last dot, the port None when none is given (any
    port, or none, then: the port a browser sends is the proxy's, and none at all for 80 and 443).

    Raises:
        ValueError: anything else, saying what is wrong: a wildcard (``*.example.com``: a name an attacker can make
        resolve to this machine is exactly what the ``Host`` check refuses), names split by commas or spaces (one
        item a name), a name past ASCII (its ``xn--`` form named: a Host header carries that), a URL, userinfo, a
        path, a port over 65535, a label over 63 characters or with other characters than letters, digits and
        ``-``."""
    given = text.strip()
    if "*" in given:
        raise ValueError(f"{given!r}: no wildcards; give each name a proxy sends as it is")
    if "," in given or any(char.isspace() for char in given):
        raise ValueError(f"{given!r} is several names or none: give each as an item of its own (--allow-host once "
                         "a name; $SCRATCHFS_ALLOW_HOST splits its names by spaces alone)")
    if not given.isascii():
        try:
            spelled = f": {given.encode('idna').decode('ascii')!r}, as a proxy sends it in Host"
        except UnicodeError:
            spelled = ""
        raise ValueError(f"{given!r} is no host name a Host header carries: give an international name in its "
                         f"ASCII form (xn--...){spelled}")
    if given.count(":") > 1 and not given.startswith("["):
        given = f"[{given}]"  # (a bare IPv6 address: no port then)
    found = _HOST_RE.match(given)
    port = int(found.group(2)) if found and found.group(2) else None
    name = _bare(found.group(1)) if found else ""
    if found and given.startswith("["):
        try:
            ipaddress.IPv6Address(name)
        except ValueError:
            found = None
    elif found and not _NAME_RE.match(name := name.removesuffix(".")):  # (a name's root dot: the same name, which
        found = None  # a Host may give with or without it)
    if not found or (port is not None and not 0 < port < 65536):
        raise ValueError(f"{text!r} is no host name: give NAME or NAME:PORT, as a proxy sends it in Host (letters, "
                         "digits, - and . ; an IPv6 address in [brackets] with a port)")
    return name, port


def host_problem(scope: Scope, hosts: Iterable[str] = (),
                 allowed: Iterable[tuple[str, int | None]] = ()) -> tuple[int, str, str] | None:
    """The refusal (status, kind, message) of a request whose ``Host`` header names another server, or None.

    A page of any site whose name an attacker makes resolve to 127.0.0.1 (DNS rebinding) is same-origin with itself,
    and its browser sends ``Host: attacker.example:PORT``: it holds no token, but the inspector answers to no such
    name. ``Host`` must be ``localhost``, ``127.0.0.1``, ``[::1]``, the address the connection came in on (the
    server's side of it: the bound address, or under ``--host 0.0.0.0`` the one the client used) or one of
    ``hosts`` (lower-case, without brackets), with the port the connection came in on (none: 80), or one of
    ``allowed`` (:func:`allowed_host`'s pairs: a reverse proxy's names, with their port or any); else 421. More
    than one ``Host`` header is a 400. A request without one (HTTP/1.0) passes: a browser always sends it.

    A request whose target is in absolute form (``GET http://NAME:PORT/path HTTP/1.1``) is judged by the target's
    authority in place of ``Host`` (RFC 9112 section 3.2.2: a server ignores ``Host`` then), with or without one;
    :func:`origin_form` gives such a request's scope as it is served."""
    target = _absolute_target(scope)
    given = [value.decode("latin-1") for name, value in scope.get("headers", []) if name.lower() == b"host"]
    if target is None and len(given) > 1:
        return 400, "invalid argument", f"the request has {len(given)} Host headers: send one"
    if target is not None and target[0].lower() not in (b"http", b"https"):
        return 400, "invalid argument", "the request's target is a URL of another scheme than http: send its path"
    if target is None and not given:
        return None
    what, value = ("the request's target names", target[1].decode("latin-1")) if target else ("the Host", given[0])
    server = scope.get("server") or ("", None)
    found = _HOST_RE.match(value.strip())
    name, port = (_bare(found.group(1)), int(found.group(2) or 80)) if found else ("", None)
    names = {*LOCAL_NAMES, _bare(str(server[0])), *hosts}
    if found and name in names and (server[1] is None or port == server[1]):
        return None
    if found and any(name.removesuffix(".") == other and (only is None or _port_given(found.group(2), only))
                     for other, only in allowed):
        return None
    own = (f"localhost:{server[1]} or 127.0.0.1:{server[1]}" if server[1] is not None
           else "localhost, 127.0.0.1 or [::1] (with the port it listens on)")
    return 421, "misdirected request", (f"this server answers to {own} (and the names it was started with), not to "
                                        f"{what} {json.dumps(value[:80])}: open the URL that `scratchfs serve` "
                                        "printed, or the one you were given for this server")


def _port_given(given: str | None, port: int) -> bool:
    """Whether a ``Host``'s port ``given`` (None when it gives none) is ``port``: none is 80 or 443 (the default
    ports of http and https, either of which a proxy in front may speak)."""
    return int(given) == port if given else port in (80, 443)


def _absolute_target(scope: Scope) -> tuple[bytes, bytes, bytes] | None:
    """The scheme, authority and rest (path, ``/`` at least) of a request whose target is in absolute form, as
    the server left it in ``raw_path``; None for a target in origin form (a path)."""
    raw = scope.get("raw_path") or b""
    found = _ABSOLUTE_RE.match(raw)
    if found is None:
        return None
    return found.group(1), found.group(2), raw[found.end():] or b"/"


def origin_form(scope: Scope) -> Scope:
    """``scope``, or for a request whose target is in absolute form (``http://NAME:PORT/path``) a copy with the
    target's path as ``path`` and ``raw_path`` and its authority as the one ``Host`` header (RFC 9112 section 3.2.2:
    a server MUST accept the absolute form, and replace ``Host`` with the target's authority) -- as the server makes
    of a target in origin form, so the request is routed by its path. Call it once :func:`host_problem` passed."""
    target = _absolute_target(scope)
    if target is None:
        return scope
    _, authority, rest = target
    headers = [(name, value) for name, value in scope.get("headers", []) if name.lower() != b"host"]
    return {**scope, "raw_path": rest, "path": unquote(rest.decode("latin-1")),
            "headers": [(b"host", authority), *headers]}


def _given_credentials(scope: Scope, query: list[tuple[str, str]]) -> tuple[str | None, str | None,
                                                                             tuple[int, str, str] | None]:
    """The token of the request's query and of its ``Authorization: Bearer`` header (each None when not given), and
    the 400 of a request that gives either more than once (None if it does not): which of several to believe
    would depend on their order, and a request made honestly never repeats them."""
    tokens = [value for key, value in query if key == TOKEN_PARAM]
    authorizations = [value.decode("latin-1") for name, value in scope.get("headers", [])
                      if name.lower() == b"authorization"]
    problem = None
    if len(tokens) > 1:
        problem = 400, "invalid argument", f"the URL gives ?{TOKEN_PARAM}= {len(tokens)} times: give it once"
    elif len(authorizations) > 1:
        problem = 400, "invalid argument", f"the request has {len(authorizations)} Authorization headers: send one"
    bearer = authorizations[0] if len(authorizations) == 1 else ""
    return (tokens[0] if len(tokens) == 1 else None, bearer[7:].strip() if bearer[:7].lower() == "bearer " else None,
            problem)


def _not_utf8(scope: Scope) -> str | None:
    """Which part of the request's URL is not UTF-8 once its %-escapes are decoded, or None. The server and the
    framework decode such bytes as U+FFFD, so ``?key=%FF`` -- a name no client can have written -- would name the
    entry whose key is U+FFFD, and a search for them would look for U+FFFD."""
    for part, raw in (("the path", scope.get("raw_path")), ("the query", scope.get("query_string"))):
        try:
            unquote_to_bytes(raw or b"").decode("utf-8")
        except UnicodeDecodeError:
            return f"{part} of the URL is not UTF-8 once its %-escapes are decoded"
    return None


def _foreign_subresource(headers: dict[str, str], path: str = "/") -> str | None:
    """Why a request that another site or origin's page made is refused (its Fetch Metadata, the ``Sec-Fetch-*``
    headers browsers send, says so), or None: only a top-level navigation -- a link followed, a URL typed -- to a
    page (not under ``/api/``) may come from elsewhere, and not one a page asked the browser to make ahead of time
    (a prefetch or prerender of its speculation rules: ``Sec-Purpose``, which Chromium sends with
    ``Sec-Fetch-Site: none`` whoever asked for it). Every port of a host is the same site, so the token cookie
    (``SameSite=Strict``) rides along with an ``<img>``, a ``<script>`` or a no-cors ``fetch`` of any page served
    on another port -- and with a navigation it makes, of itself or of a window it opened, as often as it likes:
    without this the inspector ran whatever such a page named (a deep fsck, a search until its time limit) with the
    person's cookie. A page is a shell that does its work by same-origin fetches; the API is for the page and for
    clients that hold the token. A request without the headers (a script, an older browser) is judged by its token
    alone."""
    site = headers.get("sec-fetch-site")
    if site is None or site == "same-origin":
        return None
    mode, dest = headers.get("sec-fetch-mode", ""), headers.get("sec-fetch-dest", "")
    speculative = "sec-purpose" in headers or "purpose" in headers  # a prefetch or prerender a page asked for
    if site == "none" and not speculative:  # a URL typed, a bookmark, the person's own browser
        return None
    said = ", ".join(value[:20] or "?" for value in (site, mode, dest))  # (a client's own words: a few of them)
    if speculative:
        return f"a prefetch or prerender ({said}) may not use the inspector: open the page itself"
    if mode == "navigate" and dest in ("document", ""):
        if not path.startswith("/api/"):
            return None
        return (f"a page of another site or origin ({said}) may not open the JSON API: open the inspector's page, or "
                "call the API with the token (Authorization: Bearer)")
    return f"a request made by a page of another site or origin ({said}) may not use the inspector"


async def _refuse(scope: Scope, send: Send, status: int, kind: str, message: str) -> None:
    """The guard's refusal (401, 403, 400), shaped as every error of the app: under ``/api/`` compact JSON
    ``{"error":{"kind":...,"message":...}}`` as Starlette's ``JSONResponse`` writes it, else ``STATUS KIND: MESSAGE``
    as text."""
    if scope["path"].startswith("/api/"):
        body = json.dumps({"error": {"kind": kind, "message": message}}, ensure_ascii=False,
                          separators=(",", ":")).encode()
        ctype = b"application/json"
    else:
        body = f"{status} {kind}: {message}\n".encode()
        ctype = b"text/plain; charset=utf-8"
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", ctype), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


async def _redirect_into_cookie(scope: Scope, send: Send, query: list[tuple[str, str]], token: str) -> None:
    rest = urlencode([(k, v) for k, v in query if k != TOKEN_PARAM])
    # one leading slash: a path such as //evil.example/x is a network-path reference in a Location header, which a
    # browser follows to another host (an open redirect carrying the person away from the inspector)
    path = "/" + quote(scope.get("root_path", "") + scope["path"]).lstrip("/")
    location = path + (f"?{rest}" if rest else "")
    cookie = SimpleCookie()
    name = cookie_name(_port(scope))
    cookie[name] = token
    cookie[name]["httponly"] = True
    cookie[name]["samesite"] = "Strict"
    cookie[name]["path"] = "/"
    header = cookie[name].OutputString()
    await send({"type": "http.response.start", "status": 303,
                "headers": [(b"location", location.encode("utf-8")), (b"set-cookie", header.encode("latin-1")),
                            (b"content-length", b"0")]})
    await send({"type": "http.response.body", "body": b""})


__all__ = ["CSP", "CSRF_HEADER", "LOCAL_NAMES", "SECURITY_HEADERS", "TOKEN_PARAM", "TRANSPORT_KEY", "CutShort", "Guard",
           "allowed_host", "cookie_name", "csrf_token", "host_problem", "new_access_token", "origin_form"]
