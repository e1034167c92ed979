"""Spill every file of a folder of real tool outputs and follow, page by page to the end, every call its stub's note
names (those with a placeholder -- ``"TEXT"``, ``"REGEX"``, ``"JQ"`` -- left out) and the calls each first reply's
note names, as a model would; check each reply against the plain Python answer on the file.

    .venv/bin/python bench/follow_stub_calls.py DIR [--budget N]

Checked: each reply's JSON text within its budget; a byte range or line chain's pages join to exactly the file's
bytes from where it starts (text pages; hex dumps and pages with bytes not UTF-8 are only checked for continuity); a
``match=`` search's match offsets are ``bytes.find``'s; no call fails untyped, none repeats (a loop), every chain
ends. One line per file and per problem; exit status 1 when there is a problem. Helper realworld (2026-12-04) ran it
over 65 outputs of this machine (``ps auxww``, ``git log -p``, ``man`` with overstrikes, ``jq .`` streams, UTF-16,
NUL-separated names, tar and zip archives, ...); it reads only the folder given.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

from scratchfs import ScratchStore
from scratchfs.adapter import parse_call
from scratchfs.api.contract import ScratchTools
from scratchfs.foundation.errors import ScratchError

CALL = re.compile(r'read_handle\((?:[^()"]|"(?:[^"\\]|\\.)*")*\)')
PLACEHOLDERS = ('"TEXT"', '"REGEX"', '"JQ"')
MOST_PAGES = 5000


def size(reply: dict[str, Any]) -> int:
    return len(json.dumps(reply, ensure_ascii=False, separators=(",", ":")).encode())


def follow(tools: ScratchTools, call: str, budget: int, problems: list[str]) -> list[tuple[dict, dict]]:
    """The (arguments, reply) pages of ``call`` and its next_calls to the end; problems appended."""
    pages: list[tuple[dict, dict]] = []
    seen: set[str] = set()
    while call and len(pages) < MOST_PAGES:
        name, args = parse_call(call)
        key = json.dumps(args, sort_keys=True)
        if key in seen:
            problems.append(f"loop at {call[:120]}")
            break
        seen.add(key)
        try:
            reply = tools.call(name, args)
        except ScratchError as exc:
            problems.append(f"{call[:120]} -> {type(exc).__name__}: {str(exc)[:200]}")
            break
        except Exception as exc:  # (what this script looks for: an untyped error)
            problems.append(f"UNTYPED {call[:120]} -> {type(exc).__name__}: {exc}")
            break
        if size(reply) > args.get("budget", budget):
            problems.append(f"{size(reply)} bytes over the budget: {call[:120]}")
        pages.append((args, reply))
        call = reply.get("next_call")
    if len(pages) >= MOST_PAGES:
        problems.append(f"more than {MOST_PAGES} pages: {pages[0][0]}")
    return pages


def check_bytes(data: bytes, pages: list[tuple[dict, dict]], problems: list[str]) -> None:
    """A range or line chain: pages continuous, text pages the file's bytes, the last one at the end (or at the
    end= its first call gave: a member's read)."""
    at, bound = pages[0][1]["offset"], pages[0][0].get("end", len(data))  # (end=: a member's read stops there)
    for _, reply in pages:
        if reply["offset"] != at:
            problems.append(f"page at {reply['offset']} after one ending at {at}")
        end = min(reply["size"], bound) if reply.get("next_offset") is None else reply["next_offset"]
        if reply.get("encoding") != "hexdump" and not reply.get("replaced") and \
                reply["data"].encode() != data[reply["offset"] : end]:
            problems.append(f"bytes {reply['offset']}-{end} differ from the file's")
        at = end
    if at != bound:
        problems.append(f"chain ended at byte {at} of {bound}")


def check_search(data: bytes, pages: list[tuple[dict, dict]], problems: list[str]) -> None:
    """A forward substring search from its offset: its match offsets are bytes.find's."""
    args = pages[0][0]
    if "match" not in args or args.get("ignore_case") or args.get("view") or "before" in args or "count" in args:
        return
    got = [hit["offset"] for _, reply in pages for window in reply.get("windows", [])
           for hit in (window.get("matches") or [{"offset": window.get("match_offset", window["offset"])}])]
    needle, want, at = args["match"].encode(), [], data.find(args["match"].encode(), args.get("offset", 0))
    while at >= 0:
        want.append(at)
        at = data.find(needle, at + len(needle))
    if got != want:
        problems.append(f"match={args['match']!r}: {len(got)} matches found, bytes.find finds {len(want)}")


def check_file(tools: ScratchTools, path: Path, budget: int) -> tuple[str, list[str]]:
    data = path.read_bytes()
    stub = tools.scope.spill(data, source_tool="shell").to_dict()
    problems: list[str] = [] if size(stub) <= 1536 else [f"stub of {size(stub)} bytes"]
    calls = [c for c in CALL.findall(stub["note"]) if not any(p in c for p in PLACEHOLDERS)]
    followed = 0
    for call in calls:
        pages = follow(tools, call if budget == 8192 else call[:-1] + f", budget={budget})", budget, problems)
        followed += len(pages)
        if pages and not ({"jq", "row", "record", "view", "select", "match", "pattern"} & pages[0][0].keys()):
            check_bytes(data, pages, problems)
        elif pages:
            check_search(data, pages, problems)
        for extra in CALL.findall(pages[0][1].get("note", "") if pages else ""):
            if extra not in calls and not any(p in extra for p in PLACEHOLDERS):
                calls.append(extra)
    return (f"{path.name}: {len(data):,} bytes, {stub['content_type']}, {len(calls)} calls, {followed} pages; "
            f"{stub['shape'][:100]}"), problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--budget", type=int, default=8192)
    options = parser.parse_args()
    bad = 0
    with tempfile.TemporaryDirectory() as root, ScratchStore(root=root) as store:
        tools = ScratchTools(store.scope("run-follow", "agent-follow"))
        for path in sorted(p for p in options.folder.iterdir() if p.is_file()):
            line, problems = check_file(tools, path, options.budget)
            print(line)
            for problem in problems:
                print("   !!", problem)
            bad += len(problems)
    print(f"{bad} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
