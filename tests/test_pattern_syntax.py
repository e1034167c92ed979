"""One parser for patterns: what the analysis reads is what the engine runs, for every class syntax; compiling is
bounded in memory and time; what re and regex read differently is refused."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
import warnings

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scratchfs import InvalidArgument, PatternTooLong, ScratchStore
from scratchfs.adapter import Offloader
from scratchfs.engine.pattern_syntax import MAX_PATTERN_BYTES
from scratchfs.engine.patterns import PatternMatcher

from .cli_run import invoke
from .reference import line_of, regex_spans, windows
from .test_patterns import as_tuples, run_search

# class syntax the engine (regex) and re both accept, each item of a class on its own and together: literals,
# ranges, escapes (categories, hex, octal, control, backspace), negation, ']' first, '-' first and last, '^' not
# first; plus the one-byte forms outside classes ('.', categories) and what changes a class (ignore_case, (?i:),
# (?-i:), (?s:)); verbose groups, where whitespace inside a class counts (as re reads it)
_CLASS_ITEMS = ["a", "b", "A", "_", "0-9", "a-c", "A-Z", r"\d", r"\D", r"\s", r"\S", r"\w", r"\W", r"\x41", r"\x00",
                r"\xc9", r"\101", r"\n", r"\t", r"\r", r"\b", r"\-", r"\]", r"\\", r"\^", ".", "*", "$", "(", ")",
                r"\x80-\xff", ":", "|", "&", "~"]


@st.composite
def classes(draw):
    items = "".join(draw(st.lists(st.sampled_from(_CLASS_ITEMS), min_size=1, max_size=4)))
    head = draw(st.sampled_from(["", "^", "]", "^]", "-", "^-"]))
    tail = draw(st.sampled_from(["", "-", "^"]))
    return f"[{head}{items}{tail}]"


_ATOMS = [r"a", r"b", r"A", r"ab", r"\b", r"\B", r"^", r"$", r"\A", r"\Z", r"(?-m:^)", r"(?-m:$)", r"(?<=a)",
          r"(?<!b)", r"(?=b)", r"(?!a)", r"a+", r"\n", r"\r", r" ", r".", r"(?s:.)", r"(?:ab|ba)", r"b?", r"\w",
          r"\s", r"\d", r"\W", r"\S", r"\D", r"x\d", r"(a)\1", r"(?P<n>b)(?P=n)", r"(?i:a)", r"(?i:(b)\1)",
          r"(?>a+)", r"a{1,3}+", r"a{2}", r"[ab]{1,3}?", r"(a)?(?(1)b|A)", r"\x41", r"\xc9", r"_",
          r"(?x: a b # c" "\n" r")", r"(?x:[ a])", r"a{,2}", r"(?i:[^\W\d])", r"(?-i:a)"]


@st.composite
def patterns(draw):
    parts = draw(st.lists(st.one_of(st.sampled_from(_ATOMS), classes()), min_size=1, max_size=4))
    return "".join(parts)


@st.composite
def contents(draw):
    alphabet = st.sampled_from([b"a", b"b", b"A", b"B", b"_", b"-", b"]", b"^", b"\n", b"\r", b"\t", b" ", b"0",
                                b"9", b":", b"\x00", b"\x08", b"\xc9", b"\xe9", b"x1", b"\r\n", b"ab\n"])
    return b"".join(draw(st.lists(alphabet, max_size=5000)))


def re_accepts(pattern: str, ignore_case: bool) -> bool:
    """re compiles the pattern without a warning (FutureWarning: a nested set or a set operation)."""
    flags = re.MULTILINE | (re.IGNORECASE if ignore_case else 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            re.compile(pattern.encode(), flags)
        except (re.error, FutureWarning, DeprecationWarning):
            return False
    return True


@given(pattern=patterns(), data=contents(), start=st.integers(0, 12000), context=st.integers(0, 30),
       ignore_case=st.booleans())
def test_frame_by_frame_equals_the_engine_and_re_over_the_whole_content(tmp_path_factory, pattern, data, start,
                                                                         context, ignore_case):
    start = min(start, len(data))
    reach = 64
    if not re_accepts(pattern, ignore_case):
        with pytest.raises(InvalidArgument):
            PatternMatcher(pattern, ignore_case, reach=reach)
        return
    matcher = PatternMatcher(pattern, ignore_case, reach=reach)
    ref = regex_spans(data, pattern, start, ignore_case)
    # the engine over the whole content (the core syntax the matcher runs) answers what re answers
    whole = [m.span() for m in matcher.compiled.finditer(data, start) if m.end() > m.start()]
    assert whole == ref
    try:
        got = run_search(tmp_path_factory.mktemp("p"), data, matcher, start, context, 400, budget=8192)
    except PatternTooLong as exc:
        error = exc
    else:
        error = None
    if error is not None:  # only a match longer than the reach bound may stop the search
        assert any(end - begin > reach for begin, end in ref if begin <= error.resume_offset)
        return
    assert as_tuples(got) == windows(data, ref, context, 400, budget=8192)
    for window in got.windows:
        for hit in window.matches:
            assert hit.line == line_of(data, hit.offset)


@given(pattern=st.text(alphabet="[]^-:=.&~|\\ab(?)", min_size=1, max_size=12), ignore_case=st.booleans())
def test_what_re_reads_with_a_warning_or_an_error_is_refused_and_the_rest_compiles(pattern, ignore_case):
    accepted = re_accepts(pattern, ignore_case)
    try:
        PatternMatcher(pattern, ignore_case, reach=64)
    except InvalidArgument:
        refused = True
    else:
        refused = False
    if not accepted:
        assert refused
    elif refused:  # refusing more than re warns about is allowed only for the class syntax named in the message
        with pytest.raises(InvalidArgument, match=r"inside a class|global flags"):
            PatternMatcher(pattern, ignore_case, reach=64)


@pytest.mark.parametrize(("pattern", "why"), [
    ("[[:alpha:]]", "POSIX class"),  # regex: a class of letters; re: '[', ':', 'a', 'l', 'p', 'h' and then ']'
    ("[a--b]", "set-operation"),  # regex V1: a difference; regex V0: an error; re: a range and '-'
    ("[a&&b]", "set-operation"),
    ("[x||y]", "set-operation"),
    ("[a~~b]", "set-operation"),
    ("[[a]]", "nested set"),
    ("[x[:digit:]]", "POSIX class"),
    ("(?L)a", "locale"),
    ("a(?i)b", "global flags"),
    (r"\p{L}", "does not compile"),  # regex: a Unicode property; re: a bad escape
    ("(?|(a)|(b))", "does not compile"),  # regex: a branch reset
    (r"(?<=a+)b", "does not compile"),  # regex: a variable-width lookbehind
])
def test_constructs_re_and_regex_read_differently_are_refused(pattern, why):
    with pytest.raises(InvalidArgument, match=why):
        PatternMatcher(pattern)


def test_the_class_re_reads_is_the_class_that_runs():
    # '[][]' is ']' or '['; '[]a]' is ']' or 'a'; '[\\b]' is a backspace; under ignore_case only ASCII folds
    data = b"[]a\x08b\xc9\xe9ABC"
    for pattern, ignore_case in [("[][]", False), ("[]a]", False), (r"[\b]", False), (r"[^\W\d]", False),
                                 ("[a-c]", True), ("[\xc9]", True), (r"(?i:[^a])", False), (r"(?-m:$)|\Z", False)]:
        matcher = PatternMatcher(pattern, ignore_case)
        got = [m.span() for m in matcher.compiled.finditer(data) if m.end() > m.start()]
        assert got == regex_spans(data, pattern, 0, ignore_case), pattern


def test_single_line_anchors_do_not_match_at_frame_edges(small_frames_store):
    # (?-m:$) is the end of the content (or before its last newline), never a frame's or a buffer's end
    data = b"x\n" * 20_000
    scope = small_frames_store.scope("r", "a")
    handle = scope.spill(data, source_tool="t").handle
    got = scope.read_handle(handle, pattern=r"(?-m:x$)", context=0)
    assert [(h.offset, h.length) for w in got.windows for h in w.matches] == [(len(data) - 2, 1)]
    got = scope.read_handle(handle, pattern=r"\Ax", context=0)
    assert [h.offset for w in got.windows for h in w.matches] == [0]
    got = scope.read_handle(handle, 10, pattern=r"\Ax|(?-m:^)x", context=0)
    assert got.windows == [] and got.next_offset is None


HUGE = ["a{100000000}", "(?:a{1000}){1000}", "((a{100}){100}){100}", "x{4294967295}", "(" * 300 + "a" + ")" * 300,
        "a" * (MAX_PATTERN_BYTES + 1), "(?:[ab]{300}){300}"]


@pytest.mark.parametrize("pattern", HUGE)  # (no `alone` mark: the refusal takes milliseconds of the 1 s bound)
def test_patterns_beyond_the_compile_bounds_are_invalid_arguments(scope, pattern):
    handle = scope.spill(b"a" * 10_000, source_tool="t").handle
    began = time.monotonic()
    with pytest.raises(InvalidArgument):
        scope.read_handle(handle, pattern=pattern)
    assert time.monotonic() - began < 1.0
    reply = Offloader(scope).call_scratch_tool("read_handle", {"handle": handle, "pattern": pattern})
    assert reply.is_error and reply.text.startswith("invalid argument: ")


_COMPILE_PEAK = """
import resource, sys, time
from scratchfs.engine.patterns import PatternMatcher
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
began = time.monotonic()
for pattern in sys.argv[1:]:
    PatternMatcher(pattern)
print(time.monotonic() - began, (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) * 1024)
"""


@pytest.mark.alone
def test_the_largest_patterns_allowed_compile_in_little_memory_and_time():
    largest = ["a{19990}", "(?:a{140}){140}", "(?:(?:a|b){1,65535}){1,65535}", "(?:" * 99 + "a+" + ")*" * 99,
               "(?:ab|cd|ef)" * 1300, r"\w{9990}\d{9990}"]
    out = subprocess.run([sys.executable, "-c", _COMPILE_PEAK, *largest], capture_output=True, text=True,
                         timeout=60, check=True)
    seconds, grown = map(float, out.stdout.split())
    assert seconds < 2.0
    assert grown < 64 * 1024 * 1024


def test_cli_exits_2_with_one_line_for_a_pattern_beyond_the_bounds(tmp_path):
    """The first pattern through ``python -m scratchfs`` (the exit status and stderr a shell sees), the others and the
    read that passes in this process through click's runner (the same command, 0.4 s of CPU less a start)."""
    with ScratchStore(tmp_path) as store:
        handle = store.scope("r", "a").spill(b"a" * 1000, source_tool="t").handle
    command = [sys.executable, "-m", "scratchfs", "read-handle", handle, "--root", str(tmp_path), "--run", "r",
               "--agent", "a"]
    out = subprocess.run([*command, "--pattern", "a{100000000}"], capture_output=True, text=True, timeout=60)
    said = [(out.returncode, out.stderr)]
    for extra in (["--pattern", "[[:alpha:]]"], ["--pattern", "(a{1000}){1000}"]):
        result = invoke(tmp_path, "read-handle", handle, *extra)
        said.append((result.exit_code, result.stderr))
    for code, stderr in said:
        assert code == 2, stderr
        assert stderr.startswith("scratchfs: invalid argument: ") and stderr.count("\n") == 1
    ok = invoke(tmp_path, "read-handle", handle, "--pattern", "a{3}", "--max-matches", "1", "--context", "0")
    assert ok.exit_code == 0, ok.stderr
    assert json.loads(ok.stdout)["windows"][0]["data"] == "aaa"


def _longest_string(core: bytes) -> int:
    """The longest run of single bytes (``x`` or ``\\xHH``) in core syntax, as regex joins them into one string."""
    longest = run = i = 0
    while i < len(core):
        if core[i : i + 2] == b"\\x":
            run, i = run + 1, i + 4
        elif chr(core[i]).isalnum() or core[i] in b"_ ":
            run, i = run + 1, i + 1
        else:
            run, i = 0, i + 1
        longest = max(longest, run)
    return longest


@pytest.mark.parametrize("needle", ["\x7f" * 4096, "ab" * 2048, "é" * 2048, "abc" * 1365])
def test_a_long_literal_is_no_long_string_for_regex_and_still_matches_only_itself(scope, needle):
    """regex builds a table for a literal string, on a pattern's first use, in time that grows with about the cube
    of its length and ignores the call's timeout (4,096 DEL bytes as a case-blind match: about 40 s). The core
    syntax breaks every run at MAX_STRING_BYTES; the search still finds exactly the needle's occurrences."""
    from scratchfs.engine.pattern_syntax import MAX_STRING_BYTES
    from scratchfs.engine.patterns import compile_pattern

    for ignore_case in (False, True):
        if ignore_case and not needle.isascii():  # (each é written as é or É, unicase1: past the pattern bound)
            with pytest.raises(InvalidArgument, match="more than the limit of 16384: search a shorter part of it"):
                compile_pattern(re.escape(needle), ignore_case, 1 << 20)
            continue
        compiled, _ = compile_pattern(re.escape(needle), ignore_case, 1 << 20)
        assert _longest_string(compiled.pattern) <= MAX_STRING_BYTES
    raw = needle.encode()
    data = b"".join(b"x%d " % i + raw[: len(raw) - i] + b" y\n" for i in range(3)) + raw + b"\n" + raw.upper()
    handle = scope.spill(data).handle
    sought = needle if needle.isascii() else needle[:400]  # (a part of it, case-blind: within the bound)
    exact = scope.search(handle, match=sought, ignore_case=True, context=0, max_matches=100)
    assert [h.offset for w in exact.windows for h in w.matches] == [
        m.start() for m in re.finditer(re.escape(sought.encode()), data, re.I)]
    as_pattern = scope.search(handle, pattern=re.escape(needle), context=0)
    assert [h.offset for w in as_pattern.windows for h in w.matches] == [
        m.start() for m in re.finditer(re.escape(raw), data)]


@given(run=st.text(alphabet="aAb\x7f.", min_size=60, max_size=400), tail=st.sampled_from(["", "x+", "[ab]", "(c)"]),
       ignore_case=st.booleans(), data=st.binary(max_size=300) | st.text(alphabet="aAbB\x7f.xc\n").map(str.encode))
def test_broken_strings_match_what_re_matches(run, tail, ignore_case, data):
    pattern = re.escape(run) + tail
    matcher = PatternMatcher(pattern, ignore_case)
    hay = data + run.encode() + data
    expected = [m.span() for m in re.finditer(pattern.encode(), hay, re.M | (re.I if ignore_case else 0))]
    assert [m.span() for m in matcher.compiled.finditer(hay)] == expected


@pytest.mark.parametrize("pattern", ["(" * 4000, "(" * 3000 + "a", "(?:" * 1300 + "a"])
def test_groups_opened_thousands_deep_are_refused_by_their_nesting(pattern):
    """Groups opened thousands deep (balanced or not) overflowed the parser's recursion: "pattern is too complex:
    maximum recursion depth exceeded while calling a Python object" -- now the nesting bound, named."""
    with pytest.raises(InvalidArgument, match=r"^pattern nests groups more than 100 deep$"):
        PatternMatcher(pattern)
