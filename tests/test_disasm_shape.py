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
from scratchfs.api.shape_words import MOST_LINES, kib

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


def test_a_disassembly_of_more_lines_is_told_from_its_first_ones_and_says_how_much():
    """Past MOST_LINES lines a disassembly is told from its first ones, as the other kinds told by lines are (three
    matches in Python a symbol's line: 45 ms over 52,000 of 512 KiB, hostile35), its scope saying so; sections past
    those that fit in a part of the shape are counted, not joined into its head whole (objdump -D /bin/true's 29
    filled the shape, its symbols and the search that finds one cut off)."""
    head = b"\nx:     file format elf64-x86-64\n\n"
    data = head + b"".join(b"\nDisassembly of section .s%d:\n\n%016x <f%d>:\n  0:\tc3\tret\n" % (n, n, n)
                           for n in range(20_000))
    shape = describe(data, len(data), data.count(b"\n")).text
    first = data[: len(b"\n".join(data.split(b"\n")[:MOST_LINES])) + 1]
    sections, lines = first.count(b"Disassembly of section"), data.count(b"\n")
    assert shape.startswith(f"{DISASM_SHAPE} of x (elf64-x86-64), {lines:,} lines, {sections:,} "
                            f"sections (in the first {kib(len(first))} of {kib(len(data))}): .s0 (line 5), "), shape
    symbols = first.count(b">:\n")
    listed = re.findall(r"\.s(\d+) \(line ([\d,]+)\)", shape)
    assert [(int(n), int(line.replace(",", ""))) for n, line in listed] == [(n, 5 + 5 * n) for n in range(len(listed))]
    assert f", … {sections - len(listed):,} more; {symbols:,} symbols: f0 (line 7), " in shape, shape
    assert shape.endswith('; match="<NAME>:" finds a symbol, line=N reads from one'), shape


@pytest.mark.skipif(shutil.which("objdump") is None, reason="no objdump here")
def test_objdump_D_of_a_program_keeps_its_symbols_and_search():
    """objdump -D /bin/true writes 29 sections: their names filled the shape, cut at .dyna…, its symbols and the
    search that finds one gone (hostile35)."""
    out = subprocess.run(["objdump", "-D", "/bin/true"], capture_output=True).stdout
    if out.count(b"\nDisassembly of section ") < 20:
        pytest.skip("a program of fewer sections here")
    shape = describe(out[: 512 * 1024], len(out), out.count(b"\n")).text
    assert re.search(r" more; [\d,]+ symbols \([\d,]+ @plt\): ", shape), shape
    assert shape.endswith('; match="<NAME>:" finds a symbol, line=N reads from one'), shape
