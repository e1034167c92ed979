"""A jq read of content that is not JSON says so in words that quote the content's bytes as the content's, and
names the read that fits it as a call. newuser12 ran ``jq="."`` over grep output (``./lib/...``) and read
``(the document is not valid JSON: '.', which starts no JSON value, at byte 0)``: the quoted '.' read as a word on
the filter, and the reads named were argument syntax (``line=, lines=``), no call."""

from __future__ import annotations

from pathlib import Path

import pytest

from scratchfs.api.contract import ScratchTools
from scratchfs.foundation.errors import NotJson

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


@pytest.mark.parametrize(("content", "said"), [
    ((FIXTURES / "workspace-grep-stdlib-defs.txt").read_bytes(),  # (real grep output: './lib/...')
     "(the content is not JSON: it starts with '.' at byte 0, which starts no JSON value)"),
    (b"{ name: 1 }\n" * 2000, "(the content is not JSON: 'n' at byte 2 cannot follow the '{' it starts with)"),
    (b"  .hidden\n" * 2000, "(the content is not JSON: its first character past blanks is '.' at byte 2, which "
                            "starts no JSON value)"),
    (b"12abc\n" * 2000, "(the content is not JSON: the value it starts with runs into 'a' at byte 2, which no "
                        "JSON value holds)"),
])
def test_jq_of_text_names_the_contents_bytes_and_a_read_that_fits(scope, content, said):
    tools = ScratchTools(scope)
    handle = scope.spill(content, source_tool="shell").handle
    with pytest.raises(NotJson) as refused:
        tools.call("read_handle", {"handle": handle, "jq": "."})
    message = str(refused.value)
    assert message.endswith(said), message
    assert "the document is not valid JSON" not in message
    (call,) = refused.value.advice.calls  # (its start, as a call that runs)
    assert f'; its start: read_handle(handle="{handle}", line=1). (' in message, message
    reply = tools.call(call.verb, dict(call.arguments))
    assert reply["first_line"] == 1 and reply["data"].startswith(content[:8].decode())
