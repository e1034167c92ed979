"""jsonnan1: a tool result that is a Python dict holding NaN or Infinity (pandas' ``to_dict`` of a missing value) is
stored as ``json.dumps`` writes it (``"stars": NaN``). It was described as "text, 1 line ... read it by range" and
``jq=`` refused it, though ``json.loads`` and jq both read it; such content is now a JSON document (JSON lines with
NaN records, JSON lines) for the shape, the stub's calls and every structure read (jq, records, slurp, the web tree),
the shape or the read's note saying once that it holds non-standard tokens. Other spellings (``nan``, ``+inf``),
which Python's ``json`` does not read, stay no JSON; the contract's arguments stay strict.

The rows are a real slice: ``fixtures/query-packages-by-month.csv`` read as pandas' ``read_csv(...).to_dict("records")``
would give it, with a ``stars`` column whose missing cells are NaN (and one infinite ``growth``)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from scratchfs.adapter import Offloader
from scratchfs.api.shape import describe
from scratchfs.api.tools import check_arguments
from scratchfs.engine.structure.numbers import CONSTANTS_SAID, constant_literals, load_exact
from scratchfs.foundation.errors import InvalidArgument

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "query-packages-by-month.csv"


def _records(count: int = 400) -> list[dict]:
    """pandas-like ``to_dict("records")`` of the fixture's first rows: every fifth ``stars`` missing (NaN), row 3's
    ``growth`` infinite."""
    with FIXTURE.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))[:count]
    return [{**row, "stars": float("nan") if i % 5 == 0 else float(i), "growth": float("inf") if i == 3 else 0.5}
            for i, row in enumerate(rows)]


def _read(offloader: Offloader, handle: str, **arguments) -> dict:
    reply = offloader.call_scratch_tool("read_handle", {"handle": handle, **arguments})
    assert not reply.is_error, reply.text
    return json.loads(reply.text)


def test_a_dict_holding_nan_is_a_json_document_read_by_jq(scratch_scope):
    offloader = Offloader(scratch_scope, default_class="query")
    records = _records()
    out = offloader.offload("packages", {"rows": records})
    assert out.stub is not None and out.stub.content_type == "json"
    stored = b"".join(scratch_scope.iter_content("handle", out.stub.handle)).decode()
    assert stored == json.dumps({"rows": records}, ensure_ascii=False) and '"stars": NaN' in stored
    assert out.stub.shape.startswith("JSON object, 1 key: rows: array(400) of {name: str, version: str")
    assert out.stub.shape.count(CONSTANTS_SAID) == 1 and "isnan" in out.stub.shape
    assert 'jq=".rows' in out.stub.note and "read it by range" not in out.stub.note  # (the stub's calls: jq's)
    first = _read(offloader, out.stub.handle, jq=".rows[0]")
    assert first["results"] == [{**{k: v for k, v in records[0].items() if k != "stars"}, "stars": None}]
    assert first["note"] == f"the document {CONSTANTS_SAID}"
    assert _read(offloader, out.stub.handle, jq=".rows[3].growth")["results"] == [1.7976931348623157e+308]
    missing = sum(1 for row in records if row["stars"] != row["stars"])
    assert _read(offloader, out.stub.handle, jq="[.rows[] | select(.stars | isnan)] | length")["results"] == [missing]
    assert missing == 80


def test_json_lines_with_nan_records_are_json_lines_for_every_read(scratch_scope):
    offloader = Offloader(scratch_scope, default_class="query")
    records = _records()
    out = offloader.offload("packages", "".join(json.dumps(row) + "\n" for row in records))
    assert out.stub is not None and out.stub.content_type == "jsonl"
    assert out.stub.shape.startswith("JSON lines, 400 records") and out.stub.shape.count(CONSTANTS_SAID) == 1
    page = _read(offloader, out.stub.handle, record=1, records=6)
    assert page["as_text"] == [0, 3, 5]  # (a record holding NaN as its text: strict JSON has no NaN to give)
    assert page["records"][0] == json.dumps(records[0]) and page["records"][1]["stars"] == 1.0
    assert _read(offloader, out.stub.handle, record=1, records=6, jq=".stars")["results"] == [None, 1, 2, 3, 4, None]
    slurped = _read(offloader, out.stub.handle, slurp=True, jq="map(select(.stars | isnan)) | length")
    assert slurped["results"] == [80] and "note" in slurped and CONSTANTS_SAID in slurped["note"]


def test_the_web_json_tree_gives_nan_and_infinity_as_their_text(scratch_scope):
    pytest.importorskip("starlette")
    from scratchfs.web.structure import json_tree  # (the web face: its extra installed with the tests' own)

    offloader = Offloader(scratch_scope, default_class="query")
    out = offloader.offload("packages", _records())
    children = {c["key"]: c for c in json_tree(scratch_scope, out.stub.handle, "/3")["children"]}
    assert children["growth"] == {"key": "growth", "path": "/3/growth", "type": "number", "value": None,
                                  "text": "Infinity"}
    node = json_tree(scratch_scope, out.stub.handle, "/0")
    assert {c["key"]: c.get("text") for c in node["children"]}["stars"] == "NaN"
    assert node["note"].startswith(f"the document {CONSTANTS_SAID}")


@pytest.mark.parametrize("text", ['{"a": nan, "b": 1}', '{"a": +Infinity}', '{"a": inf}'])
def test_other_spellings_are_no_json(text):
    """``nan``, ``+Infinity``, ``inf``: jq reads them, Python's json does not -- no JSON here either."""
    data = ("\n".join([text] * 2000) + "\n").encode()
    assert describe(data, len(data), 2000).content_type not in ("json", "jsonl")
    assert constant_literals(text)[0] is None and constant_literals(text)[1] is not None
    with pytest.raises(ValueError):
        load_exact(text)


def test_nan_in_a_string_or_a_key_is_no_token():
    data = json.dumps([{"NaN": "Infinity", "n": i} for i in range(2000)]).encode()
    shape = describe(data, len(data), 1)
    assert shape.content_type == "json" and CONSTANTS_SAID not in shape.text


def test_the_contracts_arguments_stay_strict():
    with pytest.raises(InvalidArgument):
        check_arguments("read_handle", {"handle": "h_x", "offset": float("nan")})


def test_a_null_answer_over_records_with_a_deep_one_names_keys_not_a_nesting_error(scratch_scope):
    """A slurp whose answer holds null (a NaN record's, or a plain null's) looks up the keys the filter names in a
    sample of the records; a record nested deeper than Python parses raised RecursionError there, and the whole
    read was refused as "nested too deeply" though slurp passes over that record."""
    from scratchfs.api.contract import ScratchTools

    lines = [json.dumps({"n": i}) for i in range(40)] + ["[" * 100_000, '{"n": null}']
    stub = scratch_scope.spill("\n".join(lines) + "\n", source_tool="pip")
    reply = ScratchTools(scratch_scope).call("read_handle", {"handle": stub.handle, "jq": "map(.n)", "slurp": True})
    assert reply["results"] == [[*range(40), None]] and "1 record could not be read" in reply["note"], reply


def test_a_path_read_past_the_jq_bound_gives_nan_as_its_text(monkeypatch):
    """A document past the jq bound streams path reads (jsonscan): its scanner refused NaN as "a value expected"
    though the shape called the document JSON; each such value is now given as its text (``as_text``)."""
    from scratchfs.engine.structure import BytesSource, jq_page, jsondoc

    rows = _records(60)
    data = json.dumps({"rows": rows, "n": 60}).encode()
    monkeypatch.setattr(jsondoc, "MAX_JQ_DOCUMENT_BYTES", 0)
    page = jq_page(BytesSource(data), ".rows[].stars").to_dict()
    assert page["results"] == ["NaN" if i % 5 == 0 else float(i) for i in range(60)]
    assert page["as_text"] == list(range(0, 60, 5)) and "NaN" in page["note"]
    assert jq_page(BytesSource(data), ".rows[3].growth").to_dict()["results"] == ["Infinity"]
    assert jq_page(BytesSource(data), ".n").to_dict()["results"] == [60]  # (past every NaN: the scan goes on)
