"""A JSON document with a few lines of text before or after it -- a command run with its stderr merged (``cmd 2>&1``):
ruff's ``warning:`` lines before ``--output-format=json``, pip's ``[notice]`` lines after ``pip list --format=json``,
a ``DeprecationWarning`` before a ``json.dumps``. Its shape was ``text, 144 lines, ...`` and ``jq`` was refused
("starts with 'w' at byte 0"); now the shape tells the JSON and where it is, the note's jq call runs as written, the
reads read the JSON part and name the text around it once, and a jq refusal of text with JSON further on names where
it starts (:mod:`scratchfs.api.json_part`)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scratchfs.api.contract import ScratchTools
from scratchfs.api.json_part import MAX_TEXT_LINES, json_part
from scratchfs.api.shape import describe
from scratchfs.engine.structure import jq_page
from scratchfs.engine.structure.paging import BytesSource
from scratchfs.foundation.errors import InvalidArgument, NotJson

RUFF = (Path(__file__).resolve().parent.parent / "fixtures" / "tools" / "ruff-check-json-stderr.txt").read_bytes()
"""Real ``ruff check --output-format=json 2>&1``: 3 lines of ruff's warning, then a JSON array of 4 diagnostics."""
RUFF_JSON_AT = RUFF.index(b"\n[\n") + 1
PIP = json.dumps([{"name": f"pkg{i}", "version": f"1.{i}.0"} for i in range(300)]).encode() + (
    b"\n\n[notice] A new release of pip is available: 24.0 -> 25.3\n"
    b"[notice] To update, run: python -m pip install --upgrade pip\n")
"""``pip list --format=json 2>&1``'s form: the array on one line, then pip's notice (pip 24's words) after a blank
line (made here: pip here is offline and prints no notice)."""
WARNED = (b"/tmp/x.py:3: DeprecationWarning: datetime.datetime.utcnow() is deprecated\n  now = utcnow()\n"
          + json.dumps({"items": [{"id": i, "tags": ["a"]} for i in range(400)], "total": 400}, indent=1).encode()
          + b"\n")


def shape_of(data: bytes):
    return describe(data, len(data), data.count(b"\n") + (not data.endswith(b"\n")), BytesSource(data))


def test_ruff_json_after_its_warning_lines_is_told_as_json_with_where_it_starts():
    shape = shape_of(RUFF)
    assert shape.content_type == "json" and shape.top == "array"
    assert shape.text.startswith(f"JSON document ({len(RUFF) - RUFF_JSON_AT:,} bytes at byte {RUFF_JSON_AT}, "
                                 "after 3 lines of text: warning: The top-level linter settings")
    assert "JSON array of 4 items" in shape.text and "code: str" in shape.text


def test_pip_json_followed_by_its_notice_is_told_as_json_followed_by_text():
    shape = shape_of(PIP)
    end = PIP.index(b"\n\n[notice]")
    assert shape.content_type == "json"
    assert shape.text.startswith(f"JSON document ({end:,} bytes at byte 0, followed by 2 lines of text: "
                                 "[notice] A new release of pip is available: 24.0 -> 25.3): JSON array of 300 items")


def test_a_large_document_followed_by_text_is_told_whole_by_streaming():
    data = json.dumps([{"id": i, "name": "x" * 40} for i in range(20000)]).encode() + b"\n[notice] update pip\n"
    shape = shape_of(data)
    assert shape.text.startswith(f"JSON document ({len(data) - 21:,} bytes at byte 0, followed by 1 line of text")
    assert "JSON array of 20,000 items" in shape.text


def test_text_beyond_the_bounds_stays_text():
    lines = b"".join(b"warning: line %d\n" % i for i in range(MAX_TEXT_LINES + 1))
    assert shape_of(lines + RUFF[RUFF_JSON_AT:]).content_type == "text"
    assert shape_of(RUFF).content_type == "json"  # (the same JSON after 3 lines)
    long_line = b"warning: " + b"x" * 5000 + b"\n"
    assert shape_of(long_line + RUFF[RUFF_JSON_AT:]).content_type == "text"


def test_json_lines_with_a_line_cut_after_them_stay_json_lines():
    data = b'{"a": 1}\n{"a": 2}\n{"a": 3}\n{"a": 4}\n{"a"'
    assert json_part(data, data, len(data)) is None


@pytest.mark.parametrize(("data", "top", "filter", "first"), [
    (RUFF, "array", ".[0].code", "E401"), (PIP, "array", ".[0].name", "pkg0"), (WARNED, "object", ".total", 400)])
def test_the_notes_jq_call_runs_as_written_and_the_reply_names_the_text_once(scope, data, top, filter, first):
    tools = ScratchTools(scope)
    stub = scope.spill(data, source_tool="bash")
    assert stub.content_type == "json"
    named = re.search(r'jq="(\.\[0\]|\.\[0\]\.code|\.items\[0\]|\.\[\d+:\]\[\])"', stub.note)  # (.[K:][]: the
    assert named, stub.note  # items after the K the preview shows whole)
    assert tools.call("read_handle", {"handle": stub.handle, "jq": named.group(1)})["results"]
    reply = tools.call("read_handle", {"handle": stub.handle, "jq": filter})
    assert reply["results"] == [first]
    part = json_part(data[:5120], data[-5120:], len(data))
    assert reply["note"].startswith(f"read the JSON document at bytes {part.start:,}-{part.end:,}")
    shown = tools.call("read_handle", reply["calls"][0]["arguments"])  # the read the note names shows the text
    assert shown["data"].encode() == (data[: part.start] if part.before else data[part.end :].lstrip(b"\n"))
    if top == "array":  # (a second page: the text is not named again)
        paged = scope.structure.jq(stub.handle, ".[]", budget=1024)
        assert paged.extra["note"].startswith("read the JSON document") and paged.cursor is not None
        later = scope.structure.jq(stub.handle, ".[]", cursor=paged.cursor, budget=1024)
        assert "read the JSON document" not in later.extra.get("note", "") and later.first == len(paged.items) + 1


@pytest.mark.parametrize("budget", [2048, 2100, 3000, 4096])
def test_every_reply_of_a_json_part_holds_its_budget(scope, budget):
    tools = ScratchTools(scope)
    for data in (RUFF, PIP, WARNED):
        handle = scope.spill(data, source_tool="bash").handle
        for filter in (".", ".[0]", ".[]", ".items[]"):
            try:
                reply = tools.call("read_handle", {"handle": handle, "jq": filter, "budget": budget})
            except InvalidArgument:  # (.items[] of an array, .[0] of an object: jq's refusal)
                continue
            assert len(json.dumps(reply, separators=(",", ":"), ensure_ascii=False).encode()) <= budget


def test_a_jq_refusal_of_text_with_json_further_on_names_where_it_starts(scope):
    log = b"".join(b"2026-12-06 12:00:%02d INFO step %d of the build\n" % (i, i) for i in range(30))
    data = log + RUFF[RUFF_JSON_AT:]
    stub = scope.spill(data, source_tool="bash")
    assert stub.content_type != "json"
    with pytest.raises(NotJson) as refused:
        ScratchTools(scope).call("read_handle", {"handle": stub.handle, "jq": "."})
    said = str(refused.value)
    assert f"a line that opens JSON starts at byte {len(log):,} (line 31)" in said
    assert f'read_handle(handle="{stub.handle}", offset={len(log)})' in said


_TEXT_LINE = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1,
                     max_size=60).map(str.strip).filter(  # (a line of text: no JSON value, member or item)
    lambda line: line and line[0] not in "{[]}\"-0123456789tfn " and line[-1] not in ",{[")
_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=10),
                     lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner,
                                                                                 max_size=4), max_leaves=20)
_DOC = st.one_of(st.lists(_JSON, max_size=6), st.dictionaries(st.text(max_size=5), _JSON, max_size=6))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(before=st.lists(_TEXT_LINE, max_size=3), after=st.lists(_TEXT_LINE, max_size=3), doc=_DOC,
       indent=st.sampled_from([None, 1, 2]))
def test_jq_dot_of_the_json_part_is_the_document(before, after, doc, indent):
    """For any JSON array or object with a few short text lines before or after it, jq '.' of the part
    :func:`json_part` finds equals the document (as ``json.loads`` reads it)."""
    text = json.dumps(doc, indent=indent, ensure_ascii=False)
    data = "".join(line + "\n" for line in before).encode() + text.encode() + b"\n" + "".join(
        line + "\n" for line in after).encode()
    part = json_part(data[:5120], data[-5120:], len(data))
    if not (before or after):
        assert part is None
        return
    assert part is not None and (part.before, part.after) == (len(before), len(after))
    page = jq_page(BytesSource(data[part.start : part.end]), ".")
    assert page.items == [json.loads(data[part.start : part.end])] == [doc]


def test_a_parse_error_in_the_json_part_names_the_entrys_own_line(scope):
    """jq reads the JSON part with the text around it as blanks: a parse error's line (and the line read the
    refusal names) is the entry's, not the part's (the part from its first byte put it 2 lines early). The break is
    past the first 512 KiB, which the shape reads."""
    document = json.dumps([{"id": i, "name": "x" * 40} for i in range(20000)], indent=1)
    at = document.index('"id": 15000')
    broken = b"warning: deprecated\n  - more\n" + (document[:at] + "oops" + document[at:]).encode() + b"\n"
    line = broken[: broken.index(b"oops")].count(b"\n") + 1
    stub = scope.spill(broken, source_tool="bash")
    assert stub.content_type == "json"
    with pytest.raises(InvalidArgument) as refused:
        ScratchTools(scope).call("read_handle", {"handle": stub.handle, "jq": ".[14999]"})
    assert f"at line {line}, column" in str(refused.value)
    assert f'line={line}, lines=5)' in str(refused.value)
