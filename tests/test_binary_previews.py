"""One rule of what is text for every face: a value whose content type is binary is previewed as the hex dump its
spill stub and its reads show -- in scratch_list (MCP), ``scratchfs scratch-list`` and the index row the web
inspector lists -- never as raw bytes (``\\u0000\\u0001...``) and U+FFFD (a new user's trial)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from scratchfs import ScratchStore
from scratchfs.api.contract import ScratchTools
from scratchfs.api.views import hex_piece
from scratchfs.cli import main
from scratchfs.foundation.limits import LIST_PREVIEW_BYTES, LIST_PREVIEW_CHARS

VALUE = bytes([0x07, 0xFC, 0x2D, 0x00, 0x01, 0x9E]) + bytes(range(256)) * 8  # 2 KiB of bytes, NULs among them


def test_a_binary_value_is_previewed_as_the_hex_dump_its_stub_and_reads_show(tmp_path):
    with ScratchStore(tmp_path) as store:
        scope = store.scope("run", "agent")
        tools = ScratchTools(scope)
        tools.call("scratch_write", {"key": "bin", "value": __import__("base64").b64encode(VALUE).decode(),
                                     "encoding": "base64"})
        tools.call("scratch_write", {"key": "txt", "value": "plain text value " * 20})
        first_line = hex_piece(VALUE[:16], 0).data
        assert first_line.startswith("00000000  07 fc 2d 00 01 9e ")
        read = tools.call("scratch_read", {"key": "bin"})
        assert read["encoding"] == "hexdump" and read["data"].startswith(first_line + "\n")
        stub = scope.spill(VALUE, source_tool="t")
        assert stub.content_type == "binary" and stub.preview.startswith(first_line + "\n")
        rows = {row["key"]: row["preview"] for row in tools.call("scratch_list", {})["entries"]}
        assert rows["bin"] == first_line  # whole lines of the dump within the row's characters
        assert len(rows["bin"]) <= LIST_PREVIEW_CHARS
        assert rows["txt"] == ("plain text value " * 20)[:LIST_PREVIEW_CHARS]  # text as it was
        (entry,) = [e for e in scope.scratch_list() if e.key == "bin"]
        dump = hex_piece(VALUE, 0).data
        assert entry.preview == dump[: dump.rfind("\n", 0, LIST_PREVIEW_BYTES + 1)]  # the row the web lists
        assert "\ufffd" not in entry.preview and "\x00" not in entry.preview
        assert [e.preview for e in store.list_entries_for_run("run") if e.key == stub.handle] == [entry.preview]


def test_the_cli_scratch_list_previews_binary_as_a_hex_dump(tmp_path, monkeypatch):
    monkeypatch.setenv("SCRATCHFS_ROOT", str(tmp_path / "root"))
    monkeypatch.setenv("SCRATCHFS_RUN_ID", "run-1")
    monkeypatch.setenv("SCRATCHFS_AGENT_ID", "agent-1")
    path = tmp_path / "v.bin"
    path.write_bytes(VALUE)
    runner = CliRunner()
    assert runner.invoke(main, ["scratch-write", "bin", str(path)], catch_exceptions=False).exit_code == 0
    listed = json.loads(runner.invoke(main, ["scratch-list"], catch_exceptions=False).stdout)
    (row,) = listed
    assert row["preview"].startswith("00000000  07 fc 2d 00 01 9e ") and "\ufffd" not in row["preview"]
    assert row["content_type"] == "binary"
