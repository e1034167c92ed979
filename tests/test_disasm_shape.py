"""``objdump -d`` output: its sections and symbols, each at the line it starts at, and the pattern that finds a symbol
(helper modeltask3: ``objdump -d /bin/true``, 224 KB, was told ``text, 4,161 lines``, and finding ``.text`` took a
search of 2.3 KB; ``fixtures/tools/objdump-d-prog.txt``), against the plain answer (the lines objdump writes for
them); other text, ``objdump -h``'s section headers among it, is told as before."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from scratchfs import ScratchStore
from scratchfs.api.contract import ScratchTools
from scratchfs.api.shape import describe
from scratchfs.api.shape_disasm import DISASM_SHAPE

PROG = (Path(__file__).resolve().parent.parent / "fixtures" / "tools" / "objdump-d-prog.txt").read_bytes()
_ITEM_RE = re.compile(r"(?:: |, )([^\s,:(][^,:]*?) \(line ([\d,]+)\)")


def shape_of(data: bytes) -> str:
    return describe(data, len(data), data.count(b"\n") + (not data.endswith(b"\n"))).text


def items(shape: str) -> list[tuple[str, int]]:
    return [(name, int(line.replace(",", ""))) for name, line in _ITEM_RE.findall(shape)]


def expected(data: bytes) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    lines = data.decode().splitlines()
    sections = [(m[1], n) for n, line in enumerate(lines, 1) if (m := re.fullmatch(r"Disassembly of section (\S+):",
                                                                                     line))]
    symbols = [(m[1], n) for n, line in enumerate(lines, 1) if (m := re.fullmatch(r"[0-9a-f]+ <(.+)>:", line))]
    return sections, symbols


def test_objdump_d_names_its_sections_and_symbols_at_their_lines():
    shape = shape_of(PROG)
    sections, symbols = expected(PROG)
    assert shape.startswith(f"{DISASM_SHAPE} of prog (elf64-x86-64), 259 lines, 5 sections: "), shape
    told = items(shape)
    assert told[:5] == sections, shape
    own = [item for item in symbols if "@plt" not in item[0]]
    stubs = [item for item in symbols if "@plt" in item[0]]
    assert f"; {len(symbols)} symbols ({len(stubs)} @plt): " in shape, shape
    assert told[5:] == (own + stubs)[: len(told) - 5] and ("main", 206) in told, shape  # (the stubs last)
    assert shape.endswith('match="<NAME>:" finds a symbol, line=N reads from one'), shape


def test_the_pattern_and_the_line_the_stub_names_read_the_symbol(tmp_path):
    """The model's path: the stub's shape names main's line and the search; each read lands on its first line."""
    with ScratchStore(root=tmp_path) as store:
        scope = store.scope("r", "a")
        stub = scope.spill(PROG, source_tool="objdump")
        tools = ScratchTools(scope)
        found = tools.call("read_handle", {"handle": stub.handle, "match": "<main>:", "context": "line"})
        assert [(w["line"], w["data"]) for w in found["windows"]] == [(206, "0000000000001267 <main>:")]
        read = tools.call("read_handle", {"handle": stub.handle, "line": 206, "lines": 2})
        assert read["data"].startswith("0000000000001267 <main>:\n    1267:\t55 "), read


def test_symbols_named_for_sections_come_after_the_others_and_before_the_stubs():
    """``objdump -d`` of a stripped binary names only its sections (``<.text>``) and ``@plt`` stubs: the sections'
    before the stubs."""
    text = PROG.replace(b"<main>:", b"<.text>:").replace(b"<_init>:", b"<.init>:")
    told = items(shape_of(text))[5:]
    names = [name for name, _ in told]
    assert told[names.index(".init"):names.index(".init") + 2] == [(".init", 7), (".text", 206)], told
    assert all("@plt" not in name for name in names[:names.index(".init")]), told  # (own symbols, then sections'
    assert "@plt" in names[names.index(".text") + 1], told  # then the stubs)


@pytest.mark.parametrize("data", [
    PROG.split(b"Disassembly of section")[0] + b"Sections:\nIdx Name          Size      VMA\n" * 40,  # (objdump -h)
    b"prog: file format is unknown\n" + b"some text\n" * 50,
    b"\n" + b"Disassembly of section .text:\n" * 3])
def test_other_text_is_not_told_as_a_disassembly(data):
    assert not shape_of(data).startswith(DISASM_SHAPE)


@pytest.mark.skipif(shutil.which("objdump") is None or not Path("/bin/true").exists(), reason="no objdump here")
def test_objdump_d_of_a_system_binary_is_told_so():
    out = subprocess.run(["objdump", "-d", "/bin/true"], capture_output=True, check=True).stdout
    shape = shape_of(out)
    sections, _ = expected(out[:512 * 1024])
    assert shape.startswith(f"{DISASM_SHAPE} of /bin/true (") and f"{len(sections)} sections: " in shape, shape
    assert items(shape)[: len(sections)] == sections, shape
