"""The lines of a spill of UTF-16 text, counted as it streams into the blob store: its newline code units (``0a 00``
in UTF-16LE, ``00 0a`` in UTF-16BE) at even offsets, as Python's decode splits its lines -- not its ``0a`` bytes
(``上`` is ``0a 4e``), which the engine counts per frame for every content. The stub's ``lines`` then agree with the
line reads' ``total_lines`` (:mod:`scratchfs.api.wide_index`) at any size, with no read of the blob back (a spill of
64 MiB of UTF-16 text read itself back whole to count them, and one past 64 MiB counted its ``0a`` bytes).

The encoding is told by the content's first bytes as its shape tells it (:mod:`scratchfs.api.shape_binary`): its
byte order mark (``FF FE`` / ``FE FF``; ``FF FE 00 00`` is UTF-32LE's) or, with none, a head that reads as mostly
ASCII text in UTF-16 (:func:`~scratchfs.api.shape_binary.utf16_bare`). Any other content pays one look at its
first two bytes and, if its head holds a NUL byte in its first 4 KiB, that test of its head; nothing per chunk.

Source: RFC 2781 section 3.2 (a byte order mark at the start of the text names its byte order).
"""

from __future__ import annotations

__all__ = ["NEWLINE_UNITS", "WideCount", "newline_units"]

_STEP = 1 << 20
"""Bytes of a chunk decoded at a time: a chunk of 1 GiB is never decoded whole (at most 4 MiB of text)."""

_IS = {byte: bytes(int(b == byte) for b in range(256)) for byte in (0x00, 0x0A)}
"""Tables that turn one byte value into ``01`` and every other into ``00`` (a bit per code unit, ANDed)."""

NEWLINE_UNITS = {"utf-16le": b"\n\x00", "utf-16be": b"\x00\n"}
"""The bytes of the newline code unit (U+000A) of each UTF-16 byte order."""
_CODECS = {"utf-16le": "utf-16-le", "utf-16be": "utf-16-be"}

_PROBE = 4096  # head bytes in which a NUL makes :func:`utf16_bare` worth asking (it needs nine in ten of one parity)


class WideCount:
    """Newline code units of UTF-16 text in ``encoding`` (``"utf-16le"`` or ``"utf-16be"``), fed its bytes in order
    in pieces of any length (an odd byte carried to the next piece): :meth:`lines` gives its lines as its decode
    has them."""

    __slots__ = ("_carry", "_last", "_newline", "encoding", "newlines")

    def __init__(self, encoding: str) -> None:
        self.encoding = encoding
        self._newline = NEWLINE_UNITS[encoding]
        self.newlines = 0
        self._carry = b""  # an odd byte at a piece's end: the first half of the next code unit
        self._last = b""  # the content's last two bytes (does it end with a newline code unit?)

    @classmethod
    def start(cls, head: bytes) -> WideCount | None:
        """A count for content whose first bytes are ``head`` (the shape's sample, or the whole content if shorter)
        if they say UTF-16 text, else ``None``. Never raises."""
        if head[:2] == b"\xff\xfe" and head[:4] != b"\xff\xfe\x00\x00":
            return cls("utf-16le")
        if head[:2] == b"\xfe\xff":
            return cls("utf-16be")
        if b"\x00" not in head[:_PROBE]:
            return None
        from scratchfs.api.shape_binary import utf16_bare  # (loaded for content holding NUL bytes only)

        bare = utf16_bare(head)
        return None if bare is None else cls("utf-16le" if bare == "UTF-16LE text" else "utf-16be")

    @classmethod
    def told(cls, head: bytes, rest) -> WideCount | None:
        """:meth:`start`, given ``head`` and ``rest`` (the bytes that followed it so far) if it counts. Never
        raises."""
        count = cls.start(head)
        if count is not None:
            count.feed(head)
            count.feed(rest)
        return count

    def feed(self, data) -> None:
        """Count the newline code units of the next ``data`` (any bytes-like object) at even content offsets."""
        view = memoryview(data).cast("B")
        if not len(view):
            return
        self._last = (self._last + bytes(view[-2:]))[-2:]
        if self._carry:
            self._count(self._carry + bytes(view[:1]))
            view = view[1:]
        even = len(view) // 2 * 2
        for at in range(0, even, _STEP):
            self._count(view[at : min(at + _STEP, even)])
        self._carry = bytes(view[even:])

    def _count(self, piece) -> None:
        self.newlines += newline_units(piece, self.encoding)

    def lines(self, size: int) -> int:
        """The lines of the ``size`` bytes fed: the newline code units, plus one for text after the last."""
        ends = size % 2 == 0 and self._last == self._newline
        return self.newlines + (size > 0 and not ends)


def newline_units(piece, encoding: str) -> int:
    """The newline code units of ``piece`` (a bytes-like object of even length that starts at an even offset of the
    content) of UTF-16 text in ``encoding`` (``"utf-16le"`` or ``"utf-16be"``), never raising: decoded and counted at
    C speed (0.6 ns a byte; ``array("H").count`` makes an int of each code unit, 15 ns a byte), or, where a lone
    surrogate or a pair split by the piece's end stops the decode, by bit masks of the two bytes' places (4 ns a
    byte). Source: RFC 2781 (no half of a surrogate pair is the code unit 0x000A)."""
    try:
        return str(piece, _CODECS[encoding]).count("\n")
    except UnicodeDecodeError:
        piece, newline = bytes(piece), NEWLINE_UNITS[encoding]
        first, second = (piece[0::2].translate(_IS[newline[0]]), piece[1::2].translate(_IS[newline[1]]))
        return (int.from_bytes(first, "little") & int.from_bytes(second, "little")).bit_count()
