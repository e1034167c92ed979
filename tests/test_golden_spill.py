"""What a spill tells the model does not change when the code that computes it gets faster (issue 16): the shape,
the stub's compact JSON, the listing preview and the binding payloads of several hundred contents are exactly those
recorded in ``tests/golden_spill.json.gz`` (see :mod:`tests.golden_spill`)."""

from __future__ import annotations

import json

import pytest

from tests import golden_spill

GOLDEN = golden_spill.load()
CONTENTS = dict([*golden_spill.fixture_contents(), *golden_spill.generated_contents()])
RECORDS = [r for r in GOLDEN if r["name"] != "bindings"]


def test_the_record_covers_every_kind_and_every_content():
    assert [r["name"] for r in RECORDS] == list(CONTENTS)
    kinds = {r["content_type"] for r in RECORDS}
    assert kinds >= {"json", "jsonl", "csv", "html", "xml", "log", "text", "binary"}
    assert len(RECORDS) >= 300
    assert sum(len(r["stubs"]) for r in RECORDS) >= 1000


@pytest.mark.parametrize("index", range(len(RECORDS)), ids=[r["name"] for r in RECORDS])
def test_shape_stub_and_listing_are_as_recorded(index):
    want = RECORDS[index]
    got = golden_spill.record(want["name"], CONTENTS[want["name"]], index)
    assert got["content_type"] == want["content_type"]
    assert got["shape"] == want["shape"]
    assert got.get("sample_shape") == want.get("sample_shape")
    assert got["listing"] == want["listing"]
    assert got["stubs"] == want["stubs"]


def test_binding_payloads_are_as_recorded():
    (want,) = [r for r in GOLDEN if r["name"] == "bindings"]
    assert [b.encode().decode("utf-8") for b in golden_spill.bindings()] == want["payloads"]


def test_a_spill_through_the_store_gives_the_recorded_stub_and_row(scope):
    """The whole write path (sampling while streaming, line counts from the frames, the row) gives the same stub
    (default preview, tool ``bash``) and the same row fields."""
    for want in RECORDS[::7]:
        content = CONTENTS[want["name"]]
        stub = scope.spill(content, source_tool="bash")
        assert stub.to_json().replace(stub.handle, golden_spill.HANDLE) == want["stubs"][0], want["name"]
        entry = scope.store.index.lookup(scope.run_id, scope.agent_id, "handle", stub.handle, scope.store.now())
        assert (entry.preview, entry.content_type, entry.shape) == (want["listing"], want["content_type"],
                                                                    want["shape"]), want["name"]
        assert (entry.size, entry.lines) == (len(content), json.loads(want["stubs"][0])["lines"])
