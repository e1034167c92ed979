"""What a ``view="text"`` search of terminal output returns: reply bytes, windows, escape bytes left in the windows'
``data``, over the ``grep --color=always`` output the tests build from ``fixtures/workspace-grep-stdlib-defs.txt``
(710,544 bytes). Branch ``searchfix``, 2026-12-04: "def __init__" at the default context, before 9 windows in 7,754
bytes with 380 ESC bytes, after 14 windows in 7,504 bytes with none ("def openhook": 1,247 -> 868 bytes).

    python bench/terminal_view_windows.py
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scratchfs import ScratchStore
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


if __name__ == "__main__":
    main()
