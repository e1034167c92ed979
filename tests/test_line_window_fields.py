"""A search window of a whole line (``context="line"``) says its ``line`` and ``data`` (a table's ``row`` too) and
nothing else (linewindows1): its ``offset``, ``length``, ``match_offset`` and ``match_length`` cost ~75 bytes a
window beside ~80 of line, and none was needed to go on (the match is in the data, ``line=N`` reads around it,
``next_call`` pages on). A window of a line cut by its bound keeps ``offset``, ``length`` and ``cut``: the byte read
of the line's rest. Windows of bytes of context keep their fields (``python bench/line_window_bytes.py``)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from scratchfs.api.contract import ScratchTools
from scratchfs.api.views import reply_size, reply_text
from tests.test_budgets import call_args

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def _pages(tools: ScratchTools, args: dict) -> list[dict]:
    """Every reply of a search, each page's named next_call followed to the end."""
    out = []
    while True:
        reply = json.loads(reply_text(tools.call("read_handle", args)))
        out.append(reply)
        if reply["next_call"] is None:
            return out
        verb, args = call_args(reply["next_call"])
        assert verb == "read_handle"


def _matched_lines(data: bytes, regex: bytes) -> list[tuple[int, bytes]]:
    return [(n, line.removesuffix(b"\r")) for n, line in enumerate(data.split(b"\n"), 1) if re.search(regex, line)]


def _whole_lines(scope, fixture: str, regex: bytes, **search) -> tuple[list[dict], list[dict], bytes]:
    data = (FIXTURES / fixture).read_bytes()
    tools = ScratchTools(scope)
    handle = scope.spill(data, source_tool="t").handle
    replies = _pages(tools, {"handle": handle, "context": "line", **search})
    windows = [w for r in replies for w in r["windows"]]
    assert [(w["line"], w["data"].encode()) for w in windows] == _matched_lines(data, regex)  # every one once, in
    # order, each its whole line
    return replies, windows, data


def test_grep_output_lines_say_line_and_data_only(scope):
    replies, windows, _ = _whole_lines(scope, "workspace-grep-stdlib-defs.txt", rb"def get\w*\(",
                                       pattern=r"def get\w*\(")
    assert len(windows) == 191 and all(set(w) == {"line", "data"} for w in windows)
    assert sum(reply_size(r) for r in replies) < 26_000  # (37,174 bytes with offsets and match fields)
    (brief,) = [w for w in windows if w["line"] == 93]  # (the brief's example)
    assert brief["data"].endswith(":51:def get_machine_id() -> str | bytes | None:")


def test_log_and_jsonl_lines_say_line_and_data_only(scope):
    replies, windows, _ = _whole_lines(scope, "tools/java-log-stacktraces.txt", rb"SEVERE", match="SEVERE")
    assert len(windows) == 2 and all(set(w) == {"line", "data"} for w in windows)
    assert sum(reply_size(r) for r in replies) < 250  # (331 before)
    replies, windows, data = _whole_lines(scope, "tools/dpkg-query-jq.jsonl", rb"optional", match="optional")
    assert len(windows) == 39 and all(set(w) == {"line", "data"} for w in windows)
    assert sum(reply_size(r) for r in replies) < 9_500  # (11,272 before)
    tools = ScratchTools(scope)  # the line read a model goes on with reads that line
    handle = scope.spill(data, source_tool="t").handle
    read = tools.call("read_handle", {"handle": handle, "line": windows[5]["line"], "lines": 1})
    assert read["data"].rstrip("\n") == windows[5]["data"]


def test_table_lines_say_their_row_which_a_rows_read_takes(scope):
    replies, windows, data = _whole_lines(scope, "query-packages-by-month.csv", rb"python", match="python")
    assert len(windows) == 90 and all(set(w) == {"line", "row", "data"} for w in windows)
    assert sum(reply_size(r) for r in replies) < 16_000  # (20,794 before)
    handle = scope.spill(data, source_tool="t").handle
    read = ScratchTools(scope).call("read_handle", {"handle": handle, "row": windows[3]["row"], "rows": 1})
    assert windows[3]["data"].split(",")[0] in json.dumps(read)


def test_a_cut_line_keeps_the_byte_read_of_its_rest(scope):
    data = (FIXTURES / "tools/pip-inspect-jq-c-metadata.jsonl").read_bytes()
    tools = ScratchTools(scope)
    handle = scope.spill(data, source_tool="t").handle
    windows = [w for r in _pages(tools, {"handle": handle, "match": "Operating System", "context": "line"})
               for w in r["windows"]]
    assert [w["line"] for w in windows] == [n for n, line in _matched_lines(data, rb"Operating System")]
    cut = [w for w in windows if "cut" in w]
    assert cut and all({"line", "offset", "length", "cut", "data"} <= set(w) for w in cut)
    for window in cut:  # the line's rest after the window: the read from offset + length to the line's end
        end = window["offset"] + window["length"]
        line_end = data.index(b"\n", end)
        if window["cut"] in ("after", "both"):
            rest = tools.call("read_handle", {"handle": handle, "offset": end, "length": line_end - end})
            assert rest["data"].encode() == data[end:line_end] and rest["data"]
        if window["cut"] in ("before", "both"):
            start = data.rindex(b"\n", 0, window["offset"]) + 1
            rest = tools.call("read_handle", {"handle": handle, "offset": start, "length": window["offset"] - start})
            assert rest["data"].encode() == data[start : window["offset"]] and rest["data"]
    assert all(set(w) == {"line", "data"} for w in windows if "cut" not in w)


def test_windows_of_bytes_of_context_keep_their_offsets(scope):
    data = (FIXTURES / "tools/dpkg-query-jq.jsonl").read_bytes()
    handle = scope.spill(data, source_tool="t").handle
    windows = ScratchTools(scope).call("read_handle", {"handle": handle, "match": "optional"})["windows"]
    assert all({"line", "offset", "length", "data"} <= set(w) for w in windows)
