"""A shape that words go before or after -- ``coloured (N escape sequences; ...): `` before a kind's shape, ``; N
bytes not UTF-8 ...`` after it -- was written at the full 600 characters and then cut to make room: a coloured
compiler's 200 errors ended ``…, error: ... (line 5), …; line=N ...``, and with a byte not UTF-8 too, ``… 196
mo…; 1 byte not UTF-8``: the count of what was left out lost. Each is now written within the room the words leave
(:func:`scratchfs.api.shape_words.within`), so it lists fewer parts and still says how many it left out."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs.api.shape import describe
from scratchfs.api.shape_words import MAX_SHAPE_CHARS

_RED, _RESET = "\x1b[31m", "\x1b[0m"
_MORE = re.compile(r"… ([0-9,]+) more")


def _shape(data: bytes) -> str:
    return describe(data, len(data), data.count(b"\n")).text


def _paint(text: str, coloured: bool) -> str:
    return f"{_RED}{text}{_RESET}" if coloured else text


def _diagnostics(n: int, width: int, coloured: bool) -> str:
    return "".join(f"src/m_{i}.c:{i + 1}:5: {_paint('error:', coloured)} {'x' * width} {i}\n" for i in range(n))


def _test_run(n: int, width: int, coloured: bool) -> str:
    failed = "".join(f"FAILED tests/test_{'x' * width}_{i}.py::test_case_{i} - AssertionError: boom\n"
                     for i in range(n))
    return (f"{'=' * 29} test session starts {'=' * 30}\ncollected {n} items\n\n{failed}"
            f"{_paint(f'{chr(61) * 24} {n} failed in 1.23s {chr(61) * 25}', coloured)}\n")


def _diff(n: int, width: int, coloured: bool) -> str:
    return "".join(f"{_paint(f'diff --git a/{name} b/{name}', coloured)}\n--- a/{name}\n+++ b/{name}\n"
                   "@@ -1,2 +1,2 @@\n-old\n+new\n" for name in (f"{'x' * width}{i}.py" for i in range(n)))


def _listing(n: int, width: int, coloured: bool) -> str:
    return "".join(f"./{'x' * width}{i}:\ntotal 8\n-rw-r--r-- 1 u u 12 Jan  1 00:00 {_paint(f'file{i}', coloured)}\n\n"
                   for i in range(n))


def _csv(n: int, width: int, coloured: bool) -> str:
    return ",".join(f"col_{'x' * width}_{i}" for i in range(n)) + "\n" + (",".join("1" * n) + "\n") * 40


@given(write=st.sampled_from([_diagnostics, _test_run, _diff, _listing, _csv]), n=st.integers(1, 300),
       width=st.integers(1, 90), coloured=st.booleans(), odd=st.booleans())
@settings(max_examples=150, deadline=None)
def test_a_shape_with_words_beside_it_still_says_how_many_it_left_out(write, n, width, coloured, odd):
    plain = _shape(write(n, width, False).encode())
    data = write(n, width, coloured).encode()
    if odd:  # a byte not UTF-8 (Latin-1's é) in the first name
        data = data.replace(b"x", b"\xe9", 1)
    shape = _shape(data)
    assert len(shape) <= MAX_SHAPE_CHARS
    left = _MORE.search(plain)
    if left is not None and (coloured or odd):
        said = _MORE.search(shape)
        assert said is not None, shape
        assert int(said.group(1).replace(",", "")) >= int(left.group(1).replace(",", "")), (plain, shape)


def test_a_coloured_compilers_errors_say_how_many_are_left_out():
    shape = _shape(_diagnostics(200, 60, True).encode())
    assert shape.startswith("coloured (400 escape sequences") and len(shape) <= MAX_SHAPE_CHARS
    listed = shape.count(" (line ")
    assert f"… {200 - listed} more; line=N" in shape, shape
