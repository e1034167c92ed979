"""A Markdown document's shape: its headings, each with the line it stands on, against a CommonMark parser's
(markdown-it-py: its ``heading_open`` tokens and their line maps) on this repository's README and on generated
documents of paragraphs, ATX and setext headings and fenced blocks holding ``#`` lines; text that is no Markdown (a
script's ``#`` comments, a Python module) stays text."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from scratchfs import ScratchStore
from scratchfs.api.shape import describe
from scratchfs.api.shape_markdown import MARKDOWN_SHAPE, markdown_shape

ROOT = Path(__file__).resolve().parent.parent
_ITEM_RE = re.compile(r"(?:: |, )(#{1,6}) (.*?) \(line ([\d,]+)\)")


def shape_of(data: bytes) -> str:
    return describe(data, len(data), data.count(b"\n") + (not data.endswith(b"\n"))).text


def headings(shape: str) -> list[tuple[int, int, str]]:
    """(line, level, text) of each heading a shape lists."""
    return [(int(line.replace(",", "")), len(hashes), text) for hashes, text, line in _ITEM_RE.findall(shape)]


def commonmark(data: bytes) -> list[tuple[int, int, str]]:
    tokens = MarkdownIt("commonmark").parse(data.decode())
    return [(tok.map[0] + 1, int(tok.tag[1]), tokens[i + 1].content) for i, tok in enumerate(tokens)
            if tok.type == "heading_open" and tok.level == 0]


def test_this_readme_lists_the_headings_a_commonmark_parser_finds_at_their_lines():
    data = (ROOT / "README.md").read_bytes()
    shape, count = shape_of(data), data.count(b"\n")
    assert shape.startswith(f"{MARKDOWN_SHAPE}, {count:,} lines, ")
    expected = commonmark(data)
    shown = headings(shape)
    assert len(shown) >= 10 and shown == [(line, level, text) for line, level, text in expected if level <= 2][
        : len(shown)]


_WORDS = st.text("abc XYZ*_`", min_size=1, max_size=12).map(str.strip).filter(bool)
_BLOCK = st.one_of(
    _WORDS.map(lambda w: f"Some {w} text.\nA second line of it.\n"),
    st.tuples(st.integers(1, 6), _WORDS).map(lambda t: f"{'#' * t[0]} {t[1]}\n"),
    st.tuples(st.sampled_from("=-"), _WORDS).map(lambda t: f"Title {t[1]}\n{t[0] * 5}\n"),
    st.tuples(st.sampled_from(["```", "~~~", "````"]), _WORDS).map(
        lambda t: f"{t[0]}sh\n# a comment {t[1]}\n## not a heading\n{t[0]}\n"),
    st.just("- item one\n- item [link](http://x)\n"),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_BLOCK, min_size=1, max_size=25))
def test_generated_documents_give_the_headings_commonmark_gives(blocks):
    data = ("\n".join(blocks)).encode()
    expected = commonmark(data)
    shape = markdown_shape(data, data.count(b"\n") + 1, True, "")
    if shape is None:  # told apart from Markdown only with too few headings or no sign of it
        tokens = MarkdownIt("commonmark").parse(data.decode())
        atx = any(tok.markup.startswith("#") for tok in tokens if tok.type == "heading_open")  # (setext alone: text)
        atx_sub = any(tok.markup.startswith("##") for tok in tokens if tok.type == "heading_open")
        sign = atx_sub or b"```" in data or b"~~~" in data or b"](" in data
        nonblank = sum(1 for line in data.split(b"\n") if line.strip())
        assert len(expected) < 2 or not atx or not sign or len(expected) > 0.3 * nonblank
        return
    shown = headings(shape)
    listed = {(line, level) for line, level, _ in shown}
    assert listed <= {(line, level) for line, level, _ in expected}
    if "more;" not in shape:
        assert [(line, level) for line, level, _ in shown] == [(line, level) for line, level, _ in expected]
        assert [text for _, _, text in shown] == [text.strip() for _, _, text in expected]


def test_a_script_of_comments_and_a_python_module_stay_text():
    script = "".join(f"# step {n}: do the thing\ncommand --flag {n}\n" for n in range(200)).encode()
    assert not shape_of(script).startswith(MARKDOWN_SHAPE)
    module = (ROOT / "scratchfs" / "api" / "shape.py").read_bytes()
    assert not shape_of(module).startswith(MARKDOWN_SHAPE)
    single = b"# Title\n\n" + b"Just prose, one paragraph after another.\n\n" * 300
    assert not shape_of(single).startswith(MARKDOWN_SHAPE)


def test_a_page_fetched_as_markdown_and_spilled_names_its_sections_in_the_stub(tmp_path):
    page = "".join(f"## Section {n}\n\n" + f"Paragraph {n} with a [link](https://example.com/{n}).\n\n" * 30
                   for n in range(40))
    data = f"# A page\n\n{page}".encode()
    with ScratchStore(tmp_path) as store:
        stub = store.scope("r", "a").spill(data, source_tool="fetch")
    assert stub.content_type == "text" and stub.shape.startswith(f"{MARKDOWN_SHAPE}, ")
    shown = headings(stub.shape)
    lines = data.split(b"\n")
    assert len(shown) > 5 and all(lines[line - 1] == f"{'#' * level} {text}".encode() for line, level, text in shown)


def test_a_readme_that_starts_with_html_is_markdown_and_a_page_or_fragment_of_html_stays_html():
    body = (ROOT / "README.md").read_bytes()
    for start in (b'<p align="center"><img src="logo.png" width="200"></p>\n\n', b'<h1 align="center">x</h1>\n\n'):
        found = describe(start + body, len(start + body), (start + body).count(b"\n"))
        assert found.content_type == "text" and found.text.startswith(MARKDOWN_SHAPE), found.text[:80]
    page = b"<!doctype html><html><body>\n\n# not a heading\n\n## nor this\n\n```\nx\n```\n</body></html>\n" * 50
    assert describe(page, len(page), page.count(b"\n")).content_type == "html"
    fragment = b"<div><p>Hello</p><ul><li>a</li><li>b</li></ul></div>\n" * 300
    assert describe(fragment, len(fragment), fragment.count(b"\n")).content_type == "html"


def test_no_python_module_of_this_repository_is_told_as_markdown():
    """A Python module's ``#`` comments after a blank line are ATX headings to CommonMark, and a ``](`` (``x[k]()``)
    or a ``## `` comment was Markdown's sign: before, 4 of this repository's modules (scratchfs/web/api.py,
    tests/conftest.py, ...) and 105 of the 14,914 modules of the machine it was tried on were told as Markdown, their
    comments listed as headings. Two lines of a program at a line's start outside fenced blocks (``import x``,
    ``from x import y``, ``def f(``, ``class C:``) or a ``#!`` first line tell a program."""
    told = []
    for path in sorted([*ROOT.glob("scratchfs/**/*.py"), *ROOT.glob("tests/**/*.py"), *ROOT.glob("bench/**/*.py"),
                        *ROOT.glob("examples/**/*.py"), *ROOT.glob("reliability/**/*.py")]):
        if shape_of(path.read_bytes()).startswith((MARKDOWN_SHAPE, "YAML")):
            told.append(path.name)
    assert told == []


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["# a comment", "## another", "", "x = 1", "    return x", "def f(a):",
                                 "class C:", "import os", "from a.b import c", "[link](x)", "```", "# Title"]),
                max_size=40))
def test_a_program_is_no_markdown_and_markdown_quoting_one_in_fences_stays_markdown(lines):
    program = "\n".join(["import os", "", "# Comment one", "x = d[k]()", "", "## Comment two", "def f():",
                         *lines]).encode()
    assert not shape_of(program).startswith(MARKDOWN_SHAPE)
    script = "\n".join(["#!/bin/sh", "", "# Install", "make", "", "## Test", "make test [a](b)", *lines]).encode()
    assert not shape_of(script).startswith(MARKDOWN_SHAPE)
    fenced = "\n".join(["# Usage", "", "```python", "import os", "from a import b", "def f():", "```", "",
                        "## More", "", "Text with a [link](x)."]).encode()
    assert headings(shape_of(fenced)) == [(1, 1, "Usage"), (9, 2, "More")]


_SETTINGS_FILES = ["apt-50appstream.conf", "mpl-dark_background.mplstyle", "libpq5-copyright.txt", "tk-panedwindow.tcl",
                   "source-highlight-odf.outlang", "perl-lwp-with-verifycn.pl"]


@pytest.mark.parametrize("name", _SETTINGS_FILES)
def test_a_configuration_file_of_hash_comments_is_no_markdown(name):
    """apt's 50appstream (``## This file is provided by appstreamcli(1)`` over ``Acquire::IndexTargets {``), a
    matplotlib style (``### Boxplots`` over ``boxplot.boxprops.color: white``), Debian's copyright of ``Files:`` and
    ``License:`` fields under ``### PostgreSQL copyrights ###``, Tk's bindings, a source-highlight ``outlang``, a Perl
    example: each was 'Markdown, 77 lines, 3 headings: ## This file is provided by ...' -- its comments told as
    headings. A text whose lines (from its first heading, not indented, outside fenced blocks) are mostly settings or
    statements is none (fixtures/tools, this machine's files)."""
    data = (ROOT / "fixtures" / "tools" / name).read_bytes()
    assert not shape_of(data).startswith(MARKDOWN_SHAPE), shape_of(data)


def test_markdown_after_settings_or_quoting_them_stays_markdown():
    """A package's PKG-INFO (its ``Name:``/``Classifier:`` fields, then its README: fixtures/tools), a README showing
    settings in fenced or indented blocks, and one with a few ``Note: ...`` lines keep their headings."""
    pkg = (ROOT / "fixtures" / "tools" / "xmltodict-PKG-INFO.txt").read_bytes()
    assert [h[2] for h in headings(shape_of(pkg))] == ["xmltodict", "Namespace support", "Streaming mode"]
    settings_block = "```ini\n" + "".join(f"key{n} = {n}\n" for n in range(40)) + "```\n"
    indented = "".join(f"    key{n}: {n};\n" for n in range(40))
    doc = (f"# Setup\n\nWrite this file, then run it.\n\n{settings_block}\n## More\n\nNote: prose again.\n"
           f"It goes on here.\n\n{indented}\nAnd ends.\n").encode()
    assert headings(shape_of(doc)) == commonmark(doc) == [(1, 1, "Setup"), (48, 2, "More")]
