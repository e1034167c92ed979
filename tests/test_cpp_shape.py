"""The C preprocessor's output (``gcc -E``): the file preprocessed, where its own code last resumes, and the headers
it took in -- the program's own first -- each at the line its text starts, against the plain Python reading of the
line markers of a real output (fixtures/tools/gcc-E-local-header.txt). It was told as ``text, 331 lines, 45%
blank``."""

from __future__ import annotations

from pathlib import Path

from scratchfs.api.contract import ScratchTools
from scratchfs.api.shape import describe
from scratchfs.api.shape_cpp import CPP_SHAPE

_TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"


def shape_of(data: bytes) -> str:
    return describe(data, len(data), data.count(b"\n") + (not data.endswith(b"\n"))).text


def _markers(lines: list[str]) -> list[tuple[int, str, list[str]]]:
    """Each line marker as (its line, the file, the flags), by splits."""
    found = []
    for at, line in enumerate(lines, 1):
        if line.startswith("# ") and line[2:3].isdigit() and '"' in line:
            _, name, flags = line.split('"')
            found.append((at, name, flags.split()))
    return found


def test_gcc_e_names_the_programs_own_header_first_and_where_its_code_resumes():
    data = (_TOOLS / "gcc-E-local-header.txt").read_bytes()
    lines = data.decode().splitlines()
    markers = _markers(lines)
    entered: dict[str, int] = {}
    for at, name, flags in markers:
        if "1" in flags and name != "prog.c":
            entered.setdefault(name, at + 1)
    system = {name for _, name, flags in markers if "3" in flags}
    resumes = max(at for at, name, _ in markers if name == "prog.c") + 1
    assert lines[resumes - 1].startswith("int norm(struct point p)") or lines[resumes - 1] == ""
    listed = [f"{name} (line {entered[name]})" for name in sorted(entered, key=lambda name: name in system)]
    shape = shape_of(data)
    assert listed[0] == f"inc/geom.h (line {entered['inc/geom.h']})"
    assert shape.startswith(f"{CPP_SHAPE} of prog.c, {len(lines)} lines, its own lines last from line {resumes}; "
                            f"{len(entered)} headers ({len(system & set(entered))} system headers): "
                            + ", ".join(listed[:3]))


def test_a_line_the_shape_names_reads_the_header_and_the_programs_code(scratch_scope):
    data = (_TOOLS / "gcc-E-local-header.txt").read_bytes()
    stub = scratch_scope.spill(data, source_tool="bash")
    line = int(stub.shape.split("inc/geom.h (line ", 1)[1].split(")", 1)[0])
    reply = ScratchTools(scratch_scope).call("read_handle", {"handle": stub.handle, "line": line, "lines": 3})
    assert reply["data"] == '\n# 1 "inc/geom.h"\nstruct point { int x, y; };\n'  # (gcc 12's blank and marker)
    resumes = int(stub.shape.split("its own lines last from line ", 1)[1].split(";", 1)[0].replace(",", ""))
    tail = ScratchTools(scratch_scope).call("read_handle", {"handle": stub.handle, "line": resumes, "lines": 10})
    assert "int main(void)" in tail["data"]


def test_text_opening_with_a_hash_comment_is_no_preprocessor_output():
    assert not shape_of(b'# 1 "a"\nplain\n' * 2 + b"# notes\n" * 30).startswith(CPP_SHAPE)


def test_a_sample_names_no_last_resumption_of_the_programs_code():
    """Of a content larger than its sample, the last marker of the program's file in the sample is not its last:
    the shape names the search from the end instead."""
    data = (_TOOLS / "gcc-E-local-header.txt").read_bytes()
    shape = describe(data[:8192], len(data), data.count(b"\n")).text
    assert shape.startswith(f"{CPP_SHAPE} of prog.c, 331 lines (in the first 8 KiB of 12 KiB); ")
    assert "its own lines last" not in shape and shape.endswith(", before=SIZE, max_matches=1 the last")


def test_output_that_took_in_no_header_says_so_and_lists_none():
    """``gcc -E -nostdinc m.c`` (gcc 12.2.0, Debian 12, of a two-line file that includes nothing, as written here):
    the shape said "0 headers (0 system headers): ;" (hostile37); it says no header was taken in."""
    data = (b'# 0 "m.c"\n# 0 "<built-in>"\n# 0 "<command-line>"\n# 1 "m.c"\n'
            b"int twice(int x) { return 2 * x; }\nint main(void) { return twice(21) - 42; }\n")
    shape = describe(data, len(data), data.count(b"\n")).text
    assert shape.startswith(f"{CPP_SHAPE} of m.c, 6 lines, its own lines last from line 5; no header taken in; ")
    assert "0 headers" not in shape and "): ;" not in shape
