"""``view="text"`` with ``length=`` -- the 400 bytes after a search's window in an HTML page's text view, as a byte
range is read -- was refused saying only that the two do not mix; the model's next try, ``budget=700``, was refused
again (under the least budget), two refusals before the read (helper modeltask6, ``bzip2``'s manual). The refusal
now names the page of the view from that offset, at the least budget when the length fits in it."""

from __future__ import annotations

from pathlib import Path

import pytest

from scratchfs import InvalidArgument
from scratchfs.api.contract import ScratchTools
from scratchfs.engine.structure import html_worker
from scratchfs.foundation.call_text import parse_call
from scratchfs.foundation.limits import MIN_REPLY_BYTES

PAGE = Path(__file__).resolve().parent.parent / "fixtures" / "tools" / "pydoc-json-decoder.html"


@pytest.mark.parametrize(("budget", "named"), [(None, MIN_REPLY_BYTES), (3000, 3000)])
def test_a_text_view_read_sized_by_length_names_the_page_from_its_offset(scratch_scope, budget, named):
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill(PAGE.read_bytes(), source_tool="sh").handle
    asked = {"handle": handle, "view": "text", "offset": 1898, "length": 400}
    with pytest.raises(InvalidArgument) as refused:
        tools.call("read_handle", {**asked, **({"budget": budget} if budget else {})})
    said = str(refused.value)
    call = f'read_handle(handle="{handle}", view="text", offset=1898, budget={named})'
    assert said.endswith(f"; the text from that offset: {call}"), said
    name, arguments = parse_call(call)
    page = tools.call(name, arguments)
    view = html_worker.view_text(PAGE.read_bytes())
    assert page["offset"] == 1898 and view[1898:].startswith(page["text"].encode()) and len(page["text"]) > 400, page


def test_a_long_length_names_the_page_at_the_reply_s_own_budget(scratch_scope):
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill(PAGE.read_bytes(), source_tool="sh").handle
    with pytest.raises(InvalidArgument) as refused:
        tools.call("read_handle", {"handle": handle, "view": "text", "length": 20_000})
    assert str(refused.value).endswith(f'read_handle(handle="{handle}", view="text")'), refused.value
