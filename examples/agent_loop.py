"""An agent loop with scratchfs, offline: a scripted model, a tool that returns a large web page, and read_handle.

Run it from a clone (see README.md, "Agent-loop adapter")::

    .venv/bin/python examples/agent_loop.py

The "web" is the Rust book page recorded in fixtures/ and the "model" is a script that decides each step from what the
transcript holds, so nothing here needs a network or an API key. What it shows:

1. the tool ``fetch_page`` returns 512 KiB of HTML; the adapter spills it and only the stub enters the transcript;
2. the model searches the stored page with ``read_handle(match=...)`` and reads the lines where it found it;
3. the transcript ends up a few KiB long instead of half a megabyte.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

from scratchfs import ScratchStore
from scratchfs.adapter import Offloader, tool_definitions

PAGE = Path(__file__).resolve().parent.parent / "fixtures" / "browser-rust-book.html"
URL = "https://doc.rust-lang.org/book/print.html"
QUESTION = f"In one sentence, what is ownership in Rust? Use the Rust book: {URL}"
WIDTH = 110


def scripted_model(transcript: list[dict[str, Any]]) -> dict[str, Any]:
    """Stands in for an LLM: picks the next step from the transcript (a tool call, or the final answer)."""
    steps = sum(1 for m in transcript if m["role"] == "assistant")
    last = transcript[-1]["content"]
    if steps == 0:
        return {"tool": "fetch_page", "arguments": {"url": URL}}
    if steps == 1:  # the page came back as a stub: search it instead of reading 512 KiB
        stub = json.loads(last)
        return {"tool": "read_handle", "arguments": {"handle": stub["handle"], "match": "What Is Ownership?",
                                                     "context": 60}}
    if steps == 2:  # found the heading: read the lines from there
        found = json.loads(last)
        return {"tool": "read_handle", "arguments": {"handle": found["handle"], "line": found["windows"][0]["line"],
                                                     "lines": 3}}
    text = re.sub(r"<[^>]+>", "", json.loads(last)["data"])
    sentence = re.search(r"Ownership is [^.]*\.", " ".join(text.split())).group(0)
    return {"answer": sentence}


def show(who: str, text: str) -> None:
    """Print one transcript line, long content folded at WIDTH characters (exactly as it is, nothing left out)."""
    print(who)
    for start in range(0, len(text), WIDTH - 4):
        print("    " + text[start : start + WIDTH - 4])


def main() -> None:
    with tempfile.TemporaryDirectory() as root, ScratchStore(root, preview_bytes=200) as store:
        # a short preview keeps this example's output short (the default is 1 KiB)
        offloader = Offloader(store.scope("example-run", "agent-1"))

        @offloader.tool(result_class="browser")
        def fetch_page(url: str) -> str:
            """Fetch a web page (here: the recorded copy in fixtures/)."""
            return PAGE.read_text(encoding="utf-8")

        offered = ["fetch_page", *(t["name"] for t in tool_definitions(store))]  # the store's budget and TTL
        print(f"tools offered to the model: {', '.join(offered)}\n")
        transcript: list[dict[str, Any]] = [{"role": "user", "content": QUESTION}]
        show("user:", QUESTION)
        while True:
            step = scripted_model(transcript)
            if "answer" in step:
                transcript.append({"role": "assistant", "content": step["answer"]})
                show("assistant:", step["answer"])
                break
            name, args = step["tool"], step["arguments"]
            transcript.append({"role": "assistant", "content": json.dumps(step, ensure_ascii=False)})
            show(f"assistant calls {name}:", json.dumps(args, ensure_ascii=False))
            if name == "fetch_page":
                obs = fetch_page.observe(**args)  # what fetch_page(**args) returns, with the stub attached
                text = obs.content
                what = (f"returned {PAGE.stat().st_size:,} bytes; the stub entered the transcript "
                        f"({len(text.encode()):,} bytes)" if obs.stub else f"{len(text.encode()):,} bytes")
            else:
                reply = offloader.call_scratch_tool(name, args)
                text = reply.text
                what = f"{len(text.encode()):,} bytes" + (" (error)" if reply.is_error else "")
            transcript.append({"role": "tool", "name": name, "content": text})
            show(f"tool {name}: {what}", text)
        size = sum(len(m["content"].encode()) for m in transcript)
        print(f"\ntranscript: {len(transcript)} messages, {size:,} bytes in all; the page alone is "
              f"{PAGE.stat().st_size:,} bytes")


if __name__ == "__main__":
    try:
        main()
    except BrokenPipeError:  # piped into a reader that stopped early (`| head`): not an error of the example
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # (the Python docs' recipe, signal module)
