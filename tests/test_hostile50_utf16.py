"""hostile50: UTF-16 searches (``encoding="utf-16le"``/``"utf-16be"``) that miss, and needles of half a character.

A miss of ``match="straße", encoding="utf-16le"`` was given the note meant for a search *without* an encoding: "a
search writes its text as UTF-8 bytes; seek it with its encoding: read_handle(..., match="s\\u0000t\\u0000...",
encoding="utf-16le")" -- the call it had made, its needle's UTF-16 bytes taken as characters (ß as U+FFFD), which
finds nothing either; with ``ignore_case`` it named ``pattern=``, which the encoding refuses. A ``match`` holding a
lone surrogate (``"\\ud83d"``) matched the first half of 😀 (a window of no text), and with ``ignore_case`` raised
UnicodeEncodeError, a traceback. Now a miss says where it looked, and such a needle is refused, naming what works."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scratchfs import ScratchStore
from scratchfs.api.contract import ScratchTools
from scratchfs.api.shape import describe
from scratchfs.foundation.errors import InvalidArgument

TEXT = "Straße café 😀\r\nline two\r\n"


@pytest.fixture
def tools(tmp_path):
    with ScratchStore(tmp_path / "root") as store:
        yield ScratchTools(store.scope("r", "a"))


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
@pytest.mark.parametrize("asked", [{"match": "straße"}, {"match": "STRASSE", "ignore_case": True},
                                   {"match": "zz", "context": "line"}])
def test_a_utf16_search_that_misses_says_where_it_looked(tools, codec, asked):
    raw = ("\ufeff" + TEXT).encode(codec)
    handle = tools.scope.spill(raw, source_tool="t").handle
    encoding = codec.replace("-le", "le").replace("-be", "be")
    assert raw.find("straße".encode(codec)) == -1  # (the plain answer: none)
    got = tools.read_handle(handle, encoding=encoding, **asked)
    assert got["windows"] == [] and got["note"] == f"no match in the whole content ({len(raw)} bytes)", got
    assert "calls" not in got
    counted = tools.read_handle(handle, encoding=encoding, count=True, **{k: v for k, v in asked.items()
                                                                         if k != "context"})
    assert counted["matches"] == 0 and "note" not in counted, counted  # (its count says it: no match)
    last = tools.read_handle(handle, encoding=encoding, before=len(raw), **{k: v for k, v in asked.items()
                                                                            if k != "context"})
    assert last["windows"] == [] and last["note"] == f"no match in the whole content ({len(raw)} bytes)", last


@pytest.mark.parametrize("ignore_case", [False, True])
def test_half_a_surrogate_pair_is_refused_naming_what_works(tools, ignore_case):
    handle = tools.scope.spill(("\ufeff" + TEXT).encode("utf-16-le"), source_tool="t").handle
    with pytest.raises(InvalidArgument, match=r"U\+D83D, half of a surrogate pair.*match=\"TEXT\""):
        tools.read_handle(handle, match="\ud83d", ignore_case=ignore_case, encoding="utf-16le")
    whole = tools.read_handle(handle, match="😀", ignore_case=ignore_case, encoding="utf-16le", context=0)
    at = ("\ufeff" + TEXT).encode("utf-16-le").find("😀".encode("utf-16-le"))
    assert [(w["offset"], w["data"]) for w in whole["windows"]] == [(at, "😀")]


FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "tools"


@pytest.mark.parametrize(("name", "mark"), [("git-logo.png", b"\xff\xfe"), ("bash-changelog.Debian.gz", b"\xfe\xff"),
                                            ("git-logo.png", b"\xff\xfe\x00\x00")])
def test_a_byte_order_mark_before_binary_bytes_is_no_text(tools, name, mark):
    """``ff fe`` before a PNG image was ``binary, 209 B, UTF-16LE text``: its stub previewed the image's bytes as CJK
    and private use characters and named reads with ``encoding="utf-16le"``. As UTF-16 (or UTF-32) a seventh of
    such units are controls, lone surrogates or private use characters, which text holds none of."""
    data = mark + (FIXTURES / name).read_bytes()
    said = describe(data, len(data), 1).text
    assert said.startswith("binary, ") and "UTF-" not in said and f"; starts with {data[:8].hex(' ')}" in said, said
    stub = tools.scope.spill(data, source_tool="t")
    said = json.dumps([stub.preview, stub.note, stub.shape])
    assert "encoding=" not in said and "UTF-" not in said and data[:8].hex(" ") in said, said


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
def test_text_after_its_mark_is_still_named(codec):
    data = ("\ufeff" + (FIXTURES / "dpkg-l-utf16le-bom-crlf.txt").read_bytes()[2:].decode("utf-16-le")
            + "上海 😀\t\x1b[0m\f").encode(codec)
    assert f"{codec[:6].upper()}{codec[-2:].upper()} text" in describe(data, len(data), 1).text


@pytest.mark.parametrize("length", [1, 2, 3, 5, 6, 7, 10])
def test_the_cli_reads_utf16_range_by_range_as_its_text(tmp_path, length):
    """The CLI's raw range read with ``--encoding utf-16`` decoded exactly the bytes asked: a range ending inside
    😀 printed U+FFFD and the next command read on after it, which printed its other half as U+FFFD too; a range of
    one byte printed nothing, its next command the same byte. It now shows what the tool's range read does: whole
    characters from an even offset, the pair its end cuts read next; read on command by command, the text whole."""
    from click.testing import CliRunner

    from scratchfs.cli import main

    raw = ("\ufeff" + TEXT).encode("utf-16-le")
    source = tmp_path / "out.txt"
    source.write_bytes(raw)
    common = ["--root", str(tmp_path / "root"), "--run", "r", "--agent", "a"]
    runner = CliRunner()
    handle = json.loads(runner.invoke(main, ["spill", str(source), *common]).stdout)["handle"]
    shown, at = [], 0
    while at is not None and len(shown) < 60:
        got = runner.invoke(main, ["read-handle", handle, "--offset", str(at), "--length", str(length),
                                   "--encoding", "utf-16", *common])
        assert got.exit_code == 0, got.output
        shown.append(got.stdout_bytes.decode())
        said = [line for line in got.stderr.splitlines() if "bytes from offset" in line]
        at = int(said[0].split(" --offset ")[1].split()[0]) if said and " --offset " in said[0] else None
    assert "".join(shown) == "\ufeff" + TEXT, shown
