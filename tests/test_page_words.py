"""The words a page of items carries about its own fields (``scratchfs.engine.structure.page_words``): how to join
its `part` pieces, what its `as_text` lists, what `record` and `first` number in jq over records -- said by the page
that shows them, within its budget, and no longer in the tool definition a model carries on every turn
(tests/test_tool_sizes.py). Each page check failed before: no page said any of it."""

from __future__ import annotations

import ast
import json

from scratchfs.api.contract import ScratchTools
from scratchfs.api.views import reply_size


def _pages(tools: ScratchTools, arguments: dict) -> list[dict]:
    """Every page of a read, following next_call (a cursor and the read's arguments)."""
    pages = [tools.call("read_handle", arguments)]
    while pages[-1]["next_call"] is not None:
        call = ast.parse(pages[-1]["next_call"], mode="eval").body
        pages.append(tools.call("read_handle", {k.arg: ast.literal_eval(k.value) for k in call.keywords}))
    return pages


def test_a_page_holding_a_part_says_how_to_join_the_parts_within_its_budget(scratch_scope):
    document = {"items": [{"id": 1, "blob": "x" * 30_000}, {"id": 2}]}
    handle = scratch_scope.spill(json.dumps(document).encode()).handle
    tools = ScratchTools(scratch_scope)
    pages = _pages(tools, {"handle": handle, "jq": ".items[]", "budget": 4096})
    parted = [page for page in pages if "part" in page]
    assert len(parted) >= 7 and all(reply_size(page) <= 4096 for page in pages)
    for page in parted:
        assert page["note"].startswith("`part`: a piece of output 1's compact JSON text, too large for a page: join "
                                       "the `part` of consecutive pages with this `first`, in order")
    joined = "".join(page["part"] for page in parted)  # (the rule the note gives)
    assert json.loads(joined) == document["items"][0]
    assert [page["results"] for page in pages if page["results"]] == [[{"id": 2}]]
    assert all("note" not in page for page in pages if "part" not in page)  # (a whole item needs no words)


def test_an_element_part_is_said_to_be_its_text(scratch_scope):
    page = "<html><body><p>" + "word " * 5000 + "</p><p>short</p></body></html>"
    handle = scratch_scope.spill(page.encode(), source_tool="fetch").handle
    first = ScratchTools(scratch_scope).call("read_handle", {"handle": handle, "select": "p", "budget": 2048})
    assert first["part"].startswith("word word") and reply_size(first) <= 2048
    assert "`part`: a piece of element 1's text, too large for a page" in first["note"]


def test_a_page_with_items_given_as_their_json_text_says_why(scratch_scope):
    handle = scratch_scope.spill(b'{"n": 1, "v": 1e400}\n{"n": 2, "v": 2}\n').handle
    page = ScratchTools(scratch_scope).call("read_handle", {"handle": handle, "record": 1, "records": 2})
    assert page["as_text"] == [0] and page["records"][1] == {"n": 2, "v": 2}
    assert ("`as_text`: the records at these indexes (from 0) are their JSON text, a string: a number JSON cannot "
            "carry exactly (1e400, NaN) or a lone surrogate escape") in page["note"]


def test_a_jq_page_over_records_numbers_its_outputs_past_a_page(scratch_scope):
    data = b"".join(b'{"n": %d, "xs": %s}\n' % (i, json.dumps(list(range(3000))).encode()) for i in range(1, 4))
    handle = scratch_scope.spill(data).handle
    pages = _pages(ScratchTools(scratch_scope), {"handle": handle, "record": 1, "records": 1, "jq": ".xs[]"})
    second = pages[1]
    assert second["record"] == 1 and second["first"] == len(pages[0]["results"]) + 1 > 1
    assert second["results"][0] == second["first"] - 1  # (output k of record 1 is k - 1)
    assert "`record`: the first output's record; `first`: its number among that record's outputs" in second["note"]
    assert "note" not in pages[0]  # (record 1, as asked, from its output 1: nothing to explain)


def test_a_plain_page_carries_no_words(scratch_scope):
    handle = scratch_scope.spill(b"".join(b'{"n": %d}\n' % i for i in range(1, 50))).handle
    page = ScratchTools(scratch_scope).call("read_handle", {"handle": handle, "record": 3, "records": 2})
    assert page["first"] == 3 and "note" not in page


def test_a_page_too_small_for_the_words_shows_its_items_instead():
    """The words take up to about 470 bytes: a page filled within less than WORDS_MIN_BUDGET (the engine's pages go
    down to 256 bytes) leaves them out and stays within its budget."""
    from scratchfs.engine.structure import BytesSource, jq_page
    from scratchfs.engine.structure.paging import WORDS_MIN_BUDGET

    source = BytesSource(json.dumps(["y" * 5000]).encode())
    small = jq_page(source, ".[]", budget_bytes=WORDS_MIN_BUDGET - 1).to_dict()
    assert small["part"] and "note" not in small and reply_size(small) < WORDS_MIN_BUDGET
    large = jq_page(source, ".[]", budget_bytes=WORDS_MIN_BUDGET).to_dict()
    assert large["note"].startswith("`part`: a piece of output 1's") and reply_size(large) <= WORDS_MIN_BUDGET


def test_an_xml_element_part_is_said_to_be_its_compact_json_not_its_text(scratch_scope):
    """An XML element's item is an object (``tag``, ``line``, ``attrs``, ``text``): a piece of one too large for a
    page is a piece of its compact JSON text, which the note must say (it said "text", as for an HTML element, whose
    item is its text; the pieces then joined into JSON a model would not parse)."""
    document = "<root><item id='1'>" + "word " * 5000 + "</item><item id='2'>short</item></root>"
    handle = scratch_scope.spill(document.encode()).handle
    pages = _pages(ScratchTools(scratch_scope), {"handle": handle, "select": "item", "budget": 2048})
    parted = [page for page in pages if "part" in page]
    assert len(parted) >= 2 and parted[0]["part"].startswith('{"tag":"item"')
    for page in parted:
        assert "`part`: a piece of element 1's compact JSON text, too large for a page" in page["note"]
    assert json.loads("".join(page["part"] for page in parted))["attrs"] == {"id": "1"}
