"""CPU seconds the MCP proxy's launcher (``scratchfs/mcp/launch.py``) spends over a stop's grace, on both paths:
an upstream that exits leaving a child deaf to SIGTERM (``ended``: the launcher waits out the grace, then kills),
and one deaf to SIGTERM whose proxy end closes (``stop``). Grace 0 is the floor. The launcher's CPU and wall time
come from ``wait4``'s resource usage. Before mcp7 (``5b2d637``) the ``ended`` path scanned /proc every 20 ms:
0.49 s of CPU over a 5 s grace with 117 processes on the machine, 0.04-0.05 s after.

    python bench/launcher_grace_cpu.py          # from the repository root, Linux; about 15 s
"""

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scratchfs.mcp.upstream_stdio import launch_command


def run(shell, grace, close):
    life, theirs = socket.socketpair()
    cmd = launch_command(theirs.fileno(), "sh", ["-c", shell])
    cmd[cmd.index("--") - 1] = f"{grace:g}"
    p = subprocess.Popen(cmd, pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL, start_new_session=True)
    theirs.close()
    time.sleep(0.5)
    t0 = time.monotonic()
    if close:
        life.close()
    _, _status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    if not close:
        life.close()
    return ru.ru_utime + ru.ru_stime, wall

ENDED = "(trap '' TERM; sleep 3600) & sleep 0.2; exit 3"   # upstream exits, leaves a TERM-ignoring child: ended()
STOP = "trap '' TERM; sleep 3600 & wait"                      # upstream ignores TERM, the proxy's end closes: stop()
for grace in (0.0, 5.0):
    for name, shell, close in (("ended", ENDED, False), ("stop", STOP, True)):
        cpu, wall = run(shell, grace, close)
        print(f"{name:6} grace {grace:3.0f} s: launcher CPU {cpu:.3f} s, wall {wall:.2f} s")
