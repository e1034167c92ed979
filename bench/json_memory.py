"""A 256 MiB JSON document read with bounded memory: a streamed path read, the streamed top level a stub shows,
and the typed refusal of a jq filter past the 64 MiB bound; peak-RSS growth of all three.

The document is synthesised on the fly by a content source (``{"meta":…,"items":[…2.7 M small objects…],
"tail":{"last":true}}``), so the figure is the readers' memory alone. Run: ``python bench/json_memory.py``
(``--size-mib N``); about 45 s on a loaded 2-core machine.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scratchfs.engine.structure import jq_page
from scratchfs.engine.structure.toplevel import top_level
from scratchfs.foundation.errors import InvalidArgument

ITEM = b'{"id":1%08d,"name":"item %08d","price":{"amount":12.5,"currency":"EUR"},"tags":["a","b"]}'
TAIL = b'],"tail":{"last":true}}'


class Synthetic:
    """A content source over a JSON document of about ``size`` bytes, made as it is read."""

    def __init__(self, size: int) -> None:
        self.item = len(ITEM % (0, 0)) + 1
        self.count = size // self.item
        self.head = b'{"meta":{"n":%d},"items":[' % self.count
        self.body = self.count * self.item - 1
        self.size = len(self.head) + self.body + len(TAIL)

    def read(self, offset: int, length: int) -> bytes:
        out, end = [], min(self.size, offset + length)
        while offset < end:
            if offset < len(self.head):
                piece = self.head[offset:end]
            elif offset - len(self.head) >= self.body:
                at = offset - len(self.head) - self.body
                piece = TAIL[at : at + end - offset]
            else:
                number, within = divmod(offset - len(self.head), self.item)
                record = ITEM % (number, number) + (b"," if number < self.count - 1 else b"")
                piece = record[within : within + end - offset]
            out.append(piece)
            offset += len(piece)
        return b"".join(out)

    def iter_frames(self, first_frame: int = 0) -> Iterator[tuple[int, bytes]]:
        for offset in range(first_frame << 20, self.size, 1 << 20):
            yield offset, self.read(offset, 1 << 20)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--size-mib", type=int, default=256)
    args = parser.parse_args()
    source = Synthetic(args.size_mib * 1024 * 1024)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    page = jq_page(source, ".tail.last", budget_bytes=1024)
    print(f"document: {source.size / 2**20:.0f} MiB; path read .tail.last -> {page.items} in "
          f"{time.perf_counter() - started:.1f} s")
    started = time.perf_counter()
    top = top_level(source, source.size, 600)
    print(f"top level: {top.kind}, {[(e.key, e.kind, e.count) for e in top.entries]}, complete={top.complete} in "
          f"{time.perf_counter() - started:.1f} s")
    try:
        jq_page(source, "keys")
    except InvalidArgument as exc:
        print(f"jq 'keys' refused: {exc}")
    growth = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    print(f"peak RSS growth: {growth:.1f} MiB")


if __name__ == "__main__":
    main()
