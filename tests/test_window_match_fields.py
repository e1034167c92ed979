"""A search window of one match says the match's offset and length both, unless it is the match alone (replies10):
``match_length`` was left out where the match ends the window (and ``match_offset`` where it starts it), which a new
user found surprising beside windows that have them; both cost a few bytes where given."""

from __future__ import annotations

from scratchfs.api.contract import ScratchTools, window_hits


def _windows(scope, data: bytes, full: bool = False, **search) -> list[dict]:
    """The windows of a search of ``data``; ``full``: the web's (``full_windows``: a whole line's with its fields)."""
    handle = scope.spill(data, source_tool="t").handle
    return ScratchTools(scope).call("read_handle", {"handle": handle, **search}, full_windows=full)["windows"]


def test_a_match_that_ends_the_content_or_its_line_says_its_length(scope):
    data = b"x" * 5000 + b" needle"
    (window,) = _windows(scope, data, match="needle", context=100)
    assert window["offset"] + window["length"] == len(data)  # (the match ends the window)
    assert (window["match_offset"], window["match_length"]) == (len(data) - 6, 6)
    (line,) = _windows(scope, b"/usr/bin/zstd\n" * 900, match="zstd", context="line", max_matches=1)
    assert line == {"line": 1, "data": "/usr/bin/zstd"}  # (the model's whole line: its match in its data)
    (line,) = _windows(scope, b"/usr/bin/zstd\n" * 900, True, match="zstd", context="line", max_matches=1)
    assert (line["offset"], line["length"], line["match_offset"], line["match_length"]) == (0, 13, 9, 4)  # (the web's)
    (cut,) = _windows(scope, b"x" * 3000 + b"zstd\n", match="zstd", context="line")  # (a line cut: its fields kept)
    assert (cut["cut"], cut["offset"] + cut["length"], cut["match_offset"], cut["match_length"]) == (
        "before", 3004, 3000, 4)


def test_a_match_that_starts_the_content_says_its_offset(scope):
    (window,) = _windows(scope, b"needle " + b"x" * 5000, match="needle", context=100)
    assert window["offset"] == 0 and (window["match_offset"], window["match_length"]) == (0, 6)


def test_a_window_that_is_the_match_alone_says_neither(scope):
    windows = _windows(scope, b"a needle b needle c " * 400, match="needle", context=0, max_matches=3)
    assert [set(w) for w in windows] == [{"line", "offset", "length", "data"}] * 3
    assert [w["data"] for w in windows] == ["needle"] * 3


def test_window_hits_read_each_window_back_as_before(scope):
    data = b"needle " + b"x" * 3000 + b" needle and needle " + b"y" * 3000 + b" needle"
    windows = _windows(scope, data, match="needle", context=20)
    starts = [hit["offset"] for window in windows for hit in window_hits(window)]
    assert starts == [i for i in range(len(data)) if data.startswith(b"needle", i)]
    assert all(hit["length"] == 6 for window in windows for hit in window_hits(window))
