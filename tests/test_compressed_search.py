"""A search of compressed content (gzip, zstd, zip, xz, bzip2 -- the stub's shape says ", compressed") ran over the
compressed bytes, found nothing and said nothing: a model searching a ``.gz`` log for a word it holds was told only
"no windows". The miss now says why and what works (byte ranges; decompressing it elsewhere), within the reply's
budget."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import zipfile
from pathlib import Path

import pytest
import zstandard

from scratchfs.api.contract import ScratchTools
from scratchfs.api.views import reply_size

TEXT = (Path(__file__).resolve().parent.parent / "fixtures" / "workspace-grep-stdlib-defs.txt").read_bytes()[:200_000]


def _zipped(data: bytes) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("defs.txt", data)
    return out.getvalue()


PACKERS = {"gzip": gzip.compress, "zstd": lambda d: zstandard.ZstdCompressor().compress(d), "zip": _zipped,
           "xz": lzma.compress, "bzip2": bz2.compress}


@pytest.mark.parametrize("kind", sorted(PACKERS))
def test_a_miss_in_compressed_content_says_a_search_cannot_see_inside_and_what_works(scope, kind):
    stub = scope.spill(PACKERS[kind](TEXT), source_tool="curl")
    assert stub.content_type == "binary" and f"{kind}, compressed" in stub.shape
    tools = ScratchTools(scope)
    for asked in ({"match": "def openhook"}, {"pattern": r"def \w+\("}):
        reply = tools.call("read_handle", {"handle": stub.handle, **asked})
        assert reply["windows"] == [] and reply["next_call"] is None
        note = reply["note"]
        assert f"{kind}-compressed" in note and "cannot see" in note, note
        assert "offset=" in note and "length=" in note and "decompress" in note


@pytest.mark.parametrize("budget", [2048, 4096])
@pytest.mark.parametrize("length", [12, 300, 4096])
def test_the_compressed_miss_note_keeps_the_reply_within_its_budget(scope, budget, length):
    handle = scope.spill(gzip.compress(TEXT), source_tool="curl").handle
    tools = ScratchTools(scope)
    for key in ("match", "pattern"):
        reply = tools.call("read_handle", {"handle": handle, key: "q" * length, "budget": budget})
        assert reply_size(reply) <= budget and "gzip-compressed" in reply["note"]


def test_no_compressed_note_on_other_binary_content_or_a_search_from_an_offset(scope):
    tools = ScratchTools(scope)
    png = scope.spill(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 64, source_tool="curl").handle
    missed = tools.call("read_handle", {"handle": png, "match": "def openhook"})  # (where it looked, alone)
    assert missed["note"] == "no match in the whole content (16,392 bytes)" and "calls" not in missed
    gz = scope.spill(gzip.compress(TEXT), source_tool="curl").handle
    missed = tools.call("read_handle", {"handle": gz, "match": "def openhook", "offset": 10})
    assert missed["note"].startswith("no match in bytes 10-") and "compress" not in missed["note"]
