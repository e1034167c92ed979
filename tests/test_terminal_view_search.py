"""Searching terminal output for the text the model is shown, and non-UTF-8 text for what it reads.

``grep --color=always`` output and ``MAN_KEEP_FORMATTING=1 man -P cat`` output show "def openhook" and "SYNOPSIS" in
the stub's preview and in ``view="text"``, but their stored bytes hold ``ESC[01;31mESC[Kdef openESC[mESC[Khook`` and
``S\\bSY\\bY...``: a search found nothing and said nothing, and ``view="text"`` with ``match=`` was refused with advice
to search without it (circular). A Latin-1 file's ``café`` is the byte ``\\xe9``, which a search for UTF-8 ``é``
missed, silently."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from scratchfs.api.contract import ScratchTools, window_hits
from scratchfs.api.tools import tool_specs
from scratchfs.api.views import reply_size
from scratchfs.engine.structure import render_text
from scratchfs.engine.structure.terminal_match import MAX_RENDERED_NEEDLE_CHARS
from scratchfs.foundation.errors import InvalidArgument

DEFS = Path(__file__).resolve().parent.parent / "fixtures" / "workspace-grep-stdlib-defs.txt"


def _call(note: str) -> dict:
    """The arguments of the ``read_handle(...)`` call a note ends with, as the model would pass them."""
    tree = ast.parse(note[note.rindex("read_handle(") :], mode="eval")
    return {k.arg: ast.literal_eval(k.value) for k in tree.body.keywords}


def grep_colour(word: bytes = b"def ") -> bytes:
    """``grep --color=always -n 'def '`` over the fixture, as GNU grep colours it (line numbers green, separators
    cyan, each match bold red, each colour ended by ``ESC[m ESC[K``)."""
    out = []
    for number, line in enumerate(DEFS.read_bytes().splitlines(), 1):
        if word in line:
            marked = line.replace(word, b"\x1b[01;31m\x1b[K" + word + b"\x1b[m\x1b[K")
            out.append(b"\x1b[32m\x1b[K%d\x1b[m\x1b[K\x1b[36m\x1b[K:\x1b[m\x1b[K%s\n" % (number, marked))
    return b"".join(out)


def nroff(lines: int = 3000) -> bytes:
    """A man page as ``man -P cat`` writes it with MAN_KEEP_FORMATTING=1: section headings in bold (``X\\bX`` each
    character), option names bold, their arguments underlined (``_\\bx``)."""

    def bold(text: str) -> str:
        return "".join(f"{c}\b{c}" if c != " " else c for c in text)

    def underline(text: str) -> str:
        return "".join(f"_\b{c}" if c != " " else c for c in text)

    out = []
    for i in range(lines):
        if i % 100 == 0:
            out.append(bold("SYNOPSIS" if i == 0 else f"SECTION {i // 100}"))
        out.append(f"       {bold(f'--option-{i}')} {underline('file')}  reads the file named by option {i}")
    return ("\n".join(out) + "\n").encode()


def _spill(scope, data: bytes) -> str:
    return scope.spill(data, source_tool="bash").handle


def _all_matches(tools, call: dict) -> list[dict]:
    """Every match of a search, following its next_call."""
    found = []
    while call:
        reply = tools.call("read_handle", call)
        found += [m for w in reply["windows"] for m in w.get("matches", [{"offset": w.get("match_offset", w["offset"]),
                                                                            "line": w["line"]}])]
        call = _call(reply["next_call"]) if reply["next_call"] else None
    return found


@pytest.mark.scratch_store(frame_bytes=4096)
def test_grep_colour_output_is_searched_for_the_text_it_shows(scope):
    tools = ScratchTools(scope)
    raw = grep_colour()
    handle = _spill(scope, raw)
    miss = tools.call("read_handle", {"handle": handle, "match": "def openhook"})
    assert miss["windows"] == [] and miss["next_call"] is None
    arguments = _call(miss["note"])
    assert arguments == {"handle": handle, "match": "def openhook", "view": "text"}
    found = tools.call("read_handle", arguments)
    rendered = render_text(raw)
    assert len(found["windows"]) == rendered.count("def openhook") == 1
    window = found["windows"][0]
    start, length = window["match_offset"], window["match_length"]
    assert render_text(raw[start : start + length]) == "def openhook"  # (the stored bytes of what is shown)
    assert window["line"] == raw[:start].count(b"\n") + 1
    page = tools.call("read_handle", _call(found["note"]))  # the rendered read the note names
    assert _call(found["note"])["raw_offset"] == start
    assert page["text"].split("\n", 1)[0].endswith("def openhook(filename, mode):")


@pytest.mark.scratch_store(frame_bytes=4096)
@pytest.mark.parametrize("needle", ["def ", "def __init__(self", "Def", "e("])
def test_every_match_across_frames_is_one_of_the_rendered_text(scope, needle):
    """Paged by next_call over 4 KiB frames: the matches are those of ``str.find`` over the rendered text, at its
    lines (case-blind for "Def")."""
    tools = ScratchTools(scope)
    raw = grep_colour()
    handle = _spill(scope, raw)
    ignore_case = needle == "Def"
    call = {"handle": handle, "match": needle, "view": "text", "context": 0, "max_matches": 500,
            **({"ignore_case": True} if ignore_case else {})}
    found = _all_matches(tools, call)
    rendered = render_text(raw)
    haystack, sought = (rendered.lower(), needle.lower()) if ignore_case else (rendered, needle)
    lines, at, done = [], haystack.find(sought), 0
    while at >= 0:  # (each match's line counted on from the last one's: from the start each, 0.7 s of the test's 2.5)
        lines.append((lines[-1] if lines else 1) + rendered.count("\n", done, at))
        done, at = at, haystack.find(sought, at + len(needle))
    assert [m["line"] for m in found] == lines and len(lines) > 10


@pytest.mark.scratch_store(frame_bytes=4096)
def test_a_man_page_with_overstrikes_is_searched_for_the_text_it_shows(scope):
    tools = ScratchTools(scope)
    raw = nroff()
    handle = _spill(scope, raw)
    for needle in ("SYNOPSIS", "--option-2999 file", "SECTION 7"):
        miss = tools.call("read_handle", {"handle": handle, "match": needle})
        assert miss["windows"] == [] and "backspace overstrikes" in miss["note"]
        found = tools.call("read_handle", _call(miss["note"]))
        assert len(found["windows"]) == render_text(raw).count(needle) == 1
        start = found["windows"][0]["match_offset"]
        page = tools.call("read_handle", {"handle": handle, "view": "text", "raw_offset": start})
        assert needle in page["text"].split("\n", 1)[0]
    lines = [m["line"] for m in _all_matches(tools, {"handle": handle, "match": "option 1", "view": "text",
                                                     "context": 0, "max_matches": 300})]
    rendered = render_text(raw).split("\n")
    assert lines == [i + 1 for i, line in enumerate(rendered) if "option 1" in line]


def test_a_pattern_in_terminal_outputs_view_is_refused_naming_the_way_on(scope):
    tools = ScratchTools(scope)
    handle = _spill(scope, grep_colour())
    with pytest.raises(InvalidArgument, match=r"searched with match= .* and view=\"text\"; or search its stored "
                                              r"bytes with pattern= alone"):
        tools.call("read_handle", {"handle": handle, "pattern": "def open", "view": "text"})
    miss = tools.call("read_handle", {"handle": handle, "pattern": r"def openhook\("})
    assert "with match= (a substring) and view=\"text\"" in miss["note"]
    with pytest.raises(InvalidArgument, match="tabs are spaces there"):
        tools.call("read_handle", {"handle": handle, "match": "def\topen", "view": "text"})


@pytest.mark.parametrize("budget", [2048, 4096])
@pytest.mark.parametrize("length", [12, 40, MAX_RENDERED_NEEDLE_CHARS])
def test_a_view_search_of_terminal_output_keeps_its_note_within_the_budget(scope, budget, length):
    tools = ScratchTools(scope)
    raw = grep_colour()
    handle = _spill(scope, raw)
    rendered = render_text(raw)
    line = max(rendered.split("\n"), key=len)
    needle = line[-length:].lstrip()
    reply = tools.call("read_handle", {"handle": handle, "match": needle, "view": "text", "budget": budget})
    assert reply["windows"] and reply_size(reply) <= budget and "raw_offset=" in reply["note"]


@pytest.mark.parametrize("budget", [2048, 4096, 8192])
@pytest.mark.parametrize("length", [12, MAX_RENDERED_NEEDLE_CHARS + 1, 257, 2000, 4096])
def test_the_terminal_miss_note_keeps_the_reply_within_its_budget(scope, budget, length):
    tools = ScratchTools(scope)
    handle = _spill(scope, grep_colour())
    reply = tools.call("read_handle", {"handle": handle, "match": "q" * length, "budget": budget})
    assert reply_size(reply) <= budget
    assert reply["note"].endswith(f'view="text", budget={budget})'  # (advice3)
                                  if length <= MAX_RENDERED_NEEDLE_CHARS
                                  else f'(at most {MAX_RENDERED_NEEDLE_CHARS} characters) with view="text"')


def test_no_terminal_note_where_the_view_is_not_the_way_on(scope):
    tools = ScratchTools(scope)
    coloured = _spill(scope, grep_colour())
    plain = _spill(scope, DEFS.read_bytes())
    progress = _spill(scope, b"".join(b"\r%3d%% [" % p + b"#" * p + b"]" for p in range(100)) * 40 + b"\n")
    for handle, offset in ((plain, 0), (progress, 0), (coloured, 100)):  # (where it looked alone: api.miss_hints)
        reply = tools.call("read_handle", {"handle": handle, "match": "nowhere to be found", "offset": offset})
        assert reply["note"].startswith("no match in ") and "view" not in reply["note"], reply
    viewed = tools.call("read_handle", {"handle": coloured, "match": "nowhere", "view": "text"})
    assert viewed["note"] == f"no match in the whole text view ({viewed['size']:,} bytes)" and "calls" not in viewed
    hit = tools.call("read_handle", {"handle": coloured, "match": "hook"})
    assert hit["windows"] and "note" not in hit


LATIN = "".join(f"café naïve résumé line {i}\n" for i in range(1, 3001)).encode("latin-1")


@pytest.mark.parametrize("needle", ["café", "naïve résumé", "RÉSUMÉ line 7"])
def test_a_miss_of_non_ascii_text_in_latin1_content_names_the_pattern_that_finds_it(scope, needle):
    tools = ScratchTools(scope)
    handle = scope.spill(LATIN, source_tool="cat").handle
    ignore_case = needle.isupper() or needle[0].isupper()
    asked = {"handle": handle, "match": needle, **({"ignore_case": True} if ignore_case else {})}
    miss = tools.call("read_handle", asked)
    assert miss["windows"] == [] and "the stored bytes are not UTF-8" in miss["note"]
    arguments = _call(miss["note"])
    assert set(arguments) == {"handle", "pattern"} | ({"ignore_case"} if ignore_case else set())  # (no default)
    found = tools.call("read_handle", {**arguments, "count": True})
    text = LATIN.decode("latin-1")
    expected = len(re.findall(re.escape(needle), text, re.IGNORECASE)) if ignore_case else text.count(needle)
    assert found["matches"] == expected > 0


def test_non_utf8_notes_for_patterns_and_needles_with_no_single_byte(scope):
    tools = ScratchTools(scope)
    handle = scope.spill(LATIN, source_tool="cat").handle
    miss = tools.call("read_handle", {"handle": handle, "pattern": "caf(é|e) na"})
    assert "write a byte of another encoding as \\xHH in the pattern" in miss["note"]
    miss = tools.call("read_handle", {"handle": handle, "match": "naïve ☃ résumé"})  # (a snowman has no byte)
    assert 'search an ASCII part of it (match=" r")' not in miss["note"] and "\\xHH" in miss["note"]
    cp1252 = scope.spill("".join(f"price {i} €, “quoted”\n" for i in range(2000)).encode("cp1252"),
                         source_tool="cat")
    assert cp1252.content_type == "csv" and "not UTF-8 (shown as U+FFFD)" in cp1252.shape  # (a table's shape counts
    # its bytes that are not UTF-8 as a text's does, since the jsonshape merge)
    arguments = _call(tools.call("read_handle", {"handle": cp1252.handle, "match": "7 €"})["note"])
    assert arguments["pattern"] == "7 (?:€|\\x80)"
    assert tools.call("read_handle", {**arguments, "count": True})["matches"] == 200
    for quiet in ({"match": "line 7"}, {"match": "café", "offset": 5}, {"match": "zzz"}):
        reply = tools.call("read_handle", {"handle": handle, **quiet})
        assert "note" not in reply or "not UTF-8" not in reply["note"]


@pytest.mark.parametrize("budget", [2048, 4096])
@pytest.mark.parametrize("count", [1, 40, 127, 500, 2048])
def test_the_non_utf8_note_keeps_the_reply_within_its_budget(scope, budget, count):
    tools = ScratchTools(scope)
    handle = scope.spill(LATIN, source_tool="cat").handle
    reply = tools.call("read_handle", {"handle": handle, "match": "é" * count, "budget": budget})
    assert reply_size(reply) <= budget and "not UTF-8" in reply["note"]


def test_the_tool_description_says_how_to_seek_a_byte_of_content_not_utf8():
    description = tool_specs()["read_handle"].description
    assert "`caf(é|e)`" in description and "not UTF-8" in description and "`\\xe9`" in description


def test_reading_past_the_views_end_or_by_lines_names_the_read_of_its_end(scope):
    """offset= counts the view's bytes, not the stored output's (a new user's offset=size-4000 met "past the end"
    with no size); line=-N does not take view=: both errors name raw_offset=, which reads the end rendered."""
    raw = grep_colour()
    handle = _spill(scope, raw)
    tools = ScratchTools(scope)
    view_size = len(render_text(raw).encode())
    with pytest.raises(InvalidArgument) as past:
        tools.call("read_handle", {"handle": handle, "view": "text", "offset": len(raw) - 100})
    assert f"({view_size:,} bytes;" in str(past.value) and f"stored output has {len(raw):,}" in str(past.value)
    said = int(re.search(r"raw_offset=(\d+)", str(past.value))[1])
    end = tools.call("read_handle", {"handle": handle, "view": "text", "raw_offset": said})
    assert end["text"] and render_text(raw).endswith(end["text"].rstrip("\n").rsplit("\n", 1)[-1] + "\n")
    with pytest.raises(InvalidArgument, match=r'raw_offset=N \(its end: N = size - 4096\)'):
        tools.call("read_handle", {"handle": handle, "view": "text", "line": -20})


@pytest.mark.scratch_store(frame_bytes=4096)
@pytest.mark.parametrize("context", [0, 7, 40, 200, "line"])
def test_a_view_search_of_terminal_output_shows_its_windows_rendered(scope, context):
    """``view="text"`` asks for the text view: each window's ``data`` is its stored bytes rendered (no escape
    sequence; on grep's output, where nothing redraws, a piece of the view itself), while ``offset``/``length`` and
    the matches' offsets stay the stored output's -- what ``raw_offset=`` and the next call's ``offset=`` take, as
    README says. Before, ``data`` was the raw bytes, escapes and all: "def __init__" with the default context, 9
    windows in 7,754 bytes of reply (380 escapes); now 14 in 7,504 (none)."""
    tools = ScratchTools(scope)
    raw = grep_colour()
    handle = _spill(scope, raw)
    view = render_text(raw)
    call = {"handle": handle, "match": "def __init__", "view": "text", "context": context, "max_matches": 30}
    reply = tools.call("read_handle", call, full_windows=True)  # (the web's: a whole line's window with offsets)
    model = tools.call("read_handle", call)
    assert model == reply  # (a whole line's window keeps its offset, which the note's raw_offset= takes: hostile42)
    if context == "line":  # a whole line's window: its line of the view, rendered
        assert all(w["data"] == view.split("\n")[w["line"] - 1] for w in model["windows"])
    windows = reply["windows"]
    assert windows and "\x1b" not in json.dumps(reply, ensure_ascii=False)
    for window in windows:
        assert window["data"] in view, window
        assert "def __init__" in window["data"]
        stored = raw[window["offset"] : window["offset"] + window["length"]]
        assert window["data"].rstrip(" ") == render_text(stored).rstrip(" ")  # (the stored bytes it shows)
        for hit in window_hits(window):
            assert render_text(raw[hit["offset"] : hit["offset"] + hit["length"]]) == "def __init__"
    assert "data" in reply["note"] and "rendered" in reply["note"]
    shown, stored = sum(len(w["data"].encode()) for w in windows), sum(w["length"] for w in windows)
    assert shown < stored * (0.8 if context else 1) and reply_size(reply) <= 8192, (shown, stored)
    following = tools.call("read_handle", _call(reply["next_call"]), full_windows=True)  # the next page: from a
    # stored offset
    assert window_hits(following["windows"][0])[0]["offset"] == reply["next_offset"] > window_hits(windows[-1])[-1][
        "offset"]


PROGRESS = b"".join(b"step %d\n" % i + b"".join(b"\r%3d%% [" % p + b"#" * (p // 10) + b"]" for p in range(0, 101, 25))
                    + b" done\n" for i in range(300))
"""A progress bar redrawn after each ``\\r``, its line ending ``100% [##########] done``."""


@pytest.mark.scratch_store(frame_bytes=4096)
@pytest.mark.parametrize("context", [0, 3, 7, 40, 200, "line"])
@pytest.mark.parametrize(("output", "needle"), [("grep", "def __init__"), ("nroff", "option 1"),
                                                ("progress", "done"), ("progress", "step 2")])
def test_every_window_of_a_view_search_is_a_piece_of_the_view(scope, output, needle, context):
    """A window's edges are moved off what a piece would render otherwise than the view: an escape sequence they
    cut, a character a backspace overstrikes just past its end, and the piece of a line redrawn after a ``\\r``
    that holds no match (a cut progress line showed " 75% [####]" where the view shows the line's last state)."""
    raw = {"grep": grep_colour, "nroff": nroff, "progress": lambda: PROGRESS}[output]()
    tools = ScratchTools(scope)
    handle = _spill(scope, raw)
    view = render_text(raw)
    reply = tools.call("read_handle", {"handle": handle, "match": needle, "view": "text", "context": context,
                                       "max_matches": 50})
    assert reply["windows"]
    for window in reply["windows"]:
        assert window["data"] in view, window["data"]


@pytest.mark.parametrize("context", [505, 1284, 1940, 3000])
def test_a_window_cut_to_fit_the_budget_is_a_piece_of_the_view_too(scope, context):
    """A reply over its budget cuts its first window (fewer matches, less context) anywhere in the stored bytes: its
    edges are moved off escape sequences as the search's own are (cut there, "ESC[01;31m" showed as "01")."""
    raw = grep_colour()
    handle = _spill(scope, raw)
    reply = ScratchTools(scope).call("read_handle", {"handle": handle, "match": "def ", "view": "text",
                                                     "context": context, "budget": 2048, "max_matches": 50})
    assert reply["windows"] and "\x1b" not in json.dumps(reply, ensure_ascii=False)
    assert all(window["data"] in render_text(raw) for window in reply["windows"])
