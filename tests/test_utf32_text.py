"""structnotes1 (hostile31's finding 3): content that starts with a UTF-32 byte order mark -- ``FF FE 00 00``
(little-endian), ``00 00 FE FF`` (big-endian) -- was labelled "UTF-16LE text" (the first two bytes of its mark are
UTF-16LE's), or plain binary. Now its shape names UTF-32LE or UTF-32BE text, the stub says how a search finds its
text (each character as its four bytes), and a search that misses names the pattern that finds it. Each test here
failed before its fix."""

from __future__ import annotations

import ast
import re

import pytest

from scratchfs.api.contract import ScratchTools

TEXT = "".join(f"line {i}: hello python world\n" for i in range(300))


@pytest.fixture
def tools(scratch_scope):
    return ScratchTools(scratch_scope)


@pytest.mark.parametrize(("mark", "codec", "kind", "example"), [
    (b"\xff\xfe\x00\x00", "utf-32-le", "UTF-32LE text", 'pattern="p\\x00\\x00\\x00y\\x00\\x00\\x00" for "py"'),
    (b"\x00\x00\xfe\xff", "utf-32-be", "UTF-32BE text", 'pattern="\\x00\\x00\\x00p\\x00\\x00\\x00y" for "py"'),
])
def test_utf32_text_is_told_and_its_search_names_the_bytes_that_find_it(tools, mark, codec, kind, example):
    data = mark + TEXT.encode(codec)
    stub = tools.scope.spill(data, source_tool="t").to_dict()
    assert stub["shape"].startswith(f"binary, 34 KiB, {kind}; starts with {mark.hex(' ')}"), stub["shape"]
    assert f"binary content, {kind} (a search finds its text written as its bytes: {example})" in stub["note"]
    miss = tools.read_handle(handle=stub["handle"], match="python")
    assert miss["note"].startswith(f"no match: the content is {kind} (four bytes a character, stored as binary)")
    call = re.search(r"read_handle\(.*\)$", miss["note"]).group(0)
    node = ast.parse(call, mode="eval").body
    counted = tools.call("read_handle", {**{k.arg: ast.literal_eval(k.value) for k in node.keywords}, "count": True})
    assert counted["matches"] == 300 == data.count("python".encode(codec)), counted


def test_utf16_text_stays_utf16(tools):
    stub = tools.scope.spill(TEXT.encode("utf-16"), source_tool="t").to_dict()
    assert stub["shape"].startswith("binary, 17 KiB, UTF-16LE text; starts with ff fe 6c 00"), stub["shape"]
