"""Lone surrogate escapes in JSON (attacker's trial): ``"\\ud800"`` is valid JSON text, but no UTF-8 text carries the
character it writes. Every structure read gives such a value as its JSON text (the escape kept) or as U+FFFD with a
note -- never a crash (UnicodeEncodeError), never a silently wrong value (the streaming parser read ``"\\ud800"`` as
``"?"`` and ``"\\ud800\\ud800"`` as one character)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs.api.contract import ScratchTools
from scratchfs.cli import main
from scratchfs.engine.structure import BytesSource, jq_page, jsondoc, records_page
from scratchfs.foundation.errors import InvalidArgument
from scratchfs.web.structure import json_tree

RECORDS = b'{"s":"\\ud800"}\n{"s":"x"}\n{"k\\udc00":[1,"\\ud83d\\ude00"]}\n'
DOCUMENT = b'{"a":"\\ud800x","b":[1,"\\udc00"],"c":"\\\\ud800","d":"\\ud83d\\ude00"}'


def test_records_with_a_lone_surrogate_are_given_as_their_json_text():
    page = records_page(BytesSource(RECORDS)).to_dict()
    assert page["records"] == ['{"s":"\\ud800"}', {"s": "x"}, '{"k\\udc00":[1,"\\ud83d\\ude00"]}']
    assert page["as_text"] == [0, 2]
    assert "record 1 holds a lone surrogate escape (\\ud800)" in page["note"]
    json.dumps(page, ensure_ascii=False).encode("utf-8")  # what the reply is written as


def test_jq_reads_lone_surrogates_as_u_fffd_with_a_note():
    page = records_page(BytesSource(RECORDS), jq=".s").to_dict()
    assert page["results"] == ["\ufffd", "x", None]
    assert "U+FFFD" in page["note"] and "record 1" in page["note"]
    page = jq_page(BytesSource(DOCUMENT), ".a, .b[1], .c, .d").to_dict()
    assert page["results"] == ["\ufffdx", "\ufffd", "\\ud800", "\U0001f600"]  # an escaped backslash is text
    assert "the document holds a lone surrogate escape (\\ud800)" in page["note"]
    assert "note" not in jq_page(BytesSource(b'{"d":"\\ud83d\\ude00"}'), ".d").to_dict()  # a pair is a character


def test_streamed_path_reads_give_a_value_holding_a_lone_surrogate_as_its_json_text(monkeypatch):
    monkeypatch.setattr(jsondoc, "MAX_JQ_DOCUMENT_BYTES", 0)  # every document streams
    for doc, text in ((b'{"a":"\\ud800"}', '"\\ud800"'), (b'{"a":"\\ud800\\ud800"}', '"\\ud800\\ud800"'),
                      (b'{"a": ["\\udc00x", 1.10]}', '["\\udc00x",1.10]')):
        page = jq_page(BytesSource(doc), ".a").to_dict()
        assert (page["results"], page["as_text"]) == ([text], [0]), doc
        json.dumps(page, ensure_ascii=False).encode("utf-8")  # a page UTF-8 carries
    assert jq_page(BytesSource(b'{"\\ud800":1,"a":2}'), ".a").to_dict()["results"] == [2]
    doc = BytesSource(b'{"a":"\\ud83d\\ude00","b":"\\\\ud800"}')
    assert [jq_page(doc, path).to_dict()["results"] for path in (".a", ".b")] == [["\U0001f600"], ["\\ud800"]]


def test_the_mcp_tool_and_the_cli_read_such_records(tmp_path, scratch_scope):
    handle = scratch_scope.spill(RECORDS).handle
    reply = ScratchTools(scratch_scope).call("read_handle", {"handle": handle, "record": 1})
    assert reply["records"][0] == '{"s":"\\ud800"}' and reply["as_text"] == [0, 2]
    path = tmp_path / "sur.jsonl"
    path.write_bytes(RECORDS)
    root = str(tmp_path / "root")
    spilled = CliRunner().invoke(main, ["--root", root, "--run", "r", "--agent", "a", "spill", str(path)])
    got = CliRunner().invoke(main, ["--root", root, "--run", "r", "--agent", "a", "read-handle",
                                    json.loads(spilled.stdout)["handle"], "--record", "1"])
    assert got.exit_code == 0, got.output
    assert json.loads(got.stdout)["records"][0] == '{"s":"\\ud800"}'


def test_the_web_json_tree_shows_u_fffd_with_a_note(scratch_scope):
    handle = scratch_scope.spill(DOCUMENT).handle
    tree = json_tree(scratch_scope, handle)
    assert {c["key"]: c.get("value") for c in tree["children"]} == {"a": "\ufffdx", "b": None, "c": "\\ud800",
                                                                    "d": "\U0001f600"}
    assert "lone surrogate escapes (e.g. \\ud800)" in tree["note"]
    assert json_tree(scratch_scope, handle, "/b")["children"][1]["value"] == "\ufffd"
    json.dumps(tree, ensure_ascii=False).encode("utf-8")


ESCAPES = st.sampled_from(["\\ud800", "\\udbff", "\\udc00", "\\uDFFF", "\\ud83d\\ude00", "\\\\", "\\\\ud800", "\\u00e9",
                           "\\n", "x", "u", "d800", "\\"])


@given(parts=st.lists(ESCAPES, max_size=8), piece=st.integers(1, 20), pad=st.integers(0, 30))
@settings(max_examples=300, deadline=None)
def test_the_scan_finds_exactly_the_lone_surrogates_python_reads(parts, piece, pad):
    from scratchfs.engine.structure.numbers import LoneSurrogateScan, lone_surrogate  # (new with this fix)

    text = '"' + "".join(parts) + '"'
    try:
        value = json.loads(text)
    except ValueError:
        return
    lone = any(0xD800 <= ord(c) <= 0xDFFF for c in value)
    assert (lone_surrogate(text) is not None) is lone
    doc = ('["' + "x" * pad + '",' + text + "]").encode()
    scan = LoneSurrogateScan()
    found = next((at for at in (scan.feed(doc[i : i + piece]) for i in range(0, len(doc), piece)) if at is not None),
                 None)
    found = scan.feed(b"", final=True) if found is None else found
    assert (found is not None) is lone
    if lone:
        assert doc[found : found + 2] == b"\\u" and 0xD800 <= int(doc[found + 2 : found + 6], 16) <= 0xDFFF


def test_a_streamed_path_naming_or_meeting_a_lone_surrogate_answers_never_raises_unicode_errors(monkeypatch):
    """A path key holding a lone surrogate (."\\ud800") raised UnicodeEncodeError in the streamed read, as did jq's
    error message quoting a string that holds one."""
    monkeypatch.setattr(jsondoc, "MAX_JQ_DOCUMENT_BYTES", 0)  # every document streams
    doc = BytesSource(b'{"a":1,"\\ud800":2,"s":"\\ud800"}')
    assert jq_page(doc, '."\\ud800"').to_dict()["results"] == [2]
    with pytest.raises(InvalidArgument, match=r'^jq: Cannot iterate over string \("\\ud800"\); a step met a value'):
        jq_page(doc, ".s[]")


@pytest.mark.parametrize("budget", [2048, 3000])
def test_pages_carrying_the_notes_fit_their_budget_as_the_model_receives_them(scratch_scope, budget):
    """A jq page with both notes (numbers a double cannot hold, lone surrogate escapes) and a records page with the
    surrogate note stay within the budget, counted in the bytes of their JSON text."""
    from scratchfs.api.contract import to_json

    doc = '{"a": [' + ",".join(['{"x": 1e400, "s": "\\ud800 %s"}' % ("y" * 50)] * 400) + "]}"
    handle = scratch_scope.spill(doc.encode()).handle
    lines = scratch_scope.spill("\n".join(['{"x": 1e400, "s": "\\ud800"}'] * 300).encode()).handle
    tools = ScratchTools(scratch_scope)
    for args in ({"handle": handle, "jq": ".a[] | .x + 1"}, {"handle": handle, "jq": ".a[]"},
                 {"handle": lines, "record": 1, "records": 50}, {"handle": lines, "record": 1, "jq": ".x + 1"}):
        reply = tools.call("read_handle", {**args, "budget": budget})
        assert len(to_json(reply).encode("utf-8")) <= budget and "note" in reply, args
