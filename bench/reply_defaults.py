"""Bytes a model no longer receives for fields that only repeated a default or "done" (helper replies3): a pattern
search's ``"ignore_case":false`` (20 bytes a page), a finished search's ``"more":false,"remaining":0,`` (27 bytes on
its last page), and a scratch_write's ``expires_at`` and ``ttl`` as floats (``1796454151.3062162``, ``3600.0``). The
searches are a model's on the real fixtures (grep output of the stdlib, the Rust book's HTML page, an AWS service
model's JSON), each followed by ``next_call`` to its end over the text blocks MCP sends (compact JSON); the old size of
each page is the page with the cut fields put back.

Then the calls themselves (helper advice4): every ``next_call`` wrote out the arguments at their defaults
(``length=4096`` of a range, ``lines=50``, a search's ``context=200, max_matches=20``, ``scratch_read``'s
``length=65536``). READS are followed to their end twice, with those defaults left out (as now) and written out
(``calls.without_defaults`` made the identity), each reply's bytes counted as MCP sends them.
At ``advice4`` (2026-12-05):

    5 reads followed to their end: 578 pages, 2,653,843 bytes; with the defaults written out 578 pages, 2,665,156
    bytes (11,313 saved, 0.4%)

(about 20 bytes a page: 13 of a range read's, 10 of a line read's, 29 of a search's, 14 of a scratchpad read's).

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
from scratchfs.foundation import calls  # noqa: E402

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


READS = [  # (fixture or scratchpad value, verb, arguments): reads a model follows page by page
    ("workspace-grep-stdlib-defs.txt", "read_handle", {"offset": 0}),
    ("workspace-grep-stdlib-defs.txt", "read_handle", {"line": 1}),
    ("workspace-grep-stdlib-defs.txt", "read_handle", {"match": "def "}),
    ("browser-rust-book.html", "read_handle", {"pattern": "<h[23]"}),
    ("api-ec2-service-model.json", "scratch_read", {}),  # (the document kept in the scratchpad, read back)
]


def follow_reads(tools: ScratchTools, handles: dict[str, str]) -> tuple[int, int]:
    """``(pages, bytes)`` of following every read of :data:`READS` to its end."""
    pages = total = 0
    for name, verb, args in READS:
        call = {("key" if verb == "scratch_read" else "handle"): handles[name], **args}
        while call is not None:
            reply = tools.call(verb, call)
            pages += 1
            total += len(to_json(reply).encode())
            verb, call = parse_call(reply["next_call"]) if reply.get("next_call") else (verb, None)
    return pages, total


def call_defaults(scope, tools: ScratchTools) -> str:
    """What leaving the defaults out of next_call saves over :data:`READS`."""
    handles = {}
    for name, verb, _ in READS:
        data = (ROOT / "fixtures" / name).read_bytes()
        if verb == "scratch_read":
            scope.scratch_write(name, data)
            handles[name] = name
        elif name not in handles:
            handles[name] = scope.spill(data, source_tool="bench").handle
    pages, now = follow_reads(tools, handles)
    kept = calls.without_defaults
    calls.without_defaults = lambda verb, arguments: arguments
    try:
        old_pages, before = follow_reads(tools, handles)
    finally:
        calls.without_defaults = kept
    return (f"{len(READS)} reads followed to their end: {pages} pages, {now:,} bytes; with the defaults written out "
            f"{old_pages} pages, {before:,} bytes ({before - now:,} saved, {100 * (before - now) / before:.1f}%)")


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
        print(call_defaults(scope, tools))


if __name__ == "__main__":
    main()
