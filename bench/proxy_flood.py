"""How long ``scratchfs mcp-proxy`` takes to answer a call whose upstream sends a flood of notifications before its
answer (the figures of :mod:`scratchfs.mcp.notice_gate` and the README's mcp-proxy section): the real proxy over a
generated upstream that writes ``N`` log notifications (``notifications/message``), progress notifications of one
token the proxy never sent (``notifications/progress``: the unknown-token drop), progress notifications of the token
the client sent with its call (``sent-progress``: the 20-a-second limit), tools list-changed notifications,
notifications of a custom method (``x/custom``) or answers to no request (id ``"stray"``), and then answers,
driven over stdio; the seconds from the call to its answer and the notifications the client got.

    python bench/proxy_flood.py [N] [--kind log|progress|sent-progress|list|custom|answer]      # default: 200000 log

Another checkout's proxy is measured with ``PYTHONPATH=<its root>``, run from a directory outside both (the working
directory comes first on the proxy's ``sys.path``). 13:40 UTC 2026-12-05, load 1.1, `cd /tmp && PYTHONPATH=<root>
python <this file> 200000 [--kind progress]`: 10.6 and 10.7 s (log) and 12.1 s (progress) at ``83cb897``, before
the notice gate; 0.69, 0.89 and 0.91 s with it. 16:31 UTC 2026-12-05, load 1.7, ``20000 --kind K`` at ``4ce06d5``
(gate on): 0.09 s list (1 notification passed on), 0.18 s progress, 0.08 s custom, 0.15 s answer (none passed on).
17:04 UTC, load 1.3, ``200000`` at ``f1275d4``: 1.40 s log, 1.70 s progress, 1.86 s sent-progress (31 passed on:
the 20-a-second limit over 1.9 s).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# The upstream's handshake as tests/mcp_support.raw_upstream writes it, kept here as a copy: this script measures
# other checkouts' proxies (PYTHONPATH=<their root>), whose tests/ may have no raw_upstream, and it runs without
# the test dependencies.
UPSTREAM = '''import json, sys
N, KIND = int(sys.argv[1]), sys.argv[2]
NOTE = {"log": {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "x" * 100}},
        "progress": {"jsonrpc": "2.0", "method": "notifications/progress",
                     "params": {"progressToken": 99, "progress": 1, "message": "x" * 90}},
        "sent-progress": {"jsonrpc": "2.0", "method": "notifications/progress",
                          "params": {"progressToken": None, "progress": 1, "message": "x" * 90}},
        "list": {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"},
        "custom": {"jsonrpc": "2.0", "method": "x/custom", "params": {"data": "x" * 100}},
        "answer": {"jsonrpc": "2.0", "id": "stray", "result": {"data": "x" * 100}}}[KIND]
for raw in sys.stdin:
    msg = json.loads(raw)
    if "id" not in msg:
        continue
    if msg["method"] == "initialize":
        result = {"protocolVersion": msg["params"]["protocolVersion"], "capabilities": {"tools": {}},
                  "serverInfo": {"name": "flood", "version": "1"}}
    elif msg["method"] == "tools/list":
        result = {"tools": [{"name": "flood", "inputSchema": {"type": "object"}}]}
    else:
        if KIND == "sent-progress":  # the token the proxy passed on from the client's call
            NOTE["params"]["progressToken"] = msg["params"]["_meta"]["progressToken"]
        sys.stdout.write((json.dumps(NOTE) + "\\n") * N)
        result = {"content": [{"type": "text", "text": "done"}]}
    print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}), flush=True)
'''


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("n", nargs="?", type=int, default=200_000)
    parser.add_argument("--kind", choices=("log", "progress", "sent-progress", "list", "custom", "answer"),
                        default="log")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="proxy-flood-") as tmp:
        upstream = Path(tmp) / "flood_upstream.py"
        upstream.write_text(UPSTREAM)
        command = [sys.executable, "-m", "scratchfs", "--root", str(Path(tmp) / "store"), "mcp-proxy", "--run", "r",
                   "--agent", "a", "--sweep-interval", "0", "--timeout", "300", "--", sys.executable, str(upstream),
                   str(args.n), args.kind]
        proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

        def send(message: dict) -> None:
            proc.stdin.write((json.dumps(message) + "\n").encode())
            proc.stdin.flush()

        send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}})
        proc.stdout.readline()
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        began = time.monotonic()
        send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "flood", "arguments": {},
                                                                            "_meta": {"progressToken": "p2"}}})
        lines = 0
        while True:
            line = proc.stdout.readline()
            if not line or json.loads(line).get("id") == 2:
                break
            lines += 1
        seconds = time.monotonic() - began
        proc.stdin.close()
        proc.wait(60)
    print(f"{args.n:,} {args.kind} notifications before the answer: answered after {seconds:.2f} s "
          f"({lines:,} notifications passed on to the client)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
