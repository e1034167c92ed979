"""The OpenAPI schema of the read replies (:mod:`scratchfs.web.openapi`) is true to every reply, checked on real
replies of every read form with ``jsonschema`` -- each against its own form's schema (not only the route's
``anyOf``, whose structure member takes any object with a handle), every key it sends named there
(``additionalProperties`` false, added here). Before: the search schema required ``next_offset``, which a search
from the end (``before=``) never sends (it sends ``next_before``); a count had no schema; a range and a line read sent
``"remaining": 0`` beside ``next_offset: null`` at their end, where a finished search leaves ``remaining`` out."""

from __future__ import annotations

import copy

import pytest
from jsonschema import Draft202012Validator

from scratchfs.api.contract import ScratchTools
from scratchfs.web import openapi

TEXT = b"".join(b"line %d: caf\xc3\xa9 of the log\n" % n for n in range(1, 2001))


def _strict(schema: dict) -> dict:
    """``schema`` with every object that lists its properties closed to others."""
    schema = copy.deepcopy(schema)

    def close(node: object) -> None:
        if isinstance(node, dict):
            if node.get("type") == "object" and "properties" in node:
                node.setdefault("additionalProperties", False)
            for value in node.values():
                close(value)
        elif isinstance(node, list):
            for value in node:
                close(value)

    close(schema)
    return schema


@pytest.fixture
def tools(scratch_scope):
    return ScratchTools(scratch_scope)


def _check(schema: dict, reply: dict) -> None:
    errors = [e.message for e in Draft202012Validator(_strict(schema)).iter_errors(reply)]
    assert not errors, (errors, reply)


@pytest.mark.parametrize("arguments", [
    {"offset": 0, "length": 100}, {"offset": len(TEXT) - 50}, {"offset": 5, "length": 30, "end": 40},
    {"offset": 0, "length": 100, "encoding": "latin-1"}, {"offset": 0, "length": 10, "budget": 4096},
])
def test_range_replies(tools, scratch_scope, arguments):
    handle = scratch_scope.spill(TEXT).handle
    _check(openapi.RANGE, tools.call("read_handle", {"handle": handle, **arguments}))
    binary = scratch_scope.spill(bytes(range(256)) * 40).handle
    _check(openapi.RANGE, tools.call("read_handle", {"handle": binary, "offset": arguments["offset"] % 10240}))


@pytest.mark.parametrize("arguments", [
    {"line": 1, "lines": 5}, {"line": -3, "lines": 3}, {"line": -5000, "lines": 2}, {"line": 1990, "lines": 50},
    {"offset": 10, "lines": 2}, {"line": 1, "lines": 3, "end": 60}, {"line": 1, "lines": 2, "encoding": "cp1252"},
])
def test_line_replies(tools, scratch_scope, arguments):
    handle = scratch_scope.spill(TEXT).handle
    _check(openapi.LINES, tools.call("read_handle", {"handle": handle, **arguments}))


@pytest.mark.parametrize("arguments", [
    {"match": "of the", "max_matches": 2}, {"match": "line 1999:", "max_matches": 5},
    {"match": "OF THE", "ignore_case": True, "max_matches": 1}, {"pattern": r"line \d+7:", "max_matches": 3},
    {"match": "of the", "before": len(TEXT), "max_matches": 2}, {"match": "line 1:", "before": 300},
    {"match": "of the", "offset": 100, "end": 400}, {"match": "nowhere"}, {"match": "of the", "context": "line"},
    {"match": "caf\u00e9", "encoding": "latin-1", "max_matches": 1},
])
def test_search_replies(tools, scratch_scope, arguments):
    handle = scratch_scope.spill(TEXT).handle  # (the web API's /read: whole lines' windows with their offsets)
    full = tools.call("read_handle", {"handle": handle, **arguments}, full_windows=True)
    _check(openapi.SEARCH, full)
    model = tools.call("read_handle", {"handle": handle, **arguments})
    if arguments.get("context") == "line":  # (the model's window of a whole line: its line and data alone)
        assert full["windows"] and all(w.keys() == {"line", "offset", "length", "match_offset", "match_length",
                                                    "data"} for w in full["windows"])
        full["windows"] = [{"line": w["line"], "data": w["data"]} for w in full["windows"]]
    assert model == full


@pytest.mark.parametrize("arguments", [
    {"match": "of the"}, {"pattern": "line 1\\d*:", "ignore_case": True}, {"match": "of the", "offset": 9, "end": 99},
])
def test_count_replies(tools, scratch_scope, arguments):
    handle = scratch_scope.spill(TEXT).handle
    _check(openapi.COUNT, tools.call("read_handle", {"handle": handle, **arguments, "count": True}))


@pytest.mark.parametrize("arguments", [{}, {"offset": 3, "length": 10}, {"offset": len(TEXT) - 5}])
def test_scratch_read_replies(tools, scratch_scope, arguments):
    scratch_scope.scratch_write("notes", TEXT)
    first = tools.call("scratch_read", {"key": "notes", **arguments})
    _check(openapi.SCRATCH_READ, first)
    if first["next_offset"] is not None:
        _check(openapi.SCRATCH_READ, tools.call("scratch_read", {"key": "notes", "offset": first["next_offset"]}))


def test_a_read_ends_as_a_search_does():
    """At their end a range, a line read, a count and a search all say it by next_offset null alone."""
    for schema in (openapi.RANGE, openapi.LINES, openapi.COUNT, openapi.SEARCH, openapi.SCRATCH_READ):
        assert "remaining" not in schema.get("required", []), schema
