"""The refusal of a tool call that gives an argument empty (``match=""``, ``jq=""``, ``key=""``, ``columns=[]``):
what the argument is for, and the call that works, as data (:class:`~scratchfs.foundation.calls.Call`) -- the same
call with the empty arguments left out (a search's own settings with its empty needle), or given their neutral
form (``jq="."``, jq's identity: what jq does with an empty program), or, for an empty key, ``scratch_list()``, which
names the keys in use. Before, each was ``read_handle: match: '' should be non-empty`` (jsonschema's words), which
says nothing of what to give instead (a new user's trial over MCP, 2026-12-05).

``python bench/error_sizes.py`` gives their sizes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scratchfs.foundation.calls import Advice, Call
from scratchfs.foundation.checks import empty_key
from scratchfs.foundation.errors import InvalidArgument

_SEARCH_SETTINGS = ("context", "max_matches", "before", "ignore_case", "count")
"""A search's own settings: left out with its needle when no needle is left (refused beside no search)."""
_BLANK_EMPTY = frozenset({"jq", "select"})
"""The arguments whose white space alone is empty."""
_WORDS: dict[str, str] = {
    "match": "empty text is found everywhere: give the text to find, or read without a search",
    "pattern": "an empty pattern matches everywhere: give the pattern to find, or read without a search",
    "jq": "jq's filter of the whole document is \".\" (an empty jq program is that)",
    "select": "a CSS selector names the elements to read (\"p\", \"h2\", \"table tr\"); the whole page's readable "
              "text",
    "cursor": "a cursor comes from a next_call (with the read's own arguments); the read from its start",
    "columns": "name the columns (names, or numbers from 0), or leave it out for every column",
}


def empty_arguments(arguments: Mapping[str, Any]) -> list[str]:
    """The names of ``arguments`` whose value is empty text or an empty list, in the order given; a ``jq`` filter
    or ``select`` selector of white space alone is empty too (the schema's ``minLength`` passes it; the read
    refused it, naming no call)."""
    return [name for name, value in arguments.items() if isinstance(value, (str, list)) and (len(value) == 0 or (
        name in _BLANK_EMPTY and isinstance(value, str) and not value.strip()))]


def empty_refusal(tool: str, arguments: Mapping[str, Any], empty: list[str]) -> InvalidArgument:
    """The refusal of a call of ``tool`` with ``arguments`` whose arguments ``empty`` (non-empty list of names)
    the tool refuses empty, naming the first (an empty handle or key before any other) and the call that works
    (see the module docstring). Returns the error; the caller raises it."""
    first = next((name for name in ("handle", "key") if name in empty), empty[0])  # (never echoed)
    head = f"{tool}: {first} is empty"
    if first == "key":
        return InvalidArgument(empty_key(head, "name the value" if tool == "scratch_write" else
                                         "a key names a scratchpad value"))
    if first == "handle" and tool == "read_handle":
        return InvalidArgument(Advice.of(head, *_empty_handle()))
    kept = {name: value for name, value in arguments.items() if name not in empty}
    if "jq" in empty:
        kept["jq"] = "."
    if "select" in empty and "view" not in kept:
        kept["view"] = "text"
    if not any(kept.get(needle) for needle in ("match", "pattern")):
        kept = {name: value for name, value in kept.items() if name not in _SEARCH_SETTINGS}
    call = Call.of(tool, **kept).shown_when_long(f"the same call without {', '.join(empty)}")
    words = _WORDS.get(first, "leave it out")
    return InvalidArgument(Advice.of(f"{head}: {words}: ", call))


def empty_needle(name: str, search: Call) -> InvalidArgument:
    """The refusal of a search (the Python API's, past the tools' check) whose needle ``name`` (``"match"`` or
    ``"pattern"``) is empty: ``search`` is the same search with a needle, whose read without a search
    (:data:`_SEARCH_SETTINGS` left out) it names. Returns the error; the caller raises it."""
    kept = {k: v for k, v in search.arguments if k not in ("match", "pattern", *_SEARCH_SETTINGS)}
    return InvalidArgument(Advice.of(f"{name} is empty: {_WORDS[name]}: ", Call.of(search.verb, **kept)))


def _empty_handle() -> list[str | Call]:
    """The words of an empty handle: what one is, and ``scratch_list()``, which names the keys in use."""
    return [": pass the handle (h_ and 24 letters or digits) of the stub a tool's result came back as, "
            "exactly; a scratchpad value is read by its key, one of those ", Call.of("scratch_list"), " lists"]


__all__ = ["empty_arguments", "empty_needle", "empty_refusal"]
