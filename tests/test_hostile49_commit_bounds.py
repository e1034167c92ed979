"""hostile49: a window's ``commit`` is bounded whatever the log's header lines hold.

A search of a git log names each window's commit as its hash's first 8 digits, its author (at most 60 characters)
and its date -- whole: a ``Date:`` line of 60,000 characters (``mcp-server-git``'s layout or git's own) made each
window's ``commit`` 60 KB, a reply of 60,267 bytes past the 8 KiB reply budget. The date is cut as the author is."""

from __future__ import annotations

import json

import pytest

from scratchfs.api.contract import ScratchTools
from scratchfs.foundation.limits import REPLY_BUDGET_BYTES

_TOOL = b"Commit: %s\nAuthor: A U Thor\nDate: %s\nMessage: needle %d\n\n\n"
_GIT = b"commit %s\nAuthor: A U Thor <a@example.org>\nDate:   %s\n\n    needle %d\n\n"


@pytest.mark.parametrize("layout", [_TOOL, _GIT])
@pytest.mark.parametrize("date", [b"D" * 60_000, "\u65e5".encode() * 20_000, b"\xff\xfe" * 50 + b"D" * 60_000])
def test_a_huge_date_is_cut_in_each_windows_commit(scratch_scope, layout, date):
    dates = [date, b"Mon Dec 7 17:00:31 2026 +0000", b"Mon Dec 7 17:00:31 2026 +0000"]
    data = (b"Commit history:\n" if layout is _TOOL else b"") + b"".join(
        layout % (b"%08x" % n + b"a" * 32, dates[n], n) for n in range(3))
    stub = scratch_scope.spill(data, source_tool="git_log")
    for context in ("line", 20):
        reply = ScratchTools(scratch_scope).call("read_handle", {"handle": stub.handle, "match": "needle",
                                                                 "context": context})
        assert len(json.dumps(reply, ensure_ascii=False).encode()) <= REPLY_BUDGET_BYTES
        commits = [window.get("commit") for window in reply["windows"]]
        assert commits[0] is not None and commits[0].startswith("00000000, A U Thor, ")
        assert all(len(commit) <= 8 + 2 + 60 + 2 + 40 for commit in commits if commit)
        assert commits[-1] == f"{2:08x}, A U Thor, Mon Dec 7 17:00:31 2026 +0000"
