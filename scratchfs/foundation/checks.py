"""Argument checks: run ids, agent ids, keys, handles, numbers, seconds and needles; the on-disk encoding of ids;
generation of handles and blob tokens.

Ids come from models and sandboxes, so nothing about them is trusted:

* A run id or agent id is text of 1 to :data:`MAX_ID_BYTES` UTF-8 bytes with no control characters (C0, DEL, C1).
  Anything else (``bytes``, ``None``, lone surrogates that are not UTF-8, NUL, newlines) raises
  :class:`~scratchfs.errors.InvalidArgument`. Ids are compared as given: no case folding and no Unicode
  normalization, so ``"é"`` (NFC) and ``"e\\u0301"`` (NFD) are two distinct ids.
* A key is the same kind of text, up to :data:`MAX_KEY_BYTES` UTF-8 bytes. Keys never become paths.
* :func:`path_part` maps an id to one directory name, injectively, using only ``[a-z0-9._%-]``: safe bytes pass
  through, every other byte becomes ``%xx`` (lower-case hex; ``%`` itself always starts an escape, so decoding is
  unambiguous), a leading ``.`` is escaped, and a name that would be longer than :data:`MAX_PART_CHARS` becomes
  ``%h`` + the SHA-256 of the id (``h`` is not a hex digit, so no escape looks like it). No id can produce ``.``,
  ``..`` or a separator, and names have no upper case, so no path leaves the root and two ids never share a
  directory, even on a case-insensitive file system.
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import math
import numbers
import operator
import os
import re
import secrets
from collections.abc import Iterable
from typing import TypeVar

from scratchfs.foundation.calls import Advice, Call
from scratchfs.foundation.errors import InvalidArgument
from scratchfs.foundation.limits import (
    LINE_WINDOW_BYTES,
    MAX_CONTEXT_BYTES,
    MAX_ID_BYTES,
    MAX_KEY_BYTES,
    MAX_NEEDLE_BYTES,
    MAX_TOOL_BYTES,
    MAX_TTL,
    MIN_TTL,
)
from scratchfs.foundation.text import shorten

_T = TypeVar("_T")

MAX_PART_CHARS = 120
"""Longest directory name :func:`path_part` writes before it switches to a hash."""

HANDLE_PREFIX = "h_"
HANDLE_RE = re.compile(r"h_[a-z2-7]{24}\Z")
TOKEN_RE = re.compile(r"[a-z2-7]{24}\Z")
_TOKEN_BYTES = 15  # 120 random bits -> 24 base32 characters
_BASE32 = "abcdefghijklmnopqrstuvwxyz234567"  # RFC 4648's alphabet, lower case
_BASE32_PAIRS = tuple(a + b for a in _BASE32 for b in _BASE32)  # the two digits of each 10-bit value
_PAIR_SHIFTS = tuple(range(110, -1, -10))  # the 12 pairs of a 120-bit number, most significant first
_POOL_TOKENS = 64  # tokens' random bits read at once: one getrandom() call for 64 tokens (32 spills), not one each
_pool: list[bytes] = []  # the random bits of the next tokens, 15 bytes each; list.pop() hands each to one thread only

_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_SAFE = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789_-.")
MAX_INT_BITS = 256
"""Largest integer argument :func:`check_int` takes, in bits, whatever its bounds (``repr`` fails past 4,300 digits)."""
def repeatable(text: str) -> bool:
    """Whether ``text`` (a key, a value taken for one) is short and printable enough for advice to repeat it in a
    call: at most 64 characters, every one printable (``str.isprintable``); else advice names it in words."""
    return len(text) <= 64 and text.isprintable()


def check_text(value: object, what: str, max_bytes: int, *, allow_empty: bool = False) -> str:
    """Return ``value`` if it is acceptable as an id, key or prefix named ``what``.

    Raises:
        InvalidArgument: not ``str``; empty (unless ``allow_empty``); longer than ``max_bytes`` UTF-8 bytes; not
            encodable as UTF-8 (lone surrogates); or containing a control character.
    """
    if not isinstance(value, str):
        raise InvalidArgument(f"{what} must be text, not {type(value).__name__}: {shorten(value)}")
    if not value and not allow_empty:
        raise InvalidArgument(f"{what} must not be empty")
    size = _utf8_bytes(value, what)
    if size > max_bytes:
        raise InvalidArgument(f"{what} is {size} UTF-8 bytes, longer than the limit of {max_bytes}: {shorten(value)}")
    if _CONTROL_RE.search(value):
        raise InvalidArgument(f"{what} contains a control character: {shorten(value)}")
    return value


def _utf8_bytes(value: str, what: str) -> int:
    """The UTF-8 length of ``value`` in bytes. Raises InvalidArgument: a lone surrogate."""
    try:
        return len(value.encode("utf-8"))
    except UnicodeEncodeError:
        raise InvalidArgument(f"{what} is not valid UTF-8 text: {shorten(value)}") from None


def check_run_id(value: object) -> str:
    """Validate a run id (see the module docstring). Raises :class:`InvalidArgument`."""
    return check_text(value, "run id", MAX_ID_BYTES)


def check_utf8(value: object, what: str) -> None:
    """Check that every text in ``value`` (a ``str``, or one inside a list, tuple or dict, keys too) is
    encodable as UTF-8; other values pass unchecked.

    Raises:
        InvalidArgument: a text holds a lone surrogate ("``what`` is not valid UTF-8 text").
    """
    if isinstance(value, str):
        _utf8_bytes(value, what)
    elif isinstance(value, (list, tuple)):
        for item in value:
            check_utf8(item, what)
    elif isinstance(value, dict):
        for k, item in value.items():
            check_utf8(k, what)
            check_utf8(item, what)


def check_agent_id(value: object) -> str:
    """Validate an agent id (see the module docstring). Raises :class:`InvalidArgument`."""
    return check_text(value, "agent id", MAX_ID_BYTES)


_KEYS_PASSED: set[str] = set()
"""Keys :func:`check_key` passed (a key's validity is its text's alone): at most :data:`_KEYS_KEPT`, then emptied."""
_KEYS_KEPT = 1024  # (at most 512 KiB of keys of MAX_KEY_BYTES)


def check_key(value: object) -> str:
    """Validate a scratchpad key (see the module docstring). Raises :class:`InvalidArgument` (an empty key's
    naming ``scratch_list()``, which lists the keys in use). A key passed before (a ``str`` itself, no subclass)
    is not checked again: its UTF-8 length and control-character scan were 0.4 us of T8's ~10 us ``scratch_read``."""
    if type(value) is str and value in _KEYS_PASSED:
        return value
    if value == "":
        raise InvalidArgument(empty_key("key is empty"))
    key = check_text(value, "key", MAX_KEY_BYTES)
    if type(key) is str:
        if len(_KEYS_PASSED) >= _KEYS_KEPT:
            _KEYS_PASSED.clear()
        _KEYS_PASSED.add(key)
    return key


def empty_key(head: str, what: str = "a key names a scratchpad value") -> Advice:
    """The words of an empty key's refusal after ``head`` (``"key is empty"``): ``what`` a key is, its bounds (1 to
    :data:`MAX_KEY_BYTES` bytes of UTF-8) and ``scratch_list()``, which names the keys in use. Never raises."""
    return Advice.of(f"{head}: {what} (1 to {MAX_KEY_BYTES} bytes of UTF-8, case-sensitive); the keys in use: ",
                     Call.of("scratch_list"))


def check_tool(value: object) -> str | None:
    """Validate a source tool name: ``None`` or text of at most :data:`MAX_TOOL_BYTES` UTF-8 bytes.

    Raises:
        InvalidArgument: as :func:`check_text`.
    """
    if value is None:
        return None
    return check_text(value, "source tool", MAX_TOOL_BYTES, allow_empty=True)


def clean_tool(value: str) -> str:
    """A tool name made acceptable as a source tool: control characters dropped, cut to :data:`MAX_TOOL_BYTES`
    UTF-8 bytes on a character boundary, lone surrogates replaced (for :meth:`~scratchfs.Scope.offload`, which
    must not fail on a strange tool name)."""
    text = _CONTROL_RE.sub("", value).encode("utf-8", "replace")[:MAX_TOOL_BYTES]
    return text.decode("utf-8", "ignore")


def check_handle(value: object) -> str:
    """Validate the shape of a handle (``h_`` + 24 base32 characters).

    Raises:
        InvalidArgument: not text, or not shaped like a handle. A well-shaped handle that names nothing is not an
            error here; the lookup raises :class:`~scratchfs.errors.NotFound`.
    """
    if not isinstance(value, str) or not HANDLE_RE.match(value):
        meant = handle_within(value)
        hint = f"; did you mean {meant!r} (the handle alone, as the stub gives it)?" if meant else ""
        raise InvalidArgument(f"not a handle (expected 'h_' and 24 letters a-z or digits 2-7): {shorten(value)}{hint}")
    return value


_HANDLE_WITHIN = re.compile(r"(?<![a-z0-9_])h_[a-z2-7]{24}(?![a-z0-9_])")


def handle_within(value: object) -> str | None:
    """The one handle a text that is not a handle holds, as a copy of one is apt to hold it -- with blank space or
    quotes around it, inside ``handle="h_..."``, or in capitals (handles are lower case) -- else ``None`` (no text,
    over 4 KiB, or none or several handles in it)."""
    if not isinstance(value, str) or len(value) > 4096:
        return None
    found = {m.group() for m in _HANDLE_WITHIN.finditer(value.lower())}
    return found.pop() if len(found) == 1 else None


VERSION_PATTERN = "^[a-z2-7]{8}$"
"""A scratchpad value's version (:func:`scratchfs.api.scope.value_version`): 8 base32 characters, lower case."""
_VERSION_RE = re.compile(VERSION_PATTERN)


def check_version(value: object) -> str:
    """Validate the shape of a scratchpad value's version (:data:`VERSION_PATTERN`).

    Raises:
        InvalidArgument: not text, or not 8 characters ``[a-z2-7]``. A well-shaped version of another value is not an
            error here; the read raises :class:`~scratchfs.errors.Changed`.
    """
    if not isinstance(value, str) or not _VERSION_RE.match(value):
        raise InvalidArgument(f"version must be the 8 letters and digits a scratch_read next_call gives: "
                              f"{shorten(value)}")
    return value


def new_token() -> str:
    """Return 24 characters of base32 (RFC 4648 alphabet, lower case: ``[a-z2-7]``) from 120 bits of
    :mod:`secrets` randomness (:func:`token_text`), read 64 tokens' worth at a time: one system call per 64
    tokens, not one each (a spill makes two); a ``fork()`` child drops what it inherited, so that no two
    processes hand out the same bits. Safe to call from any thread."""
    try:
        raw = _pool.pop()  # (atomic: two threads never get the same bytes)
    except IndexError:
        block = secrets.token_bytes(_TOKEN_BYTES * _POOL_TOKENS)
        raws = [block[i : i + _TOKEN_BYTES] for i in range(0, len(block), _TOKEN_BYTES)]
        raw = raws.pop()
        _pool.extend(raws)
    return token_text(raw)


def token_text(raw: bytes) -> str:
    """The 24 base32 characters (``[a-z2-7]``) of ``raw``, 15 bytes, most significant first, as the RFC 4648
    section 6 encoder writes them (lower case, no padding). Never raises (``raw`` of another length gives a text of
    24 characters that is no token's)."""
    # two digits a lookup (base64.b32encode is pure Python); a 15-byte raw as three 40-bit numbers, whose shifts stay
    # in one machine word, written out (1.22 -> 0.84 us a token, two tokens a spill)
    if len(raw) != _TOKEN_BYTES:
        bits = int.from_bytes(raw, "big")
        return "".join([_BASE32_PAIRS[(bits >> shift) & 1023] for shift in _PAIR_SHIFTS])
    p, a, b, c = _BASE32_PAIRS, int.from_bytes(raw[:5], "big"), int.from_bytes(raw[5:10], "big"), int.from_bytes(
        raw[10:], "big")
    return "".join((p[a >> 30], p[a >> 20 & 1023], p[a >> 10 & 1023], p[a & 1023], p[b >> 30], p[b >> 20 & 1023],
                    p[b >> 10 & 1023], p[b & 1023], p[c >> 30], p[c >> 20 & 1023], p[c >> 10 & 1023], p[c & 1023]))


if hasattr(os, "register_at_fork"):  # pragma: no branch - POSIX
    os.register_at_fork(after_in_child=_pool.clear)  # a child's tokens are its own, never its parent's next ones


def new_handle() -> str:
    """Return a fresh, unguessable handle: ``h_`` + :func:`new_token`."""
    return HANDLE_PREFIX + new_token()


@functools.lru_cache(maxsize=4096)
def path_part(value: str) -> str:
    """Encode an already validated id as one directory name (see the module docstring); injective."""
    raw = value.encode("utf-8")
    out = []
    for i, byte in enumerate(raw):
        if byte in _SAFE and not (i == 0 and byte == 0x2E):
            out.append(chr(byte))
        else:
            out.append(f"%{byte:02x}")
    name = "".join(out)
    if len(name) > MAX_PART_CHARS:
        name = "%h" + hashlib.sha256(raw).hexdigest()
    return name


def check_int(value: object, what: str, low: int, high: int | None = None) -> int:
    """``value`` as an ``int`` in ``[low, high]`` (``high`` ``None``: no upper bound); ``operator.index`` accepted.

    Raises:
        InvalidArgument: not an integer (bools refused) or out of range, or of more than :data:`MAX_INT_BITS` bits
            whatever the bounds (no size or count comes near, and messages print it); the message names ``what``
            and the value.
    """
    if isinstance(value, bool):
        raise InvalidArgument(f"{what} must be an integer, not a bool: {shorten(value)}")
    try:
        number = operator.index(value)
    except TypeError:
        raise InvalidArgument(f"{what} must be an integer, not {type(value).__name__}: {shorten(value)}") from None
    if number.bit_length() > MAX_INT_BITS:
        raise InvalidArgument(f"{what} is an integer of {number.bit_length()} bits, out of range")
    if number < low or (high is not None and number > high):
        bound = f"between {low} and {high}" if high is not None else f"at least {low}"
        raise InvalidArgument(f"{what} must be {bound}: {shorten(number)}")
    return number


def integral(value: _T) -> _T | int:
    """``value``, a float that is a whole number given as the int it is (``3000.0`` -> ``3000``: a JSON client may
    send one for an integer); anything else as it is (``1.5``, ``inf``, ``nan``, an int, a bool, text). Raises
    nothing."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


CONTEXT_FORMS = (f'an integer from 0 to {MAX_CONTEXT_BYTES} (bytes shown on each side of a match) or "line" (the '
                 f'line holding each match, at most {LINE_WINDOW_BYTES} bytes on each side of it)')
"""The accepted forms of a search's ``context``, as its errors name them."""


def check_context(value: object) -> int | str:
    """A search's ``context``: an ``int`` in ``[0, MAX_CONTEXT_BYTES]`` (bytes on each side of a match), or the text
    ``"line"`` (each window the whole line holding its matches, bounded by ``LINE_WINDOW_BYTES`` on each side).

    Raises:
        InvalidArgument: anything else (another text, a bool, a float, a negative or too large integer), one message
            naming the accepted forms (:data:`CONTEXT_FORMS`) and the value.
    """
    if value == "line" and isinstance(value, str):
        return "line"
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 0 <= value <= MAX_CONTEXT_BYTES:
        raise InvalidArgument(f"context must be {CONTEXT_FORMS}: {shorten(value)}")
    return int(value)


def check_line(value: object) -> int:
    """A line read's ``line``: a nonzero ``int``, 1-based from the start (``1``: the first line) or, negative, from
    the end as Python indexes a list (``-1``: the last line).

    Raises:
        InvalidArgument: not an integer (bools refused), of more than :data:`MAX_INT_BITS` bits, or 0.
    """
    number = check_int(value, "line", -(1 << MAX_INT_BITS) + 1)
    if not number:
        raise InvalidArgument("line must be a line number from 1, or negative to count from the end (-1: the last "
                              "line, as tail -n 1): 0")
    return number


def check_seconds(value: object, what: str, maximum: float, zero_ok: bool = False) -> float:
    """A number of seconds in ``(0, maximum]`` (``[0, maximum]`` when ``zero_ok``), as a float.

    Raises:
        InvalidArgument: not a real number (bools refused), NaN, infinite, or out of range; huge integers included.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidArgument(f"{what} must be a number of seconds, not {type(value).__name__}: {shorten(value)}")
    # false for NaN; compares huge integers exactly (math.isfinite would overflow)
    if not ((value >= 0) if zero_ok else (value > 0)) or not value <= maximum:
        low = "non-negative" if zero_ok else "positive"
        raise InvalidArgument(f"{what} must be {low}, finite seconds of at most {maximum:.0f}: {shorten(value)}")
    return float(value)


_CLOCK_FIRST = -62_135_596_800.0
"""0001-01-01T00:00:00Z in epoch seconds: the first clock reading a date can be made of."""
_CLOCK_LAST = 253_402_300_799.0 - MAX_TTL
"""9999-12-31T23:59:59Z less the longest TTL, epoch seconds: the last clock reading whose entries' expiry times a
date can be made of (past 2**53 s, ``now + ttl`` also rounds to ``now``: an entry born expired)."""


def clock_reading(value: object) -> float:
    """A reading of a store's clock (the ``clock`` setting) as a float: finite epoch seconds.

    Raises:
        InvalidArgument: anything else -- NaN, an infinity, a number past a float's range, a bool, text, ``None`` --
            naming it: never a ValueError, a SQL error or a row whose times no comparison can order (a NaN time is
            stored as NULL; an infinite one makes an entry that never expires); and a finite reading before year 1
            or after year 9999 less the longest TTL (an entry written at 1e300 was born expired; one expired past
            year 9999 failed its "expired at <date>" message with a bare ValueError).
    """
    if type(value) is float and _CLOCK_FIRST <= value <= _CLOCK_LAST:  # (time.time's: no ABC check on every read)
        return value
    try:
        seconds = float(value) if isinstance(value, numbers.Real) and not isinstance(value, bool) else None
    except OverflowError:  # an int past a float's range
        seconds = None
    if seconds is None or not math.isfinite(seconds):
        raise InvalidArgument(f"the store's clock must return finite epoch seconds, not {type(value).__name__}: "
                              f"{shorten(value)}")
    if not _CLOCK_FIRST <= seconds <= _CLOCK_LAST:
        raise InvalidArgument(f"the store's clock must return epoch seconds between year 1 and year 9999 (less "
                              f"{MAX_TTL:.0f} s, the longest TTL), not {shorten(value)}: fix the clock setting")
    return seconds


def check_ttl(ttl: object, default: float, what: str = "ttl") -> float:
    """``default`` for ``None``, else a TTL in ``[MIN_TTL, MAX_TTL]`` seconds (1 second to 30 days), as a float;
    ``what`` names it in the message.

    Raises:
        InvalidArgument: not a real number (bools refused), NaN, infinite, below 1 second (0 and negatives
            included) or above 30 days.
    """
    if ttl is None:
        return default
    bounds = f"{what} must be finite seconds between {MIN_TTL:g} and {MAX_TTL:.0f}"
    try:
        seconds = check_seconds(ttl, what, MAX_TTL)
    except InvalidArgument:
        if isinstance(ttl, bool) or not isinstance(ttl, (int, float)):
            raise
        raise InvalidArgument(f"{bounds}: {shorten(ttl)}") from None  # one wording of the bounds, not two chained
    if seconds < MIN_TTL:
        raise InvalidArgument(f"{bounds}: {shorten(ttl)}")
    return seconds


def closest(value: str, known: Iterable[str]) -> str | None:
    """The name of ``known`` that ``value`` most likely meant: the same but for case, else the closest spelling
    (:func:`difflib.get_close_matches`, ratio 0.7 or more: ``spill_treshold_bytes`` -> ``spill_threshold_bytes``),
    else ``None``."""
    folded = value.casefold()
    same = sorted(k for k in known if k.casefold() == folded)
    if same:
        return same[0]
    if len(value) > 64:  # no name is that long: no near miss (and difflib stays cheap)
        return None
    by_fold = {k.casefold(): k for k in sorted(known)}
    found = difflib.get_close_matches(folded, list(by_fold), n=1, cutoff=0.7)
    return by_fold[found[0]] if found else None


def check_names(given: Iterable[object], known: Iterable[str], what: str) -> None:
    """Refuse names in ``given`` that are not in ``known`` (``what`` names them: ``"store setting"``), each with the
    closest known one: ``unknown store setting 'spill_treshold_bytes' (did you mean 'spill_threshold_bytes'?)``;
    the known names are listed when none is close.

    Raises:
        InvalidArgument: a name of ``given`` is not in ``known``.
    """
    known = sorted(known)
    unknown = sorted({str(name) for name in given} - set(known))
    if not unknown:
        return
    hints = [closest(name, known) for name in unknown]
    named = ", ".join(shorten(name) + (f" (did you mean {hint!r}?)" if hint else "")
                      for name, hint in zip(unknown, hints, strict=True))
    listed = "" if all(hints) else f"; the {what}s are {', '.join(known)}"
    raise InvalidArgument(f"unknown {what}{'s' if len(unknown) > 1 else ''} {named}{listed}")


def check_choice(value: object, what: str, choices: tuple[str, ...]) -> str:
    """``value`` if it is one of ``choices``. Raises :class:`InvalidArgument`."""
    if value not in choices:
        raise InvalidArgument(f"{what} must be one of {', '.join(choices)}: {shorten(value)}")
    return str(value)


def check_flag(value: object, what: str) -> bool:
    """``value`` if it is ``True`` or ``False``. Raises :class:`InvalidArgument`."""
    if not isinstance(value, bool):
        raise InvalidArgument(f"{what} must be True or False: {shorten(value)}")
    return value


def check_needle(match: object) -> bytes:
    """A substring to search for, as bytes (text is UTF-8): 1 to :data:`MAX_NEEDLE_BYTES` bytes.

    Raises:
        InvalidArgument: not text or bytes, not valid UTF-8 text, empty or too long.
    """
    if isinstance(match, str):
        try:
            needle = match.encode("utf-8")
        except UnicodeEncodeError:
            raise InvalidArgument(f"match is not valid UTF-8 text: {shorten(match)}") from None
    elif isinstance(match, (bytes, bytearray, memoryview)):
        try:
            needle = bytes(match)
        except ValueError:  # a released memoryview
            raise InvalidArgument("match is a released memoryview: its bytes are gone") from None
    else:
        raise InvalidArgument(f"match must be text or bytes, not {type(match).__name__}")
    if not needle:
        raise InvalidArgument("match must not be empty")
    if len(needle) > MAX_NEEDLE_BYTES:
        raise InvalidArgument(f"match is {len(needle)} bytes, longer than the limit of {MAX_NEEDLE_BYTES}")
    return needle


__all__ = [
    "CONTEXT_FORMS",
    "HANDLE_PREFIX",
    "HANDLE_RE",
    "MAX_INT_BITS",
    "TOKEN_RE",
    "VERSION_PATTERN",
    "check_agent_id",
    "check_choice",
    "check_context",
    "check_flag",
    "check_handle",
    "check_int",
    "check_key",
    "check_line",
    "check_names",
    "check_needle",
    "check_run_id",
    "check_seconds",
    "check_text",
    "check_tool",
    "check_ttl",
    "check_utf8",
    "check_version",
    "clean_tool",
    "clock_reading",
    "closest",
    "empty_key",
    "integral",
    "new_handle",
    "new_token",
    "path_part",
    "repeatable",
    "shorten",  # (foundation.text's, which local_blobs names through checks as ids)
    "token_text",
]
