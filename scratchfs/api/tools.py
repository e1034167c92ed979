"""The store's verbs as model-facing tools: names, descriptions and input schemas (JSON Schema, Draft 2020-12), and
the check of a call's arguments against them (``jsonschema``, the reference validator, so that every face refuses
the same arguments with the same message).

Tools: ``read_handle``, ``scratch_write``, ``scratch_read``, ``scratch_list``, ``scratch_delete``. Every read takes
``budget``: the most bytes its reply may take, counted as the model receives them (the JSON text, escapes
included); 8 KiB by default (the store's ``reply_budget_bytes``), at most 64 KiB. ``length``, ``lines``,
``max_matches``, ``context`` and ``limit`` are requests: a reply shrinks to fit its budget and its ``next_call`` says
exactly where to go on.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from scratchfs.api.encodings import ENCODINGS
from scratchfs.engine.search import MAX_REACH_BYTES
from scratchfs.foundation.checks import (
    MAX_INT_BITS,
    VERSION_PATTERN,
    check_context,
    check_handle,
    check_key,
    check_ttl,
    check_utf8,
    closest,
    handle_within,
    shorten,
)
from scratchfs.foundation.errors import InvalidArgument
from scratchfs.foundation.limits import (
    DEFAULT_CONTEXT,
    DEFAULT_LINES,
    DEFAULT_MATCHES,
    DEFAULT_READ_BYTES,
    DEFAULT_TTL,
    LINE_WINDOW_BYTES,
    MAX_COLUMN_CHARS,
    MAX_COLUMNS,
    MAX_CONTEXT_BYTES,
    MAX_CURSOR_CHARS,
    MAX_FILTER_CHARS,
    MAX_KEY_BYTES,
    MAX_LINES,
    MAX_LIST_ENTRIES,
    MAX_MATCHES,
    MAX_MESSAGE_BYTES,
    MAX_NEEDLE_BYTES,
    MAX_READ_BYTES,
    MAX_REPLY_BYTES,
    MAX_SELECTOR_CHARS,
    MAX_TTL,
    MIN_REPLY_BYTES,
    MIN_TTL,
    REPLY_BUDGET_BYTES,
)


@dataclass(frozen=True)
class ToolSpec:
    """One model-facing tool: ``name``, ``description`` (for the model) and ``input_schema`` (JSON Schema)."""

    name: str
    description: str
    input_schema: dict[str, Any]


_HANDLE = {"type": "string", "description": "The handle from a stub, e.g. \"h_abc...\" (exactly as given)."}
_KEY = {"type": "string", "minLength": 1, "maxLength": MAX_KEY_BYTES,
        "description": f"The scratchpad key, case-sensitive: 1 to {MAX_KEY_BYTES} bytes of UTF-8 text (so at most "
                       f"{MAX_KEY_BYTES} characters; a non-ASCII one takes 2 to 4 bytes)."}
_BUDGET = {"type": "integer", "minimum": MIN_REPLY_BYTES, "maximum": MAX_REPLY_BYTES, "default": REPLY_BUDGET_BYTES,
           "description": f"Most bytes this reply may take, counted as you receive them (its JSON text); default "
                          f"{REPLY_BUDGET_BYTES}, at most {MAX_REPLY_BYTES}. A larger reply is cut to fit, and its "
                          "next_call says where to go on."}
def _budget_text(requests: str) -> str:
    """The budget paragraph of a tool's description; ``requests``: which of its arguments ask for an amount (they
    named read_handle's four in every tool: scratch_read and scratch_list take none of them)."""
    return (f"Each reply is at most `budget` bytes of JSON as you receive it ({REPLY_BUDGET_BYTES} by default, "
            f"{MAX_REPLY_BYTES} at most): {requests}, and a reply that would be larger is cut to fit; follow "
            "its next_call to go on (nothing is skipped). A long argument is echoed shortened (`shortened` gives its "
            "full length); a next_call too long for the budget is null with a `note` saying how to go on.")


_READ_BUDGET = _budget_text("`length`, `lines`, `max_matches` and `context` are requests")

_READ_HANDLE = ToolSpec(
    "read_handle",
    "Read back a large tool result that was stored out of your context. When a result was too large, you got a "
    "stub instead: {handle, preview, size, lines, content_type, shape, note}. Pass its handle here and read only "
    "what you need, in small pieces. Modes:\n"
    "- Search (usually best first): `match` (exact text) or `pattern` (a regular expression, Python syntax, `^` "
    "and `$` per line, matched against the stored bytes, text as UTF-8: `.` is one byte, so write `caf(é|e)`, not "
    "`caf.`; in content that is not UTF-8 (its shape counts bytes not UTF-8) pass `encoding` or write a byte as "
    "`\\xe9`; "
    "`ignore_case` for either, ASCII letters only); you get windows of `context` bytes (\"line\": the match's "
    "whole line) around up to `max_matches` matches: {line, offset, length, data}, `cut` if cut short (a long "
    "line, or to fit the budget), plus "
    "`match_offset`/`match_length` where the match is not the whole window, or `matches` [{offset, length, line}] "
    "when it holds several. `count`: how many matches (and lines), no windows. `offset`/`end` bound the bytes "
    "searched (an archive member's).\n"
    f"- Lines: `line` (1-based; -N: N from the end) and `lines` (default {DEFAULT_LINES}), as an editor counts "
    "them; a line read cut "
    "inside a line goes on from a byte `offset` with `lines`.\n"
    f"- Range: bytes from `offset` (default 0), `length` bytes (default {DEFAULT_READ_BYTES}), before `end` if "
    "given.\n"
    "- Structure (the stub's shape and note say which fits): `jq` (a jq filter over JSON), `record`/`records` (JSON "
    "lines, optionally with `jq` per record), `row`/`rows`/`columns` (CSV/TSV or a table aligned by spaces, with "
    "the header), `slurp` with `jq` (one filter over all records or rows, to count or group), `view=\"text\"` "
    "(an HTML page's text, or terminal output as rendered), `select` (CSS selector over HTML); a page holds as "
    "many records, rows or outputs as fit the budget (at most `records`/`rows`) and next_call reads the next page; "
    "its `first` is the number of its first item (from 1); with `jq` over records, `record` is the record its "
    "first output came from and `first` that output's number among the record's outputs. "
    "An item larger than a page comes in pieces: `part` holds the next piece of its compact JSON text (of its text, "
    "for an HTML element), `first` its number; join the `part` of consecutive pages with that "
    "`first`, in order, to get it whole -- it ends on the page whose `results` follow it, or at the end (`more` "
    "false), or before a page whose `first` is higher. "
    "Numbers are the document's own; an item listed in `as_text` (indexes from 0) is given as its JSON text, a "
    "string, as it holds a number JSON here cannot carry exactly (1e400) or a lone surrogate escape (\\ud800, "
    "which no UTF-8 carries); a `note` says when jq computed with numbers a double cannot hold or read such "
    "escapes as U+FFFD.\n"
    "Every result says how to go on: next_offset / next_line, remaining bytes, and next_call, the exact call for "
    "the next piece, with your settings and budget (null when there is nothing more). Offsets and sizes are bytes "
    "of the content. Text comes as "
    "text: bytes that are not valid UTF-8 show as U+FFFD and `replaced` counts them; binary content comes as a hex "
    "dump (\"encoding\": \"hexdump\"), but a byte range of it that is text (a tar member of text) as text, "
    f"\"encoding\": \"text\". {_READ_BUDGET} Never try to read a whole large result.",
    {
        "type": "object",
        "properties": {
            "handle": _HANDLE,
            "offset": {"type": "integer", "minimum": 0, "default": 0,
                       "description": "Range: the first byte to return. Lines: the byte to start from (instead of "
                                      "`line`; the cursor of a cut line). Search: where the search starts (pass the "
                                      "previous result's next_offset to continue). view=\"text\": the byte of the "
                                      "text to start from. No other structure read takes it."},
            "length": {"type": "integer", "minimum": 1, "maximum": MAX_READ_BYTES, "default": DEFAULT_READ_BYTES,
                       "description": "Range only: how many bytes to return."},
            "end": {"type": "integer", "minimum": 1,
                    "description": "Range, lines and search: the byte to stop before (an archive member's end, as "
                                   "its read gives it; a search's matches end by it): next_call stays before it, "
                                   "null there."},
            "line": {"type": "integer", "default": 1,
                     "description": "Lines: the first line to return (1-based; negative from the end: -1 is the "
                                    "last line, or the last before `end`)."},
            "lines": {"type": "integer", "minimum": 1, "maximum": MAX_LINES, "default": DEFAULT_LINES,
                      "description": "Lines: how many lines to return."},
            "match": {"type": "string", "minLength": 1, "maxLength": MAX_NEEDLE_BYTES,
                      "description": "Search for this exact text (case-sensitive unless ignore_case)."},
            "pattern": {"type": "string", "minLength": 1, "maxLength": MAX_NEEDLE_BYTES,
                        "description": "Search for this regular expression (Python syntax over the UTF-8 bytes: . "
                                       "is one byte; ^ and $ per line; a match that spans lines may span at "
                                       f"most {MAX_REACH_BYTES} bytes)."},
            "ignore_case": {"type": "boolean", "default": False,
                            "description": "Search only: match ASCII letters regardless of case."},
            "context": {"anyOf": [{"type": "integer", "minimum": 0, "maximum": MAX_CONTEXT_BYTES},
                                  {"const": "line"}],
                        "default": DEFAULT_CONTEXT, "description": "Search only: bytes shown on each side of a "
                                                                   "match, or \"line\": the whole line holding it "
                                                                   f"(at most {LINE_WINDOW_BYTES} bytes a side)."},
            "count": {"type": "boolean", "default": False,
                      "description": "Search only: count the matches of `match`/`pattern` (from `offset`, to `end` "
                                     "if given) and the lines they start in, {matches, lines}, instead of "
                                     "showing windows; a count the time bound stops gives next_call to count on."},
            "max_matches": {"type": "integer", "minimum": 1, "maximum": MAX_MATCHES, "default": DEFAULT_MATCHES,
                            "description": "Search only: most matches to return in this call."},
            "before": {"type": "integer", "minimum": 0,
                       "description": "Search only: the last matches starting before this byte (size: the last ones), "
                                      "in file order; next_call goes back."},
            "jq": {"type": "string", "minLength": 1, "maxLength": MAX_FILTER_CHARS,
                   "description": "Structure: a jq filter over the JSON document (e.g. `.items[] | select(.state == "
                                  "\"running\") | .id`, `keys`, `.operations.DescribeInstances.input`); with "
                                  "`record`/`records`, applied to each JSON-lines record alone (`input`/`inputs` "
                                  "see nothing and are refused)."},
            "slurp": {"type": "boolean", "default": False,
                      "description": "Structure, with `jq`: run it once over the array of all JSON-lines records, "
                                     "of all JSON texts one after another (jq's output), or of all CSV/TSV rows "
                                     "or those of a table aligned by spaces (objects keyed by the "
                                     "header, arrays if its stub says \"no header\"; a column of numbers as "
                                     "numbers), e.g. "
                                     "`group_by(.unit) | map({unit: .[0].unit, n: length})`; at most 16 MiB."},
            "record": {"type": "integer", "minimum": 1, "description": "Structure: the first JSON-lines record (from "
                                                                     "1)."},
            "records": {"type": "integer", "minimum": 1, "maximum": 10_000,
                        "description": "Structure: most JSON-lines records a page (fewer when the budget fills "
                                       "first; next_call goes on); with `jq`, most records whose outputs it shows "
                                       "(records it gives nothing for are passed over)."},
            "row": {"type": "integer", "minimum": 1,
                    "description": "Structure: the first CSV/TSV row (from 1, after the header; the header always "
                                   "comes with the rows; if the stub says \"no header\", from the first line)."},
            "rows": {"type": "integer", "minimum": 1, "maximum": 10_000, "description": "Structure: most rows a page "
                                                                                 "(fewer when the budget fills first; "
                                                                                 "next_call goes on)."},
            "columns": {"type": "array", "items": {"type": ["string", "integer"], "maxLength": MAX_COLUMN_CHARS},
                        "minItems": 1, "maxItems": MAX_COLUMNS,
                        "description": "Structure: only these CSV/TSV columns (names, or numbers from 0: numbers "
                                       "if \"no header\"); null where a row is shorter."},
            "view": {"type": "string", "enum": ["text", "members"],
                     "description": "Structure: \"members\": every member of a tar or zip, {name, offset, length, "
                                    "read} (a compressed zip member: `compressed`, to extract). \"text\": the "
                                    "readable text of an HTML page, or terminal output as a "
                                    "person sees it (ANSI escapes removed, \\r redraws applied); paged by `offset` "
                                    "into that text. With `match`/`pattern` (an HTML page): a search of that text, "
                                    "its offsets and lines the text's; with `match` (terminal output): the text as "
                                    "shown, found across escapes and overstrikes, its windows rendered, their offsets "
                                    "the stored output's (read on rendered with `raw_offset`)."},
            "raw_offset": {"type": "integer", "minimum": 0,
                           "description": "view=\"text\" of terminal output: start at the rendered line holding "
                                          "this byte of the stored output (a search window's offset)."},
            "select": {"type": "string", "minLength": 1, "maxLength": MAX_SELECTOR_CHARS,
                       "description": "Structure: the text of the HTML elements this CSS selector matches."},
            "encoding": {"type": "string", "enum": list(ENCODINGS),
                         "description": "Range, lines, search: latin-1/cp1252 shows each byte as one character (no "
                                        "U+FFFD); `match`/`pattern` are written in it."},
            "cursor": {"type": "string", "minLength": 1, "maxLength": MAX_CURSOR_CHARS,
                       "description": "Structure: where the next page starts (next_call passes it; a reply whose "
                                      "next_call did not fit its budget gives the cursor alone)."},
            "budget": _BUDGET,
        },
        "required": ["handle"],
        "additionalProperties": False,
    },
)

_SCRATCH_WRITE = ToolSpec(
    "scratch_write",
    "Save a note or an intermediate result in your scratchpad under a key. It stays out of your context until "
    "you read it back with scratch_read. Writing a key again replaces its value. Values expire after `ttl` "
    "seconds (default one hour). Use it for plans, partial results and anything you need again later in this "
    "run. Returns {key, size, ttl, expires_at}.",
    {
        "type": "object",
        "properties": {
            "key": _KEY,
            "value": {"type": "string", "description": "The text to store (or base64, see encoding). At most "
                                                       f"{MAX_MESSAGE_BYTES // 2**20} MiB as JSON text, escapes "
                                                       "included (the whole call is one message of at most "
                                                       f"{MAX_MESSAGE_BYTES // 2**20} MiB): store more in parts "
                                                       "under several keys."},
            "encoding": {"type": "string", "enum": ["utf-8", "base64"], "default": "utf-8",
                         "description": "\"base64\" if value is base64-encoded bytes."},
            "ttl": {"type": "number", "minimum": MIN_TTL, "maximum": MAX_TTL,
                    "description": "Seconds until the value expires, at least 1 (default: one hour)."},
        },
        "required": ["key", "value"],
        "additionalProperties": False,
    },
)

_SCRATCH_READ = ToolSpec(
    "scratch_read",
    "Read a value from your scratchpad (written earlier with scratch_write). Returns {key, offset, length, size, "
    f"next_offset, remaining, next_call, data}}. {_budget_text('`length` is a request')}",
    {
        "type": "object",
        "properties": {
            "key": _KEY,
            "offset": {"type": "integer", "minimum": 0, "default": 0, "description": "First byte to return."},
            "length": {"type": "integer", "minimum": 1, "maximum": MAX_READ_BYTES, "default": MAX_READ_BYTES,
                       "description": "Most bytes to return."},
            "budget": _BUDGET,
            "version": {"type": "string", "pattern": VERSION_PATTERN, "minLength": 8, "maxLength": 8,
                        "description": "From next_call: the value the earlier pages read. If the key was written "
                                       "again since, the call fails with `changed` (read it again from offset 0)."},
        },
        "required": ["key"],
        "additionalProperties": False,
    },
)

_SCRATCH_LIST = ToolSpec(
    "scratch_list",
    "List the keys in your scratchpad (optionally only those starting with `prefix`), oldest first, with each "
    "value's size in bytes, seconds until it expires and the start of its text (of binary data: the first line of "
    "its hex dump, as scratch_read shows it). Values are not returned: use "
    "scratch_read. Returns {prefix, entries: [{key, size, expires_in, preview}], next_call}; a long listing comes "
    f"in pages: follow next_call. {_budget_text('`limit` is a request')}",
    {
        "type": "object",
        "properties": {
            "prefix": {"type": "string", "default": "", "maxLength": MAX_KEY_BYTES,
                       "description": "Only keys starting with this text (exact, case-sensitive)."},
            "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIST_ENTRIES, "default": MAX_LIST_ENTRIES,
                      "description": "Most entries in this page."},
            "cursor": {"type": "string", "maxLength": MAX_CURSOR_CHARS,
                       "description": "Where the page starts (next_call passes it; a reply whose next_call did not "
                                      "fit its budget gives it alone, as next_cursor)."},
            "budget": _BUDGET,
        },
        "additionalProperties": False,
    },
)

_SCRATCH_DELETE = ToolSpec(
    "scratch_delete",
    "Delete a key from your scratchpad. Returns {key, deleted}; deleted is false if there was no live value. Spilled "
    "results (h_... handles) are not deleted here: they expire.",
    {
        "type": "object",
        "properties": {"key": _KEY},
        "required": ["key"],
        "additionalProperties": False,
    },
)

TOOL_SPECS: dict[str, ToolSpec] = {spec.name: spec for spec in (
    _READ_HANDLE, _SCRATCH_WRITE, _SCRATCH_READ, _SCRATCH_LIST, _SCRATCH_DELETE)}
"""The tools, by name."""


def tool_specs(reply_budget_bytes: int = REPLY_BUDGET_BYTES, default_ttl: float = DEFAULT_TTL) -> dict[str, ToolSpec]:
    """The tools, by name, as a server with these settings describes them to the model: its default reply budget
    (bytes) in every ``budget`` schema and description, and its default TTL (seconds) in ``scratch_write``'s. The
    defaults give :data:`TOOL_SPECS` itself; the arguments are checked by the store's settings, not here. Never
    raises."""
    if reply_budget_bytes == REPLY_BUDGET_BYTES and default_ttl == DEFAULT_TTL:
        return TOOL_SPECS
    words = {f"default {REPLY_BUDGET_BYTES},": f"default {reply_budget_bytes},",
             f"({REPLY_BUDGET_BYTES} by default,": f"({reply_budget_bytes} by default,",
             "(default one hour)": f"(default {_seconds(default_ttl)})",
             "(default: one hour)": f"(default: {_seconds(default_ttl)})"}

    def retext(text: str) -> str:
        for old, new in words.items():
            text = text.replace(old, new)
        return text

    def reschema(value: Any) -> Any:
        if isinstance(value, dict):
            out = {k: reschema(v) for k, v in value.items()}
            if value == _BUDGET:
                out["default"] = reply_budget_bytes
            return out
        return retext(value) if isinstance(value, str) else value

    return {name: ToolSpec(name, retext(spec.description), reschema(spec.input_schema))
            for name, spec in TOOL_SPECS.items()}


def _seconds(ttl: float) -> str:
    return "one hour" if ttl == 3600 else f"{ttl:g} second{'' if ttl == 1 else 's'}"


_VALIDATORS: dict[str, Any] = {}
_MESSAGE_CHARS = 300  # a schema violation's message, at most (it may quote the value)
MAX_ARGUMENT_DEPTH = 8
"""Deepest nesting of lists and objects an argument may have (the schemas' deepest is a list of columns)."""


def check_arguments(name: object, arguments: object) -> dict[str, Any]:
    """Check a tool call's arguments against the tool's input schema; return them with integral floats as ints.
    ``name`` and ``arguments`` may be of any type (what a model or a loop passed on): every wrong one is refused.

    Raises:
        InvalidArgument: a tool name that is not text or not a tool; arguments that are not an object (``None`` is
            no arguments), whose names are not text, nested deeper than :data:`MAX_ARGUMENT_DEPTH` or holding an
            integer of more than :data:`~scratchfs.foundation.checks.MAX_INT_BITS` bits; the first schema violation
            (the message names the argument and the bad value); a text that is not valid UTF-8 (a lone surrogate);
            or a ``handle``, ``key`` or ``ttl`` the store refuses (:data:`_NAMED`).
    """
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import best_match

    tools = ", ".join(sorted(TOOL_SPECS))
    if not isinstance(name, str):
        raise InvalidArgument(f"a tool name must be text, not {type(name).__name__}: {shorten(name)}; the tools are "
                              f"{tools}")
    spec = TOOL_SPECS.get(name)
    if spec is None:
        meant = closest(name, TOOL_SPECS)
        raise InvalidArgument(f"unknown tool {shorten(name)}{f' (did you mean {meant!r}?)' if meant else ''}; the "
                              f"tools are {tools}")
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, Mapping):
        raise InvalidArgument(f"the arguments of {name} must be a JSON object, not {type(arguments).__name__}")
    _check_shape(name, arguments)
    _check_argument_names(name, list(spec.input_schema["properties"]), arguments)
    if name == "read_handle" and "context" in arguments:  # one message naming both forms (null included)
        given = arguments["context"]
        check_context(int(given) if isinstance(given, float) and given.is_integer() else given)
    validator = _VALIDATORS.get(name)
    if validator is None:
        validator = _VALIDATORS[name] = Draft202012Validator(spec.input_schema)
    error = best_match(validator.iter_errors(arguments))
    if error is not None:
        where = ".".join(str(p) for p in error.absolute_path)
        message = error.message
        if error.validator == "maxLength":  # jsonschema's message repeats the whole value
            message = f"{len(error.instance)} characters, longer than the limit of {error.validator_value}"
        elif len(message) > _MESSAGE_CHARS:
            message = message[: _MESSAGE_CHARS - 3] + "..."
        raise InvalidArgument(f"{name}: {where + ': ' if where else ''}{message}")
    for k, v in arguments.items():  # every text, lists' items too, before anything measures or encodes it
        check_utf8(v, f"{name}: {k}")
    for k, check in _NAMED.items():  # what the store checks of a name or a ttl, told before the store is reached
        if arguments.get(k) is not None:
            check(arguments[k])
    return {k: int(v) if isinstance(v, float) and v.is_integer() and _integral(spec.input_schema["properties"][k])
            else v for k, v in arguments.items()}


_MEANT: dict[str, dict[str, str]] = {"read_handle": {
    **dict.fromkeys(("regex", "regexp", "re", "grep"), "pattern"),
    **dict.fromkeys(("query", "search", "find", "needle", "substring"), "match"),
    **dict.fromkeys(("start", "from", "position", "pos", "skip"), "offset"),
    **dict.fromkeys(("case_insensitive", "insensitive", "icase", "nocase"), "ignore_case"),
    **dict.fromkeys(("filter", "jq_filter", "query_jq"), "jq"),
    **dict.fromkeys(("selector", "css", "css_selector"), "select"),
    **dict.fromkeys(("id", "handle_id"), "handle"),
}}
"""The arguments a model often writes under another tool's name (``regex`` for ``pattern``, ``query`` for ``match``),
which no spelling distance finds."""
_NAMES_SHOWN = 5  # unknown argument names a refusal echoes (a call may hold thousands)


def meant_argument(given: str, known: Iterable[str], tool: str | None = None) -> str | None:
    """The argument of ``known`` an unknown name ``given`` likely means: a near spelling
    (:func:`~scratchfs.foundation.checks.closest`), else the name ``tool`` takes for it when the name is another
    tool's (:data:`_MEANT`: ``regex`` is ``read_handle``'s ``pattern``), else ``None``. Every face's refusal of an
    unknown argument asks it: MCP's and the adapter's arguments, the web API's query parameters, the CLI's options."""
    known = list(known)
    meant = closest(given, known) or _MEANT.get(tool or "", {}).get(given.casefold())
    return meant if meant in known else None


def _check_argument_names(name: str, known: list[str], arguments: Mapping) -> None:
    """Refuse argument names ``name``'s schema does not have, each with the one likely meant (a near spelling,
    :func:`~scratchfs.foundation.checks.closest`, or :data:`_MEANT`), and every argument the tool takes, in the
    schema's order: ``read_handle: unknown argument 'lenght' (did you mean 'length'?); read_handle takes handle,
    offset, ...``. Raises :class:`InvalidArgument`; returns ``None`` when every name is known."""
    unknown = [key for key in arguments if key not in known]
    if not unknown:
        return
    named = []
    for key in unknown[:_NAMES_SHOWN]:
        meant = meant_argument(key, known, name)
        named.append(shorten(key) + (f" (did you mean {meant!r}?)" if meant else ""))
    more = f" and {len(unknown) - _NAMES_SHOWN:,} more" if len(unknown) > _NAMES_SHOWN else ""
    raise InvalidArgument(f"{name}: unknown argument{'s' if len(unknown) > 1 else ''} {', '.join(named)}{more}; "
                          f"{name} takes {', '.join(known)}")


def _check_tool_handle(value: object) -> str:
    """:func:`~scratchfs.foundation.checks.check_handle`, its refusal of a text holding no handle saying where a
    scratchpad key is read (a model that wrote ``read_handle(handle="notes")`` for its own note). Raises
    :class:`InvalidArgument`."""
    try:
        return check_handle(value)
    except InvalidArgument as refused:
        if not isinstance(value, str) or value.lower().startswith("h_") or handle_within(value) is not None:
            raise  # (a handle cut or mistyped, or held in more text: that refusal names it)
        raise InvalidArgument(f"{refused}; a scratchpad value is read with scratch_read(key=...)") from None


_NAMED: dict[str, Any] = {"handle": _check_tool_handle, "key": check_key,
                          "ttl": lambda ttl: check_ttl(ttl, DEFAULT_TTL)}
"""The checks the store makes of an argument beyond its schema (a handle's shape, a key's bytes and characters, a
ttl's finiteness), made by :func:`check_arguments` with the store's own functions: a call with a bad one is told so
at once, even while the store cannot be reached (an outage, :mod:`scratchfs.api.deferred_store`)."""


def check_read_modes(*, offset: int, length: int | None, line: int | None, lines: int | None, searching: bool,
                     ignore_case: bool, context: object, max_matches: int | None, before: int | None) -> None:
    """Refuse the options of two ``read_handle`` modes (range, lines, search) mixed in one call: the checks of
    :meth:`scratchfs.api.scope.Scope.read_handle`, which need no store (so a face tells them during an outage too).

    Raises:
        InvalidArgument: naming the options that do not go together.
    """
    if not searching and (context is not None or max_matches is not None or before is not None):
        raise InvalidArgument("context, max_matches and before apply to searches (match or pattern)")
    if line is not None or lines is not None:
        if searching or length is not None:
            raise InvalidArgument("a line read takes line (or offset) and lines; length, match and pattern are "
                                  "for other reads")
        if line is not None and offset:
            raise InvalidArgument("a line read starts at a line or at a byte offset, not both")
    elif not searching and ignore_case:
        raise InvalidArgument("ignore_case applies to searches (match or pattern)")
    elif searching and length is not None:
        raise InvalidArgument("length applies to range reads; a search takes context and max_matches")


def _integral(schema: dict[str, Any]) -> bool:
    """The argument takes integers (its schema's type, or one of its ``anyOf`` forms')."""
    return schema.get("type") == "integer" or any(form.get("type") == "integer" for form in schema.get("anyOf", ()))


def _check_shape(name: str, arguments: Mapping) -> None:
    """Refuse what the schema's checks and messages cannot take: argument names that are not text, nesting deeper
    than :data:`MAX_ARGUMENT_DEPTH` (a recursion error) and integers past ``MAX_INT_BITS`` bits (not printable).
    Iterative, so any depth (a list that holds itself included) is cheap to refuse."""
    for key in arguments:
        if not isinstance(key, str):
            raise InvalidArgument(f"{name}: an argument name must be text, not {type(key).__name__}: {shorten(key)}")
    stack: list[tuple[str, object, int]] = [(key, value, 1) for key, value in arguments.items()]
    while stack:
        where, value, depth = stack.pop()
        if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
            raise InvalidArgument(f"{name}: {where}: an integer of {value.bit_length()} bits, out of range")
        if isinstance(value, (list, tuple, Mapping)):
            if depth >= MAX_ARGUMENT_DEPTH:
                raise InvalidArgument(f"{name}: {where}: nested more than {MAX_ARGUMENT_DEPTH} levels deep")
            items = value.values() if isinstance(value, Mapping) else value
            stack.extend((where, item, depth + 1) for item in items)


__all__ = ["MAX_ARGUMENT_DEPTH", "TOOL_SPECS", "ToolSpec", "check_arguments", "check_read_modes", "meant_argument",
           "tool_specs"]
