"""How long ``scratchfs mcp-proxy`` takes to stop once its client closes its stdin (the normal way an MCP client
stops a stdio server; the SDK's ``stdio_client`` then waits 2 s before SIGTERM), beside ``scratchfs mcp``:

* ``mcp``: ``scratchfs mcp`` after a handshake and a ``tools/list``;
* ``proxy``: ``scratchfs mcp-proxy`` over a well-behaved upstream (plain Python, exits when its stdin ends) after a
  handshake, a ``tools/list`` and a call;
* ``sdk``: the same over an upstream written with the MCP SDK (its low-level ``Server`` on ``stdio_server``), which
  takes its interpreter's exit (about 0.3 s alone) to exit once its stdin ends;
* ``stuck``: ``scratchfs mcp-proxy`` over an upstream that answered a call and then reads nothing more (asleep for
  an hour): the proxy is blocked writing a 2 MB request to its full stdin pipe when the client leaves (the call
  fails ``no answer within 2 s`` first, ``--timeout 2``). The upstream, deaf to its stdin's end, is stopped by
  SIGTERM.

Each run is timed from the close of the proxy's stdin to its exit (``wait``), driven over raw pipes (JSON-RPC lines;
no SDK in the client); N runs of each, then the median, the least and the most, and each exit code (0 expected).

    python bench/proxy_stop.py [N] [--only mcp|proxy|sdk|stuck]      # default: 5 runs of each

Another checkout's proxy is measured with ``PYTHONPATH=<its root>``, run from a directory outside both (the working
directory comes first on the proxy's ``sys.path``). 02:19 UTC 2026-12-07, load 9.6-10.0, ``cd /tmp && PYTHONPATH=<root>
python <this file> 5``, medians of mcp, proxy, sdk, stuck: 0.80, 0.73, 1.33 and 6.37 s at main's ``2023893``; 0.13,
0.14, 0.67 and 0.69 s on branch mcpstop1 (the interpreter's exit spared its collections; the courtesy cancels no
longer waited out). ``stuck`` stops 5 s after the call's deadline before: the SDK's courtesy cancel of the call
abandoned then, written to a pipe nobody reads, waited 5 s -- 3.4-3.8 s when the stop came 1.5 s later; ``sdk``
stops once its upstream has exited (its own interpreter's exit, 0.5 s at most, then SIGTERM).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# A plain-Python upstream (the handshake as tests/mcp_support.raw_upstream writes it, kept here as a copy: this
# script measures other checkouts' proxies and runs without the test dependencies).
UPSTREAM = '''import json, sys, time
for raw in sys.stdin:
    msg = json.loads(raw)
    if "id" not in msg:
        continue
    if msg["method"] == "initialize":
        result = {"protocolVersion": msg["params"]["protocolVersion"], "capabilities": {"tools": {}},
                  "serverInfo": {"name": "stop", "version": "1"}}
    elif msg["method"] == "tools/list":
        result = {"tools": [{"name": "echo", "inputSchema": {"type": "object"}},
                            {"name": "deaf", "inputSchema": {"type": "object"}}]}
    elif msg["params"]["name"] == "deaf":  # answers, then never reads its stdin again (alive, its pipe fills)
        print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": {"content": []}}), flush=True)
        time.sleep(3600)
    else:
        result = {"content": [{"type": "text", "text": "called " + msg["params"]["name"]}]}
    print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}), flush=True)
'''
SDK_UPSTREAM = '''import anyio, mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server


async def list_tools(ctx, params):
    return types.ListToolsResult(tools=[types.Tool(name="echo", input_schema={"type": "object"})])


async def call_tool(ctx, params):
    return types.CallToolResult(content=[types.TextContent(type="text", text="called " + params.name)])


async def main():
    server = Server("stop", on_list_tools=list_tools, on_call_tool=call_tool)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


anyio.run(main)
'''
INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}


KINDS = ("mcp", "proxy", "sdk", "stuck")


def send(proc: subprocess.Popen, message: dict) -> None:
    proc.stdin.write((json.dumps(message) + "\n").encode())
    proc.stdin.flush()


def answer(proc: subprocess.Popen) -> dict:
    return json.loads(proc.stdout.readline())


def one_stop(kind: str, folder: Path) -> tuple[float, int]:
    """One server of ``kind`` started, used and stopped by closing its stdin: (seconds to exit, exit code)."""
    common = ["--root", str(folder / "store"), "--run", "r", "--agent", "a", "--sweep-interval", "0"]
    if kind == "mcp":
        command = [sys.executable, "-m", "scratchfs", "mcp", *common]
    else:
        script = folder / "upstream.py"
        script.write_text(SDK_UPSTREAM if kind == "sdk" else UPSTREAM)
        command = [sys.executable, "-m", "scratchfs", "mcp-proxy", *common, "--timeout", "2", "--",
                   sys.executable, str(script)]
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        send(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT})
        answer(proc)
        send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        send(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        answer(proc)
        if kind != "mcp":
            send(proc, {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                        "params": {"name": "deaf" if kind == "stuck" else "echo", "arguments": {}}})
            answer(proc)
        if kind == "stuck":  # (fails 'no answer within 2 s'; the proxy's write of it stays blocked)
            send(proc, {"jsonrpc": "2.0", "id": 4, "method": "tools/call",
                        "params": {"name": "echo", "arguments": {"pad": "p" * 2_000_000}}})
            answer(proc)
        began = time.monotonic()
        proc.stdin.close()
        code = proc.wait(60)
        return time.monotonic() - began, code
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="?", type=int, default=5)
    parser.add_argument("--only", choices=KINDS)
    args = parser.parse_args()
    kinds = [args.only] if args.only else list(KINDS)
    times: dict[str, list[float]] = {kind: [] for kind in kinds}
    codes: dict[str, set[int]] = {kind: set() for kind in kinds}
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(args.runs):
            for kind in kinds:  # (alternated: a change of load meets each kind alike)
                folder = Path(tmp) / f"{kind}{n}"
                folder.mkdir()
                took, code = one_stop(kind, folder)
                times[kind].append(took)
                codes[kind].add(code)
    load = os.getloadavg()[0]
    print(f"stop after stdin closed, {args.runs} runs each, load {load:.1f}:")
    for kind in kinds:
        t = times[kind]
        print(f"  {kind:5s}  median {statistics.median(t):.2f} s  (min {min(t):.2f}, max {max(t):.2f})  "
              f"exit {sorted(codes[kind])}  runs {' '.join(f'{x:.2f}' for x in t)}")


if __name__ == "__main__":
    main()
