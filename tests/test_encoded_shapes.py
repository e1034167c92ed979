"""Base64 text and minified JavaScript were "text, 1 line, longest at least 524,288 bytes": a model read a range of
base64 characters (which decode to nothing it can use) or a line of a megabyte. Their shapes now name them and say
what to do: base64 -- no read decodes it, and the bytes it encodes; minified JavaScript -- windows around a name or a
string (match=, pattern=) rather than lines. Each check failed before: the shape named neither."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import random

import pytest

from scratchfs.api.shape import describe


def shape_of(data: bytes) -> str:
    return describe(data, len(data), data.count(b"\n") + (not data.endswith(b"\n"))).text


_BINARY = "base64 text encoding binary data"


def _random(count: int) -> bytes:
    return random.Random(count).randbytes(count)


def test_one_megabyte_line_of_base64_is_named_with_the_bytes_it_encodes(scratch_scope):
    data = base64.b64encode(_random(750_000))  # (1,000,000 characters, no line end)
    stub = scratch_scope.spill(data, source_tool="curl")
    assert stub.shape.startswith(f"{_BINARY}, 1 line of about 1,000,000 characters, about 750,000 bytes encoded: "
                                 "no read decodes it"), stub.shape


@pytest.mark.parametrize(("encode", "said"), [
    (base64.encodebytes, f"{_BINARY}, 42 lines of 76 characters, 2,345 bytes encoded"),  # (MIME: 76 a line)
    (lambda data: base64.b64encode(data) + b"\n", f"{_BINARY}, 1 line of 3,128 characters, 2,345 bytes encoded"),
    (lambda data: base64.urlsafe_b64encode(data).rstrip(b"="), f"{_BINARY}, 1 line of 3,127 characters, 2,345 "),
])
def test_whole_base64_counts_its_bytes_exactly(encode, said):
    assert shape_of(encode(_random(2345))).startswith(said)


@pytest.mark.parametrize(("raw", "said"), [
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR" + _random(3000), "encoding a PNG image"),  # (a screenshot tool's)
    (b"%PDF-1.7\n" + _random(3000), "encoding a PDF"),
    (gzip.compress(_random(3000)), "encoding gzip data"),
    (json.dumps({"apiVersion": "v1", "kind": "Secret", "items": list(range(900))}).encode(), "encoding UTF-8 text"),
    ("naïve café ".encode() * 300, "encoding UTF-8 text"),
    ("text ".encode("utf-16") * 600, "encoding UTF-16LE text"),
    (_random(3000), "encoding binary data"),
])
def test_base64_says_what_its_first_bytes_decode_to(raw, said):
    """What the base64 encodes, from its first characters decoded: a model told 'base64 text' alone could not tell a
    screenshot from a Kubernetes secret's JSON without decoding it in its context."""
    for encode in (base64.b64encode, base64.encodebytes, lambda data: base64.urlsafe_b64encode(data).rstrip(b"=")):
        assert shape_of(encode(raw)).startswith(f"base64 text {said}, "), (said, shape_of(encode(raw))[:80])


def test_minified_javascript_is_read_by_windows():
    code = (b'/*! app v1.2.3 | MIT */\n!function(e,t){"use strict";var n=function(e){return e&&e.length>0?e.map('
            b"function(t,n){return t*n}):[]},r=(e)=>e+1;" + b"const a%d=n([1,2,3]),b%d=r(a%d.length);" * 30_000
            + b"}(this);\n")
    shape = shape_of(code)
    assert shape.startswith("minified JavaScript, 2 lines, longest "), shape
    assert "match= or pattern=" in shape


@pytest.mark.parametrize("data", [
    b"".join(hashlib.sha256(b"%d" % n).hexdigest().encode() for n in range(200)),  # (hex: no capital letter)
    b"a" * 5000,
    b"The quick brown fox jumps over the lazy dog. " * 2000,
    b"".join(b"%d,name%d,%d\n" % (n, n, n * 7) for n in range(2000)),
    b"Zm9v" * 10,  # (too short to tell)
    ("function f(a) {\n  return a + 1;\n}\n" * 2000).encode(),  # (code not minified)
])
def test_text_that_is_neither_is_not_named_so(data):
    shape = shape_of(data)
    assert not shape.startswith(("base64", "minified")), shape


def test_lines_of_one_width_that_is_no_multiple_of_4_are_no_base64():
    """Lines of base64 hold whole 4-character quanta (RFC 4648 section 4; MIME writes 76, PEM 64): a list of
    mixed-case identifiers of one length (22 here) was told 'base64 text encoding binary data'."""
    rng = random.Random(7)
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    names = "".join("".join(rng.choice(alphabet) for _ in range(22)) + "\n" for _ in range(400)).encode()
    assert not shape_of(names).startswith("base64"), shape_of(names)[:80]
