"""The OpenAPI 3.1 description of the web inspector's JSON API (served at ``/api/openapi.json``).

Written out here rather than generated, so that it states exactly what :mod:`scratchfs.web.api` accepts and
returns; ``tests/test_web_api.py`` runs ``schemathesis`` against it (responses checked against these schemas).
Read results follow the model-facing contract of :mod:`scratchfs.api.contract`.
"""

from __future__ import annotations

from typing import Any

from scratchfs.api.contract import TOOL_SPECS
from scratchfs.api.encodings import ENCODINGS
from scratchfs.foundation.checks import VERSION_PATTERN
from scratchfs.foundation.limits import MAX_ID_BYTES, MAX_KEY_BYTES
from scratchfs.web.api import MAX_PAGE
from scratchfs.web.structure import MAX_CHILDREN, MAX_ROWS, MAX_TEXT_BYTES

_QUERY_ID = {"type": "string", "minLength": 1, "maxLength": MAX_ID_BYTES, "pattern": "^[^\\x00-\\x1f\\x7f-\\x9f]+$"}
# a path segment cannot hold "/" (Starlette matches the decoded path, so not even as %2F); a query parameter can, and
# an id may contain one: the web API can name such an id only in a query (?agent=, ?run=)
_PATH_ID = {**_QUERY_ID, "pattern": "^[^\\x00-\\x1f\\x7f-\\x9f/]+$"}
_INT = {"type": "integer"}
_NUM = {"type": "number"}
_STR = {"type": "string"}
_NULLABLE_INT = {"type": ["integer", "null"]}
_NULLABLE_NUM = {"type": ["number", "null"]}


def _obj(required: dict[str, Any], optional: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"type": "object", "required": sorted(required), "properties": {**required, **(optional or {})}}


def _path(name: str, schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True, "schema": schema, "description": description}


def _q(name: str, schema: dict[str, Any], description: str, required: bool = False) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": required, "schema": schema, "description": description}


_CALLS = {"type": "array", "items": _obj({"tool": _STR, "arguments": {"type": "object"}})}
_SEE = _obj({"href": _STR, "text": _STR})  # (a not-found entry's: the page to go on from, for a person)
ERROR = _obj({"error": _obj({"kind": _STR, "message": _STR}, {"resume_offset": _INT, "calls": _CALLS, "see": _SEE})})
ENTRY = _obj({
    "kind": {"enum": ["handle", "scratch"]}, "run_id": _STR, "agent_id": _STR, "key": _STR, "size": _INT,
    "stored_size": _INT, "frames": _INT, "lines": _INT, "preview": _STR, "source_tool": {"type": ["string", "null"]},
    "content_type": {"type": ["string", "null"]}, "shape": {"type": ["string", "null"]}, "created_at": _NUM,
    "expires_at": _NUM, "ttl": _NUM, "expires_in": _NUM, "ratio": {"type": ["number", "null"]},
})
_COUNTS = {"entries": _INT, "handles": _INT, "scratch": _INT, "bytes_in": _INT, "bytes_on_disk": _INT,
           "next_expiry": _NUM, "next_expiry_in": _NUM}
RUNS = _obj({"now": _NUM, "runs": {"type": "array", "items": _obj({
    "run_id": _STR, "last_write": _NUM, **_COUNTS,
    "agents": {"type": "array", "items": _obj({"agent_id": _STR, **_COUNTS})}})}})
PAGE = _obj({"run_id": _STR, "now": _NUM, "count": _INT, "remaining": _INT,
             "next_cursor": {"type": ["string", "null"]}, "entries": {"type": "array", "items": ENTRY}},
            {"note": _STR})
_PIECE = {"offset": _INT, "length": _INT, "size": _INT, "next_offset": _NULLABLE_INT,
          "next_call": {"type": ["string", "null"]}, "data": _STR}
_GOING = {"remaining": _INT}  # (only while a read goes on: at its end next_offset null says it)
_SINGLE = {"enum": list(ENCODINGS[1:-1])}  # (the encoding= a read or search gave: it echoes it, "utf-16" as its mark)
_FORM = {"enum": ["hexdump", "text", *ENCODINGS[1:-1]]}  # (how a piece's data is written: a read as latin-1 says so)
_SHOWN = {"encoding": _FORM, "replaced": _INT}
RANGE = _obj({"handle": _STR, **_PIECE}, {**_GOING, **_SHOWN})
LINES = _obj({"handle": _STR, **_PIECE, "first_line": _INT, "lines": _INT, "total_lines": _INT,
              "next_line": _NULLABLE_INT, "cut": {"type": "boolean"}}, {**_GOING, **_SHOWN, "note": _STR})
WINDOW = _obj({"line": _INT, "offset": _INT, "length": _INT, "data": _STR},
              {"match_offset": _INT, "match_length": _INT, "encoding": _FORM, "commit": _STR,
               "cut": {"enum": ["before", "after", "both"]},
               "matches": {"type": "array", "items": _obj({"offset": _INT, "length": _INT, "line": _INT})}})
SEARCH = {**_obj({"handle": _STR, "size": _INT, "next_call": {"type": ["string", "null"]},
                  "windows": {"type": "array", "items": WINDOW}},
                 {"match": _STR, "pattern": _STR, "ignore_case": {"const": True}, "more": {"const": True},
                  "remaining": _INT, "next_offset": _NULLABLE_INT, "next_before": _NULLABLE_INT, "end": _INT,
                  "view": _STR, "encoding": _SINGLE, "note": _STR, "calls": _CALLS}),
          # (a search from the end, before=, says next_before where one from a start says next_offset; a finished
          # search says neither more nor remaining: null there says it)
          "oneOf": [{"required": ["next_offset"]}, {"required": ["next_before"]}]}
COUNT = _obj({"handle": _STR, "offset": _INT, "size": _INT, "matches": _INT, "lines": _INT,
              "next_offset": _NULLABLE_INT, "next_call": {"type": ["string", "null"]}},
             {"match": _STR, "pattern": _STR, "ignore_case": {"const": True}, "encoding": _SINGLE, "end": _INT,
              "remaining": _INT, "note": _STR, "calls": _CALLS})
STRUCTURE = {"type": "object", "required": ["handle"], "description": "A structure read (jq, records, rows, view, "
             "select): see scratchfs.api.contract."}
SCRATCH_READ = _obj({"key": _STR, **_PIECE}, {**_GOING, **_SHOWN, "version": _STR})
TREE = _obj({"handle": _STR, "path": _STR, "type": _STR, "count": _INT, "offset": _INT,
             "next_offset": _NULLABLE_INT,
             "children": {"type": "array", "items": _obj({"key": {"type": ["string", "integer"]}, "path": _STR,
                                                          "type": _STR}, {"count": _INT, "value": {}, "text": _STR,
                                                                          "cut": {"type": "boolean"}})}},
            {"value": {}, "text": _STR, "cut": {"type": "boolean"}, "note": _STR})
TABLE = _obj({"handle": _STR, "columns": {"type": "array", "items": _STR}, "row": _INT,
              "rows": {"type": "array", "items": {"type": "array", "items": _STR}}, "total_rows": _INT,
              "next_row": _NULLABLE_INT, "partial": {"type": "boolean"}})
TEXT = _obj({"handle": _STR, "offset": _INT, "length": _INT, "size": _INT, "next_offset": _NULLABLE_INT,
             "partial": {"type": "boolean"}, "data": _STR})
STATS = _obj({"now": _NUM, "soon": _NUM, "scopes": {"type": "array", "items": _obj({
    "run_id": _STR, "agent_id": _STR, "entries": _INT, "handles": _INT, "scratch": _INT, "bytes_in": _INT,
    "bytes_on_disk": _INT, "oldest": _NULLABLE_NUM, "oldest_age": _NUM, "expiring_soon": _INT,
    "next_expiry": _NULLABLE_NUM})}})
FSCK = _obj({"entries_checked": _INT, "files_checked": _INT, "bytes_checked": _INT, "index": _STR, "missing": _INT,
             "corrupt": _INT, "orphaned": _INT, "adoptable": _INT, "repaired": _INT, "clean": {"type": "boolean"},
             "next_cursor": {"type": ["string", "null"]}, "age": {"type": "number"},
             "problems": {"type": "array", "items": _obj({
                 "kind": _STR, "run_id": _STR, "agent_id": _STR, "key": {"type": ["string", "null"]}, "path": _STR,
                 "detail": _STR, "repaired": {"type": "boolean"}})}})
DELETED = {"type": "object", "required": ["deleted"], "properties": {"deleted": {"type": ["integer", "boolean"]}}}

RUN = _path("run", _PATH_ID, "A run id (1-256 UTF-8 bytes, no control characters; not one with a /).")
AGENT = _path("agent", _PATH_ID, "An agent id (1-256 UTF-8 bytes, no control characters; not one with a /).")
HANDLE = _path("handle", {"type": "string", "pattern": "^h_[a-z2-7]{24}$"}, "A handle: h_ and 24 base32 letters.")
KEY = _q("key", {"type": "string", "minLength": 1, "maxLength": MAX_KEY_BYTES}, "A scratchpad key.", required=True)
_NONNEG = {"type": "integer", "minimum": 0}


def _op(summary: str, ok: dict[str, Any], params: list[dict[str, Any]], operation_id: str,
        statuses: tuple[int, ...] = (400, 404, 500, 503)) -> dict[str, Any]:
    responses: dict[str, Any] = {"200": {"description": "OK", "content": {"application/json": {"schema": ok}}}}
    for status in (401, 421, *statuses):  # (421: a Host not this server's, security.host_problem)
        responses[str(status)] = {"description": "An error", "content": {"application/json": {"schema": ERROR}}}
    return {"summary": summary, "operationId": operation_id, "parameters": params, "responses": responses}




def _download(summary: str, params: list[dict[str, Any]], operation_id: str) -> dict[str, Any]:
    op = _op(summary + " (application/octet-stream, streamed; a damaged frame met after the first byte cuts the "
             "transfer short)", {}, params, operation_id)
    op["responses"]["200"] = {"description": "The content's bytes",
                              "content": {"application/octet-stream": {"schema": {"type": "string",
                                                                                  "format": "binary"}}}}
    return op


def _downloads() -> dict[str, Any]:
    """The paths of the two downloads (:func:`scratchfs.web.download.content_endpoint`)."""
    return {
        _H + "/content": {"get": _download("Every byte of a spilled entry, as a download", [RUN, AGENT, HANDLE],
                                           "downloadHandle")},
        _S + "/content": {"get": _download("Every byte of a scratchpad value, as a download", [RUN, AGENT, KEY],
                                           "downloadScratch")},
    }


def _read_params() -> list[dict[str, Any]]:
    """The query parameters of a read: the ``read_handle`` tool's arguments, from its input schema (one source)."""
    out = []
    for name, prop in TOOL_SPECS["read_handle"].input_schema["properties"].items():
        if name == "handle":
            continue
        schema = {k: v for k, v in prop.items() if k not in ("description", "default")}
        param = _q(name, schema, prop.get("description", ""))
        if schema.get("type") == "array":
            param.update(style="form", explode=True)
        out.append(param)
    return out


_H = "/api/runs/{run}/agents/{agent}/handles/{handle}"
_S = "/api/runs/{run}/agents/{agent}/scratchpad"


def _post(summary: str, params: list[dict[str, Any]], operation_id: str) -> dict[str, Any]:
    return {"post": _op(summary + " (only with --allow-delete; needs the token and a CSRF header)", DELETED, params,
                        operation_id, (400, 403, 404, 500, 503))}


def _health() -> dict[str, Any]:
    """The path of the health check (no store request: :func:`scratchfs.web.app.health`)."""
    return {"/api/health": {"get": _op("Whether the store is open: 503 with Retry-After while its index has been out "
                                       "of reach since the start-up", _obj({"store": {"const": "open"}}), [],
                                       "getHealth", (503,))}}


def _deletes() -> dict[str, Any]:
    """The paths of the deletes (served only with ``--allow-delete``)."""
    return {
        "/api/runs/{run}/delete": _post("Delete a run", [RUN], "deleteRun"),
        "/api/runs/{run}/agents/{agent}/delete": _post("Delete an agent of a run", [RUN, AGENT], "deleteAgent"),
        _H + "/delete": _post("Delete a spilled entry", [RUN, AGENT, HANDLE], "deleteHandle"),
        _S + "/delete": _post("Delete a scratchpad entry", [RUN, AGENT, KEY], "deleteScratch"),
    }


def openapi() -> dict[str, Any]:
    """The OpenAPI 3.1 document (a fresh dict)."""
    return {
        "openapi": "3.1.0",
        "info": {"title": "scratchfs web inspector", "version": "1",
                 "description": "Every request needs the access token: Authorization: Bearer <token>, the cookie "
                                "set by opening the printed URL, or ?token=. Sizes and offsets are bytes; *_in are "
                                "seconds from now; *_at and next_expiry are epoch seconds."},
        "components": {"securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"},
                                           "token": {"type": "apiKey", "in": "query", "name": "token"}}},
        "security": [{"bearer": []}, {"token": []}],
        "paths": {
            **_health(),
            "/api/runs": {"get": _op("Runs with their agents, entry counts, bytes and next expiry", RUNS, [],
                                     "listRuns")},
            "/api/runs/{run}/scratch": {"get": _op("A run's live entries, oldest first, paged by cursor (a run with "
                                                   "none: 200, no entries, a note saying so)", PAGE, [
                RUN, _q("cursor", _STR, "The previous page's next_cursor."),
                _q("limit", {"type": "integer", "minimum": 1, "maximum": MAX_PAGE}, "Entries per page (100)."),
                _q("agent", _QUERY_ID, "Only this agent."),
                _q("kind", {"enum": ["handle", "scratch"]}, "Only this kind."),
            ], "listRunEntries")},
            _H: {"get": _op("One spilled entry's metadata", ENTRY, [RUN, AGENT, HANDLE], "getHandle")},
            _H + "/read": {"get": _op("Read a spilled entry by range, lines, search or structure (the read_handle "
                                      "contract, its reply budget included)",
                                      {"anyOf": [LINES, SEARCH, COUNT, RANGE, STRUCTURE]},
                                      [RUN, AGENT, HANDLE, *_read_params()], "readHandle")},
            _H + "/tree": {"get": _op("One node of a spilled JSON document", TREE, [
                RUN, AGENT, HANDLE, _q("path", _STR, "A JSON pointer (RFC 6901); empty for the root."),
                _q("offset", _NONNEG, "First child to list (at most count: past it is a 400)."),
                _q("limit", {"type": "integer", "minimum": 1, "maximum": MAX_CHILDREN}, "Children to list (200)."),
            ], "getJsonTree")},
            _H + "/table": {"get": _op("A page of rows of a spilled CSV entry", TABLE, [
                RUN, AGENT, HANDLE, _q("row", _NONNEG, "First data row (0-based; past total_rows: a 400)."),
                _q("rows", {"type": "integer", "minimum": 1, "maximum": MAX_ROWS}, "Rows (100)."),
            ], "getCsvTable")},
            _H + "/text": {"get": _op("A page of the text of a spilled HTML entry (UTF-8 bytes of the text)", TEXT, [
                RUN, AGENT, HANDLE, _q("offset", _NONNEG, "First byte of the text (at most size: past it is a 400)."),
                _q("length", {"type": "integer", "minimum": 1, "maximum": MAX_TEXT_BYTES}, "Bytes."),
            ], "getHtmlText")},
            _S: {"get": _op("One scratchpad entry's metadata", ENTRY, [RUN, AGENT, KEY], "getScratch")},
            _S + "/read": {"get": _op("A range of a scratchpad value (the scratch_read contract)", SCRATCH_READ, [
                RUN, AGENT, KEY, _q("offset", _NONNEG, "First byte."),
                _q("length", {"type": "integer", "minimum": 1}, "Bytes (at most 65,536 are returned)."),
                _q("version", {"type": "string", "pattern": VERSION_PATTERN},
                   "From next_call: the value the earlier pages read (409 `changed` once the key was written again)."),
            ], "readScratch", (400, 404, 409, 500, 503))},
            **_downloads(),
            "/api/stats": {"get": _op("Per run and agent: entries, bytes, oldest, expiring soon", STATS, [
                _q("run", _QUERY_ID, "Only this run."), _q("soon", _NONNEG, "Seconds (300)."),
            ], "getStats")},
            "/api/fsck": {"get": _op("Index against blob files (never repairs)", FSCK, [
                _q("deep", {"type": "boolean"}, "Decompress and verify every frame (true)."),
                _q("limit", {"type": "integer", "minimum": 1, "maximum": 100_000},
                   "Most entries checked (10000); a report stopped by it has a next_cursor."),
                _q("after", _STR, "Resume after this cursor (a report's next_cursor)."),
            ], "getFsck")},
            **_deletes(),
        },
    }


__all__ = ["openapi"]
