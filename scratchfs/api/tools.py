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

import contextlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from scratchfs.api.empty_arguments import empty_arguments, empty_refusal
from scratchfs.api.encodings import ENCODINGS
from scratchfs.foundation.calls import Advice, Call
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
    integral,
    repeatable,
)
from scratchfs.foundation.errors import InvalidArgument
from scratchfs.foundation.limits import (
    DEFAULT_CONTEXT,
    DEFAULT_LINES,
    DEFAULT_MATCHES,
    DEFAULT_READ_BYTES,
    DEFAULT_TTL,
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
from scratchfs.foundation.text import json_shown, shorten


@dataclass(frozen=True)
class ToolSpec:
    """One model-facing tool: ``name``, ``description`` (for the model) and ``input_schema`` (JSON Schema)."""

    name: str
    description: str
    input_schema: dict[str, Any]


_HANDLE = {"type": "string", "description": "The stub's handle (h_...)."}
_KEY = {"type": "string", "minLength": 1, "maxLength": MAX_KEY_BYTES, "description": "Scratchpad key (case-sensitive)."}
_BUDGET = {"type": "integer", "minimum": MIN_REPLY_BYTES, "maximum": MAX_REPLY_BYTES, "default": REPLY_BUDGET_BYTES,
           "description": "Most bytes of this reply's JSON."}
# Every byte of these texts is sent with every request a model makes (the README's "bytes of compact JSON", which
# tests/test_readme_snippets.py checks, and tests/test_tool_sizes.py bounds): they say what makes a first call right
# (the modes, their arguments, the units, the budget, next_call) and once only; the schema's types, defaults and
# limits are not repeated, and what only a reply shows is said by that reply (a page's `part`, `as_text`, `record` and
# `first`: scratchfs.engine.structure.page_words; `replaced`, `shortened`, a hex dump: their own fields), not here.


def _budget_text(requests: str) -> str:
    """The budget sentence of a tool's description; ``requests``: which of its arguments ask for an amount (they
    named read_handle's four in every tool: scratch_read and scratch_list take none of them)."""
    return (f"A reply is at most `budget` bytes of JSON ({REPLY_BUDGET_BYTES} by default, {MAX_REPLY_BYTES} at "
            f"most), {requests} cut to fit; next_call is the exact call that goes on.")


_READ_BUDGET = _budget_text("`length`, `lines`, `max_matches`, `context`")

_READ_HANDLE = ToolSpec(
    "read_handle",
    "Read back a large tool result stored out of your context: pass the handle of the stub you got instead and "
    "read only what you need. Modes:\n"
    "- Search (usually best first): `match` (exact text) or `pattern` (regex) over the stored bytes, text as UTF-8: "
    "`.` is one byte, so write `caf(é|e)`, not `caf.`; content not UTF-8 (its shape says so): pass `encoding` or "
    "write a byte as `\\xe9`.\n"
    "- Lines: `line`, `lines`. Range: `offset`, `length`.\n"
    "- Structure (the stub's shape and note say which fits): `jq`, `record`/`records`, `row`/`rows`/`columns`, "
    "`slurp`, `view`, `select`.\n"
    f"Offsets and sizes are bytes. {_READ_BUDGET}",
    {
        "type": "object",
        "properties": {
            "handle": _HANDLE,
            "offset": {"type": "integer", "minimum": 0, "default": 0,
                       "description": "Byte to start at (range, search, lines instead of `line`, text "
                                      "view)."},
            "length": {"type": "integer", "minimum": 1, "maximum": MAX_READ_BYTES, "default": DEFAULT_READ_BYTES,
                       "description": "Range: how many bytes."},
            "end": {"type": "integer", "minimum": 1,
                    "description": "Byte to stop before (range, lines, search)."},
            "line": {"type": "integer", "default": 1,
                     "description": "Lines: the first, from 1; -1 is the last line."},
            "lines": {"type": "integer", "minimum": 1, "maximum": MAX_LINES, "default": DEFAULT_LINES,
                      "description": "Lines: how many."},
            "match": {"type": "string", "minLength": 1, "maxLength": MAX_NEEDLE_BYTES,
                      "description": "Search: this exact text."},
            "pattern": {"type": "string", "minLength": 1, "maxLength": MAX_NEEDLE_BYTES,
                        "description": "Search: a Python regex, ^ and $ per line."},
            "ignore_case": {"type": "boolean", "default": False,
                            "description": "Search: ignore ASCII case."},
            "context": {"anyOf": [{"type": "integer", "minimum": 0, "maximum": MAX_CONTEXT_BYTES},
                                  {"const": "line"}],
                        "default": DEFAULT_CONTEXT,
                        "description": "Search: bytes each side of a match, or \"line\": its whole line."},
            "count": {"type": "boolean", "default": False,
                      "description": "Search: only count matches and lines."},
            "max_matches": {"type": "integer", "minimum": 1, "maximum": MAX_MATCHES, "default": DEFAULT_MATCHES,
                            "description": "Search: most matches shown."},
            "before": {"type": "integer", "minimum": 0,
                       "description": "Search: the last matches before this byte (`size`: the last of all)."},
            "jq": {"type": "string", "minLength": 1, "maxLength": MAX_FILTER_CHARS,
                   "description": "jq filter over the JSON document, or each record with `record`."},
            "slurp": {"type": "boolean", "default": False,
                      "description": "With `jq`: run it once over an array of all records or table rows (objects "
                                     "keyed by the header)."},
            "record": {"type": "integer", "minimum": 1, "description": "First JSON-lines record, from 1."},
            "records": {"type": "integer", "minimum": 1, "maximum": 10_000,
                        "description": "Most records a page."},
            "row": {"type": "integer", "minimum": 1,
                    "description": "First table row (CSV/TSV, aligned, pipe), from 1 after the header."},
            "rows": {"type": "integer", "minimum": 1, "maximum": 10_000, "description": "Most rows a page."},
            "columns": {"type": "array", "items": {"type": ["string", "integer"], "maxLength": MAX_COLUMN_CHARS},
                        "minItems": 1, "maxItems": MAX_COLUMNS,
                        "description": "Only these columns (names or numbers from 0)."},
            "view": {"type": "string", "enum": ["text", "members"],
                     "description": "\"members\": an archive's members. \"text\": an HTML page's or terminal "
                                    "output's text as shown, paged by `offset`, searched by `match`/`pattern`."},
            "raw_offset": {"type": "integer", "minimum": 0,
                           "description": "Terminal text view: start at the line holding this "
                                          "stored byte."},
            "select": {"type": "string", "minLength": 1, "maxLength": MAX_SELECTOR_CHARS,
                       "description": "The HTML or XML elements this CSS selector matches."},
            "encoding": {"type": "string", "enum": list(ENCODINGS),
                         "description": "Read content not UTF-8 as this (`match`/`pattern` too)."},
            "cursor": {"type": "string", "minLength": 1, "maxLength": MAX_CURSOR_CHARS,
                       "description": "From next_call, with the read's arguments."},
            "budget": _BUDGET,
        },
        "required": ["handle"],
        "additionalProperties": False,
    },
)

_SCRATCH_WRITE = ToolSpec(
    "scratch_write",
    "Save a note or an intermediate result in your scratchpad under a key, out of your context until scratch_read "
    "reads it back; writing a key again replaces it.",
    {
        "type": "object",
        "properties": {
            "key": _KEY,
            "value": {"type": "string", "description": "The text (or base64), at most "
                                                       f"{MAX_MESSAGE_BYTES // 2**20} MiB of JSON."},
            "encoding": {"type": "string", "enum": ["utf-8", "base64"], "default": "utf-8",
                         "description": "\"base64\": value is base64 bytes."},
            "ttl": {"type": "number", "minimum": MIN_TTL, "maximum": MAX_TTL,
                    "description": "Seconds until the value expires (default: one hour)."},
        },
        "required": ["key", "value"],
        "additionalProperties": False,
    },
)

_SCRATCH_READ = ToolSpec(
    "scratch_read",
    f"Read a value from your scratchpad. {_budget_text('`length`')}",
    {
        "type": "object",
        "properties": {
            "key": _KEY,
            "offset": {"type": "integer", "minimum": 0, "default": 0, "description": "First byte to return."},
            "length": {"type": "integer", "minimum": 1, "maximum": MAX_READ_BYTES, "default": MAX_READ_BYTES,
                       "description": "Most bytes to return."},
            "budget": _BUDGET,
            "version": {"type": "string", "pattern": VERSION_PATTERN, "minLength": 8, "maxLength": 8,
                        "description": "From next_call: the value's version."},
        },
        "required": ["key"],
        "additionalProperties": False,
    },
)

_SCRATCH_LIST = ToolSpec(
    "scratch_list",
    "List your scratchpad's keys, oldest first, with sizes (bytes), seconds to expiry and previews; "
    "`spilled`: your spilled results' handles instead, newest first. "
    f"{_budget_text('`limit`')}",
    {
        "type": "object",
        "properties": {
            "prefix": {"type": "string", "default": "", "maxLength": MAX_KEY_BYTES,
                       "description": "Only keys starting with this (case-sensitive)."},
            "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIST_ENTRIES, "default": MAX_LIST_ENTRIES,
                      "description": "Most entries a page."},
            "cursor": {"type": "string", "maxLength": MAX_CURSOR_CHARS,
                       "description": "From next_call, with the same prefix."},
            "budget": _BUDGET,
            "spilled": {"type": "boolean", "default": False, "description": "List spilled results instead."},
        },
        "additionalProperties": False,
    },
)

_SCRATCH_DELETE = ToolSpec(
    "scratch_delete",
    "Delete a key from your scratchpad. Spilled results (h_... handles) are not deleted: they expire.",
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
    (bytes) in every ``budget`` schema and tool description, and its default TTL (seconds) in ``scratch_write``'s
    ``ttl``. The defaults give :data:`TOOL_SPECS` itself; the arguments are checked by the store's settings, not
    here. Never raises."""
    if reply_budget_bytes == REPLY_BUDGET_BYTES and default_ttl == DEFAULT_TTL:
        return TOOL_SPECS
    words = {f"({REPLY_BUDGET_BYTES} by default,": f"({reply_budget_bytes} by default,",
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
_STORES_TEXT = "; scratch_write stores text: give JSON encoded as one string"
MAX_ARGUMENT_DEPTH = 8
"""Deepest nesting of lists and objects an argument may have (the schemas' deepest is a list of columns)."""


def check_arguments(name: object, arguments: object) -> dict[str, Any]:
    """Check a tool call's arguments against the tool's input schema; return them with integral floats as ints.
    ``name`` and ``arguments`` may be of any type (what a model or a loop passed on): every wrong one is refused.

    Raises:
        InvalidArgument: a tool name that is not text or not a tool; arguments that are not an object (``None`` is
            no arguments), whose names are not text, nested deeper than :data:`MAX_ARGUMENT_DEPTH` or holding an
            integer of more than :data:`~scratchfs.foundation.checks.MAX_INT_BITS` bits; the first schema violation
            (the message names the argument and the bad value; a ``budget`` out of range, the call's one fault,
            names the same call with the nearest budget in range); a text that is not valid UTF-8 (a lone surrogate);
            a ``handle``, ``key`` or ``ttl`` the store refuses (:data:`_NAMED`); an argument given empty that the
            tool refuses empty, after every other fault (the message names the call that works:
            :func:`~scratchfs.api.empty_arguments.empty_refusal`).
    """
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
    check_shape(name, arguments)
    _check_argument_names(name, list(spec.input_schema["properties"]), arguments)
    if name == "read_handle" and "context" in arguments:  # one message naming both forms (null included)
        given = arguments["context"]
        check_context(integral(given))
    errors = list(_validator(name).iter_errors(arguments))
    empty = _refused_empty(arguments, errors, spec.input_schema.get("required", ()))  # (told with the call that works)
    error = best_match(e for e in errors if not (e.absolute_path and e.absolute_path[0] in empty))
    if error is not None:
        where = ".".join(str(p) for p in error.absolute_path)
        message = error.message
        if error.validator == "maxLength":  # jsonschema's message repeats the whole value
            message = f"{len(error.instance)} characters, longer than the limit of {error.validator_value}"
        elif error.validator == "type":  # (jsonschema's message shows Python's repr: {'a': True}, None)
            types = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
            message = f"{json_shown(error.instance, _MESSAGE_CHARS // 2)} is not of type {', '.join(map(repr, types))}"
            message += _STORES_TEXT if (name, where) == ("scratch_write", "value") else ""
        elif len(message) > _MESSAGE_CHARS:
            message = message[: _MESSAGE_CHARS - 3] + "..."
        head = f"{name}: {where + ': ' if where else ''}{message}"
        if not (errors == [error] and where == "budget" and error.validator in ("minimum", "maximum")):
            raise InvalidArgument(head)
        try:  # (its call named only when it is the one fault: "notes" for a handle, a key's NUL are others)
            _check_texts_and_names(name, arguments, empty)
        except InvalidArgument:
            raise InvalidArgument(head) from None
        raise InvalidArgument(_budget_advice(name, arguments, head))
    _check_texts_and_names(name, arguments, empty)
    return {k: integral(v) if _takes_integers(spec.input_schema["properties"][k]) else v for k, v in arguments.items()}


def check_not_empty(name: str, arguments: Mapping[str, Any]) -> None:
    """Refuse the arguments of a call of tool ``name`` given empty that :func:`check_arguments` refuses so (its
    schema's least length or items, a handle, a jq filter or selector of white space), as it refuses them, for a
    call that is not checked against the schema (a face's Python method called directly); the others unchecked.

    Raises:
        InvalidArgument: :func:`~scratchfs.api.empty_arguments.empty_refusal`'s, naming the call that works.
    """
    given = {k: arguments[k] for k in empty_arguments(arguments)}
    required = TOOL_SPECS[name].input_schema.get("required", ())
    if given and (empty := _refused_empty(given, list(_validator(name).iter_errors(given)), required)):
        raise empty_refusal(name, arguments, empty)


def _validator(name: str) -> Any:
    """The schema validator of tool ``name`` (made once)."""
    from jsonschema import Draft202012Validator

    validator = _VALIDATORS.get(name)
    if validator is None:
        validator = _VALIDATORS[name] = Draft202012Validator(TOOL_SPECS[name].input_schema)
    return validator


def _refused_empty(arguments: Mapping[str, Any], errors: list[Any], required: Iterable[str] = ()) -> list[str]:
    """The names of ``arguments`` given empty that the tool refuses so: a handle, a jq filter or selector (white
    space alone), and those the schema ``errors`` name (a least length or number of items). An empty list given
    for a ``required`` argument other than a key, of a type it is not (scratch_write's ``value=[]``), is left to
    its type error: the call without it, which the empty refusal would name, is refused in turn."""
    return [k for k in empty_arguments(arguments) if k in ("handle", "jq", "select") or any(
        list(e.absolute_path) == [k] and not (e.validator == "type" and k in required and k != "key")
        for e in errors)]


_KEY_WORDS = dict.fromkeys(("name", "id", "path", "title", "key_name"), "key")  # (a scratchpad key's other names)
_MEANT: dict[str, dict[str, str]] = {"read_handle": {
    **dict.fromkeys(("regex", "regexp", "re", "grep"), "pattern"),
    **dict.fromkeys(("query", "search", "find", "needle", "substring"), "match"),
    **dict.fromkeys(("start", "from", "position", "pos", "skip"), "offset"),
    **dict.fromkeys(("case_insensitive", "insensitive", "icase", "nocase"), "ignore_case"),
    **dict.fromkeys(("filter", "jq_filter", "query_jq"), "jq"),
    **dict.fromkeys(("selector", "css", "css_selector"), "select"),
    **dict.fromkeys(("id", "handle_id"), "handle"),
}, "scratch_write": {
    **dict.fromkeys(("content", "contents", "text", "data", "body", "note", "notes", "val"), "value"),
    **_KEY_WORDS, **dict.fromkeys(("expires_in", "expiry", "expire", "ttl_seconds", "lifetime", "ttl_s"), "ttl"),
}, "scratch_read": _KEY_WORDS, "scratch_delete": _KEY_WORDS, "scratch_list": {
    **dict.fromkeys(("page_size", "max", "max_results", "max_keys", "count", "n"), "limit"),
    **dict.fromkeys(("starts_with", "startswith", "key_prefix"), "prefix"),
}}
"""The arguments a model often writes under another tool's name (``regex`` for ``pattern``, ``query`` for ``match``,
``content`` for ``scratch_write``'s ``value``), which no spelling distance finds."""
_NAMES_SHOWN = 5  # unknown argument names a refusal echoes (a call may hold thousands)


def meant_argument(given: str, known: Iterable[str], tool: str | None = None) -> str | None:
    """The argument of ``known`` an unknown name ``given`` likely means: a near spelling
    (:func:`~scratchfs.foundation.checks.closest`), after the name ``tool`` takes for it when the name is another
    tool's (:data:`_MEANT`: ``regex`` is ``read_handle``'s ``pattern``; ``title``, near ``ttl``, is
    ``scratch_write``'s ``key``), else ``None``. Every face's refusal of an
    unknown argument asks it: MCP's and the adapter's arguments, the web API's query parameters, the CLI's options."""
    known = list(known)
    meant = _MEANT.get(tool or "", {}).get(given.casefold())  # (the tool's own word first: "title" is a key)
    meant = meant if meant in known else closest(given, known)
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
        key: str | None = None  # (the value itself, as a key, when it makes a short one)
        if repeatable(value):
            with contextlib.suppress(InvalidArgument):
                key = check_key(value)
        if key is not None:
            raise InvalidArgument(Advice.of(refused, "; a scratchpad value is read with ",
                                            Call.of("scratch_read", key=key))) from None
        raise InvalidArgument(Advice.of(refused, "; a scratchpad value is read by its key, one of those ",
                                        Call.of("scratch_list"), " lists, with scratch_read(key=<that key>) (this "
                                        "value is too long or too strange to repeat as one)")) from None


_NAMED: dict[str, Any] = {"handle": _check_tool_handle, "key": check_key,
                          "ttl": lambda ttl: check_ttl(ttl, DEFAULT_TTL)}
"""The checks the store makes of an argument beyond its schema (a handle's shape, a key's bytes and characters, a
ttl's finiteness), made by :func:`check_arguments` with the store's own functions: a call with a bad one is told so
at once, even while the store cannot be reached (an outage, :mod:`scratchfs.api.deferred_store`)."""


def _check_texts_and_names(name: str, arguments: Mapping[str, Any], empty: list[str]) -> None:
    """:func:`check_arguments`' checks after the schema's: every text valid UTF-8, the store's checks of a handle,
    a key or a ttl (:data:`_NAMED`), then the arguments given ``empty``, refused naming the call that works."""
    for k, v in arguments.items():  # every text, lists' items too, before anything measures or encodes it
        check_utf8(v, f"{name}: {k}")
    for k, check in _NAMED.items():  # what the store checks of a name or a ttl, told before the store is reached
        if arguments.get(k) is not None and k not in empty:
            check(arguments[k])
    if empty:
        raise empty_refusal(name, arguments, empty)


def _budget_advice(name: str, arguments: Mapping[str, Any], head: str) -> Advice:
    """``head`` (the refusal of a ``budget`` out of range, the call's one fault) and the same call with the nearest
    budget in range: ``...: budget: 100 is less than the minimum of 2048; within it: read_handle(..., budget=2048)``
    (shown in words when the call is long)."""
    budget = min(max(arguments["budget"], MIN_REPLY_BYTES), MAX_REPLY_BYTES)
    given = {k: integral(v) for k, v in arguments.items()}  # (row=1.0)
    call = Call.of(name, **{**given, "budget": budget}).shown_when_long(f"the same call with budget={budget}")
    return Advice.of(head, "; within it: ", call)


def _takes_integers(schema: dict[str, Any]) -> bool:
    """The argument takes integers (its schema's type, or one of its ``anyOf`` forms')."""
    return schema.get("type") == "integer" or any(form.get("type") == "integer" for form in schema.get("anyOf", ()))


def check_shape(name: str, arguments: Mapping) -> None:
    """Refuse what the schema's checks and messages cannot take: argument names that are not text, nesting deeper
    than :data:`MAX_ARGUMENT_DEPTH` (a recursion error), integers past ``MAX_INT_BITS`` bits (not printable) and
    values of no JSON type (a complex number passed the schema's type check as a number and failed its ``minimum``,
    a TypeError). Iterative, so any depth (a list that holds itself included) is cheap to refuse.

    Raises:
        InvalidArgument: ``"<name>: <argument>: ..."`` (the argument holding the value refused), or ``"<name>: an
            argument name must be text ..."``.
    """
    for key in arguments:
        if not isinstance(key, str):
            raise InvalidArgument(f"{name}: an argument name must be text, not {type(key).__name__}: {shorten(key)}")
    stack: list[tuple[str, object, int]] = [(key, value, 1) for key, value in arguments.items()]
    while stack:
        where, value, depth = stack.pop()
        if not isinstance(value, (str, int, float, list, tuple, Mapping)) and value is not None:
            raise InvalidArgument(f"{name}: {where}: {type(value).__name__} is no JSON value (text, a number, true or "
                                  "false, null, a list or an object)")
        if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
            raise InvalidArgument(f"{name}: {where}: an integer of {value.bit_length()} bits, out of range")
        if isinstance(value, (list, tuple, Mapping)):
            if depth >= MAX_ARGUMENT_DEPTH:
                raise InvalidArgument(f"{name}: {where}: nested more than {MAX_ARGUMENT_DEPTH} levels deep")
            items = value.values() if isinstance(value, Mapping) else value
            stack.extend((where, item, depth + 1) for item in items)


__all__ = ["MAX_ARGUMENT_DEPTH", "TOOL_SPECS", "ToolSpec", "check_arguments", "check_not_empty", "check_shape",
           "meant_argument", "tool_specs"]
