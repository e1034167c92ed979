"""The bytes a reply's ``calls`` adds beside a ``note`` that names calls (advice3): each successful reply whose note
advises a call, as its compact JSON (the bytes a model receives), with and without ``calls``, the budget 2,048
bytes (the smallest) and none (8,192).

    python bench/note_calls.py

What it printed at 11:50 UTC on 2026-12-05 (branch advice3, one call each): html miss 157 B of calls in a 556 B
reply (171 B with budget=2048), overstrike miss 148 B, crlf miss 142 B, latin-1 miss 144 B, gzip miss 109 B,
terminal view hit 117 B (1,614 B reply), jq failure 119 B, a JSON-lines record passed over 108 B; 14 B more each
with budget=2048 (the call repeats it). Every reply within its budget (the calls are measured with it).
Since helper mcp7 (20:22 UTC) the text a model reads (MCP text block, adapter's ToolReply.text) leaves ``calls`` to
the structured content (``scratchfs.api.views.reply_text``): these bytes are a program's alone. Since helper replies7
the budget counts that text (``reply_size``): the calls are beyond it, and a page whose note names them shows as
much content as one without (the text within the budget, the reply with its calls up to their bytes more).
"""

from __future__ import annotations

import gzip
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scratchfs import ScratchStore
from scratchfs.api.contract import ScratchTools
from scratchfs.api.views import reply_size, to_json

CASES = {
    "html miss": (b"<html><body>" + b"".join(b"<p>caf&eacute; <b>au</b> lait %d</p>\n" % n for n in range(400))
                  + b"</body></html>", "fetch", {"match": "café au lait 39"}),
    "overstrike miss": (b"".join(b"N\x08NA\x08AM\x08ME\x08E %d\n" % n for n in range(900)), "man",
                        {"match": "NAME 39"}),
    "crlf miss": (b"".join(b"key=%d\r\n" % n for n in range(2000)), "shell", {"pattern": "key=1999$"}),
    "latin-1 miss": (b"".join(b"caf\xe9 au lait %d\n" % n for n in range(900)), "shell", {"match": "café"}),
    "gzip miss": (gzip.compress(b"hello there\n" * 5000, mtime=0), "download", {"match": "hello"}),
    "terminal view hit": (b"".join(b"\x1b[01;31mred %d\x1b[0m plain\x1b[K\n" % n for n in range(400)), "bash",
                          {"match": "red 39", "view": "text"}),
    "jq failure": (json.dumps([{"x": "s"} if n == 30 else {"x": {"y": n}} for n in range(1, 100)]).encode(), "api",
                   {"jq": ".[] | .x.y"}),
    "record passed over": (b'{"n": 1}\n{"n": 2}\nnot json\n' + b"".join(b'{"n": %d}\n' % n for n in range(4, 60)),
                           "log", {"record": 1}),
}


def main() -> None:
    with tempfile.TemporaryDirectory() as root, ScratchStore(root) as store:
        scope = store.scope("r", "a")
        tools = ScratchTools(scope)
        for name, (data, tool, arguments) in CASES.items():
            handle = scope.spill(data, source_tool=tool).handle
            for budget in (None, 2048):
                given = {} if budget is None else {"budget": budget}
                reply = tools.call("read_handle", {"handle": handle, **arguments, **given})
                whole = len(to_json(reply).encode())  # (the structured content: the text and its calls)
                added = whole - reply_size(reply)
                print(f"{name:20} budget={budget or 8192:5}: reply {whole:5} B, text {reply_size(reply):5} B, calls "
                      f"{added:4} B ({len(reply.get('calls', []))} call), note {reply_size(reply.get('note', ''))} B")


if __name__ == "__main__":
    main()
