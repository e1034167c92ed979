"""A read_handle call mixing a structure read with another read's arguments is refused saying what to do instead.
The refusal of ``end=``, ``length=``, ``line=``/``lines=`` or a search's arguments beside ``jq=``, ``row=``,
``record=``, ``select=`` or ``view="members"`` gave one piece of advice whatever the read -- "a search of an HTML
page's text view takes view="text" with match= or pattern= ... alone" -- which told a model reading a CSV's rows or
a tar's members nothing it could use; and ``jq=`` beside ``row=`` named the other read's arguments only."""

from __future__ import annotations

import io
import tarfile

import pytest

from scratchfs import InvalidArgument
from scratchfs.api.contract import ScratchTools, error_text
from scratchfs.foundation.limits import MIN_REPLY_BYTES


@pytest.fixture
def handles(scratch_scope):
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w") as archive:
        data = b"name,size\n" + b"".join(b"f%d,%d\n" % (i, i) for i in range(2000))
        info = tarfile.TarInfo("t.csv")
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    spill = scratch_scope.spill
    return {"csv": spill(b"name,size\n" + b"".join(b"f%d,%d\n" % (i, i) for i in range(2000)), source_tool="q").handle,
            "jsonl": spill(b"".join(b'{"i": %d}\n' % i for i in range(2000)), source_tool="j").handle,
            "html": spill(b"<html><body>" + b"<h1>title</h1><p>words</p>\n" * 800 + b"</body></html>",
                          source_tool="w").handle,
            "tar": spill(out.getvalue(), source_tool="tar").handle}


@pytest.mark.parametrize(("kind", "arguments", "says"), [
    ("csv", {"row": 1, "rows": 5, "end": 900}, "read or search the member by range"),
    ("jsonl", {"record": 1, "end": 900}, "read or search the member by range"),
    ("tar", {"view": "members", "end": 900}, "read or search the member by range"),
    ("csv", {"row": 1, "length": 100}, "a structure page is sized by rows=/records= and budget="),
    ("jsonl", {"record": 1, "lines": 5}, "a structure page starts at row=/record="),
    ("tar", {"view": "members", "line": 3}, "a member's lines"),
    ("html", {"select": "h1", "match": "title"}, "takes no select=: search the stored bytes without it"),
    ("html", {"view": "text", "line": 3}, 'view="text" pages by offset='),
    ("html", {"view": "text", "match": "title", "lines": 3}, 'a search of the text view takes view="text"'),
    ("csv", {"row": 1, "jq": ".name"}, "slurp=true"),
    ("csv", {"row": 1, "jq": "length", "slurp": True}, "give jq= and slurp=true alone"),
    ("jsonl", {"record": 1, "row": 1}, "record= pages JSON lines, row= a table's rows"),
    ("html", {"select": "h1", "view": "text"}, "one or the other"),
])
def test_a_mixed_read_is_refused_saying_what_to_do_instead(scratch_scope, handles, kind, arguments, says):
    with pytest.raises(InvalidArgument) as refused:
        ScratchTools(scratch_scope).call("read_handle", {"handle": handles[kind], **arguments})
    message = str(refused.value)
    assert says in message, message
    if arguments.get("view") != "text":  # (advice about another read's text view is no way on here)
        assert "HTML page's text view" not in message, message
    assert len(error_text(refused.value).encode()) <= MIN_REPLY_BYTES


@pytest.mark.parametrize(("arguments", "says"), [
    ({"match": "café", "view": "text", "encoding": "latin-1"}, "search it without encoding="),
    ({"select": "h1", "encoding": "latin-1"}, "read it without encoding="),
    ({"match": "words", "view": "text", "before": 100}, "give before= without view="),
])
def test_a_text_view_refuses_what_it_cannot_take_saying_what_works(scratch_scope, handles, arguments, says):
    """encoding= beside a text view's search was refused as 'not to a structure read' (it is a search), and before=
    beside it as 'searches the stored content', neither saying what works."""
    with pytest.raises(InvalidArgument, match=says):
        ScratchTools(scratch_scope).call("read_handle", {"handle": handles["html"], **arguments})
