"""Bytes a model no longer receives for fields that only repeated a default or "done" (helper replies3): a pattern
search's ``"ignore_case":false`` (20 bytes a page), a finished search's ``"more":false,"remaining":0,`` (27 bytes on
its last page), and a scratch_write's ``expires_at`` and ``ttl`` as floats (``1796454151.3062162``, ``3600.0``). The
searches are a model's on the real fixtures (grep output of the stdlib, the Rust book's HTML page, an AWS service
model's JSON), each followed by ``next_call`` to its end over the text blocks MCP sends (compact JSON); the old size of
each page is the page with the cut fields put back.

    python bench/reply_defaults.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scratchfs import ScratchStore  # noqa: E402
from scratchfs.adapter import parse_call  # noqa: E402
from scratchfs.api.contract import ScratchTools, to_json  # noqa: E402

SEARCHES = [  # (fixture, arguments): what a model asks of each
    ("workspace-grep-stdlib-defs.txt", {"pattern": r"def openhook\b"}),
    ("workspace-grep-stdlib-defs.txt", {"match": "def openhook"}),
    ("workspace-grep-stdlib-defs.txt", {"pattern": r"^\./json/.*def ", "context": "line"}),
    ("workspace-grep-stdlib-defs.txt", {"pattern": r"def __init__", "context": 0}),
    ("browser-rust-book.html", {"match": "What Is Ownership?", "context": 60}),
    ("browser-rust-book.html", {"pattern": r"<h2 id=\"[a-z-]*ownership", "context": 0}),
    ("api-ec2-service-model.json", {"pattern": r"\"DescribeInstances\"", "context": 40}),
    ("api-ec2-service-model.json", {"pattern": "\"TerminateInstances\"", "count": True}),
]


def old_size(reply: dict, text: str) -> int:
    """The bytes the page took before the cut: its ``ignore_case: false`` (a pattern's) and, finished, ``more:
    false, remaining: 0`` put back."""
    extra = 0
    if "pattern" in reply and "ignore_case" not in reply:
        extra += len(',"ignore_case":false')
    if "windows" in reply and reply.get("next_call") is None and "more" not in reply:
        extra += len(',"more":false,"remaining":0')
    return len(text.encode()) + extra


def main() -> None:
    with tempfile.TemporaryDirectory() as root, ScratchStore(root) as store:
        scope = store.scope("bench", "replies")
        tools = ScratchTools(scope)
        handles = {}
        pages = new_total = old_total = 0
        for name, args in SEARCHES:
            if name not in handles:
                handles[name] = scope.spill((ROOT / "fixtures" / name).read_bytes(), source_tool="bench").handle
            call = {"handle": handles[name], **args}
            while call is not None:
                reply = tools.call("read_handle", call)
                text = to_json(reply)
                pages += 1
                new_total += len(text.encode())
                old_total += old_size(reply, text)
                call = parse_call(reply["next_call"])[1] if reply.get("next_call") else None
        written = tools.call("scratch_write", {"key": "notes/openhook", "value": "openhook: line 29"})
        old_write = len(to_json({**written, "ttl": float(written["ttl"]), "expires_at": store.now() + 3600.0}))
        saved = old_total - new_total
        print(f"{len(SEARCHES)} searches, {pages} pages over MCP: {new_total:,} bytes, {old_total:,} before "
              f"({saved:,} saved, {100 * saved / old_total:.1f}%); a scratch_write reply {len(to_json(written))} "
              f"bytes, {old_write} before")


if __name__ == "__main__":
    main()
