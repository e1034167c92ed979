"""The web inspector's JSON API: runs, a run's entries (paged by cursor), one entry's metadata, reads of an entry
through the model-facing contract, structure views, stats, fsck, and deletes when allowed. (The downloads of an
entry's content are :mod:`scratchfs.web.download`'s.)

Every endpoint is a plain function of a Starlette :class:`~starlette.requests.Request` (Starlette runs it in its
thread pool, so the store's blocking calls never stall the event loop), wrapped by
:func:`scratchfs.web.endpoint.endpoint`: path parameters go through the store's id checks
(:mod:`scratchfs.foundation.checks`) before anything else; query parameters are checked (unknown ones are refused);
reads go through :class:`scratchfs.api.contract.ScratchTools`, the one model-facing contract, with its schemas and
reply budgets (8 KiB unless a read's ``budget`` asks for 2 to 64 KiB). Every
:class:`~scratchfs.foundation.errors.ScratchError` becomes a JSON error ``{"error": {"kind", "message"}}`` with the
HTTP status of its kind (:data:`~scratchfs.web.endpoint.STATUS_OF_KIND`).

Sizes and offsets are bytes; ``expires_in`` and ``next_expiry_in`` are seconds from now; ``*_at`` and
``next_expiry`` are epoch seconds.
"""

from __future__ import annotations

import itertools
import os
import time
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request

from scratchfs.api.column_words import column_words
from scratchfs.api.contract import ScratchTools
from scratchfs.api.inspector import DEFAULT_SOON, fsck, stats_in_sql
from scratchfs.api.misfit import holds
from scratchfs.api.scope import Scope
from scratchfs.api.store import ScratchStore
from scratchfs.api.store_listing import count_entries, decode_cursor, encode_cursor, iter_entries
from scratchfs.api.tools import TOOL_SPECS
from scratchfs.engine.protocols import Entry
from scratchfs.foundation import checks
from scratchfs.foundation.errors import InvalidArgument, NotJson
from scratchfs.foundation.text import name_bytes, shorten
from scratchfs.web import structure
from scratchfs.web.endpoint import INTEGER_RE, app_store, bool_param, int_param, query_params

MAX_PAGE = 1000
"""Most entries one page of ``/api/runs/{run}/scratch`` lists."""
DEFAULT_PAGE = 100
"""Entries per page when no ``limit`` is given."""


def entry_dict(entry: Entry, now: float) -> dict[str, Any]:
    """An entry's metadata for the API: the index row (no blob token) plus ``expires_in`` (seconds, at most its
    ttl, as ``scratch_list`` and ``ls`` say: :meth:`~scratchfs.engine.protocols.Entry.expires_in`) and ``ratio``
    (content bytes per stored byte)."""
    out = entry.to_dict()
    out["expires_in"] = round(entry.expires_in(now), 3)
    out["ratio"] = round(entry.size / entry.stored_size, 3) if entry.stored_size else None
    return out


# -- runs and entries -------------------------------------------------------------------------------------------------

def list_runs(request: Request) -> dict[str, Any]:
    """Every run with live entries, most recently written first, with its agents: entries, bytes, next expiry."""
    query_params(request, ())
    store = app_store(request)
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
    ``next_cursor``, the cursor of :func:`~scratchfs.api.store_listing.iter_entries`, as ``ls`` prints it); ``?agent=``
    and ``?kind=`` (handle, scratch) filter, in the index's query: a page of the 3 scratch keys of a run of 100,000
    handles reads those 3 rows. Streamed from the index a page of rows at a time (constant memory); ``remaining``
    counts the entries after the page (one ``COUNT`` by the index; an index without it, by going on with the same
    walk, not a second listing). A first page with no entries (a run whose entries all expired or were deleted, or
    that never had any: the index cannot tell them apart an hour on) is no error, as ``scratchfs ls --run`` exits 0
    for it: ``entries`` is empty and ``note`` says so in the words of that command's stderr line (``no live entries
    of run 'nope'``)."""
    q = query_params(request, ("cursor", "limit", "agent", "kind"))
    limit = int_param(q.get("limit", str(DEFAULT_PAGE)), "limit", 1, MAX_PAGE)
    agent = checks.check_agent_id(q["agent"]) if "agent" in q else None
    kind = q.get("kind")
    if kind not in (None, "handle", "scratch"):
        raise InvalidArgument(f"kind must be handle or scratch: {shorten(kind)}")
    after = decode_cursor(q["cursor"]) if "cursor" in q else None
    store = app_store(request)
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
    out = {"run_id": run, "now": now, "count": len(page), "remaining": remaining,
           "next_cursor": encode_cursor(last) if remaining else None,
           "entries": [entry_dict(e, now) for e in page]}
    if not page and after is None:  # (the listing is empty, not a page past its end)
        what = {"handle": "spilled results", "scratch": "scratchpad values"}.get(kind or "", "live entries")
        out["note"] = f"no {what} of {f'agent {agent!r} in ' if agent is not None else ''}run {run!r}"
    return out


def _find(store: ScratchStore, run: str, agent: str, kind: str, key: str) -> Entry:
    found = store.scope(run, agent).entry(kind, key)  # one lookup, not a listing of the scope
    if found is not None:
        return found
    raise store.entries.not_found(run, agent, kind, key)  # what a read says: expired, deleted, removed by a repair


def handle_meta(request: Request, run: str, agent: str, handle: str) -> dict[str, Any]:
    """One spilled entry's metadata."""
    query_params(request, ())
    store = app_store(request)
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


def _read_arg(name: str, value: str) -> Any:
    """Query parameter ``name`` of a read as the tool's argument: an integer (the parameter's schema allows one and
    it is written as one, or allows nothing else), ``true``/``false`` for a boolean, else the text."""
    types = READ_TYPES[name]
    if "integer" in types and (types <= {"integer"} or INTEGER_RE.match(value)):
        return int_param(value, name, tool="read_handle")
    if "boolean" in types:
        return bool_param(value, name)
    return value


def handle_read(request: Request, run: str, agent: str, handle: str) -> dict[str, Any]:
    """A range, line, search, count or structure read of a spilled entry: the ``read_handle`` tool's arguments as
    query parameters (every one its input schema names; ``columns`` repeated for a list, a name the header holds,
    else digits or ``number:N`` a column number; a boolean ``true`` or ``false``), its result object as the body,
    within the same reply budget as over MCP (:mod:`scratchfs.api.contract`)."""
    columns = request.query_params.getlist("columns")
    q = query_params(request, [n for n in READ_TYPES if n != "columns"], repeatable=("columns",), tool="read_handle")
    args: dict[str, Any] = {"handle": handle}
    for name, value in q.items():
        args[name] = _read_arg(name, value)
    tools = ScratchTools(lambda: app_store(request).scope(run, agent))
    if columns:  # a name the header holds, else digits (or number:N) a column number: scratchfs.api.column_words
        args["columns"] = column_words(tools, handle, columns)
    return tools.call("read_handle", args, full_windows=True)  # (a human's UI: a whole line's window keeps its
    # offsets and match fields, which app.js marks its matches by; the model's is {line, data})


def handle_tree(request: Request, run: str, agent: str, handle: str) -> dict[str, Any]:
    """One node of a spilled JSON document (``?path=`` a JSON pointer, ``?offset=``, ``?limit=``)."""
    q = query_params(request, ("path", "offset", "limit"))
    store = app_store(request)
    entry = _find(store, run, agent, "handle", handle)
    try:
        return structure.json_tree(store.scope(run, agent), handle, q.get("path", ""),
                                   int_param(q.get("offset", "0"), "offset", 0),
                                   int_param(q.get("limit", "200"), "limit", 1, structure.MAX_CHILDREN))
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
    q = query_params(request, ("row", "rows"))
    store = app_store(request)
    _find(store, run, agent, "handle", handle)
    return structure.csv_table(store.scope(run, agent), handle, int_param(q.get("row", "0"), "row", 0),
                               int_param(q.get("rows", "100"), "rows", 1, structure.MAX_ROWS))


def handle_text(request: Request, run: str, agent: str, handle: str) -> dict[str, Any]:
    """A page of the text of a spilled HTML entry (``?offset=``, ``?length=``, in UTF-8 bytes of the text, as the
    model's ``view="text"`` counts them)."""
    q = query_params(request, ("offset", "length"))
    store = app_store(request)
    entry = _find(store, run, agent, "handle", handle)
    most = structure.MAX_TEXT_BYTES
    if entry.content_type != "html":  # (the text view is an HTML page's)
        raise _misfit(entry, "page text")
    return structure.html_text(store.scope(run, agent), handle, int_param(q.get("offset", "0"), "offset", 0),
                               int_param(q.get("length", str(most)), "length", 1, most))


def scratch_meta(request: Request, run: str, agent: str) -> dict[str, Any]:
    """One scratchpad entry's metadata (``?key=``)."""
    q = query_params(request, ("key",), required=("key",), tool="scratch_read")
    key = checks.check_key(q["key"])
    store = app_store(request)
    return entry_dict(_find(store, run, agent, "scratch", key), store.now())


def scratch_read(request: Request, run: str, agent: str) -> dict[str, Any]:
    """A range of a scratchpad value (``?key=``, ``?offset=``, ``?length=``, ``?version=`` from a next_call): the
    ``scratch_read`` tool's result."""
    q = query_params(request, ("key", "offset", "length", "version"), required=("key",), tool="scratch_read")
    args: dict[str, Any] = {"key": q["key"]}
    if "version" in q:
        args["version"] = q["version"]
    for name in ("offset", "length"):
        if name in q:
            args[name] = int_param(q[name], name, tool="scratch_read")
    return ScratchTools(lambda: app_store(request).scope(run, agent)).call("scratch_read", args)


# -- inspector --------------------------------------------------------------------------------------------------------

def stats_view(request: Request) -> dict[str, Any]:
    """Per run and agent: entries, bytes, oldest entry, entries expiring within ``?soon=`` seconds (300), and those
    expired but not swept yet; aggregated by the index (:func:`~scratchfs.api.inspector.stats_in_sql`), as
    ``scratchfs stats`` does."""
    q = query_params(request, ("run", "soon"))
    soon = float(int_param(q.get("soon", str(int(DEFAULT_SOON))), "soon", 0))
    store = app_store(request)
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
    q = query_params(request, ("deep", "limit", "after"))
    store = app_store(request)
    deep = bool_param(q.get("deep", "true"), "deep")
    limit = int_param(q.get("limit", str(FSCK_ENTRIES)), "limit", 1, MAX_FSCK_ENTRIES)
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
    query_params(request, ())
    _allowed(request)
    return {"run_id": run, "deleted": app_store(request).delete_run(run)}


def delete_agent(request: Request, run: str, agent: str) -> dict[str, Any]:
    """Delete every entry of one agent of a run."""
    query_params(request, ())
    _allowed(request)
    return {"run_id": run, "agent_id": agent, "deleted": app_store(request).delete_agent(run, agent)}


def delete_handle(request: Request, run: str, agent: str, handle: str) -> dict[str, Any]:
    """Delete one spilled entry (its row, then its blob file, as ``scratch_delete`` does for a key)."""
    query_params(request, ())
    _allowed(request)
    return {"handle": handle, "deleted": _delete_entry(app_store(request).scope(run, agent), "handle", handle)}


def delete_scratch(request: Request, run: str, agent: str) -> dict[str, Any]:
    """Delete one scratchpad entry (``?key=``)."""
    q = query_params(request, ("key",), required=("key",), tool="scratch_read")
    _allowed(request)
    key = checks.check_key(q["key"])
    return {"key": key, "deleted": _delete_entry(app_store(request).scope(run, agent), "scratch", key)}


def _delete_entry(scope: Scope, kind: str, key: str) -> bool:
    return scope.scratch_delete(key) if kind == "scratch" else scope.delete_entry(kind, key)


__all__ = ["DEFAULT_PAGE", "MAX_PAGE", "READ_TYPES", "entry_dict"]
