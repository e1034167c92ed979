"""JSON lines with a record cut short in the middle (helper jsonl9, from newuser9's trial: ``pip list``-like
records, record 501 cut inside a string). jq takes the newline into the open string and reports the NEXT line, so
the jq read named record 502 (and a cut next-to-last record was called "the last", ending the read before the real
last one); a slurp read refused the whole content, where the stub, the records read and a slurp read of JSON texts
or CSV pass over the bad item, named; and that refusal's read-on call (``record=502, records=10000``) dropped the
jq filter. Now the record where the broken one starts is named, and slurp passes over each bad record, named, as
the records read does. Every call a reply names is followed through ``read_handle`` and asserted to answer."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scratchfs.adapter import parse_call
from scratchfs.api.contract import ScratchTools
from scratchfs.engine.structure.paging import BytesSource
from scratchfs.engine.structure.row_jump import broken_start
from scratchfs.engine.structure.slurp import slurp_page
from scratchfs.foundation.errors import InvalidArgument

COUNT = 300
CUTS = {  # (a record cut short, as the bad record's line: each makes jq report a later line)
    "string": '{"n": %d, "name": "package-',
    "after a colon": '{"n": %d, "name": ',
    "open bracket": '{"n": %d, "tags": ["a", ',
}


def _content(bad: dict[int, str]) -> bytes:
    """COUNT records ``{"n": i, ...}``, those whose index is in ``bad`` replaced by that line."""
    return "".join((bad[i] if i in bad else json.dumps({"n": i, "name": f"package-{i}"})) + "\n"
                   for i in range(COUNT)).encode()


def _calls(text: str) -> list[dict]:
    return [parse_call(call)[1] for call in re.findall(r'read_handle\((?:[^()"]|"(?:[^"\\]|\\.)*")*\)', text)]


def _follow(tools: ScratchTools, arguments: dict) -> list:
    """Every output of a read, following next_call to its end; every other call a reply names is run and must
    answer."""
    out = []
    while True:
        reply = tools.call("read_handle", arguments)
        for call in reply.get("calls", []):
            assert tools.call("read_handle", call["arguments"])  # (the byte read that shows a record passed over)
        out += reply.get("results", reply.get("records", []))
        if reply["next_call"] is None:
            return out
        _, arguments = parse_call(reply["next_call"])


@pytest.fixture
def tools(scratch_scope):
    return ScratchTools(scratch_scope)


def _jq_to_failure(tools: ScratchTools, arguments: dict) -> tuple[list, str]:
    """The outputs of a jq read page by page up to the page or refusal that names the parse error, and its text."""
    out = []
    while True:
        try:
            reply = tools.call("read_handle", arguments)
        except InvalidArgument as exc:
            return out, str(exc)
        out += reply["results"]
        if "not JSON" in (reply.get("note") or ""):
            return out, reply["note"]
        assert reply["next_call"] is not None, reply
        _, arguments = parse_call(reply["next_call"])


@pytest.mark.parametrize("cut", sorted(CUTS))
@pytest.mark.parametrize("where", [0, 150, COUNT - 2])
def test_a_record_cut_short_is_named_where_it_starts_and_the_read_on_reads_every_other(tools, scratch_scope,
                                                                                         cut, where):
    """jq said line ``where + 2`` and named record ``where + 2`` (for the next-to-last record: "the last, is not
    JSON", the read ending before the real last one); now record ``where + 1``, whose read passes over it, named."""
    stub = scratch_scope.spill(_content({where: CUTS[cut] % where}), source_tool="pip")
    assert stub.content_type == "jsonl", stub.shape
    out, said = _jq_to_failure(tools, {"handle": stub.handle, "jq": ".n"})
    assert out == list(range(where)), said
    assert f"record on line {where + 1:,} is not JSON" in said and "the last" not in said, said
    (call,) = _calls(said)
    assert call == {"handle": stub.handle, "record": where + 1, "jq": ".n"}, said
    assert _follow(tools, call) == list(range(where + 1, COUNT))
    first = tools.call("read_handle", call)
    assert f"record {where + 1} (bytes" in first["note"] and "passed over" in first["note"], first


def test_a_filter_with_no_output_before_the_cut_record_names_it_too(tools, scratch_scope):
    """The refusal of the first page (no output before the parse error) names the same record."""
    stub = scratch_scope.spill(_content({150: CUTS["string"] % 150}), source_tool="pip")
    out, said = _jq_to_failure(tools, {"handle": stub.handle, "jq": "select(.n >= 200) | .n"})
    assert out == [] and "record on line 151 is not JSON" in said, said
    (call,) = _calls(said)
    assert call["record"] == 151 and _follow(tools, call) == list(range(200, COUNT))


def test_two_records_cut_one_after_the_other_name_the_first(tools, scratch_scope):
    stub = scratch_scope.spill(_content({150: CUTS["string"] % 150, 151: CUTS["string"] % 151}), source_tool="pip")
    out, said = _jq_to_failure(tools, {"handle": stub.handle, "jq": ".n"})
    assert out == list(range(150)) and "record on line 151 is not JSON" in said, said
    assert _follow(tools, _calls(said)[0]) == list(range(152, COUNT))


def test_a_line_read_into_an_open_string_is_passed_back_over(scratch_scope):
    """A quote-free line after a record cut inside a string is taken into the string: jq stops on the line after
    it, which parses by itself; the broken record is the line before both."""
    data = b'{"n": 1}\n{"n": "cut\n[1, 2]\n{"n": 3}\n'
    source = BytesSource(data)
    at = data.index(b'{"n": 3}') + 1  # (jq closes the string at the quote there and stops)
    assert broken_start(source, at) == (2, data.index(b'{"n": "cut'))
    assert broken_start(source, data.index(b'{"n": 1}')) == (0, 0)
    assert broken_start(source, data.index(b"[1, 2]")) == (1, data.index(b'{"n": "cut'))


def test_slurp_passes_over_a_record_cut_in_the_middle_named_as_the_records_read_names_it(tools, scratch_scope):
    """It refused the read (``BadRecord``), its read-on ``record=502, records=10000`` dropping the filter; JSON
    texts and CSV pass over theirs. Every call the reply names answers."""
    stub = scratch_scope.spill(_content({150: CUTS["string"] % 150}), source_tool="pip")
    reply = tools.call("read_handle", {"handle": stub.handle, "jq": "[.[].n] | length, add", "slurp": True})
    kept = [i for i in range(COUNT) if i != 150]
    assert reply["results"] == [len(kept), sum(kept)], reply
    record = tools.call("read_handle", {"handle": stub.handle, "record": 151, "records": 1})
    named = re.search(r"record 151 \(bytes \d+ to \d+\) is not JSON: [^-]*", record["note"])[0]
    assert named in reply["note"] and "1 record could not be read" in reply["note"], (named, reply["note"])
    assert "record=" not in reply["note"]  # (no read-on call: the read went on)
    assert _follow(tools, {"handle": stub.handle, "jq": ".[] | .n", "slurp": True}) == kept


def test_slurp_passes_over_every_bad_record_and_a_deep_one(tools, scratch_scope):
    bad = {0: "{oops", 40: CUTS["open bracket"] % 40, 41: "[" * 100_000, 77: '{"n": +Infinity}', COUNT - 1: '{"n": 2'}
    stub = scratch_scope.spill(_content({**bad, 78: '{"n": NaN}'}), source_tool="pip")  # (Python's NaN: read, null)
    reply = tools.call("read_handle", {"handle": stub.handle, "jq": "map(.n)", "slurp": True})
    assert reply["results"] == [[None if i == 78 else i for i in range(COUNT) if i not in bad]], reply
    assert "5 records could not be read" in reply["note"], reply["note"]
    assert "record 1 (bytes 0 to 5) is not JSON" in reply["note"], reply["note"]
    for call in reply.get("calls", []):
        assert tools.call("read_handle", call["arguments"])["data"]


def test_the_stub_s_slurp_call_answers_and_names_the_bad_record(tools, scratch_scope):
    """The stub says ``1 record not JSON (record 151)`` and offers ``jq="JQ", slurp=True``: it answers (the
    placeholder said to be one), and with a filter in its place passes over record 151, named."""
    stub = scratch_scope.spill(_content({150: CUTS["string"] % 150}), source_tool="pip")
    assert "1 record not JSON (record 151)" in stub.shape, stub.shape
    (call,) = [call for call in _calls(stub.note) if call.get("slurp")]
    with pytest.raises(InvalidArgument, match="placeholder"):
        tools.call("read_handle", call)
    reply = tools.call("read_handle", {**call, "jq": "length"})
    assert reply["results"] == [COUNT - 1] and "record 151 (bytes" in reply["note"], reply


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bad=st.dictionaries(st.integers(0, 59), st.sampled_from(sorted(CUTS)), max_size=6),
       ended=st.booleans())
def test_slurp_over_records_is_the_plain_python_answer_over_those_that_parse(bad, ended):
    lines = [(CUTS[bad[i]] % i) if i in bad else json.dumps({"n": i}) for i in range(60)]
    data = ("\n".join(lines) + ("\n" if ended else "")).encode()
    page = slurp_page(BytesSource(data), "map(.n)", "records", budget_bytes=65536)
    plain = []
    for line in lines:
        try:
            plain.append(json.loads(line)["n"])
        except ValueError:
            pass
    assert page.items == [plain]
    numbers = [int(n) for n in re.findall(r"record (\d+) \(bytes", page.extra.get("note") or "")]
    assert numbers == [i + 1 for i in sorted(bad)][: len(numbers)] and (numbers or not bad)
