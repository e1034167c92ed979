"""An uncompressed tar's members read from its 512-byte headers (POSIX.1-2017 pax/ustar, GNU long names, pax
records) as the stdlib's ``tarfile`` reads them, in time linear in the bytes read and bounded on hostile input
(:class:`TarWalk`): for a stub's first members (:func:`~scratchfs.api.shape_binary.tar_members`), a tar told by its
first header (:func:`~scratchfs.api.shape_binary.binary_kind`) and a whole archive's listing
(:mod:`scratchfs.api.archive`). Offsets and sizes are bytes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import NamedTuple

__all__ = ["TAR_BLOCK", "TarMember", "TarWalk", "tar_checksum_ok"]

TAR_BLOCK = 512
"""Bytes of a tar header, and the unit a member's data is padded to."""


class TarMember(NamedTuple):
    """A tar member: ``name``, ``size`` (bytes of its data), ``offset`` (byte offset of its data in the archive:
    ``offset=``/``length=`` read it), ``kind`` (``"file"``, ``"dir"``, ``"link"`` or ``"other"``)."""

    name: str
    size: int
    offset: int
    kind: str


class TarWalk:
    """The members of an uncompressed tar read through ``read(offset, length) -> bytes`` from the header at byte
    ``start`` on: iterating yields ``(TarMember, offset of its first header)`` -- where a pax ``x`` header or a GNU
    long name before it starts, so a listing resumed there reads it whole --, read from their 512-byte headers
    (POSIX.1-2017 pax/ustar, GNU long names ``L``/``K``, pax ``x``/``g`` records) as the stdlib's ``tarfile`` reads
    them, one read a header and one a meta header's records, skipping each member's data unread. A header that is
    not one -- its checksum wrong, a size not octal or negative, a pax record cut or malformed (or past
    :data:`_MOST_PAX_RECORDS` in all), a long name or pax header over ``meta_limit`` bytes or cut by the content's
    end, meta headers over :data:`_MOST_META_BYTES` before one member -- ends the walk, and so does a sparse member
    (its data is not its bytes); ``at`` is then the offset of the
    header it stopped at and ``ended`` says why (``"end"``: the content or its zero blocks ended, ``"header"``: a
    header that is not one, ``"sparse"``). Names are UTF-8 (an invalid byte as U+FFFD). Never raises (but what
    ``read`` raises). Global pax records (``g``) apply to the members after them within one walk.

    Source: ``tarfile`` 3.11 read pax records with a backtracking regex (CVE-2024-6232: 64 KiB of ``4 x `` records
    took 1.6 s, 512 KiB did not end in 300 s), raised ``OverflowError`` for a base-256 size past 2**63 and listed
    negative sizes; this reader does neither."""

    def __init__(self, read: Callable[[int, int], bytes], start: int = 0, meta_limit: int = 1 << 20) -> None:
        self.read, self.at, self.meta_limit, self.ended = read, start, meta_limit, ""

    def __iter__(self) -> Iterator[tuple[TarMember, int]]:
        read = self.read
        shared: dict[bytes, bytes] = {}  # pax ``g`` records: they apply to every member after them
        pending: dict[bytes, bytes] = {}  # pax ``x`` records and GNU long names: they apply to the next member
        pax_left, first = _MOST_PAX_RECORDS, self.at
        while True:
            at = self.at
            if at - first > _MOST_META_BYTES:  # (meta headers with no member after them: a hostile tar's)
                self.at, self.ended = first, "header"
                return
            header = read(at, TAR_BLOCK)
            size = _tar_number(header[124:136]) if len(header) == TAR_BLOCK else None
            if len(header) < TAR_BLOCK or header.count(0) == TAR_BLOCK:
                self.at, self.ended = (first, "end")
                return
            if size is None or not tar_checksum_ok(header):
                self.at, self.ended = first, "header"
                return
            kind, data_at = header[156:157], at + TAR_BLOCK
            if kind in _TAR_META:
                payload = read(data_at, size) if size <= self.meta_limit else b""
                records = None if len(payload) < size else ({b"path": _nts(payload)} if kind == b"L" else {}
                                                              if kind == b"K" else _pax_records(payload, pax_left))
                if records is None:
                    self.at, self.ended = first, "header"
                    return
                pax_left -= payload.count(b"\n") if kind in b"xg" else 0
                (shared if kind == b"g" else pending).update(records)
                self.at = data_at + _blocks(size)
                continue
            fields = {**shared, **pending}
            pending = {}
            if kind == b"S" or any(key.startswith(b"GNU.sparse.") for key in fields):
                self.at, self.ended = first, "sparse"
                return
            size = _tar_number(fields[b"size"], octal=False) if b"size" in fields else size
            if size is None:
                self.at, self.ended = first, "header"
                return
            member, skipped = _tar_member(header, fields, kind, size, data_at)
            self.at = data_at + (_blocks(size) if skipped else 0)
            yield member, first
            first = self.at


def _tar_member(header: bytes, fields: dict[bytes, bytes], kind: bytes, size: int, data_at: int
                ) -> tuple[TarMember, bool]:
    """The member a (non-meta) header tells, with its pax records and long name ``fields``; and whether its data
    follows the header (skipped to reach the next one)."""
    name = fields.get(b"path") or _nts(header[:100])
    prefix = _nts(header[345:500]) if header[257:263] == b"ustar\x00" else b""
    if prefix and b"path" not in fields:
        name = prefix + b"/" + name
    text = name.decode("utf-8", "replace")
    role = _TAR_KINDS.get(kind, "other")
    if role == "file" and kind == b"\x00" and text.endswith("/"):
        role = "dir"  # (an old V7 tar's directory)
    skipped = role == "file" or kind not in _TAR_KNOWN
    return TarMember(text.rstrip("/") if role == "dir" else text, size if skipped else 0, data_at, role), skipped


_MOST_META_BYTES = 4 << 20
"""Bytes of meta headers (pax records, GNU long names) read before one member at most: a tar of empty ``K``
headers would otherwise be walked to its end, a read a header, without listing anything."""
_MOST_PAX_RECORDS = 4096
"""pax records read from one content's first bytes, all headers together (a real tar's member has a few: path,
times, ids); more end the list. 100,000 records of ``5 a=\\n`` in a 512 KiB sample took 0.4 s, twice a spill."""
_TAR_META = frozenset({b"L", b"K", b"x", b"g"})
_TAR_KINDS = {b"0": "file", b"\x00": "file", b"7": "file", b"5": "dir", b"1": "link", b"2": "link"}
_TAR_KNOWN = frozenset({b"0", b"\x00", b"7", b"1", b"2", b"3", b"4", b"5", b"6"})
"""Types whose data ``tarfile`` does not skip unless regular (links, devices, directories, FIFOs): others' is."""


def _blocks(size: int) -> int:
    return -(-size // TAR_BLOCK) * TAR_BLOCK


def _nts(field: bytes) -> bytes:
    end = field.find(b"\x00")
    return field if end < 0 else field[:end]


def _tar_number(field: bytes, octal: bool = True) -> int | None:
    """A header's number field as ``tarfile`` reads it: octal digits (white space and a NUL after them; none is 0),
    or base-256 when its first byte is ``0x80`` (GNU); ``None`` for anything else, a negative number (first byte
    ``0xff``) among them. ``octal=False``: a pax record's decimal value (digits alone)."""
    if octal and field[:1] == b"\x80":
        return int.from_bytes(field[1:], "big")
    digits = _nts(field).strip() if octal else field
    if octal and not digits:
        return 0
    if not digits.isdigit() or len(digits) > 24 or (octal and digits.translate(None, b"01234567")):
        return None
    return int(digits, 8 if octal else 10)


def tar_checksum_ok(header: bytes) -> bool:
    """Whether the checksum field holds the sum of the header's bytes, its own 8 counted as spaces (as unsigned or
    signed bytes: POSIX says unsigned, some old tars summed signed), in a 512-byte ``header``. Never raises."""
    stored = _tar_number(header[148:156])
    unsigned = 256 + sum(header[:148]) + sum(header[156:])
    signed = unsigned - 256 * sum(1 for byte in header[:148] + header[156:] if byte > 127)
    return stored is not None and stored in (unsigned, signed)


def _pax_records(payload: bytes, most: int) -> dict[bytes, bytes] | None:
    """A pax header's records (``LENGTH KEYWORD=VALUE\\n``, LENGTH the record's bytes in decimal) by keyword, read
    in one pass; trailing NULs end them; ``None`` if a record is cut or malformed, or there are more than ``most``."""
    records: dict[bytes, bytes] = {}
    pos = count = 0
    while pos < len(payload) and payload[pos] != 0:
        count += 1
        if count > most:
            return None
        space = payload.find(b" ", pos, pos + 21)
        digits = payload[pos:space] if space > pos else b""
        if not digits.isdigit():
            return None
        end = pos + int(digits)
        keyword, equals, value = payload[space + 1 : end - 1].partition(b"=")
        if end > len(payload) or payload[end - 1 : end] != b"\n" or not equals or not keyword:
            return None
        records[keyword] = value
        pos = end
    return records
