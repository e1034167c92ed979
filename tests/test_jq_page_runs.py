"""Following ``next_call`` over a jq read runs jq once, not once a page: the run's output texts are kept (by blob token
and filter) and the next pages slice them -- for one output cut into ``part`` pieces across pages (``.shapes``,
``.``) and for many outputs (``.shapes[]``, which ran jq over the whole document for each of its ~100 pages before).
A page past the texts kept runs jq again from there; every page stays within its budget and the outputs rebuilt from
the pages are jq's own."""

from __future__ import annotations

import json
import re

import jq
import pytest

from scratchfs import InvalidArgument
from scratchfs.api.contract import ScratchTools
from scratchfs.engine.structure import BytesSource, jq_page, jsondoc


@pytest.fixture
def worker_calls(monkeypatch):
    calls: list[int] = []
    real = jsondoc.run_jq

    def counted(program_text, mode, data, deadline):
        calls.append(data[1] if mode == "page" else -1)  # the first output the run was asked for
        return real(program_text, mode, data, deadline)

    monkeypatch.setattr(jsondoc, "run_jq", counted)
    return calls


def _rebuild(pages: list[dict]) -> list:
    """The outputs of a read from its replies: the ``part`` pieces of consecutive pages with the same ``first`` are
    the compact JSON text of output ``first``; whole outputs follow in ``results``."""
    out: list = []
    piece, number = "", None
    for page in pages:
        if number is not None and ("part" not in page or page["first"] != number):  # the last piece ended it
            out.append(json.loads(piece))
            piece, number = "", None
        if "part" in page:
            piece, number = piece + page["part"], page["first"]
            if page["results"] or not page["more"]:
                out.append(json.loads(piece))
                piece, number = "", None
        out.extend(page["results"])
    if number is not None:
        out.append(json.loads(piece))
    return out


def _follow(tools: ScratchTools, handle: str, flt: str, budget: int) -> list[dict]:
    pages = [tools.read_handle(handle, jq=flt, budget=budget)]
    while pages[-1]["more"]:
        assert len(json.dumps(pages[-1], ensure_ascii=False, separators=(",", ":")).encode()) <= budget
        cursor = re.search(r'cursor="([^"]+)"', pages[-1]["next_call"]).group(1)
        pages.append(tools.read_handle(handle, jq=flt, cursor=cursor, budget=budget))
    return pages


@pytest.mark.parametrize("flt", [".shapes", ".", ".shapes[]", ".operations | to_entries[] | .value.name"])
def test_following_next_call_runs_jq_once(scratch_scope, fixture_data, worker_calls, flt):
    data = fixture_data["api-ec2-service-model.json"]
    handle = scratch_scope.spill(data, source_tool="t").handle
    pages = _follow(ScratchTools(scratch_scope), handle, flt, 2048)
    assert len(pages) > 5
    assert worker_calls == [0]
    expected = [json.loads(t) for t in jq.compile(f"{flt} | tojson").input_text(data.decode()).all()]
    assert _rebuild(pages) == expected


def test_a_new_read_without_a_cursor_runs_jq_again(scratch_scope, fixture_data, worker_calls):
    handle = scratch_scope.spill(fixture_data["api-ec2-service-model.json"], source_tool="t").handle
    tools = ScratchTools(scratch_scope)
    first = tools.read_handle(handle, jq=".shapes[]")
    assert tools.read_handle(handle, jq=".shapes[]") == first
    assert worker_calls == [0, 0]


def test_pages_past_the_texts_kept_run_jq_again_from_there(monkeypatch, fixture_data, worker_calls):
    monkeypatch.setattr(jsondoc, "_MORE_CHARS", 50_000)  # keep about 50 KB of outputs past a page
    data = fixture_data["api-ec2-service-model.json"]
    pages, cursor = [], None
    while True:
        page = jq_page(BytesSource(data), ".shapes[]", cursor, 4096, cache_key="runs")
        pages.append(page.to_dict())
        assert len(json.dumps(pages[-1], ensure_ascii=False, separators=(",", ":")).encode()) <= 4096
        cursor = page.cursor
        if cursor is None:
            break
    expected = [json.loads(t) for t in jq.compile(".shapes[] | tojson").input_text(data.decode()).all()]
    assert _rebuild(pages) == expected
    text = sum(len(t) for t in jq.compile(".shapes[] | tojson").input_text(data.decode()).all())
    assert 2 <= len(worker_calls) <= text // 50_000 + 2
    assert worker_calls == sorted(worker_calls) and len(set(worker_calls)) == len(worker_calls)


@pytest.mark.parametrize("keep", [None, "errors"])
def test_a_filter_that_fails_after_some_outputs_shows_them_then_fails_on_the_next_page(keep):
    data = BytesSource(b"[1, 2, 3, 4]")
    flt = '.[] | if . == 3 then error("three") else . end'
    first = jq_page(data, flt, budget_bytes=256, max_results=1, cache_key=keep)
    second = jq_page(data, flt, first.cursor, budget_bytes=256, max_results=1, cache_key=keep)
    assert (first.items, second.items) == ([1], [2])
    with pytest.raises(InvalidArgument, match="jq: three"):
        jq_page(data, flt, second.cursor, budget_bytes=256, max_results=1, cache_key=keep)
    whole = jq_page(data, flt, budget_bytes=4096, cache_key=keep)
    assert whole.items == [1, 2] and whole.cursor is not None
    with pytest.raises(InvalidArgument, match="jq: three"):
        jq_page(data, flt, whole.cursor, budget_bytes=4096, cache_key=keep)
    with pytest.raises(InvalidArgument, match="jq: three"):
        jq_page(data, '.[] | if . == 1 then error("three") else . end', budget_bytes=4096, cache_key=keep)


@pytest.mark.parametrize("char", ["\x7f", "\x01", "é", "\U0001f600", "a"])
def test_outputs_jq_writes_longer_than_their_values_do_not_end_the_read_early(scratch_scope, worker_calls, char):
    """jq writes DEL as \\u007f (6 characters, 1 byte as the page writes it): counting a page's outputs in jq's
    characters took 2 of 20, and the page claimed the read complete (more false, no next_call)."""
    values = [char * 1000] * 20 + [char * 3] * 300
    handle = scratch_scope.spill(json.dumps(values, ensure_ascii=False).encode(), source_tool="t").handle
    for budget in (2048, 8192):
        pages = _follow(ScratchTools(scratch_scope), handle, ".[]", budget)
        assert _rebuild(pages) == values


@pytest.mark.parametrize(("flt", "refused"), [(".a, halt_error, 2", True), ("halt", True), (".a | halt_error(1)", True),
                                              (".halt", False), ("{halt: 1}", False), ('select(. == "halt")', False),
                                              (".a as $halt | $halt", False)])
def test_halt_is_refused_as_the_jq_library_ends_outputs_there_without_a_word(flt, refused):
    """halt_error ended a read as if it were complete ([1], more false): the library stops without an error."""
    source = BytesSource(b'{"a": 1, "halt": "halt"}')
    if refused:
        with pytest.raises(InvalidArgument, match="halt or halt_error"):
            jq_page(source, flt)
    else:
        jq_page(source, flt)


def test_input_past_the_last_input_is_explained_not_a_bare_break():
    """jq says only "break" when input finds no next input: nothing a model can act on."""
    with pytest.raises(InvalidArgument, match=r"^jq: break \(input or inputs found no next input"):
        jq_page(BytesSource(b'{"a": 1}'), "input")


def test_a_records_page_names_the_record_and_output_its_piece_is_of(scratch_scope):
    """A records read with jq whose page starts at records the filter gives nothing for labelled its ``part`` with
    the record it started reading at (``record: 1, first: 1``: output 1 of a record that has none) where the piece
    was of output 1 of record 3 -- and the next piece said ``record: 3``, so a reader joining pieces by their
    ``record`` and ``first`` cut the output in two. Every page names the output its first item or piece is of."""
    recs = [{"xs": []}, {"xs": []}, {"xs": ["é" * 5000, 1]}, {"xs": []}, {"xs": ["😀" * 3000]}, {"xs": [2]}]
    data = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs).encode()
    handle = scratch_scope.spill(data, source_tool="api").handle
    tools = ScratchTools(scratch_scope)
    pages = [tools.read_handle(handle, record=1, records=50, jq=".xs[]", budget=2048)]
    while pages[-1]["more"]:
        cursor = re.search(r'cursor="([^"]+)"', pages[-1]["next_call"]).group(1)
        pages.append(tools.read_handle(handle, records=50, jq=".xs[]", cursor=cursor, budget=2048))
        assert len(pages) < 100
    outputs = {(n, i): x for n, r in enumerate(recs, 1) for i, x in enumerate(r["xs"], 1)}
    pieces: dict[tuple[int, int], str] = {}
    for page in pages:
        at = (page["record"], page["first"])
        assert at in outputs or not (page["results"] or "part" in page), at  # an output the record has
        if "part" in page:
            pieces[at] = pieces.get(at, "") + page["part"]
    assert {at: json.loads(text) for at, text in pieces.items()} == {(3, 1): "é" * 5000, (5, 1): "😀" * 3000}
    assert _rebuild(pages) == [x for r in recs for x in r["xs"]]
