"""What a ``view="text"`` search of terminal output returns: reply bytes, windows, escape bytes left in the windows'
``data``, over the ``grep --color=always`` output the tests build from ``fixtures/workspace-grep-stdlib-defs.txt``
(710,544 bytes). Branch ``searchfix``, 2026-12-04: "def __init__" at the default context, before 9 windows in 7,754
bytes with 380 ESC bytes, after 14 windows in 7,504 bytes with none ("def openhook": 1,247 -> 868 bytes). Then the
cost of moving the windows' edges off escape sequences (the bytes each side of each window read): a search of 1,000
windows ("def ", context 0, budget 65536), best of 6 alternating with the reads left out: 0.449 s against 0.402 s
(1.12x; 0.632 s against 0.501 s, 1.26x, in a second run under load; 1.55 s before the frames read were kept
within the call).

    python bench/terminal_view_windows.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scratchfs import ScratchStore
from scratchfs.api import view_search
from scratchfs.api.contract import ScratchTools
from scratchfs.api.views import reply_size
from tests.test_terminal_view_search import grep_colour

CALLS = ({"match": "def openhook"}, {"match": "def openhook", "context": "line"}, {"match": "def __init__"},
         {"match": "def __init__", "context": "line"})


def main() -> None:
    with ScratchStore(None) as store:
        scope = store.scope("bench", "agent")
        handle = scope.spill(grep_colour(), source_tool="bash").handle
        tools = ScratchTools(scope)
        for call in CALLS:
            reply = tools.call("read_handle", {"handle": handle, "view": "text", **call})
            escapes = sum(window["data"].count("\x1b") for window in reply["windows"])
            print(f"{call}: {reply_size(reply):,} bytes, {len(reply['windows'])} windows, {escapes} ESC in data")
        many = {"handle": handle, "match": "def ", "view": "text", "context": 0, "max_matches": 1000, "budget": 65536}
        moved = view_search._off_escapes  # (the edges' reads, left out to compare: the window as the search cut it)
        took: dict[str, list[float]] = {"edges moved": [], "edges as cut": []}
        for _ in range(6):
            for name, edges in (("edges moved", moved), ("edges as cut", lambda _frames, _size, window: window)):
                view_search._off_escapes = edges
                began = time.perf_counter()
                windows = len(tools.call("read_handle", many)["windows"])
                took[name].append(time.perf_counter() - began)
        view_search._off_escapes = moved
        print(f"{windows} windows: " + ", ".join(f"{name} {min(times):.3f} s" for name, times in took.items()))


if __name__ == "__main__":
    main()
