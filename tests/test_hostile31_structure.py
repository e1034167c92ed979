"""hostile31: structure reads attacked as a hostile tool output or a confused model would attack them (the attacks
and what each gave: the hostile31 report). Each test here failed before its fix."""

from __future__ import annotations

import json
import tracemalloc

import lxml.etree
import pytest

from scratchfs.engine.structure import BytesSource, html, jq_page, jsondoc, select_page
from scratchfs.engine.structure.xml_select import element_text, select_items


def _large_document(items: int) -> bytes:
    """A one-line JSON document whose last key comes after ``items`` objects (~55 bytes each)."""
    rows = [{"id": n, "name": f"n{n}", "tags": ["a", "b"], "v": n * 1.5} for n in range(items)]
    return json.dumps({"items": rows, "meta": {"n": items}}, separators=(",", ":")).encode()


def test_a_large_document_is_given_time_for_its_size(monkeypatch):
    # 8.5 MB: reading it, handing it to the worker and jq's parse take ~1 s; the time limit alone (0.05 s) stopped
    # '.meta' every time, as the default 5 s stopped it over a 36 MiB document (0.07-0.14 s a MiB in all)
    monkeypatch.setattr(jsondoc, "PARSE_SECONDS_PER_MIB", 30.0, raising=False)
    page = jq_page(BytesSource(_large_document(150_000)), ".meta", timeout=0.05)
    assert page.items == [{"n": 150_000}]


def test_the_allowance_covers_a_document_at_the_bound():
    # jq's share alone, 0.065 s of CPU a MiB measured, at twice that for a loaded host: within the allowance
    assert jsondoc.PARSE_SECONDS_PER_MIB * jsondoc.MAX_JQ_DOCUMENT_BYTES / 2**20 >= 2 * 0.065 * 64


@pytest.mark.parametrize("child", ["<i>{}</i>\n", "{}<b>!</b>"])  # (a record of elements; mixed content)
def test_the_text_of_a_large_element_is_gathered_only_as_far_as_a_page_shows(child):
    # select="r", the root of 20,000 elements of 1,000 characters: its whole 20 MB text was gathered, then cut to
    # the page (1.5 million elements: 4 s, past the time limit); now no more than the page's 8,193 characters
    body = "".join(child.format(f"{n:04d}" + "x" * 996) for n in range(20_000))
    data = f'<?xml version="1.0"?><r>{body}</r>'.encode()
    tracemalloc.start()
    try:
        answer = select_items(data, "r", 0, 0, 8192, 10)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    root = lxml.etree.fromstring(data)
    whole = element_text(root)
    assert answer[:2] == ("ok", 1) and answer[2][0]["text"] == whole[:8193] and len(whole) > 19_000_000
    assert peak < 4_000_000  # (the parse's tree is libxml2's, not Python's: the text alone would be 20 MB)


def test_a_select_of_a_large_element_is_given_time_for_the_pages_size(monkeypatch):
    # the page's main element, 1.2 MB: rendering it takes ~0.8 s, which the time limit alone (0.05 s) never gave,
    # as the default 5 s never gave select="body" of a page past some 5 MiB
    monkeypatch.setattr(html, "SELECT_SECONDS_PER_MIB", 30.0, raising=False)
    page = b"<!DOCTYPE html><html><body><div id=main>" + b"<div><p>hello <b>world</b></p></div>\n" * 30_000 + (
        b"</div></body></html>")
    got = select_page(BytesSource(page), "#main", timeout=0.05, budget_bytes=4096)
    assert got.extra["matches"] == 1 and got.part.startswith("hello world\n\nhello world")
