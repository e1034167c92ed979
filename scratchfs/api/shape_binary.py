"""Binary content's shape, told from its first bytes: its format by magic number, whether it is compressed (then no
search finds its text and no read decompresses it: only byte ranges read it), an uncompressed tar's first members
and where each one's data lies -- and a zip's stored uncompressed (method 0), whose bytes are their text: such a zip
is no compressed content --, an image's width and height.

Sources: the magic numbers are those of each format's specification -- gzip RFC 1952 section 2.3.1 (``1f 8b``),
zstd RFC 8878 section 3.1.1 (``28 b5 2f fd``), xz's file format 1.2.1 section 2.1.1.1 (``fd 37 7a 58 5a 00``),
bzip2 (``BZh``, a block size ``1``-``9``, the block magic ``31 41 59 26 53 59``), zip's APPNOTE.TXT 4.3.7 (a local
file header ``PK 03 04``), POSIX.1 pax/ustar (``ustar`` at byte 257 of the first header), PNG, GIF, JPEG, WebP
(RFC 9649: ``RIFF``, a size, ``WEBP``). An uncompressed tar's members are read by the stdlib's ``tarfile`` from
the first bytes (a member cut by their end is still listed: its header is whole); a zip's first members are named
from their local file headers (APPNOTE.TXT 4.3.7; the central directory is at the end, past the first bytes), which
give each one's compression method and, past the header's name and extra field, where its data starts; a
gzip-compressed tar (``.tgz``) has its first members named by decompressing the first bytes (``zlib``: their offsets
are of the decompressed stream, so not given). An image's dimensions are read by the ``imagesize`` package (pure
Python, no dependencies: the header fields of PNG's IHDR, GIF's logical screen, JPEG's SOF, WebP's VP8/VP8L/VP8X and
more), never by decoding pixels.
"""

from __future__ import annotations

import io
import struct
import tarfile
import zlib
from typing import NamedTuple

import imagesize

from scratchfs.api.shape_words import kib, plural, short_name

__all__ = ["BINARY_MAGIC", "COMPRESSED", "FORMATS", "STARTS", "TAR_MAGIC_AT", "TarMember", "binary_kind",
           "binary_shape", "compressed_format", "tar_listing", "tar_members", "zip_members"]

BINARY_MAGIC = ((b"\x89PNG", "PNG image"), (b"\x1f\x8b", "gzip"), (b"PK\x03\x04", "zip"), (b"%PDF", "PDF"),
                (b"\x28\xb5\x2f\xfd", "zstd"), (b"\x7fELF", "ELF"), (b"\xff\xd8\xff", "JPEG image"),
                (b"GIF8", "GIF image"), (b"SQLite format 3\x00", "SQLite database"), (b"\xfd7zXZ\x00", "xz"),
                *((b"BZh%d1AY&SY" % level, "bzip2") for level in range(1, 10)),
                (b"\xff\xfe", "UTF-16LE text"), (b"\xfe\xff", "UTF-16BE text"))  # (by its byte order mark)
"""(first bytes, format) of the formats told by how they start; a tar (``ustar`` at byte 257) and a WebP image
(``RIFF``, 4 bytes, ``WEBP``) are told by :func:`binary_kind` too."""
COMPRESSED = frozenset({"gzip", "zstd", "bzip2", "xz", "zip"})
"""Formats whose bytes are compressed: no search (``match=``, ``pattern=``) finds their text -- but a zip's members
may be stored uncompressed (method 0): its shape then says so, not ``compressed`` (:func:`compressed_format`)."""
FORMATS = frozenset({name for _, name in BINARY_MAGIC} | {"tar", "WebP image"})
"""Every format :func:`binary_kind` names."""
_IMAGES = frozenset({"PNG image", "JPEG image", "GIF image", "WebP image"})
TAR_MAGIC_AT = 257
"""Where a tar's first header holds ``ustar``: its magic field (POSIX.1-2017, pax; GNU writes ``"ustar "``)."""
_MOST_MEMBERS = 64  # members read from the first bytes for a listing (a stub shows about 20)
_TGZ_BYTES = 64 * 1024  # decompressed bytes of a .tgz looked at for its first members' names
STARTS = tuple({magic[:1] for magic, _ in BINARY_MAGIC} | {b"RIFF"})
"""The first bytes of every format but a tar: content that starts with none (and has no ``ustar`` at byte 257)
starts no format, told by one ``startswith``."""


def binary_kind(sample: bytes) -> str | None:
    """The format ``sample`` (a content's first bytes) starts (one of :data:`FORMATS`), or ``None``. Never raises."""
    if sample.startswith(STARTS):
        if sample.startswith(b"RIFF") and sample[8:12] == b"WEBP":
            return "WebP image"
        found = next((name for magic, name in BINARY_MAGIC if sample.startswith(magic)), None)
        if found is not None:
            return found
    return "tar" if sample[TAR_MAGIC_AT : TAR_MAGIC_AT + 5] == b"ustar" else None


class TarMember(NamedTuple):
    """A tar member: ``name``, ``size`` (bytes of its data), ``offset`` (byte offset of its data in the archive:
    ``offset=``/``length=`` read it), ``kind`` (``"file"``, ``"dir"``, ``"link"`` or ``"other"``)."""

    name: str
    size: int
    offset: int
    kind: str


def tar_members(head: bytes, most: int = _MOST_MEMBERS) -> list[TarMember]:
    """The first members (at most ``most``) of the uncompressed tar whose first bytes are ``head``, as the stdlib's
    ``tarfile`` reads their headers; those past ``head`` are not listed (a member whose data runs past it is).
    Never raises (a header that is not one ends the list)."""
    found: list[TarMember] = []
    try:
        with tarfile.open(fileobj=io.BytesIO(head), mode="r:") as archive:
            while len(found) < most:
                member = archive.next()
                if member is None:
                    break
                kind = ("file" if member.isreg() else "dir" if member.isdir()
                        else "link" if member.issym() or member.islnk() else "other")
                found.append(TarMember(member.name, member.size, member.offset_data, kind))
    except (tarfile.TarError, OSError, EOFError, ValueError, UnicodeError):
        pass
    return found


def tar_listing(members: list[TarMember], limit: int, archive: str = "tar") -> tuple[str, int]:
    """A stub's preview of a tar (or of a zip's stored members, ``archive="zip"``): a heading and one line a member
    (``NAME  SIZE  at OFFSET``: its data's bytes and byte offset), as many whole lines as fit ``limit`` characters,
    then ``… N more`` if that fits too. Returns ``(text, members shown)``; ``("", 0)`` when not even the heading and
    one member fit."""
    lines = [f"{archive} members (name, bytes, offset of its data):"]
    used = len(lines[0])
    for member in members:
        mark = "/" if member.kind == "dir" and not member.name.endswith("/") else ""
        line = f"{short_name(member.name, 80)}{mark}  {member.size:,}  at {member.offset}"
        if used + 1 + len(line) > limit:
            break
        lines.append(line)
        used += 1 + len(line)
    shown = len(lines) - 1
    more = f"… {len(members) - shown} more in the first bytes"
    if shown < len(members) and used + 1 + len(more) <= limit:
        lines.append(more)
    return ("\n".join(lines), shown) if shown else ("", 0)


def binary_shape(sample: bytes, size: int) -> str:
    """The shape of binary content whose first bytes are ``sample``: ``"binary, SIZE[, FORMAT[, DETAILS]]; starts
    with HEX"`` -- a compressed format says so and what it allows, a tar how many members its first bytes hold, a
    gzip-compressed tar its first members' names, an image its width×height in pixels. Never raises."""
    kind = binary_kind(sample)
    detail = ""
    if kind in COMPRESSED and not (kind == "zip" and _zip_plain(sample)):
        detail = ", compressed"  # (the stub's note says what that allows: byte ranges, no search)
        names = _tgz_names(sample) if kind == "gzip" else _zip_names(sample) if kind == "zip" else []
        if names:
            detail += f"; {'a tar inside' if kind == 'gzip' else 'members'}: " + ", ".join(
                short_name(name, 40) for name in names[:6]) + (", …" if len(names) > 6 else "")
    elif kind == "zip" and _zip_plain(sample):  # (members stored uncompressed: their bytes are their text)
        detail = ", " + _zip_stored_detail(sample, size)
        names = _zip_names(sample)
        if names:
            detail += "; members: " + ", ".join(short_name(name, 40) for name in names[:6]) + (
                ", …" if len(names) > 6 else "")
    elif kind == "tar":
        members = tar_members(sample)
        count = plural(len(members), "member")
        detail = (f", at least {count}" if len(members) >= _MOST_MEMBERS
                  else f", {count} in the first {kib(len(sample))}" if size > len(sample) else f", {count}")
    elif kind in _IMAGES:
        width, height = _dimensions(sample)
        detail = f", {width}×{height} pixels" if width > 0 and height > 0 else ""
    head = sample[:8].hex(" ")
    return f"binary, {kib(size)}" + (f", {kind}{detail}" if kind else "") + (f"; starts with {head}" if head else "")


def _dimensions(sample: bytes) -> tuple[int, int]:
    """An image's (width, height) in pixels as shown (an EXIF rotation applied), or ``(-1, -1)``: ``imagesize``
    reads them from the header fields, and gives ``(-1, -1)`` for anything it cannot read."""
    return imagesize.get(io.BytesIO(sample))


_ZIP_HEADER = struct.Struct("<4sHHHHHIIIHH")
"""A zip local file header (APPNOTE.TXT 4.3.7): signature, version, flags, method, time, date, CRC-32, compressed
and uncompressed sizes, name and extra field lengths; the name follows, then the extra field, then the data."""


class _ZipHeader(NamedTuple):
    """A zip member as its local file header gives it: ``name``, ``method`` (0: stored, 8: deflated...),
    ``flags``, ``packed`` (bytes of its data as stored; -1 when the header does not give them) and ``offset`` (byte
    offset of its data: the header's end, past the name and the extra field)."""

    name: str
    method: int
    flags: int
    packed: int
    offset: int


def _zip_headers(sample: bytes, most: int = _MOST_MEMBERS) -> list[_ZipHeader]:
    """A zip's first members (at most ``most``), from the local file headers in ``sample`` (the central directory
    is at the end, past the first bytes): each header's compressed size leads to the next; a member whose size its
    header does not give (a data descriptor follows it, flag bit 3; or Zip64) is the last listed (``packed`` -1).
    Names are UTF-8 when flag bit 11 says so, else code page 437 (APPNOTE.TXT appendix D). Never raises."""
    found: list[_ZipHeader] = []
    at = 0
    while len(found) < most and at + _ZIP_HEADER.size <= len(sample) and sample.startswith(b"PK\x03\x04", at):
        _, _, flags, method, _, _, _, packed, _, name_bytes, extra = _ZIP_HEADER.unpack_from(sample, at)
        start = at + _ZIP_HEADER.size
        name = sample[start : start + name_bytes].decode("utf-8" if flags & 0x800 else "cp437", "replace")
        known = not ((flags & 0x8 and not packed) or packed == 0xFFFFFFFF)
        found.append(_ZipHeader(name, method, flags, packed if known else -1, start + name_bytes + extra))
        if not known:
            break
        at = start + name_bytes + extra + packed
    return found


def _zip_names(sample: bytes, most: int = 16) -> list[str]:
    """The names of a zip's first members (:func:`_zip_headers`)."""
    return [header.name for header in _zip_headers(sample, most)]


def _stored(header: _ZipHeader) -> bool:
    """Whether a zip member's data is its bytes as they are: stored (method 0), not encrypted (flag bit 0), of a
    size its header gives."""
    return header.method == 0 and not header.flags & 0x1 and header.packed >= 0


def _files(sample: bytes) -> list[_ZipHeader]:
    """The first members of the zip starting ``sample`` that are no directory (whose name ends in ``/``)."""
    return [header for header in _zip_headers(sample) if not header.name.endswith("/")]


def _zip_plain(sample: bytes) -> bool:
    """Whether a member (no directory) among the zip's first is stored uncompressed (:func:`_stored`)."""
    return any(map(_stored, _files(sample)))


def _zip_stored_detail(sample: bytes, size: int) -> str:
    """What a shape says of a zip some of whose first members are stored: ``"N members stored (uncompressed)"``, or
    ``"K of N members stored (uncompressed), M compressed"``, and ``" in the first 512 KiB"`` when ``sample`` is
    not the whole content (of ``size`` bytes)."""
    files = _files(sample)
    stored = sum(map(_stored, files))
    said = (f"{plural(len(files), 'member')} stored (uncompressed)" if stored == len(files) else
            f"{stored} of {plural(len(files), 'member')} stored (uncompressed), {len(files) - stored} compressed")
    return said + (f" in the first {kib(len(sample))}" if size > len(sample) else "")


def zip_members(head: bytes, most: int = _MOST_MEMBERS) -> tuple[list[TarMember], int]:
    """``(the members stored uncompressed among the first of the zip whose first bytes are head, as tar members --
    name, bytes, offset of their data, kind "file" or "dir" --, how many others, directories aside, are compressed
    or encrypted)``: a stored member's bytes are read by ``offset=`` and ``length=`` as a tar member's. Its data's
    offset is its local header's end (APPNOTE.TXT 4.3.7: the 30-byte header, the name and the local extra field); a
    member whose header is cut by the end of ``head`` is not listed. Never raises."""
    headers = _zip_headers(head, most)
    stored = [TarMember(h.name, h.packed, h.offset, "dir" if h.name.endswith("/") else "file")
              for h in headers if _stored(h) and h.offset <= len(head)]
    return stored, sum(1 for h in headers if not h.name.endswith("/") and not _stored(h))


def _tgz_names(sample: bytes) -> list[str]:
    """The first member names of the tar a gzip stream starting ``sample`` holds (``[]``: not a tar, or unreadable):
    at most :data:`_TGZ_BYTES` of it decompressed."""
    try:
        data = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(sample, _TGZ_BYTES)
    except zlib.error:
        return []
    if data[TAR_MAGIC_AT : TAR_MAGIC_AT + 5] != b"ustar":
        return []
    return [member.name for member in tar_members(data, 16)]


def compressed_format(shape: str | None) -> str | None:
    """The compressed format (one of :data:`COMPRESSED`) a binary entry's stored ``shape`` names when it says
    ``compressed`` after it (``"binary, 3 KiB, gzip, compressed; ..."``: no search finds its text), else ``None`` --
    a zip whose first members hold stored ones says ``"zip, 5 members stored (uncompressed)"`` instead. Never
    raises."""
    if not shape or not shape.startswith("binary, "):
        return None
    named = shape.split(";", 1)[0].split(", ")[2:]
    return named[0] if len(named) > 1 and named[0] in COMPRESSED and named[1] == "compressed" else None
