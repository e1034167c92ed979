"""The bytes of the replies branch replies10 changed, over every file of ``fixtures/`` and ``fixtures/tools/`` (each
its first 300,000 bytes): the refusals of 22 reads given ``budget=3000`` (whose calls now repeat it), and the
searches of 4 words at 4 contexts (200, ``"line"``, 0, 40: a window of one match now gives ``match_offset`` and
``match_length`` both unless it is the match alone). Bytes of compact JSON text (an error: its text, as a string).

    python bench/replies10_bytes.py            # this checkout
    python bench/replies10_bytes.py /work/main # the scratchfs of another checkout, for the figures before

At 08:45 UTC, 2026-12-06 (main at b51679d -> branch replies10): 1,663 refusals, mean 268.6 -> 271.7 B, max 556 -> 569
(none at the 2,048-byte cap of an error); 1,736 searches, mean 1,155.7 -> 1,159.2 B, windows giving match_length
2,701 -> 2,806 of 7,122.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
sys.path.insert(0, sys.argv[1] if len(sys.argv) > 1 else str(FIXTURES.parent))

from scratchfs import ScratchStore  # noqa: E402
from scratchfs.api.contract import ScratchTools, error_text  # noqa: E402
from scratchfs.foundation.errors import ScratchError  # noqa: E402
from scratchfs.foundation.limits import MIN_REPLY_BYTES  # noqa: E402

READS = [{"row": 1, "rows": 5}, {"record": 1, "records": 3}, {"jq": "keys[]"}, {"jq": ".[0]"},
         {"jq": "JQ", "slurp": True}, {"view": "text"}, {"select": "h2"}, {"view": "members"}, {"match": "zzqqxx"},
         {"match": "error"}, {"pattern": "^\\w+ "}, {"match": "the", "count": True}, {"line": -5, "lines": 5},
         {"offset": 10**9}, {"line": 10**7}, {"row": 10**7}, {"record": 10**7}, {"match": "a", "offset": 10**9},
         {"jq": ".x.y.z[0]"}, {"columns": [0], "row": 1}, {"match": "e", "context": "line"},
         {"match": "e", "before": 10**9}]


def _bytes(value: object) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def main() -> None:
    files = sorted(p for p in FIXTURES.iterdir() if p.is_file() and p.suffix != ".py" and p.name != "README.md")
    files += sorted(p for p in (FIXTURES / "tools").iterdir() if p.is_file())
    refusals: list[int] = []
    searches: list[int] = []
    windows = with_length = 0
    with tempfile.TemporaryDirectory() as root, ScratchStore(root) as store:
        scope = store.scope("r", "a")
        tools = ScratchTools(scope)
        for path in files:
            data = path.read_bytes()[:300_000]
            handle = scope.spill(data, source_tool="t").handle
            for read in READS:
                try:
                    tools.call("read_handle", {"handle": handle, **read, "budget": 3000})
                except ScratchError as exc:
                    refusals.append(_bytes(error_text(exc)))
            for word in [*re.findall(rb"[A-Za-z_]{5,12}", data[:20_000])[:3], b"\n"]:
                for context in (200, "line", 0, 40):
                    try:
                        reply = tools.call("read_handle", {"handle": handle, "match": word.decode(),
                                                           "context": context})
                    except ScratchError:
                        continue
                    searches.append(_bytes(reply))
                    for window in reply.get("windows", []):
                        windows += 1
                        with_length += "match_length" in window
    print(f"{len(refusals):,} refusals: mean {sum(refusals) / len(refusals):.1f} B, max {max(refusals):,} B, "
          f"{sum(size >= MIN_REPLY_BYTES for size in refusals)} at the {MIN_REPLY_BYTES:,}-byte cap")
    print(f"{len(searches):,} searches: mean {sum(searches) / len(searches):.1f} B; {with_length:,} of {windows:,} "
          "windows give match_length")


if __name__ == "__main__":
    main()
