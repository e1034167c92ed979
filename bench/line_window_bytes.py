"""Bytes a search window spends on its fields beside its ``data``, by kind, over real fixtures: each search paged to its
end by its ``next_offset`` (the reply a model receives, :func:`~scratchfs.api.views.reply_text`), its windows'
compact JSON measured whole and without ``data``.

    python bench/line_window_bytes.py
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scratchfs import ScratchStore
from scratchfs.api.contract import ScratchTools
from scratchfs.api.views import reply_size, reply_text

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
CASES = [  # (name, fixture, search arguments)
    ("grep output, lines", "workspace-grep-stdlib-defs.txt", {"pattern": r"def get\w*\(", "context": "line"}),
    ("grep output, bytes", "workspace-grep-stdlib-defs.txt", {"pattern": r"def get\w*\("}),
    ("log, lines", "tools/java-log-stacktraces.txt", {"match": "SEVERE", "context": "line"}),
    ("log, bytes", "tools/java-log-stacktraces.txt", {"match": "SEVERE"}),
    ("CSV, lines (rows)", "query-packages-by-month.csv", {"match": "python", "context": "line"}),
    ("CSV, bytes (rows)", "query-packages-by-month.csv", {"match": "python"}),
    ("JSONL, lines", "tools/dpkg-query-jq.jsonl", {"match": "optional", "context": "line"}),
    ("JSONL, bytes", "tools/dpkg-query-jq.jsonl", {"match": "optional"}),
    ("JSONL 3 KB lines, some cut", "tools/pip-inspect-jq-c-metadata.jsonl", {"match": "Operating System",
                                                                              "context": "line"}),
    ("JSONL 3 KB lines, bytes", "tools/pip-inspect-jq-c-metadata.jsonl", {"match": "Operating System"}),
]


def pages(tools: ScratchTools, handle: str, args: dict) -> list[dict]:
    """Every reply of a search of ``handle`` from its start, by ``next_offset``."""
    call, out = {"handle": handle, **args}, []
    while True:
        reply = json.loads(reply_text(tools.call("read_handle", call)))
        out.append(reply)
        if reply["next_offset"] is None:
            return out
        call = {**call, "offset": reply["next_offset"]}


def measure(tools: ScratchTools, handle: str, args: dict) -> tuple[int, int, int, int, int]:
    """(pages, windows, reply bytes, window bytes, window field bytes beside ``"data":...``)."""
    replies = pages(tools, handle, args)
    windows = [w for r in replies for w in r["windows"]]
    fields = sum(reply_size(w) - reply_size({"data": w["data"]}) + 2 for w in windows)  # (less {} of the bare one)
    return (len(replies), len(windows), sum(reply_size(r) for r in replies), sum(reply_size(w) for w in windows),
            fields)


def main() -> None:
    with tempfile.TemporaryDirectory() as root, ScratchStore(root) as store:
        scope = store.scope("bench", "windows")
        tools = ScratchTools(scope)
        print(f"{'case':30} pages windows reply-bytes window-bytes fields/window bytes/window")
        for name, fixture, args in CASES:
            handle = scope.spill((FIXTURES / fixture).read_bytes(), source_tool="bench").handle
            count, windows, replies, window_bytes, fields = measure(tools, handle, args)
            print(f"{name:30} {count:5} {windows:7} {replies:11,} {window_bytes:12,} {fields / windows:12.1f} "
                  f"{window_bytes / windows:12.1f}")


if __name__ == "__main__":
    main()
