"""What a byte-range read of a tar member costs the model, as text (branch binrows) and as the hex dump it was: the
member's bytes a reply shows and the reply's bytes of JSON, for a JSON-lines member, a CSV member and a log member
read by the offset= and length= the stub lists (length 4096, the default budget of 8192 bytes); and the time the
text check (``reads_as_text``) takes on a 64 KiB range.

    python bench/binary_ranges.py

The hex dump is the reply with the check turned off (``contract.reads_as_text`` patched to say no), as every range
of binary content was shown before.
"""

from __future__ import annotations

import io
import json
import tarfile
import tempfile
import time
from unittest import mock

from scratchfs import ScratchStore
from scratchfs.api import contract
from scratchfs.api.contract import ScratchTools
from scratchfs.api.views import reads_as_text

MEMBERS = {
    "records.jsonl": b"".join(b'{"id": %d, "name": "item %d", "tags": ["a", "b"], "ok": true}\n' % (i, i)
                              for i in range(2000)),
    "table.csv": b"".join(b"%d,unit%d,%d,K\xc3\xb6ln\r\n" % (i, i % 7, i * 13) for i in range(4000)),
    "server.log": b"".join(b"2026-12-04 12:00:%02d INFO request %d served in %d ms\n" % (i % 60, i, i % 97)
                           for i in range(3000)),
}


def _tar() -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:") as archive:
        for name, data in MEMBERS.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return out.getvalue()


def main() -> None:
    data = _tar()
    with tempfile.TemporaryDirectory() as root:
        scope = ScratchStore(root).scope("bench", "agent")
        handle = scope.spill(data, source_tool="tar").handle
        tools = ScratchTools(scope)
        with tarfile.open(fileobj=io.BytesIO(data)) as archive:
            where = {m.name: m.offset_data for m in archive.getmembers()}
        for name in MEMBERS:
            call = {"handle": handle, "offset": where[name], "length": 4096}
            text = tools.call("read_handle", call)
            with mock.patch.object(contract, "reads_as_text", return_value=False):
                dump = tools.call("read_handle", call)
            for label, reply in (("text", text), ("hexdump", dump)):
                size = len(json.dumps(reply, ensure_ascii=False, separators=(",", ":")).encode())
                print(f"{name:14} {label:8} {reply['length']:5,} bytes shown in {size:5,} bytes of reply "
                      f"({size / reply['length']:.2f} a byte)")
        raw = (MEMBERS["records.jsonl"] * 2)[: 64 * 1024]
        runs = 200
        began = time.perf_counter()
        for _ in range(runs):
            reads_as_text(raw, 1, 10**9, b"\n")
        print(f"reads_as_text on 64 KiB: {(time.perf_counter() - began) / runs * 1e6:.0f} µs a call")


if __name__ == "__main__":
    main()
