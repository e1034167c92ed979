"""Text in a multi-byte legacy encoding -- Shift-JIS (Japanese, Windows' cp932) or GB18030 (Chinese) -- told from
its sample, so that its shape names it rather than calling it binary (Shift-JIS: its lead bytes are control
characters in other encodings) or leaving bytes "not UTF-8" with no hint, and never names ``encoding="latin-1"``
for it (:func:`~scratchfs.api.shape_utf8.read_as`). No read decodes it: the clause names ``iconv`` where the text
came from.

Named only when sure: the whole sample (but a character its end cuts) decodes strictly, it is not UTF-8, it holds at
least :data:`MIN_CHARACTERS` characters that are not ASCII (half as many distinct ones), and they read as that
language's text -- Shift-JIS's at least a fifth kana (Japanese is written with them; Chinese read as cp932 is half-
width katakana and a few kanji), GB18030's nine in ten CJK characters or full-width punctuation, in runs of two or
more on average (the accented letters of a Latin-1 text that happens to decode are one a word), and not Korean
(cp949, Windows' Korean, or its EUC-KR part, or Johab: Korean reads as GB18030's hanzi, and a strict decode cannot
tell them apart). charset_normalizer was no help here: it named cp775 for a UTF-8 log.

Sources: the WHATWG Encoding Standard (https://encoding.spec.whatwg.org/: Shift_JIS as Windows' cp932, gb18030);
Unicode blocks Hiragana U+3040-309F, Katakana U+30A0-30FF, CJK Unified Ideographs U+4E00-9FFF (and Extension A
U+3400-4DBF), CJK Symbols and Punctuation U+3000-303F, Halfwidth and Fullwidth Forms U+FF00-FFEF.
"""

from __future__ import annotations

import re

__all__ = ["MIN_CHARACTERS", "PROBE_BYTES", "multibyte_clause", "multibyte_codec"]

PROBE_BYTES = 16384
"""The bytes of a sample looked at (a decode and a count of each character: linear, bounded for a binary's)."""
MIN_CHARACTERS = 20
"""The fewest characters not ASCII a sample holds for its encoding to be named."""
_CODECS = (("Shift-JIS", "cp932", "CP932"), ("GB18030", "gb18030", "GB18030"))
_KANA = re.compile("[\u3040-\u30ff]")
_CJK = re.compile("[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff01-\uff5e]")
_RUN = re.compile("[^\x00-\x7f]+")


def _decoded(sample: bytes, codec: str, complete: bool) -> str | None:
    """``sample`` decoded strictly, but up to 3 bytes its end cuts (``complete``: none), else ``None``."""
    for cut in range(1 if complete else 4):
        try:
            return sample[: len(sample) - cut].decode(codec)
        except UnicodeDecodeError:
            continue
    return None


def _reads_as(name: str, text: str) -> bool:
    """Whether ``text`` (the sample decoded) reads as the language of the encoding ``name``."""
    runs = _RUN.findall(text)
    chars = sum(map(len, runs))
    if chars < MIN_CHARACTERS or len(set("".join(runs))) < MIN_CHARACTERS // 2:  # (one pair of bytes over and
        return False  # over is no text: e2 82 repeated reads as one hanzi)
    if name == "Shift-JIS":
        return len(_KANA.findall(text)) >= chars / 5
    return len(_CJK.findall(text)) >= 0.9 * chars and chars >= 2 * len(runs)


_KOREAN = ("cp949", "johab")
"""Korean's encodings: cp949 (Windows' Korean: EUC-KR and the 8,822 Hangul syllables it lacks, 똠 and 햏 among
them, which EUC-KR refuses) and Johab (KS X 1001 annex 3, each syllable's bits its jamo: 이것은 is 0xb7 0xa1...)."""


def _korean(sample: bytes, complete: bool) -> bool:
    """Whether ``sample`` decodes strictly in one of Korean's encodings (:data:`_KOREAN`) too: Korean text, whose
    Hangul GB18030 reads as hanzi, so that a strict decode cannot tell which it is and neither is named (Chinese
    text holds GB2312's row C9 -- 上, 生, 设 -- which cp949 leaves undefined, and rows D4-D7 -- 中 -- which Johab
    does)."""
    return any(_decoded(sample, codec, complete) is not None for codec in _KOREAN)


def multibyte_codec(sample: bytes, complete: bool = False) -> str | None:
    """``"Shift-JIS"`` or ``"GB18030"`` when ``sample`` (a content's first bytes, its first :data:`PROBE_BYTES`
    looked at; ``complete``: all of it) is text in that encoding by the rules of this module's docstring, else
    ``None`` (UTF-8, ASCII, anything else or unsure). Never raises."""
    if len(sample) > PROBE_BYTES:
        sample, complete = sample[:PROBE_BYTES], False
    if sample.isascii() or _decoded(sample, "utf-8", complete) is not None:
        return None
    for name, codec, _ in _CODECS:
        text = _decoded(sample, codec, complete)
        if text is not None and _reads_as(name, text) and (name == "Shift-JIS" or not _korean(sample, complete)):
            return name
    return None


def multibyte_clause(name: str) -> str:
    """What a shape says of text in the encoding ``name`` (:func:`multibyte_codec`): that no read decodes it and
    the ``iconv`` that does, as ``", Shift-JIS text: no read decodes it, iconv -f CP932 -t UTF-8 does"``."""
    label = next(iconv for known, _, iconv in _CODECS if known == name)
    return f", {name} text: no read decodes it, iconv -f {label} -t UTF-8 does"
