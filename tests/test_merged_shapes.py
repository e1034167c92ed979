"""A stub's shape describes an array's items (and JSON lines' records) from a sample of them merged, never from the
first alone; and a table's, JSON's or a page's shape counts its bytes that are not UTF-8, as a text's does (a new
user's trial, 2026-12-04: ``tags: array(0)`` over 3,000 items holding 0 to 2 tags; ``price: {amount: int, cur: str}``
with half the items lacking ``cur``; a Latin-1 CSV said nothing of its 600 bytes every read shows as U+FFFD)."""

from __future__ import annotations

import itertools
import json
import re
import time
from pathlib import Path

import pytest

from scratchfs.api.contract import ScratchTools
from scratchfs.api.shape import describe
from scratchfs.api.shape_words import MAX_SHAPE_CHARS
from tests.cpu_time import best_cpu_and_result


def shape_of(data: bytes) -> str:
    return describe(data, len(data), data.count(b"\n") + (data[-1:] != b"\n")).text


def test_array_lengths_are_a_range_over_the_items(scope):
    data = json.dumps({"items": [{"id": i, "tags": ["a", "b"][: i % 3]} for i in range(3000)]}).encode()
    shape = scope.spill(data, source_tool="api.list").shape
    assert "items: array(3000) of {id: int, tags: array(0-2) of str}" in shape, shape


def test_a_key_only_the_first_item_holds_is_optional():
    items = [{"id": i, **({"tags": ["x"] * 5} if i == 0 else {})} for i in range(3000)]
    assert "array(3000) of {id: int, tags?: array(5) of str}" in shape_of(json.dumps({"items": items}).encode())


def test_a_nested_key_some_items_lack_is_optional():
    items = [{"id": i, "price": {"amount": i, **({"cur": "EUR"} if i % 2 else {})}} for i in range(3000)]
    assert "price: {amount: int, cur?: str}" in shape_of(json.dumps({"items": items}).encode())


def test_a_key_that_only_an_item_past_the_sample_holds_is_named_and_optional():
    items = [{"id": i} for i in range(3000)]
    items[1234]["rare"] = True
    assert "array(3000) of {id: int, rare?: bool}" in shape_of(json.dumps({"items": items}).encode())


def test_differing_kinds_are_joined():
    shape = shape_of(json.dumps([{"id": i, "v": None if i % 3 else i} for i in range(100)]).encode())
    assert shape == "JSON array of 100 items; items: id: int, v: int|null", shape


def test_the_last_item_is_in_the_sample():
    items = [{"id": i, "note": None} for i in range(5000)]
    items[-1]["note"] = "last"
    assert "note: null|str" in shape_of(json.dumps(items).encode())
    from scratchfs.api.shape_merge import sampled
    picked = sampled(list(range(5000)))
    assert picked[0] == 0 and picked[-1] == 4999 and max(b - a for a, b in itertools.pairwise(picked)) < 5000 // 8


def test_json_lines_records_are_merged_too():
    rows = [{"id": i, "tags": ["a", "b"][: i % 3], "score": 1.5 if i % 2 else None} for i in range(300)]
    shape = shape_of("\n".join(map(json.dumps, rows)).encode())
    assert "record keys: id: int, tags: array(0-2) of str, score: null|float" in shape, shape


# (no `alone` mark: a bound of CPU time, which the other worker's test leaves as it is)
def test_the_merge_stays_within_its_budget_and_the_cap():
    from scratchfs.api.shape_merge import MERGE_VALUES, merged_items
    deep = [{"a": [{"b": [{"c": [{"d": list(range(50))}] * 50}] * 50}] * 50} for _ in range(200)]  # (shared lists)
    # 50**4 values in each item: the budget stops the visit
    spent, merged = best_cpu_and_result(lambda: merged_items(deep), runs=1, clock=time.process_time)
    assert spent < 0.1
    assert "object" in merged.kinds and merged.present is not None
    wide = [{f"k{j}": [j] * (i % 4) for j in range(400)} for i in range(30)]
    shape = shape_of(json.dumps({"rows": wide, "nested": [{"a": [{"b": [i] * (i % 5)}]} for i in range(99)]}).encode())
    assert len(shape) <= MAX_SHAPE_CHARS and "rows: array(30) of object(400 keys: k0: array(0-3)" in shape, shape
    assert MERGE_VALUES <= 5000


@pytest.mark.parametrize(("data", "kind"), [
    ("".join(f"Müller;Straße {i}\n" for i in range(300)).encode("latin-1"), "csv"),
    (("name,city\n" + "".join(f"Jürgen,Köln{i}\n" for i in range(300))).encode("latin-1"), "csv"),
    (json.dumps({"a": "Müller" * 100}, ensure_ascii=False).encode("latin-1"), "json"),
    ("\n".join(json.dumps({"a": "Müller"}, ensure_ascii=False) for _ in range(50)).encode("latin-1"), "jsonl"),
    (("USER       PID %CPU COMMAND\n" + "".join(f"jörg    {i:5d}  0.0 /usr/bin/prög\n" for i in range(30))).encode(
        "latin-1"), "text"),
])
def test_shapes_of_tables_and_json_count_bytes_not_utf8(scope, data, kind):
    stub = scope.spill(data, source_tool="cat")
    invalid = data.decode("utf-8", "replace").count("\ufffd")
    assert stub.content_type == kind
    assert stub.shape.endswith(f"; {invalid:,} bytes not UTF-8 (shown as U+FFFD)"
                               ', encoding="latin-1" reads them as Latin-1'), stub.shape  # (branch members)
    tools = ScratchTools(scope)  # and the reads the note names do show them as U+FFFD
    read = {"csv": {"row": 1, "rows": 2}, "json": {"jq": "keys"}, "jsonl": {"record": 1, "records": 2},
            "text": {"row": 1, "rows": 2}}[kind]
    reply = tools.read_handle(stub.handle, **read)
    assert "\ufffd" in json.dumps(reply, ensure_ascii=False) or kind == "json"
    if kind == "json":
        assert "\ufffd" in json.dumps(tools.read_handle(stub.handle, jq=".a"), ensure_ascii=False)


def test_a_latin1_page_says_how_its_text_view_decodes_it(scope):
    page = ("<html><title>Café</title><body>" + "Café " * 100 + "</body></html>").encode("latin-1")
    stub = scope.spill(page, source_tool="browser.get")
    assert stub.shape.endswith('; 101 bytes not UTF-8 (shown as U+FFFD), which view="text" decodes as windows-1252, '
                               'as a browser does'), stub.shape
    assert "Café Café" in ScratchTools(scope).read_handle(stub.handle, view="text")["text"]


def test_a_shape_cut_by_the_cap_keeps_its_count_of_bytes_not_utf8():
    header = ";".join(f"column_{i}_Ä" for i in range(200))
    data = (header + "\n" + ";".join("x" * 200) + "\n").encode("latin-1")
    shape = shape_of(data)
    assert len(shape) <= MAX_SHAPE_CHARS and shape.endswith(
        'bytes not UTF-8 (shown as U+FFFD), encoding="latin-1" reads them as Latin-1'), shape


def _line_reads(note: str) -> list[tuple[int, int]]:
    return [(int(line), int(lines or 50))  # (lines=50, the default, left out since advice4)
            for line, lines in re.findall(r"line=(-?\d+)(?:, lines=(\d+))?\)", note)]


def _long_tail(count: int = 30, width: int = 500) -> bytes:
    """``ps aux`` output whose last lines are long (a COMMAND line's arguments): the average is no guide to them."""
    head = "".join(f"root {i:5d}  0.0  0.0      0     0 ?  S  10:00  0:00 [kworker/{i}]\n" for i in range(200))
    tail = "".join(f"app  {i:5d}  0.1  0.4 123456  7890 ?  Sl 10:00  0:01 /usr/bin/java -cp {'x' * width}\n"
                   for i in range(count))
    return ("USER         PID %CPU %MEM    VSZ   RSS TTY STAT START TIME COMMAND\n" + head + tail).encode()


@pytest.mark.parametrize("mode", ["head", "head+tail"])
def test_the_line_reads_a_stub_names_each_fit_one_reply(scope, mode):
    data = _long_tail()
    stub = scope.spill(data, source_tool="ps", preview=mode)
    reads = _line_reads(stub.note)
    assert reads and (mode == "head+tail" or any(line < 0 for line, _ in reads)), stub.note
    tools = ScratchTools(scope)
    for line, lines in reads:
        reply = tools.read_handle(stub.handle, line=line, lines=lines)
        assert reply["lines"] == lines and not reply.get("cut"), (line, lines, reply.get("cut"))
        assert len(json.dumps(reply["data"], ensure_ascii=False).encode()) <= 4096 + 2, (line, lines)
        assert reply["next_line"] is None or line > 0, reply["next_call"]  # (the last lines: all of them at once)


def test_a_head_read_is_sized_from_the_lines_it_reads(scope):
    data = ("".join(f"{i}\n" for i in range(100)) + "".join(f"{i} {'y' * 900}\n" for i in range(40))
            + "".join(f"{i}\n" for i in range(5000))).encode()
    stub = scope.spill(data, source_tool="cat")  # the preview stops before the long lines; the average is 14 bytes
    (line, lines), *_ = _line_reads(stub.note)
    reply = ScratchTools(scope).read_handle(stub.handle, line=line, lines=lines)
    assert not reply.get("cut") and len(reply["data"].encode()) <= 4096 + lines, (line, lines)


def test_no_read_of_the_last_lines_when_the_last_line_alone_is_longer_than_a_read(scope):
    data = ("".join(f"line {i}\n" for i in range(2000)) + "z" * 6000 + "\n").encode()
    stub = scope.spill(data, source_tool="cat")
    assert all(line > 0 for line, _ in _line_reads(stub.note)), stub.note


def test_records_wider_than_twelve_keys_name_each_key_with_its_kind(scope):
    # pip inspect | jq -c '.installed[] | .metadata | del(.description)' (modeltask4): records of 4 to 16 keys, 19
    # in all; was "record keys: metadata_version: str, name, version, summary, …" (past 12 keys an object was taken
    # for a map: its first key's value and three names), so requires_dist, the key a model's filter needs, unnamed
    data = (Path(__file__).resolve().parent.parent / "fixtures" / "tools" / "pip-inspect-jq-c-metadata.jsonl"
            ).read_bytes()
    records = [json.loads(line) for line in data.splitlines()]
    keys = list(dict.fromkeys(key for record in records for key in record))
    assert len(keys) == 19 and max(map(len, records)) > 12
    shape = shape_of(data)
    assert shape.startswith("JSON lines, 12 records; record keys: metadata_version: str, name: str, "), shape
    said = re.findall(r", ([a-z_]+)(\??): ", ", " + shape.split("record keys: ", 1)[1])
    assert said == [(key, "" if all(key in record for record in records) else "?") for key in keys]
    assert "requires_dist?: array(1-32) of str" in shape
    handle = scope.spill(data, source_tool="jq").handle
    jq = '[.[] | select(any(.requires_dist[]?; startswith("referencing"))) | .name]'
    reply = ScratchTools(scope).call("read_handle", {"handle": handle, "jq": jq, "slurp": True})
    assert reply["results"] == [[record["name"] for record in records
                                 if any(dep.startswith("referencing") for dep in record.get("requires_dist", []))]]
    assert reply["results"] == [["jsonschema-specifications", "jsonschema-path"]]
