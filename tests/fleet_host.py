"""One "host" of the multi-host test (tests/test_backend_fleet.py), run as its own process with its own temp dir.

``python -m tests.fleet_host spill HOST COUNT OUT``: spill COUNT results into the shared scope ``("fleet",
"shared")`` and COUNT into the host's own run ``host-HOST``, and write the handles to OUT (JSON).
``python -m tests.fleet_host check HOST HANDLES``: read every handle of every host in HANDLES back (bytes compared
with what :func:`content` says they were), sweep (concurrently with the other hosts), delete the host's own run, and
read the shared handles again. The store comes from ``$SCRATCHFS_INDEX`` / ``$SCRATCHFS_BLOBS`` and the AWS
environment; the root is a fresh temp dir of this process. Exits 0 when everything matched, 1 with the reason on
stderr otherwise.
"""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile

from scratchfs import NotFound, ScratchStore, StorageError

__all__ = ["content"]


def content(host: int, number: int, own: bool) -> bytes:
    """The deterministic content of spill ``number`` of ``host`` (about 20-150 KiB of lines)."""
    seed = hashlib.sha256(f"{host}/{number}/{own}".encode()).hexdigest()
    lines = 400 + int(seed[:4], 16) % 2000
    return "".join(f"{seed} line {i} of host {host}\n" for i in range(lines)).encode()


def spill(host: int, count: int, out: str) -> None:
    with tempfile.TemporaryDirectory() as root, ScratchStore(root) as store:
        shared, own = store.scope("fleet", "shared"), store.scope(f"host-{host}", "agent")
        handles = {"shared": [shared.spill(content(host, i, False), source_tool="t").handle for i in range(count)],
                   "own": [own.spill(content(host, i, True), source_tool="t").handle for i in range(count)]}
    with open(out, "w") as f:
        json.dump(handles, f)


def check(host: int, handles_file: str) -> None:
    with open(handles_file) as f:
        hosts = json.load(f)  # {host: {"shared": [...], "own": [...]}}
    with tempfile.TemporaryDirectory() as root, ScratchStore(root) as store:
        shared = store.scope("fleet", "shared")
        for other, found in hosts.items():
            for i, handle in enumerate(found["shared"]):
                data = content(int(other), i, False)
                mid = len(data) // 2
                got = shared.read_handle(handle, offset=mid, length=4096).data
                if got != data[mid : mid + 4096]:
                    sys.exit(f"host {host}: wrong bytes of host {other}'s shared handle {i}")
            own = store.scope(f"host-{other}", "agent")
            for i, handle in enumerate(found["own"]):
                try:  # another host may have deleted its run already: then not found, never wrong bytes
                    got = own.read_handle(handle, length=1000).data
                except (NotFound, StorageError):  # StorageError: its object went while this read was under way
                    continue
                if got != content(int(other), i, True)[:1000]:
                    sys.exit(f"host {host}: wrong bytes of host {other}'s own handle {i}")
        store.sweep(wait=0)
        store.delete_run(f"host-{host}")
        for i, handle in enumerate(hosts[str(host)]["shared"]):
            if shared.read_handle(handle, length=64).data != content(host, i, False)[:64]:
                sys.exit(f"host {host}: its shared handle {i} changed")


if __name__ == "__main__":
    verb, host = sys.argv[1], int(sys.argv[2])
    if verb == "spill":
        spill(host, int(sys.argv[3]), sys.argv[4])
    else:
        check(host, sys.argv[3])
