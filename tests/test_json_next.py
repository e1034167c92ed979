"""A JSON object's stub named ``jq="keys"`` when its shape already named every key (``JSON object, 2 keys: data:
array(400) of {id: int, name: str}, total: int``): a call that told the model nothing new. Its note names the read
into the largest value the shape names instead, and that read works and answers what jq answers."""

from __future__ import annotations

import json
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scratchfs.api.json_next import next_jq


def _named_jq(note: str) -> str:
    found = re.findall(r'jq="((?:[^"\\]|\\.)*)"', note)
    assert len(found) == 1, note
    return json.loads(f'"{found[0]}"')


def test_an_object_whose_shape_names_every_key_is_read_further_than_its_keys(scope):
    doc = {"data": [{"id": i, "name": f"item {i}"} for i in range(400)], "total": 400}
    stub = scope.spill(json.dumps(doc).encode(), source_tool="api.list")
    assert stub.shape.startswith("JSON object, 2 keys: data: array(400) of {id: int, name: str}, total: int")
    assert 'jq="keys"' not in stub.note and _named_jq(stub.note) == ".data[0]", stub.note
    assert scope.structure.jq(stub.handle, ".data[0]").items == [doc["data"][0]]


def test_the_fixtures_object_is_read_into_its_largest_key(scope, fixture_data):
    """The EC2 model: version, metadata, operations (298 keys), shapes (428 keys): keys of the shapes, which its
    shape elides, not the four its shape names."""
    stub = scope.spill(fixture_data["api-ec2-service-model.json"], source_tool="api.get")
    assert _named_jq(stub.note) == ".shapes | keys", stub.note
    keys = scope.structure.jq(stub.handle, ".shapes | keys", budget=65536).items[0]
    assert keys == sorted(json.loads(fixture_data["api-ec2-service-model.json"])["shapes"])


def test_shapes_that_do_not_name_every_key_keep_keys():
    assert next_jq("JSON object, 39 keys: a: array(300) of int, aa, aaa, aaaa, …") is None
    assert next_jq("JSON object, at least 4 keys (in the first 2.0 MiB of 9.0 MiB): a: int, b: int") is None
    assert next_jq("JSON object, 3 keys: a: array(300) of int, b: {c: int, d: …") is None  # (cut)
    assert next_jq("JSON object, 2 keys: ab…: array(3) of int, c: str(9 KiB)") == ".c"  # (never the shortened name)
    assert next_jq("JSON array of 3 items; items: int") is None and next_jq(None) is None


_NAMES = st.one_of(st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True),
                   st.text(st.characters(codec="utf-8", categories=("L", "N", "P", "Zs")), min_size=1, max_size=12))
_VALUES = st.one_of(
    st.integers(), st.none(), st.text(max_size=40),
    st.lists(st.integers(), min_size=1, max_size=40),
    st.lists(st.fixed_dictionaries({"id": st.integers(), "tag": st.text(max_size=8)}), min_size=1, max_size=40),
    st.dictionaries(_NAMES, st.integers(), min_size=1, max_size=30),
)


def _value_at(doc: dict, named: str):
    """What jq answers for ``named`` (``.key``, ``."key"``, then ``[0]`` or `` | keys``) over ``doc``, by Python."""
    found = re.fullmatch(r'\.(?:([A-Za-z_][A-Za-z0-9_]*)|("(?:[^"\\]|\\.)*"))(\[0\]| \| keys)?', named)
    assert found is not None, named
    value = doc[found.group(1) or json.loads(found.group(2))]
    return value[0] if found.group(3) == "[0]" else sorted(value) if found.group(3) else value


@given(doc=st.dictionaries(_NAMES, _VALUES, min_size=1, max_size=8), pad=st.integers(9000, 12000))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_the_read_a_note_names_answers_as_jq_does(scope, doc, pad):
    """Any object of a few keys, made large by one long string: the note's jq read is keys, or one that runs and
    whose answer is the value at the path it names (its first item, or its keys, sorted, as jq gives them)."""
    doc = {**doc, "zz_padding": "x" * pad}
    stub = scope.spill(json.dumps(doc, ensure_ascii=False).encode(), source_tool="t")
    named = _named_jq(stub.note)
    got = scope.structure.jq(stub.handle, named, budget=65536).items
    if named == "keys":
        assert got == [sorted(doc)] and next_jq(stub.shape) is None
        return
    assert got == [_value_at(doc, named)]


def test_a_key_of_a_lone_surrogate_is_spilled_and_never_named(scope):
    """``{"\\ud800": [...]}`` is JSON in ASCII bytes; its key, a lone surrogate, was named in the note's jq and the
    note's budget, encoding it as UTF-8, raised UnicodeEncodeError: the spill itself failed (found by helper
    hostile4). The note names another key's read, or keys."""
    doc = {"\ud800": [{"id": i} for i in range(50)], "a\udfffb": {"k": 1}, "pad": "x" * 10000}
    stub = scope.spill(json.dumps(doc).encode(), source_tool="t")
    assert _named_jq(stub.note) == ".pad", stub.note
    assert next_jq('JSON object, 2 keys: "\\ud800": array(50) of {id: int}, b: int') is None


_ANY_NAMES = st.one_of(_NAMES, st.text(max_size=12), st.sampled_from(
    ["a.b", "with space", "", "$__loc__", "and", "if", "reduce", "__loc__", "a: b", "a, b", "\\(1)", "nul\x00"]))


@given(doc=st.dictionaries(_ANY_NAMES, _VALUES, min_size=1, max_size=6), pad=st.integers(9000, 10000))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_any_key_a_note_names_reads_its_value(scope, doc, pad):
    """Keys of any text (control characters, quotes, jq's words, lone surrogates: the JSON text then in ASCII):
    the spill succeeds and the note's read answers the value at the path it names."""
    doc = {**doc, "zz_padding": "x" * pad}
    stub = scope.spill(json.dumps(doc).encode(), source_tool="t")
    named = _named_jq(stub.note)
    got = scope.structure.jq(stub.handle, named, budget=65536).items
    if named == "keys":
        assert got == [sorted(doc)]
        return
    assert got == [_value_at(doc, named)]
