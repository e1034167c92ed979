"""Peak memory of a slurp read at its bound (``read_handle(jq=..., slurp=true)``): 16 MiB of JSON lines and 16 MiB of
CSV, each spilled into a fresh store and read with one group-count filter, each case in a subprocess of its own.
Prints the reading process's peak RSS (``VmHWM``) before and after the read, the jq worker's (a child process; the
largest ``VmHWM`` among the children, sampled every 20 ms while the read runs), the read's wall time and the reply's
bytes -- the figures ``scratchfs/engine/structure/slurp.py`` and README quote. Run: ``python bench/slurp_memory.py``
(about 20 s).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

FILTER = "group_by(.unit) | map({unit: .[0].unit, n: length}) | sort_by(-.n) | .[:3]"


def hwm_kib(pid: int | str = "self") -> int:
    """The process's peak resident set (``VmHWM``), KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (from ``/proc/*/stat``)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def content(form: str, size: int) -> bytes:
    """JSON lines or a CSV table of just under ``size`` bytes."""
    lines, total, i = [], 0, 0
    while True:
        unit = f"unit-{i % 37}"
        record = {"seq": i, "unit": unit, "msg": f"message {i} of {unit}", "level": "info"}
        line = (json.dumps(record) if form == "jsonl"
                else f"{i},{unit},message {i} of {unit} with some more words of text,info,{i * 7},x").encode() + b"\n"
        if total + len(line) > size - 64:
            break
        lines.append(line)
        total += len(line)
        i += 1
    head = b"" if form == "jsonl" else b"seq,unit,msg,level,n,flag\n"
    return head + b"".join(lines)


def case(form: str) -> dict:
    from scratchfs import ScratchStore
    from scratchfs.api.contract import ScratchTools
    from scratchfs.engine.structure.slurp import MAX_SLURP_BYTES

    data = content(form, MAX_SLURP_BYTES)
    with ScratchStore(tempfile.mkdtemp(prefix="slurp-mem-")) as store:
        scope = store.scope("bench", "slurp")
        handle = scope.spill(data).handle
        del data
        before = hwm_kib()
        peaks: dict[int, int] = {}
        done = threading.Event()

        def watch() -> None:  # the worker may be retired after a large request: its peak is read while it runs
            while not done.wait(0.02):
                for child in children(os.getpid()):
                    try:
                        peaks[child] = max(peaks.get(child, 0), hwm_kib(child))
                    except OSError:
                        pass

        watcher = threading.Thread(target=watch)
        watcher.start()
        start = time.perf_counter()
        try:
            reply = ScratchTools(scope).call("read_handle", {"handle": handle, "jq": FILTER, "slurp": True})
        finally:
            seconds = time.perf_counter() - start
            done.set()
            watcher.join()
        worker = max(peaks.values(), default=0)
        return {"form": form,
                "before_mib": before / 1024, "after_mib": hwm_kib() / 1024, "worker_mib": worker / 1024,
                "seconds": seconds, "reply_bytes": len(json.dumps(reply, ensure_ascii=False).encode())}


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--case":
        print(json.dumps(case(sys.argv[2])))
        return
    print("| content (16 MiB) | reading process peak before / after | jq worker peak | read | reply |")
    print("|---|---|---|---|---|")
    for form in ("jsonl", "csv"):
        out = subprocess.run([sys.executable, __file__, "--case", form], capture_output=True, text=True, check=True)
        r = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"| {form} | {r['before_mib']:.0f} / {r['after_mib']:.0f} MiB | {r['worker_mib']:.0f} MiB | "
              f"{r['seconds']:.1f} s | {r['reply_bytes']} bytes |")


if __name__ == "__main__":
    main()
