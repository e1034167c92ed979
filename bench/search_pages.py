"""Pages of a wide-context search over a rustdoc-like HTML page (the page of tests/test_search_trim.py): how many,
and how full. A page whose next window did not fit was left short (the window dropped whole): 29 pages, the smallest
but the last 2,437 of 8,192 bytes, before the window past the last that fits was cut to fit.

    python bench/search_pages.py
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scratchfs import ScratchStore
from scratchfs.api.contract import ScratchTools, window_hits
from tests.test_search_trim import rustdoc_page


def main() -> None:
    data = rustdoc_page()
    with tempfile.TemporaryDirectory() as root, ScratchStore(root) as store:
        scope = store.scope("bench", "pages")
        tools = ScratchTools(scope)
        args = {"handle": scope.spill(data, source_tool="browser.fetch").handle, "match": "rustdoc", "context": 900}
        sizes, found = [], []
        while True:
            reply = tools.call("read_handle", args)
            sizes.append(len(json.dumps(reply, ensure_ascii=False, separators=(",", ":")).encode()))
            found += [m["offset"] for w in reply["windows"] for m in window_hits(w)]
            if reply["next_call"] is None:
                break
            args = {**args, "offset": reply["next_offset"]}
    assert found == [m.start() for m in re.finditer(b"rustdoc", data)]
    print(f"{len(data):,} bytes, {len(found)} matches: {len(sizes)} pages; smallest but the last "
          f"{min(sizes[:-1]):,} of {store.settings.reply_budget_bytes:,} bytes; sizes {sizes}")


if __name__ == "__main__":
    main()
