"""UTF-16 text (PowerShell's ``>``, ``reg export``) read as text with ``encoding="utf-16le"`` / ``"utf-16be"`` /
``"utf-16"`` (its byte order mark's): every read was a hex dump, about ten JSON bytes a character. A read now shows
whole code units from an even offset, a surrogate pair never split, its offset and length exact byte counts of what
its ``data`` encodes to; a ``match`` is sought as its UTF-16 bytes at even offsets only; a ``pattern`` is refused,
naming ``match``. Each check failed before: the argument was refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scratchfs import ScratchStore
from scratchfs.api.contract import ScratchTools
from scratchfs.foundation.errors import InvalidArgument

FIXTURE = (Path(__file__).parent.parent / "fixtures" / "tools" / "dpkg-l-utf16le-bom-crlf.txt").read_bytes()
TEXT = FIXTURE[2:].decode("utf-16-le")


@pytest.fixture
def tools(tmp_path):
    with ScratchStore(tmp_path / "root") as store:
        yield ScratchTools(store.scope("r", "a"))


def test_a_range_of_powershell_output_reads_as_its_text(tools):
    handle = tools.scope.spill(FIXTURE, source_tool="powershell").handle
    got = tools.read_handle(handle, offset=2, length=300, encoding="utf-16")  # (the mark says LE)
    assert got["data"] == TEXT[:150] and (got["offset"], got["length"], got["encoding"]) == (2, 300, "utf-16le")
    assert got["next_call"].endswith('offset=302, length=300, encoding="utf-16le")')
    odd = tools.read_handle(handle, offset=303, length=101, encoding="utf-16le")  # (from the next even byte)
    assert (odd["offset"], odd["length"], odd["data"]) == (304, 100, TEXT[151:201])


def test_a_match_is_sought_as_its_utf16_bytes_and_lines_end_at_their_code_unit(tools):
    handle = tools.scope.spill(FIXTURE, source_tool="powershell").handle
    found = tools.read_handle(handle, match="ADDUSER", ignore_case=True, encoding="utf-16le", context=0)
    first = found["windows"][0]
    assert first["data"] == "adduser" and first["offset"] == 2 + 2 * TEXT.index("adduser")
    line = tools.read_handle(handle, line=7, lines=2, encoding="utf-16le")
    assert line["data"] == "".join(TEXT.splitlines(True)[6:8]) and line["offset"] % 2 == 0
    assert line["next_call"].endswith('line=9, lines=2, encoding="utf-16le")')
    with pytest.raises(InvalidArgument, match="match="):
        tools.read_handle(handle, pattern="add.ser", encoding="utf-16le")


def test_a_match_at_an_odd_offset_is_two_characters_halves(tools):
    """``上`` is ``0a 4e``, ``Ā`` ``00 01`` and ``N`` ``4e 00`` in UTF-16LE: ``上Ā`` holds ``N``'s bytes at offset
    1, the second half of one character and the first of the next."""
    handle = tools.scope.spill("上ĀN".encode("utf-16-le"), source_tool="t").handle
    found = tools.read_handle(handle, match="N", encoding="utf-16le", context=0)
    assert [(w["offset"], w["data"]) for w in found["windows"]] == [(4, "N")], found


def test_utf16_without_a_mark_names_the_two_it_may_be(tools):
    handle = tools.scope.spill("plain".encode("utf-16-le"), source_tool="t").handle
    with pytest.raises(InvalidArgument, match="utf-16le"):
        tools.read_handle(handle, encoding="utf-16")


_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=1500)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=_TEXT, codec=st.sampled_from(["utf-16-le", "utf-16-be"]), start=st.integers(0, 3000),
       length=st.integers(1, 4000), budget=st.sampled_from([None, 2048]))
def test_reads_on_from_any_offset_show_exactly_the_stored_bytes(tools, text, codec, start, length, budget):
    raw = text.encode(codec)
    handle = tools.scope.spill(raw, source_tool="t").handle
    encoding = codec.replace("-le", "le").replace("-be", "be")
    at, seen = min(start, len(raw) - 1), []
    while at is not None:
        got = tools.read_handle(handle, offset=at, length=length, encoding=encoding, budget=budget)
        assert got["data"].encode(codec) == raw[got["offset"] : got["offset"] + got["length"]]
        assert got["offset"] % 2 == 0 and got["offset"] - at <= 1 + 2 * (at > 0)
        seen.append(got["data"])
        at = got["next_offset"]
    assert text.encode(codec).endswith("".join(seen).encode(codec))
    if start == 0:
        assert "".join(seen) == text


def test_the_cli_prints_a_utf16le_line_read_as_its_text(tmp_path):
    from click.testing import CliRunner

    from scratchfs.cli import main

    source = tmp_path / "out.txt"
    source.write_bytes(FIXTURE)
    common = ["--root", str(tmp_path / "root"), "--run", "r", "--agent", "a"]
    runner = CliRunner()
    handle = json.loads(runner.invoke(main, ["spill", str(source), *common]).stdout)["handle"]
    got = runner.invoke(main, ["read-handle", handle, "--line", "7", "--lines", "2", "--encoding", "utf-16", *common])
    lines = "".join(TEXT.splitlines(True)[6:8])  # (the runner's stdout reads \r\n as \n)
    assert got.exit_code == 0 and got.stdout_bytes.decode() == lines, got.output


def test_the_stub_previews_utf16_as_text_and_names_the_reads_that_decode_it(tools):
    """The stub was a hex dump (``ff fe 44 00 ...``, about ten JSON bytes a character) whose note named reads
    without an encoding: hex dumps again."""
    stub = tools.scope.spill(FIXTURE, source_tool="powershell")
    assert TEXT.startswith(stub.preview.removeprefix("\ufeff")) and len(stub.preview) > 400, stub.preview[:80]
    covered = 2 * len(stub.preview)
    assert f'offset={covered}, encoding="utf-16le")' in stub.note and 'match="TEXT", encoding="utf-16le")' in stub.note
    got = tools.read_handle(stub.handle, offset=covered, length=200, encoding="utf-16le")
    assert got["data"] == TEXT[covered // 2 - 1 : covered // 2 + 99]


@pytest.mark.parametrize("read", [{"jq": ".[0]"}, {"rows": 2}])
def test_a_structure_read_of_utf16_names_its_text_read_and_iconv(tools, read):
    """jq and CSV reads do not decode UTF-16 (a clear refusal): it named byte ranges without an encoding, hex dumps."""
    data = b"\xff\xfe" + "".join(f"{n},name{n}\r\n" for n in range(2000)).encode("utf-16-le")
    handle = tools.scope.spill(data, source_tool="powershell").handle
    with pytest.raises(InvalidArgument) as refused:
        tools.read_handle(handle, **read)
    assert f'read_handle(handle="{handle}", encoding="utf-16le")' in str(refused.value)
    assert "iconv -f UTF-16 -t UTF-8" in str(refused.value)


@pytest.mark.parametrize("asked", [{}, {"line": 2, "lines": 3}, {"match": "lain", "context": 0}])
def test_utf16_without_a_mark_names_the_same_read_with_each_byte_order(tools, asked):
    """The refusal named no call (every refusal names one that works): now the same read with each byte order."""
    handle = tools.scope.spill("plain\nmore\n".encode("utf-16-le"), source_tool="t").handle
    with pytest.raises(InvalidArgument) as refused:
        tools.read_handle(handle, encoding="utf-16", **asked)
    calls = refused.value.advice.calls if refused.value.advice else ()
    assert [dict(call.arguments) for call in calls] == [
        {"handle": handle, **asked, "encoding": wide} for wide in ("utf-16le", "utf-16be")], str(refused.value)
    first = tools.read_handle(**dict(calls[0].arguments))  # (the first works: the content is UTF-16LE)
    shown = first["windows"][0]["data"] if "windows" in first else first["data"]
    assert (first["encoding"], shown) == ("utf-16le", {"line": "more\n", "match": "lain"}.get(next(iter(asked), ""),
                                                                                          "plain\nmore\n")), first


def test_the_cli_names_the_same_read_with_each_byte_order(tmp_path):
    from click.testing import CliRunner

    from scratchfs.cli import main

    source = tmp_path / "plain.txt"
    source.write_bytes("plain\nmore\n".encode("utf-16-le"))
    common = ["--root", str(tmp_path / "root"), "--run", "r", "--agent", "a"]
    runner = CliRunner()
    handle = json.loads(runner.invoke(main, ["spill", str(source), *common]).stdout)["handle"]
    got = runner.invoke(main, ["read-handle", handle, "--line", "2", "--encoding", "utf-16", *common])
    assert got.exit_code != 0 and "--encoding utf-16le" in got.output and "--encoding utf-16be" in got.output, \
        got.output
