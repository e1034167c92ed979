"""The OpenAPI schemas of a search's and a count's ``encoding`` are the enum of the range and line reads' (advice3):
before, a search window's ``encoding`` allowed only ``hexdump`` and ``text``, so a search with ``encoding="cp1252"``
(whose windows say ``"encoding": "cp1252"``) broke its own schema, and a search's and a count's echoed ``encoding``
took any string. And a count's ``remaining`` comes from the one rule the other replies use
(:meth:`~scratchfs.api.results.Bounded.left_from`), which the Python API's ``MatchCount.remaining`` gives too."""

from __future__ import annotations

import jsonschema
import pytest

from scratchfs.api.contract import ScratchTools
from scratchfs.api.counting import MatchCount
from scratchfs.api.search_reply import count_reply
from scratchfs.web.openapi import COUNT, LINES, RANGE, SEARCH, WINDOW

LATIN = b"".join(b"caf\xe9 au lait %d\n" % n for n in range(900))


@pytest.mark.parametrize("encoding", ["latin-1", "cp1252", "utf-16le", "utf-16be"])
def test_every_read_with_an_encoding_meets_its_schema(scratch_scope, encoding):
    tools = ScratchTools(scratch_scope)
    data = LATIN if "utf" not in encoding else LATIN.decode("latin-1").encode(encoding.replace("16", "-16-"))
    handle = scratch_scope.spill(data).handle
    replies = [
        (SEARCH, tools.call("read_handle", {"handle": handle, "match": "café", "encoding": encoding,
                                            "max_matches": 3})),
        (SEARCH, tools.call("read_handle", {"handle": handle, "match": "café", "encoding": encoding,  # (the web's:
                                            "before": len(data), "context": "line"}, full_windows=True)),  # offsets)
        (COUNT, tools.call("read_handle", {"handle": handle, "match": "café", "encoding": encoding, "count": True})),
        (RANGE, tools.call("read_handle", {"handle": handle, "length": 40, "encoding": encoding})),
        (LINES, tools.call("read_handle", {"handle": handle, "line": 2, "lines": 3, "encoding": encoding})),
    ]
    for schema, reply in replies:
        assert reply["encoding"] == encoding
        jsonschema.validate(reply, schema)
    assert {w["encoding"] for w in replies[0][1]["windows"]} == {encoding}
    lines = tools.call("read_handle", {"handle": handle, "match": "café", "encoding": encoding,
                                       "before": len(data), "context": "line"})["windows"]  # (the model's)
    assert lines == [{"line": w["line"], "data": w["data"], "encoding": encoding} for w in replies[1][1]["windows"]]
    assert lines[-1] == {"line": 900, "data": "caf\u00e9 au lait 899", "encoding": encoding}


@pytest.mark.parametrize("schema", [SEARCH, COUNT, WINDOW, RANGE, LINES])
def test_the_schemas_take_the_same_encodings_and_no_other(schema):
    allowed = set(schema["properties"]["encoding"]["enum"])
    assert {"latin-1", "cp1252", "utf-16le", "utf-16be"} <= allowed <= set(RANGE["properties"]["encoding"]["enum"])
    assert "utf-16" not in allowed and "UTF-8" not in allowed


def test_a_count_cut_by_its_time_bound_says_the_bytes_left_as_every_reply_does():
    counted = MatchCount("h_" + "a" * 24, "x", None, False, offset=100, size=1000, matches=3, lines=3,
                         next_offset=400, seconds=1.0, end=600)
    assert counted.remaining == 200 and count_reply(counted, 8192)["remaining"] == 200
    whole = MatchCount("h_" + "a" * 24, "x", None, False, offset=0, size=1000, matches=3, lines=3,
                       next_offset=None, seconds=1.0)
    assert whole.remaining == 0 and "remaining" not in count_reply(whole, 8192)
