"""Text in Shift-JIS (Japanese) or GB18030 (Chinese) -- man pages through ``iconv`` -- was ``binary, ...; starts
with 2e 5c 22 ...`` with nothing but a hex dump, or text whose bytes were "not UTF-8 (shown as U+FFFD)" with no
hint of its encoding. Its shape now names the encoding, only when sure (:mod:`scratchfs.api.shape_cjk`), and the
``iconv`` that decodes it; it never names ``encoding="latin-1"`` for it. Each naming check failed before."""

from __future__ import annotations

from pathlib import Path

import pytest

from scratchfs.api.shape import describe
from scratchfs.api.shape_cjk import multibyte_codec

TOOLS = Path(__file__).parent.parent / "fixtures" / "tools"
SJIS = (TOOLS / "man-ja-shift-jis.txt").read_bytes()
GB = (TOOLS / "man-zh-cn-gb18030.txt").read_bytes()


def shape_of(data: bytes) -> str:
    return describe(data, len(data), data.count(b"\n") + (not data.endswith(b"\n"))).text


@pytest.mark.parametrize(("data", "said"), [
    (SJIS, "Shift-JIS text: no read decodes it, iconv -f CP932 -t UTF-8 does"),
    (GB, "GB18030 text: no read decodes it, iconv -f GB18030 -t UTF-8 does"),
])
def test_the_shape_names_the_encoding_and_the_iconv_that_decodes_it(data, said):
    shape = shape_of(data)
    assert said in shape and "latin-1" not in shape, shape


@pytest.mark.parametrize("cut", [1, 2, 3])
def test_a_sample_cut_inside_a_character_is_still_named(cut):
    at = next(i for i in range(4000, len(SJIS)) if SJIS[i] >= 0x81)  # (a lead byte: the sample ends inside)
    assert multibyte_codec(SJIS[: at + 1]) == "Shift-JIS" and multibyte_codec(GB[: len(GB) - cut]) == "GB18030"


@pytest.mark.parametrize("data", [
    "Süßwaren, café résumé naïve à la carte; ".encode("latin-1") * 100,  # (Latin-1: its letters alone)
    "한국어 설명서: 파일을 읽을 수 없습니다. ".encode("euc_kr") * 40,  # (EUC-KR: GB18030 reads it as hanzi)
    "똠방각하 햏햏 뷁 쒧 이것은 한국어 텍스트입니다 ".encode("cp949") * 40,  # (cp949, Windows' Korean, whose syllables
    # beyond EUC-KR's that refuses: GB18030 read it as 宑规阿窍 羋羋, and its iconv was named; hostile50)
    "이것은 한국어 텍스트입니다".encode("johab") * 20,  # (Johab, Korean's other encoding: named GB18030 with an iconv
    "한국어 설명서: 파일을 읽을 수 없습니다. 똠방각하 ".encode("johab") * 40,  # that garbled it: 贰堳積)
    "日本語のテキストです。".encode("euc_jp") * 40,  # (EUC-JP: not named, being neither)
    "naïve café, 日本語 ".encode() * 100,  # (UTF-8)
    GB[:400],  # (too few characters to be sure)
    bytes(range(256)) * 30,
])
def test_other_text_is_not_named(data):
    assert multibyte_codec(data) is None


def test_latin1_text_still_names_latin1():
    assert 'encoding="latin-1" reads them as Latin-1' in shape_of("café au lait, naïve résumé\n".encode("latin-1")
                                                                    * 200)


def test_one_character_over_and_over_is_not_named():
    """``e2 82`` repeated (a cut euro sign's bytes, fuzzed) decodes strictly as one hanzi in GB18030: no text."""
    assert multibyte_codec(b"\xe2\x82" * 4000) is None and multibyte_codec("日本".encode("cp932") * 500) is None
