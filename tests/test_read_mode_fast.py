"""check_read_modes refuses exactly the mixes it refused before its fast path (readpath1), and a read of one mode
builds none of the calls a refusal names (every ``read_handle`` runs it: T3)."""

from __future__ import annotations

import itertools

import pytest

from scratchfs.api import read_mixes
from scratchfs.api.read_mixes import check_read_modes
from scratchfs.foundation.errors import InvalidArgument

HANDLE = "h_" + "a" * 24


def _refused(offset, length, line, lines, searching, ignore_case, context, max_matches, before) -> bool:
    """The refusals' conditions, written out apart from the code."""
    return bool(
        (not searching and (context is not None or max_matches is not None or before is not None))
        or ((line is not None or lines is not None) and (searching or length is not None))
        or (line is not None and offset and not (type(line) is int and line < 0))
        or (not searching and ignore_case)
        or (searching and length is not None))


def test_refuses_exactly_the_mixes() -> None:
    for combo in itertools.product((0, 7), (None, 10), (None, 3, -2), (None, 5), (False, True), (False, True),
                                   (None, 2), (None, 4), (None, 9)):
        names = ("offset", "length", "line", "lines", "searching", "ignore_case", "context", "max_matches", "before")
        call = {**dict(zip(names, combo, strict=True)), "handle": HANDLE}
        if _refused(*combo):
            with pytest.raises(InvalidArgument):
                check_read_modes(**call)
        else:
            check_read_modes(**call)


def test_a_read_of_one_mode_builds_no_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    def built(*_args: object) -> None:
        raise AssertionError("a refusal's calls were built for a read that is not refused")

    monkeypatch.setattr(read_mixes, "_Calls", built)
    plain = {"line": None, "lines": None, "ignore_case": False, "context": None, "max_matches": None, "before": None,
             "handle": HANDLE}
    check_read_modes(offset=4096, length=4096, searching=False, **plain)  # T3's range read
    check_read_modes(offset=0, length=None, searching=True, **{**plain, "ignore_case": True, "context": 50})
