"""What the shapes new in session 24 claim, checked against the plain answer on outputs made to mislead them
(helper hostile24): a list of short ids in base64's alphabet, one a line, is no base64 text (a line read serves each
id; a base64 encoder wraps its lines at a multiple of 4 characters, 64 or 76); a GitHub annotation's place is its
``file``, ``line`` and ``col`` in that order, whatever order its properties come in, their escapes (``%2C``,
``%3A``, ``%25``) read back."""

from __future__ import annotations

import base64
import random

import pytest

from scratchfs.api.contract import ScratchTools
from scratchfs.api.shape import describe
from scratchfs.api.shape_encoded import BASE64_SHAPE


def _shape(data: bytes) -> str:
    return describe(data, len(data), data.count(b"\n") + (not data.endswith(b"\n"))).text


def _ids(width: int, count: int = 40) -> bytes:
    rng = random.Random(width)
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"
    return "".join("".join(rng.choice(alphabet) for _ in range(width)) + "\n" for _ in range(count)).encode()


@pytest.mark.parametrize("width", [21, 22, 27, 43])  # nanoid, a UUID in unpadded base64url, a KSUID, 32 bytes'
def test_a_list_of_ids_one_a_line_is_no_base64_text(scratch_scope, width):
    data = _ids(width)
    stub = scratch_scope.spill(data, source_tool="ids")
    assert not stub.shape.startswith(BASE64_SHAPE), stub.shape
    assert stub.shape.startswith("text, 40 lines"), stub.shape
    reply = ScratchTools(scratch_scope).call("read_handle", {"handle": stub.handle, "line": 7, "lines": 1})
    assert reply["data"] == data.split(b"\n")[6].decode() + "\n"


@pytest.mark.parametrize("width", [64, 76, 100])  # PEM's, MIME's, base64 -w 100
def test_base64_wrapped_at_a_multiple_of_4_is_still_base64_text(width):
    raw = random.Random(width).randbytes(3000)
    text = base64.b64encode(raw)
    data = b"".join(text[i : i + width] + b"\n" for i in range(0, len(text), width))
    assert _shape(data).startswith(f"{BASE64_SHAPE} encoding binary data, {len(data.splitlines())} lines of {width} "
                                   "characters, 3,000 bytes encoded")


def test_an_annotation_s_place_is_file_line_col_whatever_the_order_of_its_properties():
    data = (b"::error line=3,col=7,file=src/a.py::E501 line too long\n"
            b"::error title=T,col=2,endColumn=4,line=9,endLine=10,file=src%2Cb%3A1.py::F401 unused\n")
    shape = _shape(data)
    assert "error: E501 line too long at src/a.py:3:7 (line 1)" in shape, shape
    assert "error: F401 unused at src,b:1.py:9:2 (line 2)" in shape, shape


_GO_TEST = (b"ok  \texample.com/a\t0.003s\nok  \texample.com/c\t(cached)\n--- FAIL: TestX (0.00s)\n"
            b"    x_test.go:10: boom\nFAIL\nFAIL\texample.com/b\t0.004s\n?   \texample.com/d\t[no test files]\nFAIL\n")


@pytest.mark.parametrize("data", [_GO_TEST, _GO_TEST.replace(b"\n", b"\r\n"), b"ok  \texample.com/a\t0.1s\n" * 3])
def test_go_test_s_package_lines_are_no_tap_test_lines(data):
    shape = _shape(data)  # (told 'test run (TAP), 8 lines: 2 ok, 0 not ok': a failing run said to have no failure)
    assert "TAP" not in shape and "not ok" not in shape, shape


def test_tap_is_still_tap():
    assert _shape(b"ok 1 - a\nok 2 - b\nnot ok 3 - c\n1..3\n").startswith("test run (TAP), 4 lines: 2 ok, 1 not ok")
    assert _shape(b"ok - a\nok\nnot ok - c\n").startswith("test run (TAP), 3 lines: 2 ok, 1 not ok")
