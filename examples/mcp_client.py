"""A model's side of ``scratchfs mcp``, driven by the official MCP Python SDK's stdio client, offline.

Run it from a clone (see README.md, "MCP")::

    .venv/bin/python examples/mcp_client.py

What it shows:

1. a tool result spilled by the host (here with the Python API, as the adapter or ``mcp-proxy`` would) is read by the
   model through the server's ``read_handle``: a search, then the lines around the first match;
2. the scratchpad: ``scratch_write`` a note, ``scratch_list``, ``scratch_read``;
3. every reply says how to go on: its ``next_call`` is parsed (``scratchfs.adapter.parse_call``: the tool's name and
   arguments) and called until it is ``null``.

The server is started as an MCP client starts it: by its absolute path, with every setting in its arguments (a client
passes it almost none of your environment; this example passes on a ``$PYTHONPATH`` only). The SDK's result
objects use snake_case attributes (``is_error``, ``structured_content``, ``input_schema``).
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client

from scratchfs import ScratchStore
from scratchfs.adapter import parse_call

GREP = Path(__file__).resolve().parent.parent / "fixtures" / "workspace-grep-stdlib-defs.txt"
RUN, AGENT = "run-7", "agent-1"


def server(root: str) -> StdioServerParameters:
    """``scratchfs mcp`` of this virtual environment (beside its python), for one store and scope."""
    scratchfs = Path(sys.executable).with_name("scratchfs")
    command, args = (str(scratchfs), []) if scratchfs.exists() else (sys.executable, ["-m", "scratchfs"])
    # the one variable passed on: a $PYTHONPATH naming the scratchfs to run (this checkout's, as its tests run the
    # example), else the server would import the one installed in the environment, whatever state that one is in
    env = {"PYTHONPATH": os.environ["PYTHONPATH"]} if os.environ.get("PYTHONPATH") else None
    return StdioServerParameters(command=command, args=[*args, "mcp", "--root", root, "--run", RUN,
                                                        "--agent", AGENT], env=env)


async def call(session: ClientSession, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await session.call_tool(name, arguments)
    if result.is_error:  # a tool error: "<kind>: <message>", the server goes on serving
        raise RuntimeError(result.content[0].text)
    return result.structured_content


async def main(root: str, handle: str, errlog: Any) -> None:
    async with stdio_client(server(root), errlog=errlog) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = (await session.list_tools()).tools
        print("tools:", ", ".join(tool.name for tool in tools))

        result = await session.call_tool("read_handle", {"handle": handle, "match": "def openhook", "max_matches": 1})
        text = result.content[0].text  # what the model receives: the reply's compact JSON text, as a text block
        line = json.loads(text)["windows"][0]["line"]
        print(f"'def openhook' first found on line {line:,}; the reply was {len(text.encode()):,} bytes")
        page = await call(session, "read_handle", {"handle": handle, "line": line, "lines": 3})
        print("lines", line, "to", line + 2, "->", page["data"].splitlines()[0][:70], "...")

        await call(session, "scratch_write", {"key": "notes/openhook", "value": f"openhook: line {line}"})
        listing = await call(session, "scratch_list", {"prefix": "notes/"})
        note = await call(session, "scratch_read", {"key": "notes/openhook"})
        print("scratchpad:", [entry["key"] for entry in listing["entries"]], "->", repr(note["data"]))

        # follow next_call to the end: a byte-range read of the whole result (each reply within the 8 KiB budget)
        name, arguments, pages, size = "read_handle", {"handle": handle, "length": 16384}, 0, 0
        while True:
            reply = await call(session, name, arguments)
            pages, size = pages + 1, size + reply["length"]
            if reply["next_call"] is None:
                break
            name, arguments = parse_call(reply["next_call"])
        print(f"read back {size:,} bytes in {pages} replies, following next_call")


if __name__ == "__main__":
    with tempfile.TemporaryDirectory(prefix="scratchfs-mcp-example-") as root:
        with ScratchStore(root) as store:  # the host spills the large result; the model only sees its stub
            stub = store.scope(RUN, AGENT).spill(GREP.read_bytes(), source_tool="workspace.grep")
        print(f"spilled {stub.size:,} bytes as {re.sub('[a-z2-7]{24}', '…', stub.handle)}: {stub.shape}")
        with tempfile.TemporaryFile("w+") as errlog:  # the server's stderr, which a client keeps in its log
            try:
                anyio.run(main, root, stub.handle, errlog)
            except BaseException:  # (the server exited, say): what it said is the first thing to look at
                errlog.seek(0)
                print("the server's log:", errlog.read() or "(empty)", sep="\n", file=sys.stderr)
                raise
            errlog.seek(0)
            print("the server's log:", errlog.readline().strip().replace(root, "ROOT"))
