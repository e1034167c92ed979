"""Hostile inputs and damaged blobs: the catalogs that ``tests/test_hostile.py`` asserts on and that
``reliability/run.py`` tallies.

Every case says what the right answer is: ``"ok"`` (works, with the right result) or ``"invalid"``
(:class:`~scratchfs.errors.InvalidArgument`); every damage must give :class:`~scratchfs.errors.CorruptBlob` naming the
handle, or (for a read that never touches the damage) the right bytes.
"""

from __future__ import annotations

import math
import os
import struct
from collections import Counter
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import zstandard

# -- ids and keys -------------------------------------------------------------------------------------------------

ID_CASES: list[tuple[str, object, bool]] = [
    ("empty", "", False),
    ("one letter", "a", True),
    ("upper case", "A", True),
    ("é composed (NFC)", "\u00e9", True),
    ("é decomposed (NFD)", "e\u0301", True),
    ("Kelvin sign (NFKC: K)", "\u212a", True),
    ("K", "K", True),
    ("fullwidth A (NFKC: A)", "\uff21", True),
    ("ligature ﬁ (NFKC: fi)", "\ufb01", True),
    ("fi", "fi", True),
    ("slash", "/", True),
    ("backslash", "\\", True),
    ("dot", ".", True),
    ("dot dot", "..", True),
    ("three dots", "...", True),
    ("dot-prefixed", ".hidden", True),
    ("parent path", "../../../../etc/passwd", True),
    ("windows parent path", "..\\..\\..\\x", True),
    ("absolute path", "/etc", True),
    ("drive path", "C:\\Windows", True),
    ("UNC path", "\\\\server\\share", True),
    ("tilde", "~", True),
    ("escape look-alike", "%2e%2e", True),
    ("hash look-alike", "%h" + "0" * 64, True),
    ("percent", "%", True),
    ("space", " ", True),
    ("trailing space and dot", "a. ", True),
    ("dash", "-rf", True),
    ("glob", "*?[]", True),
    ("reserved Windows name", "CON", True),
    ("line separator U+2028", "\u2028", True),
    ("right-to-left override", "\u202e", True),
    ("byte order mark", "\ufeff", True),
    ("zero width joiner", "\u200d", True),
    ("NUL inside", "a\x00b", False),
    ("NUL alone", "\x00", False),
    ("newline", "a\nb", False),
    ("tab", "\t", False),
    ("escape sequence", "\x1b[31m", False),
    ("DEL", "\x7f", False),
    ("C1 control (NEL)", "\x85", False),
    ("lone surrogate", "\udcff", False),
    ("surrogate pair as two code points", "\ud83d\ude00", False),
    ("256 ASCII bytes", "x" * 256, True),
    ("257 ASCII bytes", "x" * 257, False),
    ("64 emoji (256 bytes)", "\U0001f600" * 64, True),
    ("65 emoji (260 bytes)", "\U0001f600" * 65, False),
    ("bytes", b"run", False),
    ("None", None, False),
    ("int", 7, False),
    ("list", ["a"], False),
]
"""Run ids and agent ids (limit 256 UTF-8 bytes): ``(label, value, accepted)``."""

KEY_CASES: list[tuple[str, object, bool]] = [
    *[(label, value, ok) for label, value, ok in ID_CASES if "bytes)" not in label and "ASCII" not in label],
    ("512 ASCII bytes", "k" * 512, True),
    ("513 ASCII bytes", "k" * 513, False),
    ("128 emoji (512 bytes)", "\U0001f600" * 128, True),
    ("129 emoji (516 bytes)", "\U0001f600" * 129, False),
]
"""Scratchpad keys (limit 512 UTF-8 bytes)."""


# -- numbers ------------------------------------------------------------------------------------------------------

NAN, INF = math.nan, math.inf
SIZE = 100_000
"""Size of the content the number cases read (bytes)."""

NUMBER_CASES: dict[str, list[tuple[object, bool]]] = {
    "offset": [(0, True), (1, True), (SIZE // 2, True), (SIZE, True), (SIZE + 1, False), (-1, False),
               (10**30, False), (2**63, False), (-(2**63), False), (1.0, False), (0.5, False), (NAN, False),
               (INF, False), (-INF, False), ("0", False), (None, False), (True, False), (Decimal(1), False)],
    "length": [(0, False), (1, True), (4096, True), (65536, True), (65537, True), (10**30, True), (2**63, True),
               (None, True), (-1, False), (-(10**30), False), (1.5, False), (NAN, False), (INF, False),
               ("10", False), (False, False), (Fraction(1, 2), False)],
    "ttl": [(1, True), (1.5, True), (30 * 24 * 3600, True), (None, True), (0.5, False), (1e-3, False), (1e-7, False),
            (0, False), (-1, False), (30 * 24 * 3600 + 1, False), (1e308, False), (10**400, False), (-(10**400), False),
            (NAN, False), (INF, False), (-INF, False), ("60", False), (True, False), (Decimal(60), False),
            (complex(1, 0), False)],
    "context": [(0, True), (1, True), (8192, True), (8193, False), (-1, False), (10**30, False), (1.0, False),
                (NAN, False), (INF, False), ("8", False), (None, True), (True, False)],
    "max_matches": [(1, True), (2, True), (1000, True), (0, False), (-1, False), (1001, False), (10**30, False),
                    (2.0, False), (NAN, False), (INF, False), ("3", False), (None, True), (False, False)],
}
"""``read_handle`` and write arguments: ``(value, accepted)`` per argument."""


# -- damaged blobs ------------------------------------------------------------------------------------------------

def table_entries(raw: bytes) -> list[tuple[int, int, int]]:
    """The ``(compressed, decompressed, checksum)`` entries of a blob's seek table."""
    count = struct.unpack("<I", raw[-9:-5])[0]
    start = len(raw) - 9 - 12 * count
    return [struct.unpack_from("<III", raw, start + 12 * i) for i in range(count)]


def _set_entry(raw: bytes, index: int, field: int, value: int) -> bytes:
    count = struct.unpack("<I", raw[-9:-5])[0]
    at = len(raw) - 9 - 12 * count + 12 * index + 4 * field
    return raw[:at] + struct.pack("<I", value) + raw[at + 4 :]


def _flip(raw: bytes, at: int, bit: int) -> bytes:
    return raw[:at] + bytes([raw[at] ^ bit]) + raw[at + 1 :]


def _swap_compressed(raw: bytes) -> bytes:
    (c0, _, _), (c1, _, _) = table_entries(raw)[:2]
    return _set_entry(_set_entry(raw, 0, 0, c1), 1, 0, c0)


def _rewrite_frame0(raw: bytes, make_header: Callable[[int], bytes]) -> bytes:
    """Replace frame 0's header by ``make_header(decompressed size)``, keeping its blocks; fix the table's
    compressed size of frame 0 so that the sizes still add up (only the header lies)."""
    c0, d0, _ = table_entries(raw)[0]
    frame = raw[:c0]
    fhd = frame[4]
    fcs_size = (0, 2, 4, 8)[fhd >> 6] or (1 if fhd & 0x20 else 0)
    header_len = 5 + (0 if fhd & 0x20 else 1) + (0, 1, 2, 4)[fhd & 3] + fcs_size
    new = make_header(d0) + frame[header_len:]
    return _set_entry(new + raw[c0:], 0, 0, len(new))


def _header_huge_content(d0: int) -> bytes:
    # single segment, 8-byte frame content size of 2**40, checksum flag
    return zstandard.FRAME_HEADER + bytes([0xE4]) + struct.pack("<Q", 2**40)


def _header_huge_window(d0: int) -> bytes:
    # not single segment, window descriptor exponent 21 (window log 31: 2 GiB), 4-byte content size = the true size
    return zstandard.FRAME_HEADER + bytes([0x84, 21 << 3]) + struct.pack("<I", d0)


DAMAGES: dict[str, Callable[[bytes], bytes]] = {
    "bit flipped in frame 0's data": lambda raw: raw[:40] + bytes([raw[40] ^ 0x08]) + raw[41:],
    "bit flipped in a middle frame": lambda raw: _flip(raw, sum(e[0] for e in table_entries(raw)[:5]) + 20, 0x01),
    "bit flipped in frame 0's checksum": lambda raw: _flip(raw, table_entries(raw)[0][0] - 1, 0x80),
    "truncated by one byte": lambda raw: raw[:-1],
    "truncated to half": lambda raw: raw[: len(raw) // 2],
    "truncated to nothing": lambda raw: b"",
    "bytes appended": lambda raw: raw + b"appended junk",
    "a second seek table appended": lambda raw: raw + raw[len(raw) - 17 - 12 * len(table_entries(raw)) :],
    "seek table: compressed sizes swapped": _swap_compressed,
    "seek table: decompressed size changed": lambda raw: _set_entry(raw, 0, 1, table_entries(raw)[0][1] - 1),
    "seek table: checksum changed": lambda raw: _set_entry(raw, 2, 2, table_entries(raw)[2][2] ^ 1),
    "seek table: frame claims 4 GiB": lambda raw: _set_entry(raw, 0, 1, 0xFFFFFFFF),
    "seek table: frame count huge": lambda raw: raw[:-9] + struct.pack("<I", 0x7FFFFFF) + raw[-5:],
    "seek table: reserved bit set": lambda raw: raw[:-5] + bytes([raw[-5] | 0x04]) + raw[-4:],
    "seek table: magic number damaged": lambda raw: raw[:-1] + bytes([raw[-1] ^ 0xFF]),
    "frame header claims 1 TiB of content": lambda raw: _rewrite_frame0(raw, _header_huge_content),
    "frame header claims a 2 GiB window": lambda raw: _rewrite_frame0(raw, _header_huge_window),
}
"""Ways to damage a blob file (``bytes -> bytes``)."""


def damage_target() -> bytes:
    """100 KiB whose 25 frames of 4 KiB all compress to different sizes (so that swapping sizes is damage)."""
    import random

    return b"".join(random.Random(i).randbytes(150 * i).ljust(4096, b"%d" % (i % 10)) for i in range(25))


# -- the tally for reliability/run.py -------------------------------------------------------------------------------

def _answer(call: Callable[[], object]) -> str:
    from scratchfs import CorruptBlob, InvalidArgument, NotFound, ScratchError

    try:
        call()
    except InvalidArgument:
        return "InvalidArgument"
    except CorruptBlob:
        return "CorruptBlob"
    except NotFound:
        return "NotFound"
    except ScratchError as exc:
        return type(exc).__name__
    except Exception as exc:
        return f"UNTYPED {type(exc).__name__}"
    return "worked"


def tally(root: str) -> list[tuple[str, int, Counter, int]]:
    """Try every catalog case against a store at ``root``; return ``(what, tried, answers, wrong)`` per catalog,
    where ``wrong`` counts answers other than the right one (or wrong bytes)."""
    from scratchfs import ScratchStore
    from scratchfs.foundation.checks import path_part

    rows = []
    with ScratchStore(root, frame_bytes=4096, orphan_grace=0.0) as store:
        base = os.urandom(SIZE)
        for what, cases, make in (
            ("run ids", ID_CASES, lambda v: store.scope(v, "agent")),
            ("agent ids", ID_CASES, lambda v: store.scope("run", v)),
        ):
            answers, wrong = Counter(), 0
            for _label, value, ok in cases:
                answer = _answer(lambda v=value, m=make: m(v).spill(repr(v).encode(), source_tool="t"))
                answers[answer] += 1
                wrong += answer != ("worked" if ok else "InvalidArgument")
            rows.append((what, len(cases), answers, wrong))
        scope = store.scope("run", "agent")
        answers, wrong = Counter(), 0
        for _label, value, ok in KEY_CASES:
            def write_read(v=value):
                scope.scratch_write(v, repr(v).encode())
                if scope.scratch_read(v) != repr(v).encode():
                    raise AssertionError("wrong bytes")
            answer = _answer(write_read)
            answers[answer] += 1
            wrong += answer != ("worked" if ok else "InvalidArgument")
        rows.append(("keys", len(KEY_CASES), answers, wrong))
        root_real = os.path.realpath(store.root)
        escaped = sum(1 for d, dirs, files in os.walk(store.root) for n in dirs + files
                      if not os.path.realpath(os.path.join(d, n)).startswith(root_real + os.sep))
        run_dirs = len(os.listdir(store.root / "runs"))
        accepted_runs = {v for _, v, ok in ID_CASES if ok} | {"run"}
        rows.append(("paths outside the root / shared directories", len(accepted_runs),
                     Counter({"inside, one directory per id": run_dirs}),
                     escaped + abs(run_dirs - len({path_part(v) for v in accepted_runs}))))
        handle = scope.spill(base, source_tool="t").handle
        for name, cases in NUMBER_CASES.items():
            answers, wrong = Counter(), 0
            for value, ok in cases:
                answer, right = _number_answer(store, scope, handle, base, name, value)
                answers[answer] += 1
                wrong += (answer != ("worked" if ok else "InvalidArgument")) or not right
            rows.append((f"{name} values", len(cases), answers, wrong))
        answers, wrong = Counter(), 0
        data = damage_target()
        for name, damage in DAMAGES.items():
            victim = scope.spill(data, source_tool="t")
            other = scope.spill(data[::-1], source_tool="t")
            entry = store.index.lookup("run", "agent", "handle", victim.handle, store.now())
            path = Path(store.blobs.path("run", "agent", entry.blob))
            path.write_bytes(damage(path.read_bytes()))
            outcome = []
            for offset, length in ((0, 65536), (40_000, 100), (len(data) - 10, 10)):
                def read(o=offset, n=length, h=victim.handle, what=name):
                    got = scope.read_handle(h, o, n).data
                    if got != data[o : o + n]:
                        raise AssertionError(f"wrong bytes after damage {what!r}")
                outcome.append(_answer(read))
            outcome.append(_answer(lambda h=victim.handle: scope.read_handle(h, match=b"nowhere", max_matches=9)))
            answer = "CorruptBlob" if "CorruptBlob" in outcome else outcome[0]
            answers[answer] += 1
            other_ok = scope.read_handle(other.handle, 0, 65536).data == data[::-1][:65536]
            wrong += answer != "CorruptBlob" or any(o not in ("CorruptBlob", "worked") for o in outcome) or not other_ok
        rows.append(("damaged blobs", len(DAMAGES), answers, wrong))
    return rows


def _number_answer(store, scope, handle, base, name, value) -> tuple[str, bool]:
    """Answer to one number case and whether a result that came back was the right one."""
    right = [True]

    def call():
        if name == "offset":
            sl = scope.read_handle(handle, value, 100)
            right[0] = sl.data == base[value : value + 100]
        elif name == "length":
            sl = scope.read_handle(handle, 10, value)
            n = 4096 if value is None else min(value, 65536)
            right[0] = sl.data == base[10 : 10 + n]
        elif name == "ttl":
            entry = scope.scratch_write("ttl", b"v", ttl=value)
            want = store.default_ttl if value is None else value
            right[0] = math.isclose(entry.expires_at - entry.created_at, want, rel_tol=1e-9, abs_tol=1e-6)
        elif name == "context":
            m = scope.read_handle(handle, match=base[500:503], context=value, max_matches=1)
            w, c = m.windows[0], 200 if value is None else value
            right[0] = w.data == base[w.offset : w.match_offset + 3 + c] and w.offset == max(0, w.match_offset - c)
        else:
            m = scope.read_handle(handle, match=base[500:501], context=0, max_matches=value)
            hits = [h.offset for w in m.windows for h in w.matches]
            most = 20 if value is None else value
            right[0] = 1 <= len(hits) <= most and all(base[h : h + 1] == base[500:501] for h in hits)

    return _answer(call), right[0]
