"""A JSON document's stub names the read into its top level from the kind its describer hands over
(:attr:`scratchfs.api.shape.Shape.top`), not from its shape's words read back (helper advice2, item 4): before,
``structure_call`` chose ``.[0]``, ``.[]`` or ``.KEY[]`` by ``shape.startswith("JSON array"/"JSON object")``."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs.api.shape import describe
from scratchfs.api.stub import build_stub

HANDLE = "h_" + "a" * 24
VALUES = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                      lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner,
                                                                                    max_size=4), max_leaves=12)


def _top(value: object) -> str | None:
    return "array" if isinstance(value, list) else "object" if isinstance(value, dict) else None


@settings(max_examples=150, deadline=None)
@given(VALUES, st.sampled_from([0, None, 2]))
def test_the_describer_hands_over_the_top_level_kind(value, indent):
    data = json.dumps(value, indent=indent).encode()
    shape = describe(data, len(data), data.count(b"\n") + 1)
    if shape.content_type == "json":
        assert shape.top == _top(value), shape


@pytest.mark.parametrize(("opening", "top"), [(b"[", "array"), (b"{", "object")])
def test_a_document_cut_by_the_sample_says_its_top_level(opening, top):
    body = b",".join(b'{"k": %d}' % i if opening == b"[" else b'"k%d": %d' % (i, i) for i in range(60000))
    data = opening + body  # (cut: no closing bracket, larger than the sample)
    shape = describe(data[:512 * 1024], len(data), 1)
    assert shape.content_type == "json" and shape.top == top, shape


def _note(shape_text: str, top: str | None, size: int) -> str:
    data = b"[1, 2, 3]"
    return build_stub(HANDLE, data, b"", size, 1, "json", shape_text, "t", 64, top=top).note


def test_the_note_reads_the_kind_handed_over_not_the_shape_words(monkeypatch):
    assert 'jq=".[0]"' in _note("a list of things", "array", 9_000)
    assert 'jq=".[0]"' not in _note("JSON array of 3 items", None, 9_000)  # (words are not read back)
    monkeypatch.setattr("scratchfs.api.stub_reads.MAX_JQ_DOCUMENT_BYTES", 1000)  # past the jq bound: paths stream
    assert 'jq=".[]"' in _note("a list", "array", 5_000)
    assert 'jq=".KEY[]"' in _note("a map", "object", 5_000)
    assert "jq=" not in _note("JSON object, 3 keys", None, 5_000)


def test_a_spilled_array_past_the_jq_bound_names_the_streamed_read(scratch_scope, monkeypatch):
    monkeypatch.setattr("scratchfs.api.stub_reads.MAX_JQ_DOCUMENT_BYTES", 1000)
    array = json.dumps([{"id": i} for i in range(2000)]).encode()
    assert 'jq=".[]"' in scratch_scope.spill(array, source_tool="api").note
    obj = json.dumps({"items": [{"id": i} for i in range(2000)]}).encode()
    assert 'jq=".KEY[]"' in scratch_scope.spill(obj, source_tool="api").note


def test_an_array_cut_by_the_sample_names_its_first_item_even_when_null():
    """A JSON array that runs past the sample and starts with null ended its shape in an empty clause, ``"...; "``
    (review revJ): its first item is said as any other's."""
    from scratchfs.api.shape import describe

    for first, said in ((b"null", "null"), (b"7", "int"), (b'{"k": 1}', "object with keys k")):
        data = b"[" + first + b', 1, 2, {"a": "' + b"x" * 600_000 + b'"}]'
        text = describe(data, len(data), 1).text
        assert text.endswith(f"; first item: {said}"), text
