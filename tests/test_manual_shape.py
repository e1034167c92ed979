"""A man page as text and pydoc's documentation: their sections, and pydoc's classes, functions and methods, each at
the line it starts at, against the plain answer (the lines in capitals at a line's start; the module's ``__all__``
and the class's ``dir()``), on real ``man`` and ``pydoc`` output made here."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

import pytest

from scratchfs.api.shape import describe
from scratchfs.api.shape_manual import MANUAL_SHAPE, PYDOC_SHAPE

_ITEM_RE = re.compile(r"(?:: |, )((?:class )?[\w ]+?) \(line ([\d,]+)\)")


def shape_of(data: bytes) -> str:
    return describe(data, len(data), data.count(b"\n") + (not data.endswith(b"\n"))).text


def pydoc(name: str) -> bytes:
    return subprocess.run([sys.executable, "-m", "pydoc", name], capture_output=True, check=True,
                          env={"PAGER": "cat", "PATH": "/usr/bin:/bin"}).stdout


def assert_sections(out: bytes, page: str) -> None:
    """``out``, a man page's text, is told as ``page``'s manual with its sections -- the lines in capitals at a line's
    start -- each at its line."""
    lines = out.decode().splitlines()
    sections = [(line, n) for n, line in enumerate(lines, 1) if re.fullmatch(r"[A-Z][A-Z ]*[A-Z]", line)]
    shape = shape_of(out)
    assert shape.startswith(f"{MANUAL_SHAPE} {page}(1), {len(lines):,} lines, {len(sections)} sections: "), shape
    assert items(shape) == sections[: len(items(shape))] and len(items(shape)) >= 5


def items(shape: str) -> list[tuple[str, int]]:
    return [(name, int(line.replace(",", ""))) for name, line in _ITEM_RE.findall(shape)]


@pytest.mark.skipif(shutil.which("man") is None, reason="man is not installed")
@pytest.mark.parametrize("page", ["ls", "grep"])
def test_a_man_page_lists_its_sections_at_their_lines(page):
    out = subprocess.run(["man", page], capture_output=True, check=False, env={"PATH": "/usr/bin:/bin",
                                                                               "MANWIDTH": "80"}).stdout
    if not out.startswith(page.upper().encode()):
        pytest.skip(f"no man page for {page} here")
    assert_sections(out, page)



@pytest.mark.skipif(shutil.which("man") is None or shutil.which("col") is None, reason="man or col is not installed")
@pytest.mark.parametrize("page", ["ls", "bash"])
def test_a_man_page_through_col_b_whose_header_holds_tabs_is_a_manual(page):
    """``man bash | col -b`` (the usual way to strip a page's overstrikes) writes runs of spaces as tabs, its header
    ``BASH(1)\t\t\t    General Commands Manual\t\t       BASH(1)``: it was told as plain text (helper realkinds)."""
    out = subprocess.run(f"man {page} | col -b", shell=True, capture_output=True, check=False,
                         env={"PATH": "/usr/bin:/bin", "MANWIDTH": "80"}).stdout
    if not out.startswith(page.upper().encode()) or b"\t" not in out.split(b"\n", 1)[0]:
        pytest.skip(f"no man page for {page} here, or col kept no tab")
    assert_sections(out, page)


def test_a_man_page_header_with_tabs_is_told_without_man():
    header = b"BASH(1)\t\t\t    General Commands Manual\t\t       BASH(1)\n"  # (as col -b writes it, copied)
    page = header + b"\nNAME\n       bash - GNU Bourne-Again SHell\n\nSYNOPSIS\n       bash [options] [file]\n"
    assert shape_of(page).startswith(f"{MANUAL_SHAPE} bash(1), 7 lines, 2 sections: NAME (line 3), SYNOPSIS (line 6)")


def test_pydoc_of_a_package_lists_its_sections_classes_and_functions():
    out = pydoc("json")
    lines = out.decode().splitlines()
    shape = shape_of(out)
    assert shape.startswith(f"{PYDOC_SHAPE} of package json, {len(lines)} lines, "), shape
    listed = dict(items(shape))
    expected = {("class " + name if name[0].isupper() else name) for name in json.__all__}
    assert {name for name in listed if name not in ("NAME", "FILE") and not name.isupper()} == expected
    for name, line in listed.items():
        text = lines[line - 1]
        assert text == name if name.isupper() else text.startswith(f"    {name}(")


def test_pydoc_of_a_class_lists_its_methods_at_their_lines():
    out = pydoc("str")
    lines = out.decode().splitlines()
    shape = shape_of(out)
    methods = sorted(name for name in dir(str) if not name.startswith("__"))
    assert shape.startswith(f"{PYDOC_SHAPE} of class str in module builtins, {len(lines)} lines, "
                            f"{len(methods)} methods besides __dunder__ ones: "), shape
    listed = items(shape)
    assert [name for name, _ in listed] == methods[: len(listed)] and len(listed) >= 10
    assert all(lines[line - 1].startswith(f" |  {name}(") for name, line in listed)


def test_texts_that_only_look_like_a_manual_stay_text():
    assert not shape_of(b"Help on this matter:\n\nplease call\n" * 20).startswith(PYDOC_SHAPE)
    header = b"LS(1)          User Commands          CP(1)\n\nNAME\n   x\nSYNOPSIS\n   y\n"  # (names differ)
    assert not shape_of(header * 5).startswith(MANUAL_SHAPE)
    one = b"GIT(1)   Git Manual   GIT(1)\n\nNAME\n       git - the stupid content tracker\n"  # (one section)
    assert not shape_of(one).startswith(MANUAL_SHAPE)
