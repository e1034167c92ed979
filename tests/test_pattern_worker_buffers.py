"""A search whose engine calls run in a worker process sends its buffer there once, not with every call
(:mod:`scratchfs.engine.pattern_worker`): the bytes sent, the worker's answers for a buffer it does not hold, and the
matches found so, which are ``re``'s."""

from __future__ import annotations

import pickle
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs.engine import pattern_worker, worker_pipe
from scratchfs.engine.patterns import PatternMatcher

from .reference import regex_spans

CSV = Path(__file__).resolve().parent.parent / "fixtures" / "query-packages-by-month.csv"
# patterns that match no empty text (so their matches are re.finditer's, non-empty ones), one of each way the matcher
# asks the engine: by lines with no literal, by a prefilter literal, across lines, and at a finder's places
PATTERNS = [r"^\w+,\d+", r"[a-c]+\d", r"ab+c", r"x\d", r"b\nc", r"\d\s+\d", r"(?:ab)+", r"a|bc", r"(?:(a)|x)(?(1)b|c)"]


def in_a_worker(pattern: str) -> PatternMatcher:
    """A matcher whose every engine call runs in a worker process (as after a call outran its slice: a slice of 0
    never brings it back to the thread), with a time limit no search here reaches."""
    matcher = PatternMatcher(pattern, timeout=60.0)
    for engine in (matcher.engine, matcher.finder):
        if engine is not None:
            engine.remote, engine.slice = True, 0.0
    return matcher


def matches(matcher: PatternMatcher, buf: bytearray):
    """Each match of ``matcher`` in the whole of ``buf``, as the search takes them (on from each one's end)."""
    pos = 0
    while (found := matcher.find(buf, pos, len(buf), True, 0)) is not None:
        yield found
        pos = found[1]


@pytest.fixture
def sent(monkeypatch) -> list[int]:
    """``[requests, bytes]`` sent to worker processes (every pool's) while the test runs."""
    counts = [0, 0]
    send = worker_pipe.Worker.send

    def counted(self, request, deadline):
        counts[0] += 1
        counts[1] += len(request)
        return send(self, request, deadline)

    monkeypatch.setattr(worker_pipe.Worker, "send", counted)
    return counts


def test_a_search_of_many_calls_in_a_worker_sends_its_buffer_once(sent):
    """``^\\w+,\\d+`` over the packages CSV asks the engine about each line: every call went with the whole buffer
    (1,332,333,541 bytes for the 524,228 of the file, ``python bench/regex_prefilters.py``); now the buffer goes once
    and each call after it is its positions (under 200 bytes)."""
    data = bytearray(CSV.read_bytes()[:100_000])
    found = list(matches(in_a_worker(r"^\w+,\d+"), data))
    assert found == regex_spans(bytes(data), r"^\w+,\d+")
    requests, size = sent
    assert requests > 200  # (many calls: the test means something)
    assert size < len(data) + 200 * requests


def test_two_searches_sharing_a_worker_each_send_their_buffer_again_only_when_displaced(sent):
    """One worker keeps one buffer: searches taking turns on it (the pool hands back the worker last given back)
    send their bytes again after the other's, and their matches stay right."""
    one, two = bytearray(b"ab1 ab2\nabc3\n" * 50), bytearray(b"x1 x22\ny3\n" * 50)
    first, second = matches(in_a_worker(r"[a-c]+\d"), one), matches(in_a_worker(r"x\d"), two)
    got_one, got_two = [next(first)], [next(second)]  # each sends its buffer
    begun = sent[1]
    got_one += [next(first), next(first)]  # the first's bytes again (the worker holds the second's), then ids alone
    assert len(one) < sent[1] - begun < len(one) + 400
    got_one += list(first)
    got_two += list(second)
    assert got_one == regex_spans(bytes(one), r"[a-c]+\d")
    assert got_two == regex_spans(bytes(two), r"x\d")


def test_a_worker_answers_missing_for_a_buffer_it_does_not_hold():
    """The protocol, on a pool of one worker: bytes are kept under their id, one buffer at a time; a call naming
    another id gets :data:`~scratchfs.engine.pattern_worker.MISSING`."""
    pool = worker_pipe.Pool(pattern_worker.__file__, 1, "regex test")
    core = PatternMatcher(r"b+").compiled.pattern

    def call(key, buf):
        request = pickle.dumps((core, "first", key, buf, (0, 8, False, 8), 5.0), pickle.HIGHEST_PROTOCOL)
        return pool.run(request, time.monotonic() + 30)

    try:
        assert call(1, None) == ("ok", pattern_worker.MISSING)  # a new worker holds none
        assert call(1, b"aabbbaab") == ("ok", (2, 5, False))
        assert call(1, None) == ("ok", (2, 5, False))  # kept
        assert call(2, b"bbaaaaaa") == ("ok", (0, 2, False))  # replaced ...
        assert call(1, None) == ("ok", pattern_worker.MISSING)  # ... and the first is gone
        assert call(2, None) == ("ok", (0, 2, False))
    finally:
        pool.kill_all()
        worker_pipe.POOLS.remove(pool)


@settings(max_examples=40, deadline=None)
@given(patterns=st.lists(st.sampled_from(PATTERNS), min_size=2, max_size=2),
       texts=st.lists(st.text(alphabet="abcx01 ,\n", max_size=60).map(str.encode), min_size=1, max_size=4))
def test_matches_found_through_a_worker_are_those_of_re(patterns, texts):
    """Two searches in workers take turns on one buffer, changed in place between rounds (to bytes of the same length
    too: the bytes, not the buffer object, decide whether a worker holds them): each finds ``re.finditer``'s matches.
    """
    matchers = [in_a_worker(pattern) for pattern in patterns]  # (kept across the rounds, as their sent buffers are)
    buf = bytearray()
    for text in [*texts, bytes(reversed(texts[0])), texts[0]]:
        buf[:] = text
        runs = {index: matches(matcher, buf) for index, matcher in enumerate(matchers)}
        got: list[list[tuple[int, int]]] = [[] for _ in matchers]
        while runs:
            for index, run in list(runs.items()):
                span = next(run, None)
                if span is None:
                    del runs[index]
                else:
                    got[index].append(span)
        assert got == [regex_spans(text, pattern) for pattern in patterns]
