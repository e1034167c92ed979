"""Binding a blob to its entry: the binding frame that says what a blob belongs to, and its check.

A blob file could be copied over another (by a faulty tool, a restore, an attacker with write access to the root):
both are valid seekable blobs, and the sizes may even agree. So each blob carries, after its content frames, one
*binding frame* -- a Zstandard skippable frame (RFC 8878 section 3.1.2; magic :data:`BINDING_MAGIC`) listed in the
seek table as a frame of 0 decompressed bytes (:mod:`scratchfs.engine.seekable`) -- holding a :class:`Binding`:
the entry's blob token, scope, kind, key, source tool, TTL, creation time, size, frame count and a content checksum
(:func:`table_digest`). Readers check it from the bytes they read anyway (the tail of the file, with the seek table)
and cache it with the seek table: a blob whose binding names another token, or whose checksum does not match its
frames, is refused (:class:`FormatError`, which the store reports as ``CorruptBlob``). The binding holds everything
an index row needs that the content cannot tell, so a lost index can be rebuilt from the blobs
(``scratchfs fsck --rebuild-index``).

Payload: the line ``scratchfs-binding/1`` and a JSON object (UTF-8, keys sorted).
"""

from __future__ import annotations

import hashlib
import json
import math
import struct
from array import array
from dataclasses import MISSING, dataclass, fields
from json.encoder import encode_basestring

from scratchfs.foundation.text import shorten

__all__ = [
    "BINDING_MAGIC",
    "BOUND_STALE",
    "EMPTY_CHECKSUM",
    "MAX_BINDING_BYTES",
    "UNBOUND",
    "Binding",
    "FormatError",
    "UnboundBlob",
    "binding_limit",
    "binding_payload",
    "encode_binding_frame",
    "find_binding",
    "table_digest",
]

BINDING_MAGIC = 0x184D2A5C
"""Magic number of the binding frame (a skippable frame; RFC 8878 reserves 0x184D2A50 to 0x184D2A5F; the seek table
uses 0x184D2A5E)."""
MAX_BINDING_BYTES = 64 * 1024
"""Largest binding frame payload the writer makes or the reader accepts, in bytes."""
EMPTY_CHECKSUM = 0x51D8E999
"""Low 32 bits of XXH64 of no bytes (seed 0): the seek table checksum of the 0-byte binding frame."""
_HEADER = struct.Struct("<II")
_PREFIX = b"scratchfs-binding/1\n"
_ENCODER = json.JSONEncoder(ensure_ascii=False, check_circular=False)  # one for every binding: json.dumps with
# options builds an encoder per call; the payload's keys are written in sorted order, so no sorting is needed


def binding_payload(token: str, run_id: str, agent_id: str, kind: str, key: str, tool: str | None, ttl: float,
                    created_at: float, size: int = 0, frames: int = 0, content: str = "") -> bytes:
    """:meth:`Binding.encode` of the binding of these fields (the writer's, without making the :class:`Binding`): the
    ``scratchfs-binding/1`` line and the fields' JSON, keys in sorted order, as :data:`_ENCODER` writes a dict."""
    v = _json_value
    return _PREFIX + (
        f'{{"agent_id": {v(agent_id)}, "content": {v(content)}, "created_at": {v(created_at)}, "frames": {v(frames)}, '
        f'"key": {v(key)}, "kind": {v(kind)}, "run_id": {v(run_id)}, "size": {v(size)}, "token": {v(token)}, '
        f'"tool": {v(tool)}, "ttl": {v(ttl)}}}'
    ).encode()


def _json_value(value: object) -> str:
    """``value`` as :data:`_ENCODER` writes it in a dict: a string, an int or a float by the encoder's own rules
    (``NaN``/``Infinity`` included), without building the encoder's closures per call; anything else by it."""
    kind = type(value)
    if kind is str:
        return encode_basestring(value)
    if kind is float:
        return repr(value) if math.isfinite(value) else _ENCODER.encode(value)
    if kind is int:
        return repr(value)
    return "null" if value is None else _ENCODER.encode(value)


class FormatError(ValueError):
    """The bytes are not a valid seekable blob as scratchfs writes them; the message says what is wrong."""


UNBOUND = "the blob carries no binding frame: written before the binding frame; `scratchfs fsck --repair` binds it"
"""What a read or ``fsck`` says of a blob without a binding frame (the first scratchfs, 407dd2b, wrote such blobs:
``fsck --repair`` binds each that verifies against its index row, :mod:`scratchfs.engine.rebind`)."""


BOUND_STALE = ("bound to this entry, but its index row gives the file's size from before the binding (a repair was "
               "interrupted); `scratchfs fsck --repair` updates the row")
"""What ``fsck`` says of a blob a repair bound (:mod:`scratchfs.engine.rebind`) whose row was not updated yet."""


class UnboundBlob(FormatError):
    """The blob has no binding frame (:data:`UNBOUND`): written before there was one, or stripped of it."""


def table_digest(compressed, decompressed, checksums) -> str:
    """A content checksum of a blob: BLAKE2b-128 (hex) over its content frames' seek table entries (compressed size,
    decompressed size and the XXH64-low-32 checksum of each frame, as little-endian u32 triples). The entries pin
    every frame's bytes (zstd verifies each frame against its checksum on every decode), so this digest binds a
    binding frame to its content without reading the content."""
    entries = array("I")
    for c, d, x in zip(compressed, decompressed, checksums, strict=True):
        entries.extend((c, d, x))
    if struct.pack("=I", 1) != struct.pack("<I", 1):  # pragma: no cover - big-endian hosts
        entries.byteswap()
    return hashlib.blake2b(entries.tobytes(), digest_size=16).hexdigest()


def encode_binding_frame(payload: bytes) -> bytes:
    """A binding frame: skippable frame header (:data:`BINDING_MAGIC`, payload length, u32 LE each) and ``payload``.

    Raises:
        ValueError: ``payload`` is longer than :data:`MAX_BINDING_BYTES`.
    """
    if len(payload) > MAX_BINDING_BYTES:
        raise ValueError(f"binding of {len(payload)} bytes is over the limit of {MAX_BINDING_BYTES}")
    return _HEADER.pack(BINDING_MAGIC, len(payload)) + payload


def binding_limit() -> int:
    """Largest binding frame, header included, in bytes."""
    return MAX_BINDING_BYTES + _HEADER.size


def find_binding(tail: bytes, table_len: int, compressed, decompressed, checksums) -> bytes | None:
    """The binding frame's payload if the last listed frame of a seek table is one (0 bytes decompressed, after at
    least one content frame, starting with :data:`BINDING_MAGIC`), else ``None``.

    Args:
        tail: the file's last bytes: the seek table frame (``table_len`` bytes) and the frame before it.
        compressed, decompressed, checksums: the seek table's columns, every listed frame included.

    Raises:
        FormatError: ``tail`` does not hold the frame, or its header and seek table entry disagree.
    """
    if len(compressed) < 2 or decompressed[-1] != 0 or not _HEADER.size <= compressed[-1] <= binding_limit():
        return None
    size = compressed[-1]
    if len(tail) < table_len + size:
        raise FormatError("the binding frame was not read (tail too short)")
    start = len(tail) - table_len - size
    magic, length = _HEADER.unpack_from(tail, start)
    if magic != BINDING_MAGIC:
        return None
    if length != size - _HEADER.size or checksums[-1] != EMPTY_CHECKSUM:
        raise FormatError("the binding frame's header or seek table entry is damaged")
    return bytes(tail[start + _HEADER.size : start + size])


@dataclass(frozen=True, slots=True)
class Binding:
    """What a blob belongs to, as written in its binding frame.

    Attributes:
        token: the blob token (its file name without ``.zst``).
        run_id, agent_id: the entry's scope.
        kind: ``"handle"`` or ``"scratch"``.
        key: the handle or scratchpad key.
        tool: the source tool, or ``None``.
        ttl: the entry's time to live, in seconds.
        created_at: when the write started, epoch seconds (the store's clock).
        size: content bytes (uncompressed).
        frames: number of content frames.
        content: :func:`table_digest` of the content frames.
    """

    token: str
    run_id: str
    agent_id: str
    kind: str
    key: str
    tool: str | None
    ttl: float
    created_at: float
    size: int = 0
    frames: int = 0
    content: str = ""

    def encode(self) -> bytes:
        """The binding frame payload (``scratchfs-binding/1`` line and sorted JSON)."""
        return binding_payload(self.token, self.run_id, self.agent_id, self.kind, self.key, self.tool, self.ttl,
                               self.created_at, self.size, self.frames, self.content)

    @classmethod
    def decode(cls, payload: bytes) -> Binding:
        """Parse a binding frame payload.

        Raises:
            FormatError: not a binding this version writes (prefix, JSON, a field missing or of the wrong type).
        """
        if not payload.startswith(_PREFIX):
            raise FormatError("the binding frame is not a scratchfs binding")
        try:
            given = json.loads(payload[len(_PREFIX):].decode("utf-8"))
        except ValueError as exc:  # (UnicodeDecodeError and JSONDecodeError: where and why, in the codec's words)
            raise FormatError(f"the binding frame does not parse: {exc}") from None
        if not isinstance(given, dict):
            raise FormatError("the binding frame does not parse: its JSON is not an object")
        unknown, missing = sorted(set(given) - _FIELDS), sorted(_REQUIRED - set(given))
        if unknown or missing:  # (a flipped byte in a name: said in the format's words, not a constructor's)
            said = [f"an unknown field {shorten(unknown[0])}"] if unknown else []
            raise FormatError("the binding frame does not parse: it has "
                              + " and ".join(said + ([f"no field {missing[0]!r}"] if missing else [])))
        binding = cls(**given)
        strings = (binding.token, binding.run_id, binding.agent_id, binding.kind, binding.key, binding.content)
        numbers = (binding.ttl, binding.created_at)
        if (not all(isinstance(v, str) for v in strings) or not isinstance(binding.tool, (str, type(None)))
                or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                           for v in numbers)
                or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0
                           for v in (binding.size, binding.frames))):
            raise FormatError("the binding frame has a field of the wrong type")
        return binding

    @classmethod
    def of_table(cls, table) -> Binding:
        """The binding of a parsed seek table (:class:`scratchfs.engine.seekable.SeekTable`), checked against the
        table: its size, frame count and content checksum must match the frames.

        Raises:
            UnboundBlob: the blob has no binding frame. FormatError: it does not match the blob's frames.
        """
        if table.binding is None:
            raise UnboundBlob(UNBOUND)
        binding = cls.decode(table.binding)
        c, d = table.c_offsets, table.d_offsets
        digest = table_digest([c[i + 1] - c[i] for i in range(table.frames)],
                              [d[i + 1] - d[i] for i in range(table.frames)], table.checksums)
        if (binding.size, binding.frames, binding.content) != (table.size, table.frames, digest):
            raise FormatError("the binding frame does not match the blob's frames (a binding moved between blobs)")
        return binding

    def mismatch(self, token: str, run_id: str | None = None, agent_id: str | None = None, kind: str | None = None,
                 key: str | None = None) -> str | None:
        """``None`` if this binding names the given entry (fields given as ``None`` are not compared), else what
        differs."""
        expected = {"token": token, "run_id": run_id, "agent_id": agent_id, "kind": kind, "key": key}
        for name, value in expected.items():
            if value is not None and getattr(self, name) != value:
                return f"the blob belongs to another entry (its {name} is {getattr(self, name)!r}, not {value!r})"
        return None


_FIELDS = frozenset(f.name for f in fields(Binding))
_REQUIRED = frozenset(f.name for f in fields(Binding) if f.default is MISSING)
