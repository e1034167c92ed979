"""The bytes a model receives (the tool error's text, ``error_text``, as UTF-8) of the refusals this session's
fourth stop changed, in this checkout or in another (``git archive COMMIT | tar -x -C DIR``, then DIR as the
argument: its code is imported instead), one line a case:

    python bench/refusal_bytes.py            # this checkout
    python bench/refusal_bytes.py /tmp/old   # another checkout, for the before

The cases: a ``scratch_list`` cursor that is malformed and one of another listing, a budget out of range (the call's
one fault), mixes of ``read_handle`` arguments (``context=`` without a search, ``length=`` beside a search,
``ignore_case=`` alone)."""

from __future__ import annotations

import re
import sys
import tempfile

if len(sys.argv) > 1:
    sys.path.insert(0, sys.argv[1])

from scratchfs import ScratchError, ScratchStore
from scratchfs.api.contract import ScratchTools, error_text


def main() -> None:
    with ScratchStore(tempfile.mkdtemp(prefix="refusal-bytes-")) as store:
        scope = store.scope("r", "a")
        for i in range(5):
            scope.scratch_write(f"k{i}", b"v")
        tools = ScratchTools(scope)
        handle = scope.spill(b"line of text\n" * 2000, source_tool="t").handle
        other = re.search(r'cursor="([^"]+)"', tools.call("scratch_list", {"limit": 2})["next_call"])[1]
        cases = {
            "scratch_list, malformed cursor": ("scratch_list", {"prefix": "k", "cursor": "zzz", "budget": 3000}),
            "scratch_list, another listing's cursor": ("scratch_list", {"prefix": "k", "cursor": other}),
            "read_handle, budget=100": ("read_handle", {"handle": handle, "line": 5, "budget": 100}),
            "read_handle, context= without a search": ("read_handle", {"handle": handle, "context": 10}),
            "read_handle, length= beside a search": ("read_handle", {"handle": handle, "match": "text", "length": 9}),
            "read_handle, ignore_case= alone": ("read_handle", {"handle": handle, "ignore_case": True}),
        }
        for name, (tool, arguments) in cases.items():
            try:
                tools.call(tool, arguments)
                said = "(no refusal)"
            except ScratchError as exc:
                said = error_text(exc)
            said = said.replace(handle, "h_" + "x" * 24)
            print(f"{len(said.encode('utf-8')):5,} B  {name}: {said[:150]}")


if __name__ == "__main__":
    main()
