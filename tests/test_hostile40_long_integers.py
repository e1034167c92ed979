"""hostile40: a JSON integer of more digits than Python's ``int()`` converts (``sys.get_int_max_str_digits``,
4,300 on 3.11) is valid JSON, and jq keeps it as written; but ``json``'s decoder raises ValueError on it, and every
place that tells JSON from what is not took that for "not JSON": JSON lines holding one were stored as a CSV with no
header (their row reads splitting records at commas), a one-line document as text, a JSON text of a stream and a
record were named "not JSON" in the shape, and ``slurp=true`` left the record out of jq's array. Each test here
failed before the fix (engine.structure.numbers.LongIntegers)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scratchfs.api.contract import ScratchTools
from scratchfs.engine.structure import numbers

TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"
LONG = "12345678901234567890" * 250  # 5,000 digits: past the 4,300 int() converts


def _records() -> list[str]:
    """dpkg-query's 60 packages as jq -c gives them, the 10th one's size a 5,000-digit integer."""
    lines = (TOOLS / "dpkg-query-jq.jsonl").read_text().splitlines()
    record = json.loads(lines[9])
    lines[9] = lines[9].replace(f'"kib":{record["kib"]},', f'"kib":{LONG},')
    assert LONG in lines[9]
    return lines


def test_long_integers_read_as_an_integer_and_all_else_as_json_reads_it():
    decoder = numbers.LongIntegers()
    assert decoder.decode('{"a": [1, -2.5, "x", null]}') == {"a": [1, -2.5, "x", None]}
    assert decoder.decode(f'{{"a": {LONG}, "b": [-{LONG}]}}') == {"a": 0, "b": [0]}
    assert decoder.raw_decode(f'[{LONG}] tail') == ([0], len(LONG) + 2)
    with pytest.raises(json.JSONDecodeError):
        decoder.decode(f'{{"a": {LONG},}}')
    with pytest.raises(ValueError, match="NaN is not JSON"):  # (a hook's own refusal is no long integer)
        numbers.LongIntegers(parse_constant=numbers.refuse_constant).decode(f"[{LONG}, NaN]")


def test_json_lines_holding_a_long_integer_are_json_lines(scratch_scope):
    stub = scratch_scope.spill(("\n".join(_records()) + "\n").encode(), source_tool="t")
    assert stub.content_type == "jsonl", stub.shape  # (was 'csv': 'CSV, 6 columns, no header, 60 rows')
    assert stub.shape.startswith("JSON lines, 60 records; record keys: package: str, version: str, kib: int"), (
        stub.shape)


def test_slurp_gives_jq_the_record_holding_a_long_integer(scratch_scope):
    records = _records()
    stub = scratch_scope.spill(("\n".join(records) + "\n").encode(), source_tool="t")
    reply = ScratchTools(scratch_scope).call("read_handle", {
        "handle": stub.handle, "slurp": True, "jq": "[length, (.[9].kib | tostring | length), .[9].package]"})
    assert reply["results"] == [[60, 5000, json.loads(records[9].replace(LONG, "0"))["package"]]], reply
    assert "not in the array" not in reply.get("note", "")


def test_a_document_holding_a_long_integer_is_json(scratch_scope):
    rows = json.loads((TOOLS / "sqlite-json-sizes.json").read_text())
    text = json.dumps(rows, separators=(",", ":")).replace(f'"kib":{rows[0]["kib"]},', f'"kib":{LONG},', 1)
    stub = scratch_scope.spill(text.encode(), source_tool="t")
    assert stub.content_type == "json" and stub.shape.startswith(f"JSON array of {len(rows)} items"), stub.shape


def test_a_stream_of_json_texts_holding_a_long_integer_names_none_not_json(scratch_scope):
    text = (TOOLS / "jq-pip-list-stream.json").read_text()
    documents = text.count('"name":')
    stub = scratch_scope.spill(text.replace('"version": "0.8.0"', f'"version": {LONG}', 1).encode(), source_tool="t")
    assert stub.shape.startswith(f"JSON texts one after another (a stream, as jq prints one; a jq= filter runs on "
                                 f"each), {documents} documents;"), stub.shape
    assert "not JSON" not in stub.shape


def test_the_web_json_tree_gives_a_long_integer_as_its_text(scratch_scope):
    # (was NotJson: 'the entry is not JSON: Exceeds the limit (4300 digits) for integer string conversion ...')
    from scratchfs.web.structure import json_tree  # (the web face: its extra installed with the tests' own)

    rows = json.loads((TOOLS / "sqlite-json-sizes.json").read_text())
    text = json.dumps(rows, separators=(",", ":")).replace(f'"kib":{rows[0]["kib"]},', f'"kib":{LONG},', 1)
    handle = scratch_scope.spill(text.encode(), source_tool="t").handle
    node = json_tree(scratch_scope, handle, "/0/kib")
    assert (node["type"], node["value"], node["text"]) == ("number", None, LONG), {k: str(v)[:80] for k, v in
                                                                                     node.items()}
    assert json_tree(scratch_scope, handle, "/1/kib")["value"] == rows[1]["kib"]
