"""Hostile XML (helper hostile22): a select= read of a document whose parts lxml walks quadratically, and the shape
of a document that is not well-formed, told from where libxml2 stopped."""

from __future__ import annotations

import pytest

from scratchfs import InvalidArgument
from scratchfs.api.contract import ScratchTools
from scratchfs.engine.structure.xml_select import select_items
from tests.cpu_time import best_cpu_and_result


def _attributes(count: int) -> bytes:
    return b"<r xmlns:p='urn:p'><a p:z='q' " + b" ".join(b"x%d='%d'" % (i, i) for i in range(count)) + b"/></r>"


def test_an_element_of_a_hundred_thousand_attributes_is_read_within_the_time_limit(scratch_scope):
    """lxml's ``attrib.items()`` finds each value by its name, a walk of the attributes before it: 100,000 on one
    element ran the read past its time limit (StructureTimeout); their values come in one walk now."""
    stub = scratch_scope.spill(_attributes(100_000), source_tool="t")
    reply = ScratchTools(scratch_scope).call("read_handle", {"handle": stub.handle, "select": "a", "budget": 4096})
    assert reply["matches"] == 1 and reply["next_call"] is not None
    assert reply["part"].startswith('{"tag":"a","line":1,"attrs":{"p:z":"q","x0":"0","x1":"1",')


def test_attributes_are_read_in_linear_time_in_the_document_order():
    def cpu(count: int) -> tuple[float, tuple]:
        data = _attributes(count)
        return best_cpu_and_result(lambda: select_items(data, "a", 0, 0, 4096, 100))

    (small, _), (large, answer) = cpu(10_000), cpu(40_000)
    attrs = answer[2][0]["attrs"]
    assert list(attrs.items())[:3] == [("p:z", "q"), ("x0", "0"), ("x1", "1")] and len(attrs) == 40_001
    assert large < 0.5 and large < 8 * small + 0.1, (small, large)  # (quadratic: 0.21 s, 3.7 s)


@pytest.mark.parametrize(("data", "said"), [
    (b"<r><a></b></r>", "; not well-formed at line 1, column 11; no select= read parses it"),
    (b"<r><a>x\x01y</a></r>", "; not well-formed at line 1, column 8; no select= read parses it"),
    (b"<r>\n<a>x</a>\n<b></a></r>", "; not well-formed at line 3, column 8; no select= read parses it"),
    (b"<r><a>x</a>", "; cut short: its elements end before its root does (line 1, column 12; select= reads those "
     "before it)"),
    ("<r>éé<a>".encode(), "; cut short: its elements end before its root does (line 1, column 9; select= reads "
     "those before it)"),
    (b"<r>\n<a>x</a>\n", "; cut short: its elements end before its root does (line 3, column 1; select= reads those "
     "before it)")])
def test_a_whole_document_is_cut_short_only_where_it_ends(scratch_scope, data, said):
    """A whole document's first error on its last line was said to cut it short ("its elements end before its root
    does") wherever it stood -- a document of one line always was; libxml2 names the column, in characters."""
    stub = scratch_scope.spill(data, source_tool="t")
    assert stub.content_type == "xml" and stub.shape.endswith(said), stub.shape


def test_a_document_a_byte_over_the_bound_is_refused_in_bytes(scratch_scope, monkeypatch):
    """A document one byte over the select read's 32 MiB was refused as "at most 32 MiB; this one is 32.0 MiB", no
    reason a model can see: the sizes are told in bytes when MiB to one decimal are the same."""
    from scratchfs.engine.structure import xmldoc

    monkeypatch.setattr(xmldoc, "MAX_XML_BYTES", 1024 * 1024)
    data = b"<r>" + b"<a/>" * (1024 * 1024 // 4) + b"</r>"
    handle = scratch_scope.spill(data, source_tool="t").handle
    with pytest.raises(InvalidArgument) as caught:
        ScratchTools(scratch_scope).call("read_handle", {"handle": handle, "select": "a"})
    assert str(caught.value).startswith(
        f"the XML selector read reads documents of at most 1 MiB (1,048,576 bytes); this one is {len(data):,} bytes")
