"""The store's verbs as model-facing tools: names, descriptions, input schemas, and the JSON result contract.

Shared by every face that hands the verbs to a model -- the MCP server and proxy (:mod:`scratchfs.mcp_server`,
:mod:`scratchfs.mcp_proxy`) and the agent-loop adapter (:mod:`scratchfs.adapter`) -- so that they all answer alike.

Tools: ``read_handle``, ``scratch_write``, ``scratch_read``, ``scratch_list``, ``scratch_delete``
(:data:`TOOL_SPECS`). Arguments are checked against each tool's JSON Schema (``jsonschema``, Draft 2020-12) before
the store sees them; a bad argument raises :class:`~scratchfs.errors.InvalidArgument` naming it.

Result contract (every result is one JSON object; every read says how to go on: ``next_offset`` / ``next_line``,
``remaining`` bytes and ``next_call``, the exact call that reads on, ``null`` at the end):

* ``read_handle`` by range: ``{handle, offset, length, size, next_offset, remaining, next_call, data}``. ``data`` is
  text cut to whole UTF-8 characters: a character cut by the end of the range is left for the next read
  (``next_offset`` is the first byte not returned, ``null`` at the end), and continuation bytes at the start of a
  range that begins inside a character are skipped (``offset`` is then where ``data`` really starts). ``data``
  always equals the content's bytes ``[offset, offset + length)`` decoded; a range shorter than the character at its
  start returns that whole character (at most 3 bytes more), so a reader always gets on. Bytes that are not UTF-8
  come as base64 with
  ``"encoding": "base64"`` (the range exactly as read).
* ``read_handle`` by lines (``line``, ``lines``): the range keys plus ``first_line, lines, total_lines, next_line,
  cut`` (``cut``: the read cap stopped inside a line, which goes on at ``next_offset``).
* ``read_handle`` by ``match`` or ``pattern``: ``{handle, match (or pattern), size, next_offset, more, remaining,
  next_call, windows: [{match_offset, line, offset, length, matches: [{offset, length, line}], data}]}``; windows
  whose context overlaps are merged and list each match; each window is trimmed to whole characters the same way
  (one that is not UTF-8 is base64 with ``"encoding": "base64"``); ``next_offset`` resumes the search, ``null`` when
  no match is left. ``ignore_case`` is given when it was set.
* ``scratch_write``: ``{key, size, ttl, expires_at}``; ``scratch_read``: ``{key, offset, length, size, next_offset,
  remaining, next_call, data}`` as a range read (``next_call`` names ``scratch_read``); ``scratch_list``:
  ``{prefix, entries: [{key, size, expires_in, preview}]}``; ``scratch_delete``: ``{key, deleted}``.

Sizes and offsets are bytes; ``ttl`` and ``expires_in`` are seconds; ``expires_at`` is epoch seconds.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from scratchfs.api.results import LineSlice, Matches, Slice
from scratchfs.api.scope import Scope
from scratchfs.engine.search import MAX_REACH_BYTES, Window
from scratchfs.foundation.checks import check_key
from scratchfs.foundation.errors import InvalidArgument, ScratchError
from scratchfs.foundation.limits import (
    DEFAULT_CONTEXT,
    DEFAULT_LINES,
    DEFAULT_MATCHES,
    DEFAULT_READ_BYTES,
    LIST_PREVIEW_CHARS,
    MAX_CONTEXT_BYTES,
    MAX_LINES,
    MAX_MATCHES,
    MAX_READ_BYTES,
    MAX_TTL,
)
from scratchfs.foundation.text import decode_or_none, utf8_lead_length, utf8_partial_tail, utf8_suffix_start


@dataclass(frozen=True)
class ToolSpec:
    """One model-facing tool: ``name``, ``description`` (for the model) and ``input_schema`` (JSON Schema)."""

    name: str
    description: str
    input_schema: dict[str, Any]


_HANDLE = {"type": "string", "description": "The handle from a stub, e.g. \"h_abc...\" (exactly as given)."}
_KEY = {"type": "string", "minLength": 1, "description": "The scratchpad key (1-512 bytes of text, case-sensitive)."}

TOOL_SPECS: dict[str, ToolSpec] = {spec.name: spec for spec in (
    ToolSpec(
        "read_handle",
        "Read back a large tool result that was stored out of your context. When a result was too large, you got a "
        "stub instead: {handle, preview, size, lines, content_type, shape, note}. Pass its handle here and read only "
        "what you need, in small pieces. Modes:\n"
        "- Search (usually best first): `match` (exact text) or `pattern` (a regular expression, Python syntax, `^` "
        "and `$` per line, matched against the UTF-8 bytes: `.` is one byte, so write `caf(é|e)`, not `caf.`; "
        "`ignore_case` for either, ASCII letters only); you get windows of `context` bytes around up to "
        "`max_matches` matches, with their line numbers.\n"
        f"- Lines: `line` (1-based) and `lines` (default {DEFAULT_LINES}), as an editor counts them.\n"
        f"- Range: bytes from `offset` (default 0), `length` bytes (default {DEFAULT_READ_BYTES}).\n"
        "Every result says how to go on: next_offset / next_line, remaining bytes, and next_call, the exact call "
        "for the next piece (null when there is nothing more). Offsets and sizes are bytes of the UTF-8 text; data "
        "that is not text comes base64-encoded with \"encoding\": \"base64\". One call returns at most "
        f"{MAX_READ_BYTES} bytes: never try to read a whole large result.",
        {
            "type": "object",
            "properties": {
                "handle": _HANDLE,
                "offset": {"type": "integer", "minimum": 0, "default": 0,
                           "description": "Range: the first byte to return. Search: where the search starts (pass "
                                          "the previous result's next_offset to continue)."},
                "length": {"type": "integer", "minimum": 1, "maximum": MAX_READ_BYTES, "default": DEFAULT_READ_BYTES,
                           "description": "Range only: how many bytes to return."},
                "line": {"type": "integer", "minimum": 1, "default": 1,
                         "description": "Lines: the first line to return (1-based)."},
                "lines": {"type": "integer", "minimum": 1, "maximum": MAX_LINES, "default": DEFAULT_LINES,
                          "description": "Lines: how many lines to return."},
                "match": {"type": "string", "minLength": 1,
                          "description": "Search for this exact text (case-sensitive unless ignore_case)."},
                "pattern": {"type": "string", "minLength": 1,
                            "description": "Search for this regular expression (Python syntax over the UTF-8 bytes: . "
                                           "is one byte; ^ and $ per line; a match that spans lines may span at "
                                           f"most {MAX_REACH_BYTES} bytes)."},
                "ignore_case": {"type": "boolean", "default": False,
                                "description": "Search only: match ASCII letters regardless of case."},
                "context": {"type": "integer", "minimum": 0, "maximum": MAX_CONTEXT_BYTES,
                            "default": DEFAULT_CONTEXT, "description": "Search only: bytes shown on each side of a "
                                                                       "match."},
                "max_matches": {"type": "integer", "minimum": 1, "maximum": MAX_MATCHES, "default": DEFAULT_MATCHES,
                                "description": "Search only: most matches to return in this call."},
            },
            "required": ["handle"],
            "additionalProperties": False,
        },
    ),
    ToolSpec(
        "scratch_write",
        "Save a note or an intermediate result in your scratchpad under a key. It stays out of your context until "
        "you read it back with scratch_read. Writing a key again replaces its value. Values expire after `ttl` "
        "seconds (default one hour). Use it for plans, partial results and anything you need again later in this "
        "run. Returns {key, size, ttl, expires_at}.",
        {
            "type": "object",
            "properties": {
                "key": _KEY,
                "value": {"type": "string", "description": "The text to store (or base64, see encoding)."},
                "encoding": {"type": "string", "enum": ["utf-8", "base64"], "default": "utf-8",
                             "description": "\"base64\" if value is base64-encoded bytes."},
                "ttl": {"type": "number", "exclusiveMinimum": 0, "maximum": MAX_TTL,
                        "description": "Seconds until the value expires (default: one hour)."},
            },
            "required": ["key", "value"],
            "additionalProperties": False,
        },
    ),
    ToolSpec(
        "scratch_read",
        "Read a value from your scratchpad (written earlier with scratch_write). Returns {key, offset, length, size, "
        f"next_offset, data}}; at most {MAX_READ_BYTES} bytes per call: if next_offset is not null, call again with "
        "offset=<next_offset> for the rest.",
        {
            "type": "object",
            "properties": {
                "key": _KEY,
                "offset": {"type": "integer", "minimum": 0, "default": 0, "description": "First byte to return."},
                "length": {"type": "integer", "minimum": 1, "maximum": MAX_READ_BYTES, "default": MAX_READ_BYTES,
                           "description": "Most bytes to return."},
            },
            "required": ["key"],
            "additionalProperties": False,
        },
    ),
    ToolSpec(
        "scratch_list",
        "List the keys in your scratchpad (optionally only those starting with `prefix`), oldest first, with each "
        "value's size in bytes, seconds until it expires and the start of its text. Values are not returned: use "
        "scratch_read. Returns {prefix, entries: [{key, size, expires_in, preview}]}.",
        {
            "type": "object",
            "properties": {
                "prefix": {"type": "string", "default": "",
                           "description": "Only keys starting with this text (exact, case-sensitive)."},
            },
            "additionalProperties": False,
        },
    ),
    ToolSpec(
        "scratch_delete",
        "Delete a key from your scratchpad. Returns {key, deleted}; deleted is false if there was no live value.",
        {
            "type": "object",
            "properties": {"key": _KEY},
            "required": ["key"],
            "additionalProperties": False,
        },
    ),
)}
"""The tools, by name."""



# -- UTF-8 trimming -------------------------------------------------------------------------------------------------

def _text_piece(raw: bytes, offset: int, size: int, keep_from: int | None = None, keep_to: int | None = None
                ) -> dict[str, Any]:
    """``{offset, length, data}`` (plus ``encoding`` when base64) for the bytes ``raw`` at ``offset`` of a content
    of ``size`` bytes, trimmed to whole characters without cutting into ``[keep_from, keep_to)``."""
    lead = utf8_suffix_start(raw) if offset > 0 else 0
    if keep_from is not None:
        lead = min(lead, keep_from - offset)
    end = offset + len(raw)
    tail = utf8_partial_tail(raw[lead:]) if end < size else 0
    if keep_to is not None:
        tail = min(tail, max(0, end - keep_to))
    body = raw[lead : len(raw) - tail]
    text = decode_or_none(body)
    if text is None:
        return {"offset": offset, "length": len(raw), "data": base64.b64encode(raw).decode("ascii"),
                "encoding": "base64"}
    return {"offset": offset + lead, "length": len(body), "data": text}


def _first_character(sl: Slice) -> Slice:
    """The slice cut after its first whole character (continuation bytes it starts with are skipped first)."""
    lead = utf8_suffix_start(sl.data) if sl.offset > 0 else 0
    if lead >= len(sl.data):
        return sl
    data = sl.data[: lead + utf8_lead_length(sl.data[lead])]
    end = sl.offset + len(data)
    return replace(sl, data=data, next_offset=end if end < sl.size else None)


def _whole_characters(sl: Slice, read: Callable[[int], Slice], name: str) -> dict[str, Any]:
    """:func:`range_result` of ``sl``; when the range is shorter than the character it starts, that whole
    character instead (``read(length)`` reads the same offset again), so a reader always moves on."""
    out = range_result(sl, name=name)
    if not out["length"] and sl.data and out["next_offset"] is not None:
        wider = read(len(sl.data) + 3)
        out = range_result(_first_character(replace(wider, requested=sl.requested)), name=name)
    return out


def _cursor(sl: Slice | LineSlice) -> dict[str, Any]:
    return {"remaining": sl.remaining, "next_call": sl.next_call}


def range_result(sl: Slice, name: str = "handle") -> dict[str, Any]:
    """A range read as the contract's JSON object (see the module docstring); ``name`` is ``"handle"`` or ``"key"``."""
    piece = _text_piece(sl.data, sl.offset, sl.size)
    if not piece.get("encoding"):
        end = piece["offset"] + piece["length"]
        body = sl.data[piece["offset"] - sl.offset : end - sl.offset]
        sl = replace(sl, offset=piece["offset"], data=body, next_offset=end if end < sl.size else None)
    result = {name: sl.handle, "offset": piece["offset"], "length": piece["length"], "size": sl.size,
              "next_offset": sl.next_offset, **_cursor(sl), "data": piece["data"]}
    if piece.get("encoding"):
        result["encoding"] = piece["encoding"]
    return result


def lines_result(sl: LineSlice) -> dict[str, Any]:
    """A line read as the contract's JSON object (see the module docstring)."""
    data = sl.data
    if sl.cut and sl.next_offset is not None:  # the cap stopped inside a line: maybe inside a character too
        tail = utf8_partial_tail(data)
        if tail and decode_or_none(data[: len(data) - tail]) is not None:
            data = data[: len(data) - tail]
            sl = replace(sl, data=data, next_offset=sl.offset + len(data))
    text = decode_or_none(data)
    result = {"handle": sl.handle, "offset": sl.offset, "length": len(data), "size": sl.size,
              "next_offset": sl.next_offset, "first_line": sl.first_line, "lines": sl.lines,
              "total_lines": sl.total_lines, "next_line": sl.next_line, "cut": sl.cut, **_cursor(sl),
              "data": text if text is not None else base64.b64encode(data).decode("ascii")}
    if text is None:
        result["encoding"] = "base64"
    return result


def window_result(window: Window, size: int) -> dict[str, Any]:
    """One search window as ``{match_offset, line, offset, length, matches, data}`` (plus ``encoding`` when
    base64)."""
    match_end = max(h.offset + h.length for h in window.matches) if window.matches else window.match_offset
    piece = _text_piece(window.data, window.offset, size, window.match_offset, match_end)
    return {"match_offset": window.match_offset, "line": window.line, "offset": piece["offset"],
            "length": piece["length"],
            "matches": [{"offset": h.offset, "length": h.length, "line": h.line} for h in window.matches],
            "data": piece["data"], **({"encoding": piece["encoding"]} if "encoding" in piece else {})}


def matches_result(found: Matches) -> dict[str, Any]:
    """A search as the contract's JSON object (see the module docstring)."""
    if found.pattern is not None:
        what: dict[str, Any] = {"pattern": found.pattern, "ignore_case": found.ignore_case}
    else:
        what = {"match": (found.match or b"").decode("utf-8", "replace")}
        if found.ignore_case:
            what["ignore_case"] = True
    return {
        "handle": found.handle, **what, "size": found.size, "next_offset": found.next_offset, "more": found.more,
        "remaining": found.remaining, "next_call": found.next_call,
        "windows": [window_result(w, found.size) for w in found.windows],
    }


def to_json(result: Mapping[str, Any]) -> str:
    """A result as the compact JSON text that enters the context (non-ASCII kept as is)."""
    return json.dumps(result, ensure_ascii=False, separators=(",", ":"))


def error_text(exc: BaseException) -> str:
    """The text of a tool error: ``"<kind>: <message>"``, e.g. ``"not found: no handle 'h_...' in this scope"``."""
    if isinstance(exc, ScratchError):
        return f"{exc.kind}: {exc}"
    return f"error: {type(exc).__name__}: {exc}"


# -- argument checking ----------------------------------------------------------------------------------------------

_VALIDATORS: dict[str, Any] = {}


def check_arguments(name: str, arguments: object) -> dict[str, Any]:
    """Check a tool call's arguments against the tool's input schema; return them with integral floats as ints.

    Raises:
        InvalidArgument: an unknown tool, arguments that are not an object, or the first schema violation (the
            message names the argument and the bad value).
    """
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import best_match

    spec = TOOL_SPECS.get(name)
    if spec is None:
        raise InvalidArgument(f"unknown tool {name!r}; the tools are {', '.join(sorted(TOOL_SPECS))}")
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, Mapping):
        raise InvalidArgument(f"the arguments of {name} must be a JSON object, not {type(arguments).__name__}")
    validator = _VALIDATORS.get(name)
    if validator is None:
        validator = _VALIDATORS[name] = Draft202012Validator(spec.input_schema)
    error = best_match(validator.iter_errors(arguments))
    if error is not None:
        where = ".".join(str(p) for p in error.absolute_path)
        raise InvalidArgument(f"{name}: {where + ': ' if where else ''}{error.message}")
    return {k: int(v) if isinstance(v, float) and v.is_integer() and
            spec.input_schema["properties"][k].get("type") == "integer" else v for k, v in arguments.items()}


# -- the tools ------------------------------------------------------------------------------------------------------

class ScratchTools:
    """The model-facing tools over one scope (or a function that picks the scope per call).

    Args:
        scope: a :class:`~scratchfs.store.Scope`, or a function returning one.

    Each method takes the tool's arguments as keywords and returns the contract's JSON object (a ``dict``);
    :meth:`call` does the same by tool name after checking the arguments against the schema. All raise
    :class:`~scratchfs.errors.ScratchError` subclasses: ``InvalidArgument`` (bad arguments), ``NotFound`` (no live
    handle or key in this scope), ``CorruptBlob``, ``StoreBusy``, ``StorageError``.
    """

    def __init__(self, scope: Scope | Callable[[], Scope]) -> None:
        self._scope = scope

    @property
    def scope(self) -> Scope:
        """The scope the next call works in."""
        return self._scope if isinstance(self._scope, Scope) else self._scope()

    def call(self, name: str, arguments: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Run tool ``name`` with ``arguments`` (checked against its schema) and return its result object."""
        args = check_arguments(name, arguments)
        return getattr(self, name)(**args)

    def read_handle(self, handle: str, offset: int = 0, length: int | None = None, line: int | None = None,
                    lines: int | None = None, match: str | None = None, pattern: str | None = None,
                    ignore_case: bool = False, context: int | None = None, max_matches: int | None = None
                    ) -> dict[str, Any]:
        """``read_handle`` by range, by lines, or by match / pattern (see :meth:`Scope.read_handle`, whose checks
        apply: mixing the options of two modes is an invalid argument); see the module docstring for the result."""
        result = self.scope.read_handle(handle, offset, length, match=match, pattern=pattern,
                                        ignore_case=ignore_case, context=context, max_matches=max_matches,
                                        line=line, lines=lines)
        if isinstance(result, Matches):
            return matches_result(result)
        if isinstance(result, LineSlice):
            return lines_result(result)
        return _whole_characters(result, lambda n: self.scope.read_handle(handle, offset, n), "handle")

    def scratch_write(self, key: str, value: str, encoding: str = "utf-8", ttl: float | None = None
                      ) -> dict[str, Any]:
        """``scratch_write``: store ``value`` (text, or base64 when ``encoding="base64"``) under ``key``."""
        if encoding == "base64":
            try:
                data: str | bytes = base64.b64decode(value, validate=True)
            except (binascii.Error, ValueError):
                raise InvalidArgument("value is not valid base64") from None
        elif encoding == "utf-8":
            data = value
        else:
            raise InvalidArgument(f"encoding must be 'utf-8' or 'base64': {encoding!r}")
        entry = self.scope.scratch_write(key, data, ttl=ttl)
        return {"key": entry.key, "size": entry.size, "ttl": entry.ttl, "expires_at": entry.expires_at}

    def scratch_read(self, key: str, offset: int = 0, length: int = MAX_READ_BYTES) -> dict[str, Any]:
        """``scratch_read``: a range of the value of ``key`` (at most :data:`MAX_READ_BYTES` bytes)."""
        if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
            raise InvalidArgument(f"offset must be a non-negative integer: {offset!r}")
        if isinstance(length, bool) or not isinstance(length, int) or length < 1:
            raise InvalidArgument(f"length must be a positive integer: {length!r}")
        scope, key = self.scope, check_key(key)

        def read(n: int) -> Slice:  # only the frames that cover the range, as read_handle reads
            return scope.scratch_read_range(key, offset, min(n, MAX_READ_BYTES))

        return _whole_characters(read(length), read, "key")

    def scratch_list(self, prefix: str = "") -> dict[str, Any]:
        """``scratch_list``: the live keys starting with ``prefix``, oldest first."""
        scope = self.scope
        now = scope.store.now()
        return {"prefix": prefix, "entries": [
            {"key": e.key, "size": e.size, "expires_in": round(e.expires_at - now, 3),
             "preview": e.preview[:LIST_PREVIEW_CHARS]}
            for e in scope.scratch_list(prefix)
        ]}

    def scratch_delete(self, key: str) -> dict[str, Any]:
        """``scratch_delete``: ``{key, deleted}``."""
        return {"key": key, "deleted": self.scope.scratch_delete(key)}


__all__ = [
    "TOOL_SPECS",
    "ScratchTools",
    "ToolSpec",
    "check_arguments",
    "error_text",
    "lines_result",
    "matches_result",
    "range_result",
    "to_json",
    "window_result",
]
