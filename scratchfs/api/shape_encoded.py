"""Two kinds of text that line reads and range reads serve badly, named in a shape (for
:mod:`scratchfs.api.shape_kinds`) with what to do instead: base64 (an image, a PDF, a gzip stream written as text:
one line of a megabyte, or lines of 64 or 76 characters), which no read decodes -- a range of it is characters, not
the bytes they encode -- so its shape says so and how many bytes it encodes; and minified JavaScript (a bundle of a
few lines of hundreds of KiB), whose lines are too long to read by ``line=``, read instead by windows around a name
or a string (``match=`` or ``pattern=``, ``context=`` bytes a side). Each gates on a scan of the content's first 4 or
8 KiB: text with a space or a newline early is neither (a few us)."""

from __future__ import annotations

import base64
import binascii
import re

from scratchfs.api.shape_binary import COMPRESSED, binary_kind, utf16_bare
from scratchfs.api.shape_words import plural, scoped

__all__ = ["BASE64_SHAPE", "MINIFIED_SHAPE", "encoded_shape"]

BASE64_SHAPE = "base64 text"
"""How a base64 text's shape starts."""
MINIFIED_SHAPE = "minified JavaScript"
"""How a minified JavaScript text's shape starts."""
_HEAD_BYTES = 4096
_BASE64_HEAD_RE = re.compile(rb"[A-Za-z0-9+/_-]+(?:={0,2}\r?\n[A-Za-z0-9+/_-]*)*={0,2}\s*")
"""The same, the last line possibly cut: what a content's first bytes must be."""
_LEAST_BASE64 = 256  # characters: a shorter run of letters and digits is a word, a hash, a key
_MINIFIED_BYTES = 8192  # the least sample of minified code, its first bytes holding at most 3 line ends
_JS_WORDS_RE = re.compile(rb"function|=>|return|var |const |let ")
_LEAST_JS_WORDS = 20  # in the first 64 KiB
_MOST_SPACE_SHARE = 0.08  # minified code has few spaces (``return x``, ``new Y``); prose has one in six bytes


def encoded_shape(sample: bytes, lines: int, complete: bool, scope: str, size: int | None = None) -> str | None:
    """``"base64 text, 1 line of 1,000,000 characters, about 750,000 bytes encoded: ..."`` or ``"minified JavaScript,
    2 lines, longest at least 524,288 bytes: ..."`` for ``sample`` (a content's first bytes; ``complete``: all of it;
    ``lines``: the whole content's line count; ``scope``: what to add when the sample is not all of it; ``size``: the
    whole content's bytes, ``None``: the sample's), else ``None``. Never raises."""
    size = len(sample) if size is None else size
    if _BASE64_HEAD_RE.fullmatch(sample, 0, _HEAD_BYTES) is not None:
        return _base64(sample, lines, complete, size)
    if len(sample) >= _MINIFIED_BYTES and _fewer_newlines(sample, _MINIFIED_BYTES, 4):
        return _minified(sample, lines, complete, scope)
    return None


def _fewer_newlines(sample: bytes, end: int, most: int) -> bool:
    """Whether ``sample[:end]`` holds fewer than ``most`` newlines: a ``memchr`` a newline, stopped at the ``most``-th
    (text's first lines: a few bytes read, where a count read all 8 KiB, 5 us)."""
    at = -1
    for _ in range(most):
        at = sample.find(b"\n", at + 1, end)
        if at < 0:
            return True
    return False


def _base64(sample: bytes, lines: int, complete: bool, size: int) -> str | None:
    """The shape of base64 text: ``sample`` (its whole lines) all base64 characters, letters of both cases and a
    digit among its first bytes, its lines but the last of one length (16 characters or more, a multiple of 4: MIME's
    76, PEM's 64, RFC 4648 section 4's 4-character quanta);
    the bytes it encodes counted (``about``, from the share of the sample's bytes that are characters, when the
    sample is not all of it)."""
    head = sample[:_HEAD_BYTES]
    if not (re.search(rb"[a-z]", head) and re.search(rb"[A-Z]", head) and re.search(rb"[0-9]", head)):
        return None
    body = sample if complete or b"\n" not in sample else sample[: sample.rfind(b"\n") + 1]
    width = len(body.split(b"\n", 1)[0].rstrip(b"\r")) if b"\n" in body.rstrip() else 0
    if len(body) < _LEAST_BASE64 or (width and (width < 16 or width % 4)):  # (a line of base64 is whole quanta)
        return None
    rows = rb"(?:[A-Za-z0-9+/_-]{%d}\r?\n)*" % width if width else b""
    if re.fullmatch(rows + rb"[A-Za-z0-9+/_-]*={0,2}\s*", body) is None:
        return None
    spaces = sum(body.count(byte) for byte in (b"\n", b"\r", b" ", b"\t"))
    characters = (len(body) - spaces) if complete else round(size * (len(body) - spaces) / len(body))
    last = body.rstrip()
    encoded = characters * 3 // 4 - ((len(last) - len(last.rstrip(b"="))) if complete else 0)
    count = (f"{plural(lines, 'line')} of {plural(width, 'character')}" if width else
             f"1 line of {'about ' if not complete else ''}{plural(characters, 'character')}")
    return (f"{BASE64_SHAPE}{_decoded_kind(body)}, {count}, {'' if complete else 'about '}{plural(encoded, 'byte')}"
            " encoded: no read "
            "decodes it -- a range of it is base64 characters, not the bytes they encode (4 characters for 3 bytes)")


def _decoded_kind(body: bytes) -> str:
    """``" encoding a PNG image"`` (any format :func:`~scratchfs.api.shape_binary.binary_kind` tells by its first
    bytes: ``" encoding gzip data"``, ``" encoding a PDF"``...), ``" encoding UTF-8 text"`` (no control character but
    line ends and tabs), ``" encoding binary data"``, from the first
    bytes that the first 1,024 characters of ``body`` (base64, standard or URL-safe alphabet, RFC 4648 sections 4-5)
    encode; ``""`` if they do not decode. A screenshot tool's PNG, a PDF, a Kubernetes secret's JSON: what the model
    would otherwise have to guess."""
    head = b"".join(body[:1400].split())[:1024]
    head = head[: len(head) - len(head) % 4]
    try:
        decoded = base64.b64decode(head.translate(_URL_SAFE), validate=True)
    except (binascii.Error, ValueError):
        return ""
    kind = binary_kind(decoded) or utf16_bare(decoded)
    if kind is not None:
        return " encoding " + _FORMAT_WORDS.get(kind, kind if kind.endswith("text") or kind in COMPRESSED else
                                                ("an " if kind[0] in "AEIOU" else "a ") + kind)
    try:
        text = decoded.decode("utf-8")
    except UnicodeDecodeError:  # (cut inside a character at the end: told by the bytes before it)
        text = decoded[:-3].decode("utf-8", "replace")
    return " encoding " + ("UTF-8 text" if text and not _CONTROL_RE.search(text) and "\ufffd" not in text else
                           "binary data")


_URL_SAFE = bytes.maketrans(b"-_", b"+/")
_FORMAT_WORDS = {"tar": "a tar archive", "ELF": "an ELF binary", **{name: f"{name} data" for name in COMPRESSED}}
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def _minified(sample: bytes, lines: int, complete: bool, scope: str) -> str | None:
    """The shape of minified JavaScript: the first 64 KiB of ``sample`` holding JavaScript's words and few spaces."""
    window = sample[:65536]
    if window.count(b" ") > _MOST_SPACE_SHARE * len(window) or len(_JS_WORDS_RE.findall(window)) < _LEAST_JS_WORDS:
        return None
    if not window.count(b";") + window.count(b",") >= 50 or b"{" not in window:
        return None
    body = sample if complete else sample[: sample.rfind(b"\n") + 1]
    longest = max((len(row) for row in body.split(b"\n")), default=0)
    cut = len(sample) - len(body) if len(sample) - len(body) > longest else 0
    said = f"at least {plural(cut, 'byte')}" if cut else plural(longest, "byte")
    return (scoped(f"{MINIFIED_SHAPE}, {plural(lines, 'line')}, longest {said}", scope) + ": lines too long for line= "
            "reads -- read windows around a name or a string with match= or pattern= (context= bytes a side)")
