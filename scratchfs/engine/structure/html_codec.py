"""How a browser decodes an HTML page's bytes, for the HTML reads (:mod:`scratchfs.engine.structure.html_worker`, whose
worker loads this file by path: standard library only) and the page's shape (:mod:`scratchfs.api.shape_html`): a byte
order mark, else valid UTF-8, else the encoding the page declares (the HTML standard's prescan), else UTF-8 or
windows-1252 by what its bytes look like; and the Unicode spaces of the text view (:func:`view_spaces`), which a
search of a page's text looks for without importing the worker's libraries."""

from __future__ import annotations

import codecs
import re

from scratchfs.foundation.text import utf8_but_cut_end

__all__ = ["VIEW_SPACES", "declared_encoding", "decode_as", "page_codec", "page_text", "view_spaces"]

_META = re.compile(rb"<!--.*?-->|<meta(?=[\s/])([^>]*)>", re.IGNORECASE | re.DOTALL)
_ATTRIBUTE = re.compile(rb"""([^\s/>=]+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s>]+))?""")
_CHARSET_IN_CONTENT = re.compile(rb"""charset\s*=\s*["']?([^"';\s]+)""", re.IGNORECASE)
_PRESCAN_BYTES = 1024
_AS_WINDOWS_1252 = {"ascii", "us-ascii", "iso-8859-1", "iso8859-1", "iso_8859-1", "latin1", "latin-1", "l1",
                    "cp819", "ibm819", "iso-ir-100", "csisolatin1", "x-cp1252", "cp1252", "windows-1252",
                    "ansi_x3.4-1968", "iso_8859-1:1987"}
"""Labels the WHATWG Encoding Standard maps to windows-1252 (a page declared Latin-1 or ASCII is read so by every
browser: 0x80-0x9F are the windows-1252 letters and quotes, not C1 controls)."""


def _c1_as_latin1(error: UnicodeDecodeError) -> tuple[str, int]:
    """The 5 bytes windows-1252 leaves undefined (0x81, 0x8D, 0x8F, 0x90, 0x9D) as the C1 controls the WHATWG
    decoder gives them."""
    return chr(error.object[error.start]), error.start + 1


codecs.register_error("scratchfs-windows-1252", _c1_as_latin1)


def declared_encoding(page: bytes) -> str | None:
    """The Python codec of the encoding the page declares in a ``<meta charset>`` or ``<meta http-equiv=
    "content-type" content="...; charset=...">`` within its first 1,024 bytes (the HTML standard's prescan,
    comments skipped), or ``None``: no declaration, or only labels Python does not know. A UTF-16 label means UTF-8
    (as the standard says: the bytes of a page that prescans were ASCII-compatible); a Latin-1 or ASCII label
    means windows-1252."""
    for found in _META.finditer(page[:_PRESCAN_BYTES]):
        if found.group(1) is None:
            continue  # a comment
        attributes = {name.lower(): (value or b"").strip(b"\"'") for name, value in _ATTRIBUTE.findall(found.group(1))}
        label = attributes.get(b"charset")
        if label is None and attributes.get(b"http-equiv", b"").lower() == b"content-type":
            inside = _CHARSET_IN_CONTENT.search(attributes.get(b"content", b""))
            label = inside.group(1) if inside else None
        if label:
            codec = _codec(label.decode("ascii", "replace").strip().lower())
            if codec is not None:
                return codec
    return None


def _codec(label: str) -> str | None:
    if label in _AS_WINDOWS_1252:
        return "windows-1252"
    if label.startswith(("utf-16", "utf16", "unicode")):
        return "utf-8"
    try:
        return codecs.lookup(label).name
    except LookupError:
        return None


def page_text(page: bytes) -> str:
    """The text of the page's bytes, decoded as a browser decodes them (:func:`page_codec`), a byte order mark
    dropped. Pages come to the worker as bytes, decoded once, here (a str was decoded in the caller and again by
    unpickling: 4 ms more a 2 MiB page; a CSS select over it 51 -> 46 ms)."""
    codec, skip = page_codec(page)
    if codec == "utf-8" and skip == 0:
        return page.decode("utf-8", "replace")
    return decode_as(page[skip:], codec)


def page_codec(page: bytes) -> tuple[str, int]:
    """``(codec, bytes of its byte order mark)``: how a browser decodes the page's bytes. A byte order mark (UTF-8,
    UTF-16) says the encoding; else bytes that are valid UTF-8 (but for a character cut at the end) are UTF-8,
    whatever the page declares (a tool that fetched the page as text and gave it on wrote it as UTF-8, its old
    ``<meta charset>`` kept: reading it so again would garble it, and Latin-1 text is practically never valid UTF-8
    once it has a letter past ASCII); else the encoding the page declares (:func:`declared_encoding`); else UTF-8
    when its valid multi-byte characters outnumber its invalid bytes (a UTF-8 page with a stray byte); else
    windows-1252, the browsers' fallback."""
    for mark, codec in ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"),
                        (codecs.BOM_UTF16_BE, "utf-16-be")):
        if page.startswith(mark):
            return codec, len(mark)
    if utf8_but_cut_end(page):  # (valid but for a character cut at the end: a cut sample)
        return "utf-8", 0
    codec = declared_encoding(page)
    if codec is not None:
        return codec, 0
    text = page.decode("utf-8", "replace")
    replaced = text.count("\ufffd")
    invalid = replaced - page.count("\ufffd".encode())  # (the page's own U+FFFD are valid characters)
    wide = len(text) - len(text.encode("ascii", "ignore")) - replaced + (replaced - invalid)  # valid, past ASCII
    return ("utf-8" if wide > invalid else "windows-1252"), 0


def decode_as(data: bytes, codec: str) -> str:
    """``data`` decoded with ``codec`` as a browser does: undecodable bytes as U+FFFD; windows-1252 as the WHATWG
    standard has it (its 5 undefined bytes as C1 controls)."""
    if codec in ("cp1252", "windows-1252"):
        return data.decode("cp1252", "scratchfs-windows-1252")
    return data.decode(codec, "replace")


VIEW_SPACES = dict.fromkeys(map(ord, "\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
                                     "\u202f\u205f\u3000"), " ")
"""Every Unicode space (``&nbsp;``; an em, thin or ideographic space) is one ``" "`` of the text view, each one, in a
``<pre>`` or not (CSS collapses only spaces, tabs, line ends): a model that sees a space searches for one."""


def view_spaces(text: str) -> str:
    """``text`` with its Unicode spaces as the text view writes them (:data:`VIEW_SPACES`): what a search of the view
    or a ``:contains()`` looks for when a model's text holds a no-break space."""
    return text.translate(VIEW_SPACES)
