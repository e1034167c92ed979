"""Search pages that use their budget: a page whose next window is too large for the room left shows that window's
first matches (or, from the end, its last ones) cut to fit, says ``cut`` where, and the next call starts at the first
match not shown. ``match="rustdoc", context=900`` over a rustdoc-like page took 29 pages, some of them a third full
(the window after the last one shown was dropped whole)."""

from __future__ import annotations

import io
import itertools
import json
import random
import re
import tarfile

import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from scratchfs import ScratchStore
from scratchfs.api.contract import ScratchTools, window_hits
from scratchfs.api.views import reply_size
from scratchfs.engine.pattern_crlf import crlf_line_ends
from scratchfs.foundation.limits import MIN_REPLY_BYTES


def rustdoc_page(items: int = 400, seed: int = 1) -> bytes:
    """An HTML page like a rustdoc module index: quotes to escape, "rustdoc" in clusters (a script tag) and alone."""
    rnd = random.Random(seed)
    parts = ['<!DOCTYPE html><html><head><meta name="generator" content="rustdoc"><title>std</title></head>'
             '<body class="rustdoc mod">']
    for i in range(items):
        parts.append(f'<div class="item-row"><a class="struct" href="struct.Item{i}.html" title="struct std::Item{i}">'
                     f'Item{i}</a><div class="desc docblock-short">' + "lorem ipsum " * rnd.randint(5, 60) +
                     "</div></div>\n")
        if rnd.random() < 0.3:
            parts.append('<script src="../static.files/rustdoc-abc.js" defer></script>\n')
    return ("".join(parts) + "</body></html>").encode()


def _pages(tools: ScratchTools, args: dict) -> list[dict]:
    """Every page of a search, following its cursor (forward: next_offset; from the end: next_before)."""
    pages = []
    for _ in range(10_000):
        reply = tools.call("read_handle", args)
        pages.append(reply)
        if not reply.get("more"):
            return pages
        args = {**args, "before": reply["next_before"]} if "before" in args else {**args,
                                                                                  "offset": reply["next_offset"]}
    raise AssertionError("the search did not end")


def test_pages_of_a_wide_context_search_use_their_budget(scratch_scope):
    """Each page but the last leaves less of its budget unused than the next page's first window would need with its
    context before and its first match alone: the room left was too small for any of it, not dropped."""
    data = rustdoc_page()
    handle = scratch_scope.spill(data, source_tool="browser.fetch").handle
    tools = ScratchTools(scratch_scope)
    pages = _pages(tools, {"handle": handle, "match": "rustdoc", "context": 900})
    budget = scratch_scope.store.settings.reply_budget_bytes
    found = [m["offset"] for page in pages for w in page["windows"] for m in window_hits(w)]
    assert found == [m.start() for m in re.finditer(b"rustdoc", data)]
    for page, after in itertools.pairwise(pages):
        assert reply_size(page) <= budget
        first = after["windows"][0]
        start = window_hits(first)[0]["offset"]
        needed = reply_size(data[first["offset"] : start + len("rustdoc")].decode()) + 100  # (its fields)
        assert budget - reply_size(page) < needed, (reply_size(page), needed)
    assert len(pages) <= 24  # (29 before)


def test_a_trimmed_window_says_cut_and_the_next_page_starts_at_its_first_match_not_shown(scratch_scope):
    data = b"".join(b"%s NEEDLE-%03d %s\n" % (b"x" * 300, i, b"y" * 300) for i in range(30))
    handle = scratch_scope.spill(data, source_tool="t").handle
    tools = ScratchTools(scratch_scope)
    pages = _pages(tools, {"handle": handle, "match": "NEEDLE", "context": 700, "budget": 4000})
    cut = [(page, w) for page in pages for w in page["windows"] if "cut" in w]
    assert cut and all(w["cut"] == "after" and w is page["windows"][-1] for page, w in cut)
    for page, window in cut:
        shown_end = window["offset"] + window["length"]
        assert shown_end < window_hits(window)[-1]["offset"] + len("NEEDLE-000") + 700
        assert page["next_offset"] >= shown_end or page["next_offset"] == data.index(b"NEEDLE", shown_end - 9)
    found = [m["offset"] for page in pages for w in page["windows"] for m in window_hits(w)]
    assert found == [m.start() for m in re.finditer(b"NEEDLE", data)]


PIECES = st.lists(st.sampled_from([b"ab", b"a", b"x" * 40, b"y" * 300, b'"' * 50, b"\n", b"\x01" * 20, b"z" * 2000]),
                  min_size=30, max_size=150).map(b"".join)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=PIECES, budget=st.integers(MIN_REPLY_BYTES, 6000), needle=st.sampled_from(["a", "ab", "b"]),
       regex=st.booleans(), context=st.sampled_from([0, 40, 300, 900, 3000]), matches=st.integers(1, 40),
       from_end=st.booleans())
def test_pages_cut_to_fit_find_every_match_once_and_say_where_they_are_cut(scratch_scope, data, budget, needle, regex,
                                                                         context, matches, from_end):
    """Concatenated, the pages of a search (forward, or from the end) show every match of ``re.finditer`` exactly
    once, each within its budget; a window says ``cut`` exactly where it shows less than its context (the content's
    ends aside): the budget cut it there."""
    handle = scratch_scope.spill(data, source_tool="t").handle
    tools = ScratchTools(scratch_scope)
    key, value = ("pattern", re.escape(needle)) if regex else ("match", needle)
    args = {"handle": handle, key: value, "context": context, "max_matches": matches, "budget": budget}
    pages = _pages(tools, {**args, "before": len(data)} if from_end else args)
    if from_end:
        pages.reverse()
    found = [m["offset"] for page in pages for w in page["windows"] for m in window_hits(w)]
    assert found == [m.start() for m in re.finditer(re.escape(needle.encode()), data)]
    event(f"windows cut: {sum('cut' in w for page in pages for w in page['windows']) > 0}")
    for page in pages:
        assert len(json.dumps(page, ensure_ascii=False, separators=(",", ":")).encode()) <= budget
        for window in page["windows"]:
            hits = window_hits(window)
            lo, hi = window["offset"], window["offset"] + window["length"]
            if window.get("encoding") == "hexdump":
                assert bytes.fromhex("".join(line[10:57] for line in window["data"].split("\n"))) == data[lo:hi]
            else:
                assert window["data"] == data[lo:hi].decode("utf-8", "replace")
            before = lo > max(0, hits[0]["offset"] - context)
            after = hi < min(len(data), hits[-1]["offset"] + hits[-1]["length"] + context)
            said = window.get("cut")
            assert said == ("both" if before and after else "before" if before else "after" if after else None), (
                window, context, budget, from_end, len(data), page.get("note"))


def test_a_page_the_time_limit_stopped_says_so_with_the_call_that_goes_on(tmp_path):
    """A pattern that runs away past some matches: the page shows those matches and says the time limit stopped the
    search where it did, the bytes from there not searched (it said nothing, or that the budget had cut it)."""
    with ScratchStore(tmp_path, pattern_timeout=1.0) as store:
        scope = store.scope("r", "a")
        data = b"aaa\n" * 5 + b"a" * 6000 + b"b\n" + b"aaa\n"
        handle = scope.spill(data, source_tool="t").handle
        reply = ScratchTools(scope).call("read_handle", {"handle": handle, "pattern": r"(a+)+$"})
    assert [m["offset"] for w in reply["windows"] for m in window_hits(w)] == [0, 4, 8, 12, 16]
    stop = reply["next_offset"]
    assert reply["more"] and stop in (19, 20)  # (the line end after the last match, or the line past it)
    assert f"time limit (1 s) stopped this search at byte {stop}: the bytes from there are not searched" in reply[
        "note"]
    assert f"offset={stop}" in reply["next_call"]
    assert "budget" not in reply["note"]  # (it said the budget cut the reply to 5 of max_matches=20: not so)


def test_search_windows_in_a_tar_member_of_text_are_text_and_windows_over_its_headers_a_hex_dump(scratch_scope):
    """A search of a tar (binary) whose member is JSON lines: a window within the member is text, ``"encoding":
    "text"``, as a byte range of it is (it was a hex dump, 4.8 times the bytes); one reaching into the tar's
    headers (NUL bytes) stays a hex dump."""
    member = b"".join(b'{"id": %d, "city": "K\\u00f6ln \xe6\x9d\xb1", "msg": "line %d"}\n' % (i, i) for i in range(300))
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:") as archive:
        info = tarfile.TarInfo("records.jsonl")
        info.size = len(member)
        archive.addfile(info, io.BytesIO(member))
    data = out.getvalue()
    stored = scratch_scope.spill(data, source_tool="tar")
    assert stored.content_type == "binary"
    tools = ScratchTools(scratch_scope)
    reply = tools.call("read_handle", {"handle": stored.handle, "match": '"line 150"', "context": 100})
    (window,) = reply["windows"]
    assert window["encoding"] == "text"
    assert window["data"].encode() == data[window["offset"] : window["offset"] + window["length"]]
    first = tools.call("read_handle", {"handle": stored.handle, "match": '"id": 0,', "context": 600})
    assert first["windows"][0]["encoding"] == "hexdump"  # (the tar header's NUL bytes before it)


def test_a_pattern_ending_lines_that_misses_crlf_content_names_the_pattern_that_finds_them(scratch_scope):
    """``$`` matches before ``\\n`` only (Python's re), so ``value=7000$`` found nothing in CRLF lines and said
    nothing; the note names ``\\r?$``, and its call finds the line's match at its exact offset."""
    data = b"".join(b"key%d: value=%d\r\n" % (i, i * 1000) for i in range(20))
    handle = scratch_scope.spill(data, source_tool="t").handle
    tools = ScratchTools(scratch_scope)
    reply = tools.call("read_handle", {"handle": handle, "pattern": "^key7: value=7000$"})
    assert reply["windows"] == [] and reply["next_call"] is None
    assert "lines end in \\r\\n" in reply["note"], reply
    call = re.search(r"read_handle\(.*\)$", reply["note"]).group(0)
    args = _call_args(call)
    assert args["pattern"] == "^key7: value=7000\\r?$"
    found = tools.call("read_handle", args)
    (window,) = found["windows"]
    start = data.index(b"key7:")
    assert window_hits(window) == [{"offset": start, "length": len(b"key7: value=7000\r"), "line": 8}]
    lf = scratch_scope.spill(data.replace(b"\r\n", b"\n"), source_tool="t").handle
    assert tools.call("read_handle", {"handle": lf, "pattern": "value=7000$"})["windows"]  # (LF: found, no note)
    missed = tools.call("read_handle", {"handle": lf, "pattern": "value=7001$"})
    assert missed["note"] == f"no match in the whole content ({len(data) - 20} bytes)"  # (no CRLF advice)


def _call_args(call: str) -> dict:
    import ast

    node = ast.parse(call, mode="eval").body
    return {k.arg: ast.literal_eval(k.value) for k in node.keywords}


@pytest.mark.parametrize(("pattern", "fixed"), [
    ("value=7000$", "value=7000\\r?$"), ("^a$|^b$", "^a\\r?$|^b\\r?$"), ("[$]x$", "[$]x\\r?$"),
    ("(a(?=b$))", "(a(?=b\\r?$))"), ("a\\$", None), ("abc", None), ("(?<=a$)b", None), ("(?x) a$ # end$", None)])
def test_the_crlf_fix_rewrites_each_end_anchor_and_nothing_else(pattern, fixed):
    """Only ``$`` anchors (not ``\\$``, not a ``$`` in a class or a verbose comment); none for a lookbehind, whose
    width the rewrite would vary."""
    assert crlf_line_ends(pattern, False) == fixed


_CR_ATOMS = ["a", "b", " ", ".", "[^a\n]", "[\r ]", "[^\\w\n]", "a+", "[ab]"]
"""Pattern pieces that match no ``\\n`` (a ``\\n`` of LF text is a CRLF's two bytes: its offsets differ), some that
match a ``\\r`` (``.``, ``[^a\\n]``): what a rewrite of ``$`` must keep off a CRLF's ``\\r``."""


@st.composite
def _line_end_patterns(draw) -> str:
    arms = [draw(st.lists(st.sampled_from(_CR_ATOMS), min_size=1, max_size=3)) for _ in range(draw(st.integers(1, 2)))]
    return "|".join("".join(arm) + "$" + draw(st.sampled_from(["", "", "\n"])) for arm in arms)


def _lf_starts(pattern: str, crlf: str) -> list[int]:
    """Where ``pattern`` matches (non-empty) in ``crlf`` as the user means it, ``$`` at each line's end: Python's
    ``re`` (MULTILINE) over the text with its ``\\r\\n`` written ``\\n``, each match's start told as an offset of
    ``crlf``."""
    lf, back, i = [], [], 0  # (back[q]: the offset in crlf of the LF text's character q)
    while i < len(crlf):
        back.append(i)
        pair = crlf.startswith("\r\n", i)
        lf.append("\n" if pair else crlf[i])
        i += 2 if pair else 1
    return [back[m.start()] for m in re.finditer(pattern, "".join(lf), re.MULTILINE) if m.end() > m.start()]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(st.text(alphabet="ab \r", max_size=5), min_size=1, max_size=6), ended=st.booleans(),
       pattern=_line_end_patterns())
def test_the_crlf_fix_finds_what_python_finds_at_each_line_end(scratch_scope, lines, ended, pattern):
    """helper replies6: the pattern a CRLF miss's note names (each ``$`` rewritten) against Python's ``re`` on the
    text with LF line ends -- what the user means by ``$``. ``\\r?$`` let a class before it take a CRLF's ``\\r``
    (``[^a]\\r?$`` matched the ``\\r`` of a line ending in "a") and a content's last lone ``\\r`` (``a\\r?$``
    matched "a\\r" at the end, where no line ends after the "a")."""
    crlf = "\r\n".join(lines) + ("\r\n" if ended else "")
    fixed = crlf_line_ends(pattern, False, crlf.endswith("\r"))
    assume(fixed is not None)  # (a$|a$: the parse shares the arms' $, and the scan's count differs: no rewrite)
    handle = scratch_scope.spill(crlf.encode(), source_tool="t").handle
    found = scratch_scope.search(handle, pattern=fixed, context=0, max_matches=1000)
    assert [m.offset for w in found.windows for m in w.matches] == _lf_starts(pattern, crlf), (crlf, fixed)


def test_the_crlf_note_names_the_exact_line_end_where_a_lone_cr_ends_the_content(scratch_scope):
    """helper replies6: a content ending in a lone ``\\r`` (a CRLF cut after it): ``value=2\\r?$`` found
    "value=2\\r" there, where no line ends after the 2; the note names ``$`` written so that a CRLF's ``\\r`` alone
    is taken, and its call finds the lines that end as Python's ``re`` finds them in the LF text."""
    tools = ScratchTools(scratch_scope)
    data = b"value=1\r\nvalue=2\r\nvalue=2\r"
    handle = scratch_scope.spill(data, source_tool="t").handle
    missed = tools.call("read_handle", {"handle": handle, "pattern": "value=2$"})
    assert "write (?!(?<=\\r)\\n)(?:\\r(?=\\n))?$ for a line's end: " in missed["note"], missed
    found = tools.call("read_handle", missed["calls"][0]["arguments"])
    assert [w["match_offset"] for w in found["windows"]] == _lf_starts("value=2$", data.decode()) == [9]
    assert crlf_line_ends("value=2$", False) == "value=2\\r?$"  # (no lone \r at the end, no item taking a \r)
