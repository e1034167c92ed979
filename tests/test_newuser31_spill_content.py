"""newuser31: ``scope.spill`` given what a newcomer has at hand -- a ``Path``, a tool's ``dict`` or a ``list`` of
records -- is refused with words that say what to do next (open the file; spill the structure's JSON text, as
``offload`` does), never only "a content chunk must be bytes or str"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scratchfs import InvalidArgument, ScratchStore

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "fixtures" / "query-packages-by-month.csv"


@pytest.fixture
def scope(tmp_path):
    with ScratchStore(tmp_path / "store") as store:
        yield store.scope("run-1", "agent-1")


@pytest.mark.parametrize("path", [FIXTURE, Path("fixtures/query-packages-by-month.csv")])
def test_a_path_is_refused_naming_how_to_open_it(scope, path):
    with pytest.raises(InvalidArgument) as caught:
        scope.spill(path, source_tool="t")
    message = str(caught.value)
    assert "not PosixPath" in message
    assert "open(\"rb\")" in message  # the file's bytes: the call that spills it
    assert str(path) in message
    assert scope.store.list_entries_for_run("run-1") == []  # nothing stored


@pytest.mark.parametrize("value", [
    {"rows": 3},
    [{"name": "aiohttp", "month": "2026-11"}],
    ({"a": 1}, {"b": 2}),
    [1, 2, 3],
])
def test_a_structure_is_refused_naming_its_json_text_and_offload(scope, value):
    with pytest.raises(InvalidArgument) as caught:
        scope.spill(value, source_tool="t")
    message = str(caught.value)
    assert "json.dumps(" in message
    assert "offload" in message
    # what the advice gives is stored and reads back as the structure
    stub = scope.spill(json.dumps(value, ensure_ascii=False), source_tool="t")
    whole = b"".join(scope.iter_content("handle", stub.handle))
    assert json.loads(whole) == json.loads(json.dumps(value))


def test_chunks_of_bytes_and_text_still_spill_as_their_bytes(scope):
    stub = scope.spill([b"name,month\n", "aiohttp,2026-11\n"], source_tool="t")
    assert b"".join(scope.iter_content("handle", stub.handle)) == b"name,month\naiohttp,2026-11\n"
    with FIXTURE.open("rb") as file:  # the advice for a path
        stub = scope.spill(file, source_tool="t")
    assert stub.size == FIXTURE.stat().st_size
