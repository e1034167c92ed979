"""The web inspector's JSON API: runs, a run's entries (paged by cursor), one entry's metadata, reads of an entry
through the model-facing contract, structure views, stats, fsck, and deletes when allowed.

Every endpoint is a plain function of a Starlette :class:`~starlette.requests.Request` (Starlette runs it in its
thread pool, so the store's blocking calls never stall the event loop). Path parameters go through the store's id
checks (:mod:`scratchfs.foundation.checks`) before anything else; query parameters are checked here (unknown ones
are refused); reads go through :class:`scratchfs.api.contract.ScratchTools`, the one model-facing contract, with its
schemas and reply budgets (8 KiB unless a read's ``budget`` asks for 2 to 64 KiB). Every
:class:`~scratchfs.foundation.errors.ScratchError` becomes a JSON error ``{"error": {"kind", "message"}}`` with the
HTTP status of its kind (:data:`STATUS_OF_KIND`).

Sizes and offsets are bytes; ``expires_in`` and ``next_expiry_in`` are seconds from now; ``*_at`` and
``next_expiry`` are epoch seconds.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import math
import os
import re
import time
import urllib.parse
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from scratchfs.api.column_words import column_words
from scratchfs.api.contract import ScratchTools
from scratchfs.api.deferred_store import DeferredStore
from scratchfs.api.inspector import (
    DEFAULT_SOON,
    count_entries,
    decode_cursor,
    encode_cursor,
    fsck,
    iter_entries,
    stats_in_sql,
)
from scratchfs.api.misfit import holds
from scratchfs.api.scope import Scope
from scratchfs.api.store import ScratchStore
from scratchfs.api.tools import TOOL_SPECS, meant_argument
from scratchfs.engine.protocols import Entry
from scratchfs.foundation import checks
from scratchfs.foundation.errors import InvalidArgument, NotJson, ScratchError
from scratchfs.foundation.text import name_bytes, one_line, shorten
from scratchfs.web import structure
from scratchfs.web.security import CutShort

log = logging.getLogger(__name__)

STATUS_OF_KIND = {"not found": 404, "changed": 409, "invalid argument": 400, "corrupt": 500, "quota exceeded": 507,
                  "busy": 503, "storage": 500, "closed": 503}
"""HTTP status per :attr:`ScratchError.kind` (anything else: 500); a ``storage`` error whose server is out of reach
for now (its ``unavailable`` flag: the index database or object store down, not answering, or busy) is 503."""
RETRY_AFTER = 5
"""Seconds a 503 for a busy or unreachable index or object store asks a client to wait (``Retry-After``)."""
MAX_PAGE = 1000
"""Most entries one page of ``/api/runs/{run}/scratch`` lists."""
DEFAULT_PAGE = 100
"""Entries per page when no ``limit`` is given."""

_INT_RE = re.compile(r"-?[0-9]+\Z")
_INT_DIGITS = 18
_INT_MAX = 10**_INT_DIGITS - 1


def error_response(exc: ScratchError) -> JSONResponse:
    """The JSON error of a :class:`ScratchError` with the status of its kind (:data:`STATUS_OF_KIND`), and
    ``calls``, the calls its message advises as ``{"tool", "arguments"}`` (when it names any); a busy or
    unreachable store's 503 carries ``Retry-After`` (the error's ``retry_after`` seconds, rounded up, else
    :data:`RETRY_AFTER`)."""
    body: dict[str, Any] = {"kind": exc.kind, "message": str(exc)}
    if hasattr(exc, "resume_offset"):
        body["resume_offset"] = exc.resume_offset
    if exc.calls:  # (the calls its message names, as data: each the tool its route reads with, and its arguments)
        body["calls"] = [call.to_json() for call in exc.calls]
    away = exc.kind == "busy" or getattr(exc, "unavailable", False)
    wait = math.ceil(getattr(exc, "retry_after", RETRY_AFTER))  # (a store not open yet: its own retry period)
    return JSONResponse({"error": body}, status_code=503 if away else STATUS_OF_KIND.get(exc.kind, 500),
                        headers={"Retry-After": str(wait)} if away else None)


def endpoint(func: Callable[..., Any]) -> Callable[[Request], Any]:
    """Wrap an API function ``func(request, **checked path params) -> JSON value``: errors become JSON errors, never a
    traceback."""

    def handler(request: Request) -> JSONResponse:
        try:
            params = _path_params(request)
            return JSONResponse(func(request, **params))
        except ScratchError as exc:
            return error_response(exc)
        except HTTPException:  # 403 for a delete without --allow-delete: the app's handler renders it
            raise
        except Exception:  # a bug: logged, and a JSON 500 without details
            log.exception("web API %s failed", request.url.path)
            return JSONResponse({"error": {"kind": "internal", "message": "internal error (see the server log)"}},
                                status_code=500)

    handler.__name__ = func.__name__
    handler.__doc__ = func.__doc__
    return handler


def content_endpoint(kind: str) -> Callable[[Request], Response]:
    """The download of a live entry's whole content (``kind`` ``"handle"``: ``.../handles/{handle}/content``;
    ``"scratch"``: ``.../scratchpad/content?key=``): every byte, streamed a frame at a time
    (:meth:`~scratchfs.api.scope.Scope.iter_content`), as ``application/octet-stream`` with a
    ``Content-Disposition: attachment`` file name (the handle, or the key with every character outside
    ``[A-Za-z0-9._-]`` as ``_``, and the extension of its content type). An error found before the first byte is the
    JSON error of :func:`endpoint`; one met later (a damaged frame) is logged in one line and the response cut short,
    so a client sees an incomplete transfer, never wrong bytes."""

    def handler(request: Request) -> Response:
        try:
            params = _path_params(request)
            if kind == "handle":
                key = params.pop("handle")
                _query(request, ())
            else:
                key = checks.check_key(_query(request, ("key",), required=("key",))["key"])
            entry, chunks = _store(request).scope(params["run"], params["agent"]).open_content(kind, key)
        except ScratchError as exc:
            return error_response(exc)
        except Exception:  # a bug: logged, and a JSON 500 without details
            log.exception("web API %s failed", request.url.path)
            return JSONResponse({"error": {"kind": "internal", "message": "internal error (see the server log)"}},
                                status_code=500)
        return _ClosingStream(chunks, request.url.path, media_type="application/octet-stream",
                              headers={"Content-Disposition": attachment(key, entry.content_type)})

    handler.__name__ = f"{kind}_content"
    return handler


def attachment(key: str, content_type: str | None) -> str:
    """The ``Content-Disposition`` value of a download named ``key`` (at most 100 characters of it) with the extension
    of ``content_type``: ``attachment; filename="..."`` with every character outside ``[A-Za-z0-9._-]`` as ``_``, and
    where that changed a letter of another script, also ``filename*=UTF-8''...`` (RFC 6266 section 4.3, RFC 8187's
    percent-encoding), which browsers prefer: the key's own letters, with a path separator or control character
    still ``_``."""
    extension = _EXTENSIONS.get(content_type or "", ".bin")
    ascii_name = re.sub(r"[^A-Za-z0-9._-]", "_", key[:100]) + extension
    own = re.sub(r"[\x00-\x1f\x7f-\x9f/\\]", "_", key[:100]) + extension
    if own.isascii() or not own.isprintable():
        return f'attachment; filename="{ascii_name}"'
    return f"attachment; filename=\"{ascii_name}\"; filename*=UTF-8''{urllib.parse.quote(own, safe='')}"


_EXTENSIONS = {"json": ".json", "jsonl": ".jsonl", "csv": ".csv", "tsv": ".tsv", "html": ".html", "xml": ".xml",
               "text": ".txt", "log": ".log"}
"""The file name extension of a download, by the entry's content type (any other: ``.bin``)."""


class _ClosingStream(StreamingResponse):
    """A download's response, whose frame iterator (holding the blob open) is closed as soon as the response ends
    -- sent whole, cut short by a damaged frame, left by its client, or never iterated (``HEAD``) -- not whenever
    the garbage collector finds it. A ``HEAD`` gets the headers alone: Starlette's streaming response iterates the
    whole body for it too (every frame decompressed, for a body the server then drops)."""

    def __init__(self, chunks: Iterator[bytes], path: str, **kwargs: Any) -> None:
        self._close = getattr(chunks, "close", None)  # (Scope.iter_content's generator)
        super().__init__(_cut_on_error(chunks, path), **kwargs)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            if scope.get("method") == "HEAD":  # the headers only: no frame is decompressed for a body never sent
                await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
                await send({"type": "http.response.body", "body": b"", "more_body": False})
                return
            await super().__call__(scope, receive, send)
        finally:
            if self._close is not None:
                with contextlib.suppress(ValueError):  # ("generator already executing": a worker thread's next()
                    self._close()                     # is waited for on cancellation, so never expected)


def _cut_on_error(chunks: Iterator[bytes], path: str) -> Iterator[bytes]:
    try:
        yield from chunks
    except ScratchError as exc:
        log.warning("web API %s: the download was cut short: %s", path, one_line(str(exc)))
        raise CutShort(str(exc)) from None


def _path_params(request: Request) -> dict[str, str]:
    checkers = {"run": checks.check_run_id, "agent": checks.check_agent_id, "handle": checks.check_handle}
    return {name: checkers[name](value) for name, value in request.path_params.items()}


def _query(request: Request, allowed: Iterable[str], repeatable: tuple[str, ...] = (),
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


def _int(value: str, name: str, low: int = -_INT_MAX, high: int = _INT_MAX, tool: str | None = None) -> int:
    """The integer a query parameter writes (decimal digits, an optional ``-``), in ``[low, high]`` (``tool``: the
    range the tool's schema gives the argument ``name``, where it gives one; only a number of more than 18 digits is
    refused here, the tool checks the others with the words it says them in over MCP).

    Raises:
        InvalidArgument: not an integer ("must be an integer"), or out of the range ("is out of range", naming it).
    """
    if not _INT_RE.match(value):
        raise InvalidArgument(f"{name} must be an integer: {shorten(value)}")
    if tool is not None:
        schema = TOOL_SPECS[tool].input_schema["properties"].get(name, {})
        low, high = schema.get("minimum", low), schema.get("maximum", high)
    huge = len(value.lstrip("-").lstrip("0")) > _INT_DIGITS
    if huge or (tool is None and not low <= int(value) <= high):
        raise InvalidArgument(f"{name} is out of range: {shorten(value)} is not between {low} and {high}")
    return int(value)


def _bool(value: str, name: str) -> bool:
    if value in ("true", "1"):
        return True
    if value in ("false", "0"):
        return False
    raise InvalidArgument(f"{name} must be true or false: {shorten(value)}")


def _store(request: Request) -> ScratchStore:
    """The app's store; one not open yet (a :class:`~scratchfs.api.deferred_store.DeferredStore`) raises its
    ``StorageError`` (``unavailable``: a 503 with ``Retry-After``)."""
    store = request.app.state.store
    return store.get() if isinstance(store, DeferredStore) else store


def entry_dict(entry: Entry, now: float) -> dict[str, Any]:
    """An entry's metadata for the API: the index row (no blob token) plus ``expires_in`` (seconds) and ``ratio``
    (content bytes per stored byte)."""
    out = entry.to_dict()
    out["expires_in"] = round(entry.expires_at - now, 3)
    out["ratio"] = round(entry.size / entry.stored_size, 3) if entry.stored_size else None
    return out


# -- runs and entries -------------------------------------------------------------------------------------------------

def list_runs(request: Request) -> dict[str, Any]:
    """Every run with live entries, most recently written first, with its agents: entries, bytes, next expiry."""
    _query(request, ())
    store = _store(request)
    now = store.now()
    runs: dict[str, dict[str, Any]] = {}
    for s in stats_in_sql(store, now):  # aggregated by the index: the page polls this, whatever the store's size
        if not s.entries:  # only expired entries, not swept yet
            continue
        run = runs.setdefault(s.run_id, {"run_id": s.run_id, "entries": 0, "handles": 0, "scratch": 0,
                                         "bytes_in": 0, "bytes_on_disk": 0, "next_expiry": s.next_expiry,
                                         "last_write": s.newest, "agents": []})
        for name in ("entries", "handles", "scratch", "bytes_in", "bytes_on_disk"):
            run[name] += getattr(s, name)
        run["next_expiry"] = min(run["next_expiry"], s.next_expiry)
        run["last_write"] = max(run["last_write"], s.newest)
        run["agents"].append({"agent_id": s.agent_id, "entries": s.entries, "handles": s.handles,
                              "scratch": s.scratch, "bytes_in": s.bytes_in, "bytes_on_disk": s.bytes_on_disk,
                              "next_expiry": s.next_expiry, "next_expiry_in": round(s.next_expiry - now, 3)})
    for run in runs.values():
        run["next_expiry_in"] = round(run["next_expiry"] - now, 3)
    ordered = sorted(runs.values(), key=lambda r: (-r["last_write"], r["run_id"]))
    return {"now": now, "runs": ordered}


def run_entries(request: Request, run: str) -> dict[str, Any]:
    """A run's live entries, oldest first, paged: ``?limit=`` (1-1000, 100) and ``?cursor=`` (the previous page's
    ``next_cursor``, the cursor of :func:`~scratchfs.api.inspector.iter_entries`, as ``ls`` prints it); ``?agent=``
    and ``?kind=`` (handle, scratch) filter, in the index's query: a page of the 3 scratch keys of a run of 100,000
    handles reads those 3 rows. Streamed from the index a page of rows at a time (constant memory); ``remaining``
    counts the entries after the page (one ``COUNT`` by the index; an index without it, by going on with the same
    walk, not a second listing)."""
    q = _query(request, ("cursor", "limit", "agent", "kind"))
    limit = _int(q.get("limit", str(DEFAULT_PAGE)), "limit", 1, MAX_PAGE)
    agent = checks.check_agent_id(q["agent"]) if "agent" in q else None
    kind = q.get("kind")
    if kind not in (None, "handle", "scratch"):
        raise InvalidArgument(f"kind must be handle or scratch: {shorten(kind)}")
    after = decode_cursor(q["cursor"]) if "cursor" in q else None
    store = _store(request)
    now = store.now()
    page, last, rest = [], None, None
    entries = iter_entries(store, now, run, agent, after, kind=kind)  # the kind filtered by the index's query
    for entry, cursor in entries:
        if len(page) == limit:  # one more follows: the rest is counted by the index, else by this same walk
            rest = itertools.chain([(entry, cursor)], entries)
            break
        page.append(entry)
        last = cursor
    remaining = 0 if rest is None else count_entries(store, now, run, agent, last, kind, rest)
    return {"run_id": run, "now": now, "count": len(page), "remaining": remaining,
            "next_cursor": encode_cursor(last) if remaining else None,
            "entries": [entry_dict(e, now) for e in page]}


def _find(store: ScratchStore, run: str, agent: str, kind: str, key: str) -> Entry:
    found = store.scope(run, agent).entry(kind, key)  # one lookup, not a listing of the scope
    if found is not None:
        return found
    raise store.entries.not_found(run, agent, kind, key)  # what a read says: expired, deleted, removed by a repair


def handle_meta(request: Request, run: str, agent: str, handle: str) -> dict[str, Any]:
    """One spilled entry's metadata."""
    _query(request, ())
    store = _store(request)
    return entry_dict(_find(store, run, agent, "handle", handle), store.now())


def _read_types() -> dict[str, set[str]]:
    """Each ``read_handle`` argument but ``handle`` with the JSON types its input schema gives it (``type``, or the
    types of its ``anyOf``/``oneOf``, ``string`` for a text ``const`` or ``enum`` value among them): the query
    parameters of a read, from the one schema the MCP tool and the OpenAPI description are made from too."""
    out: dict[str, set[str]] = {}
    for name, prop in TOOL_SPECS["read_handle"].input_schema["properties"].items():
        kinds = [prop, *prop.get("anyOf", ()), *prop.get("oneOf", ())]
        out[name] = {t for k in kinds for t in ([k["type"]] if isinstance(k.get("type"), str) else k.get("type", []))}
        values = [v for k in kinds for v in (*k.get("enum", ()), *([k["const"]] if "const" in k else []))]
        out[name] |= {"string" for v in values if isinstance(v, str)}  # (context: an integer or the text "line")
    out.pop("handle", None)
    return out


READ_TYPES = _read_types()
"""The query parameters of a read and their JSON types (the ``read_handle`` tool's input schema)."""
READ_INTS = tuple(n for n, t in READ_TYPES.items() if "integer" in t)
"""Integer query parameters of a read (as the ``read_handle`` tool's arguments)."""
READ_TEXTS = tuple(n for n, t in READ_TYPES.items() if "string" in t and "integer" not in t)
"""Text query parameters of a read; booleans (``ignore_case``, ``count``, ``slurp``) are ``true``/``false``,
``columns`` may repeat."""


def _read_arg(name: str, value: str) -> Any:
    """Query parameter ``name`` of a read as the tool's argument: an integer (the parameter's schema allows one and
    it is written as one, or allows nothing else), ``true``/``false`` for a boolean, else the text."""
    types = READ_TYPES[name]
    if "integer" in types and (types <= {"integer"} or _INT_RE.match(value)):
        return _int(value, name, tool="read_handle")
    if "boolean" in types:
        return _bool(value, name)
    return value


def handle_read(request: Request, run: str, agent: str, handle: str) -> dict[str, Any]:
    """A range, line, search, count or structure read of a spilled entry: the ``read_handle`` tool's arguments as
    query parameters (every one its input schema names; ``columns`` repeated for a list, a name the header holds,
    else digits or ``number:N`` a column number; a boolean ``true`` or ``false``), its result object as the body,
    within the same reply budget as over MCP (:mod:`scratchfs.api.contract`)."""
    columns = request.query_params.getlist("columns")
    q = _query(request, [n for n in READ_TYPES if n != "columns"], repeatable=("columns",), tool="read_handle")
    args: dict[str, Any] = {"handle": handle}
    for name, value in q.items():
        args[name] = _read_arg(name, value)
    tools = ScratchTools(lambda: _store(request).scope(run, agent))
    if columns:  # a name the header holds, else digits (or number:N) a column number: scratchfs.api.column_words
        args["columns"] = column_words(tools, handle, columns)
    return tools.call("read_handle", args)


def handle_tree(request: Request, run: str, agent: str, handle: str) -> dict[str, Any]:
    """One node of a spilled JSON document (``?path=`` a JSON pointer, ``?offset=``, ``?limit=``)."""
    q = _query(request, ("path", "offset", "limit"))
    store = _store(request)
    entry = _find(store, run, agent, "handle", handle)
    try:
        return structure.json_tree(store.scope(run, agent), handle, q.get("path", ""),
                                   _int(q.get("offset", "0"), "offset", 0),
                                   _int(q.get("limit", "200"), "limit", 1, structure.MAX_CHILDREN))
    except NotJson:  # (an entry stored as JSON that does not parse: the parser's words stand)
        if entry.content_type == "json":
            raise
        raise _misfit(entry, "JSON tree") from None


def _misfit(entry: Entry, view: str) -> InvalidArgument:
    """The refusal of an inspector ``view`` that cannot show ``entry``: what the entry holds and the reads that fit
    it, by its stored content type and shape, as the model's structure reads say
    (:func:`~scratchfs.api.misfit.fitting_reads`)."""
    return InvalidArgument(holds(entry.key, entry.content_type, entry.shape, entry.size / max(1, entry.lines),
                                 f", which the inspector's {view} does not show"))


def handle_table(request: Request, run: str, agent: str, handle: str) -> dict[str, Any]:
    """A page of rows of a spilled CSV entry (``?row=``, ``?rows=``)."""
    q = _query(request, ("row", "rows"))
    store = _store(request)
    _find(store, run, agent, "handle", handle)
    return structure.csv_table(store.scope(run, agent), handle, _int(q.get("row", "0"), "row", 0),
                               _int(q.get("rows", "100"), "rows", 1, structure.MAX_ROWS))


def handle_text(request: Request, run: str, agent: str, handle: str) -> dict[str, Any]:
    """A page of the text of a spilled HTML entry (``?offset=``, ``?length=``, in UTF-8 bytes of the text, as the
    model's ``view="text"`` counts them)."""
    q = _query(request, ("offset", "length"))
    store = _store(request)
    entry = _find(store, run, agent, "handle", handle)
    most = structure.MAX_TEXT_BYTES
    if entry.content_type != "html":  # (the text view is an HTML page's)
        raise _misfit(entry, "page text")
    return structure.html_text(store.scope(run, agent), handle, _int(q.get("offset", "0"), "offset", 0),
                               _int(q.get("length", str(most)), "length", 1, most))


def scratch_meta(request: Request, run: str, agent: str) -> dict[str, Any]:
    """One scratchpad entry's metadata (``?key=``)."""
    q = _query(request, ("key",), required=("key",))
    key = checks.check_key(q["key"])
    store = _store(request)
    return entry_dict(_find(store, run, agent, "scratch", key), store.now())


def scratch_read(request: Request, run: str, agent: str) -> dict[str, Any]:
    """A range of a scratchpad value (``?key=``, ``?offset=``, ``?length=``, ``?version=`` from a next_call): the
    ``scratch_read`` tool's result."""
    q = _query(request, ("key", "offset", "length", "version"), required=("key",))
    args: dict[str, Any] = {"key": q["key"]}
    if "version" in q:
        args["version"] = q["version"]
    for name in ("offset", "length"):
        if name in q:
            args[name] = _int(q[name], name, tool="scratch_read")
    return ScratchTools(lambda: _store(request).scope(run, agent)).call("scratch_read", args)


# -- inspector --------------------------------------------------------------------------------------------------------

def stats_view(request: Request) -> dict[str, Any]:
    """Per run and agent: entries, bytes, oldest entry, entries expiring within ``?soon=`` seconds (300), and those
    expired but not swept yet; aggregated by the index (:func:`~scratchfs.api.inspector.stats_in_sql`), as
    ``scratchfs stats`` does."""
    q = _query(request, ("run", "soon"))
    soon = float(_int(q.get("soon", str(int(DEFAULT_SOON))), "soon", 0))
    store = _store(request)
    now = store.now()
    run = checks.check_run_id(q["run"]) if "run" in q else None
    return {"now": now, "soon": soon, "scopes": [s.to_dict() for s in stats_in_sql(store, now, soon, run)]}


FSCK_ENTRIES = 10_000
"""Most entries one ``GET /api/fsck`` checks when no ``?limit=`` is given (a deep check decompresses each)."""
MAX_FSCK_ENTRIES = 100_000
"""Largest ``?limit=`` of ``GET /api/fsck``."""
FSCK_CACHE_SECONDS = 30.0
"""Seconds a fsck report is served again (with its ``age``) instead of checking the store again."""


def fsck_view(request: Request) -> dict[str, Any]:
    """The fsck report (never repairs): ``?deep=false`` checks seek tables and sizes only; ``?limit=`` entries at
    most (1 to :data:`MAX_FSCK_ENTRIES`, :data:`FSCK_ENTRIES` by default; orphan files are looked for only when the
    check reaches the last entry) and ``?after=`` the ``next_cursor`` of a report stopped by it. One
    check runs at a time per server, and a report is served again for :data:`FSCK_CACHE_SECONDS` seconds with its
    ``age`` (seconds; 0 when just made), so GETs cannot pin a core. Paths are relative to the root; a byte of a
    run, agent or file name that is no UTF-8 is written ``\\xNN``."""
    q = _query(request, ("deep", "limit", "after"))
    store = _store(request)
    deep = _bool(q.get("deep", "true"), "deep")
    limit = _int(q.get("limit", str(FSCK_ENTRIES)), "limit", 1, MAX_FSCK_ENTRIES)
    after = q.get("after")
    if after is not None:
        decode_cursor(after)  # a bad cursor is a 400 before any work
    state = request.app.state
    key = (deep, limit, after)
    with state.fsck_lock:  # one check at a time; a GET that waited finds the report it waited for
        made = state.fsck_cache.get(key)
        if made is None or time.monotonic() - made[0] > FSCK_CACHE_SECONDS:
            # a check that reaches the last entry (fsck reads one past the limit to tell) looks for orphans too
            report = fsck(store, deep=deep, after=after, limit=limit).to_dict()
            root = str(store.root)
            for problem in report["problems"]:  # (a name's bytes that are no UTF-8 as \xNN: no UTF-8 body holds them)
                problem["path"] = os.path.relpath(problem["path"], root)
                for name in ("run_id", "agent_id", "path"):
                    problem[name] = problem[name] and name_bytes(problem[name])
            state.fsck_cache.clear()  # only the last report is kept (any cursor makes a new key)
            made = state.fsck_cache[key] = (time.monotonic(), report)
    return {**made[1], "age": round(time.monotonic() - made[0], 3)}


# -- deletes (only with --allow-delete) -------------------------------------------------------------------------------

def _allowed(request: Request) -> None:
    if not request.app.state.allow_delete:
        raise HTTPException(403, "this server is read-only: start it with --allow-delete to delete")


def delete_run(request: Request, run: str) -> dict[str, Any]:
    """Delete every entry of a run."""
    _query(request, ())
    _allowed(request)
    return {"run_id": run, "deleted": _store(request).delete_run(run)}


def delete_agent(request: Request, run: str, agent: str) -> dict[str, Any]:
    """Delete every entry of one agent of a run."""
    _query(request, ())
    _allowed(request)
    return {"run_id": run, "agent_id": agent, "deleted": _store(request).delete_agent(run, agent)}


def delete_handle(request: Request, run: str, agent: str, handle: str) -> dict[str, Any]:
    """Delete one spilled entry (its row, then its blob file, as ``scratch_delete`` does for a key)."""
    _query(request, ())
    _allowed(request)
    return {"handle": handle, "deleted": _delete_entry(_store(request).scope(run, agent), "handle", handle)}


def delete_scratch(request: Request, run: str, agent: str) -> dict[str, Any]:
    """Delete one scratchpad entry (``?key=``)."""
    q = _query(request, ("key",), required=("key",))
    _allowed(request)
    key = checks.check_key(q["key"])
    return {"key": key, "deleted": _delete_entry(_store(request).scope(run, agent), "scratch", key)}


def _delete_entry(scope: Scope, kind: str, key: str) -> bool:
    return scope.scratch_delete(key) if kind == "scratch" else scope.delete_entry(kind, key)


__all__ = ["DEFAULT_PAGE", "MAX_PAGE", "READ_INTS", "READ_TEXTS", "READ_TYPES", "RETRY_AFTER", "STATUS_OF_KIND",
           "endpoint", "entry_dict", "error_response"]
