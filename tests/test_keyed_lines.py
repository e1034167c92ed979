"""Lines of a number and a name (``find -printf '%s %p\\n'``, ``wc -l`` and ``ls -s`` of many files, ``sha256sum``)
were told plain text: "the 10 largest files" over a 2 MB ``find -printf`` took a count and 7 pages of a search for
7-digit sizes (9 calls, 18 KB) and a sort by hand. Their shape now tells a table of 2 columns with no header line,
read by ``row=`` and ``slurp=true``, and names the read of the largest (helper modeltask14); text whose lines start
with numbers counting up (``nl``'s line-numbered code, a numbered list) or followed by words stays text."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scratchfs.api.contract import ScratchTools
from scratchfs.api.shape import describe
from scratchfs.api.shape_columns import LARGEST_SAID

LARGEST_JQ = re.search(r"jq=(['\"])(.*)\1, slurp=true", LARGEST_SAID).group(2)
"""The jq filter the shape names for the largest."""

TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"
NUMBERED = "a table of 2 columns parted by spaces on each of its first"


def shape_of(data: bytes) -> str:
    return describe(data, len(data), data.count(b"\n") + (not data.endswith(b"\n"))).text


def pairs(name: str) -> list[list[str]]:
    """The fixture's lines as a person cuts them: the number, the name after the spaces (``ls -s``' total and
    ``wc``'s last total line left out)."""
    lines = (TOOLS / name).read_text().splitlines()
    return [line.split(None, 1) for line in lines if not line.startswith("total ") and not line.endswith(" total")]


@pytest.mark.parametrize(("name", "after"), [("find-printf-size-path.txt", ""), ("wc-l-py-many.txt", ""),
                                             ("ls-s-lib.txt", " after line 1 (ls's total)")])
def test_sizes_and_names_are_a_table_whose_largest_one_read_lists(scratch_scope, name, after):
    data = (TOOLS / name).read_bytes()
    stub = scratch_scope.spill(data, source_tool="bash")
    assert stub.content_type == "text", stub.shape
    assert f", {NUMBERED} 50 lines{after} (a number, then a name), no header line{LARGEST_SAID}" in stub.shape, \
        stub.shape
    tools = ScratchTools(scratch_scope)
    largest = tools.read_handle(handle=stub.handle, jq=LARGEST_JQ, slurp=True)["results"][0]
    want = sorted(pairs(name), key=lambda pair: -int(pair[0]))[:10]
    assert [[str(size), path] for size, path in largest] == want
    assert all(isinstance(size, int) for size, _path in largest), largest  # (numbers: sorted as numbers)
    page = tools.read_handle(handle=stub.handle, row=1, rows=3)
    assert page["rows"] == pairs(name)[:3], page


def test_wc_s_total_is_a_footer_and_digests_are_a_table_with_no_largest(scratch_scope):
    counted = (TOOLS / "wc-l-json-email.txt").read_bytes()
    said = shape_of(counted)
    assert said.endswith(f"{NUMBERED} 25 lines (a number, then a name), no header line, then a footer, no row "
                         f'(line 26: "11200 total", line=26 reads it){LARGEST_SAID}'), said
    digests = (TOOLS / "sha256sum-py.txt").read_bytes()
    said = shape_of(digests)
    assert said.endswith(f"{NUMBERED} 40 lines (a digest, then a name), no header line"), said
    stub = scratch_scope.spill(digests, source_tool="bash")
    page = ScratchTools(scratch_scope).read_handle(handle=stub.handle, row=2, rows=1)
    assert page["rows"] == [pairs("sha256sum-py.txt")[1]], page


@pytest.mark.parametrize("data", [
    (TOOLS / "nl-numbered-code.txt").read_bytes(),  # nl -ba -s' ': line numbers count up, code after them
    b"".join(b"%d item%d\n" % (n, n) for n in range(1, 30)),  # a numbered list of one word each
    b"".join(b"%d was the year of %d things\n" % (1990 + 7 * n, n) for n in range(30)),  # sentences
    b"".join(b"%s  file%d\n" % (b"ab" * 10, n) for n in range(30)),  # 20 hexadecimal digits: no digest
    b"4096 /\n4096 /etc\n\n14 /etc/rc2.d\n20 /etc/x\n2065 /etc/y\n38 /etc/z\n",  # a blank line among them
])
def test_text_whose_lines_start_with_numbers_stays_text(data):
    said = shape_of(data)
    assert "table" not in said and "largest" not in said, said


def numbered_pairs(name: str) -> list[list[str]]:
    """The fixture's lines of a number and a name whose name is no ``total``: ``xargs wc -l``'s batches each end
    with one, ``find`` writes its ``find: '/x': Permission denied`` among them."""
    pairs = [line.split(None, 1) for line in (TOOLS / name).read_text().splitlines()]
    return [pair for pair in pairs if pair[0].isdigit() and pair[1] != "total"]


@pytest.mark.parametrize("name", ["wc-l-xargs-totals.txt", "find-printf-denied.txt"])
def test_the_named_read_of_the_largest_leaves_out_totals_and_error_lines(scratch_scope, name):
    data = (TOOLS / name).read_bytes()
    stub = scratch_scope.spill(data, source_tool="bash")
    assert LARGEST_SAID in stub.shape, stub.shape
    largest = ScratchTools(scratch_scope).read_handle(handle=stub.handle, jq=LARGEST_JQ, slurp=True)["results"][0]
    want = sorted(numbered_pairs(name), key=lambda pair: -int(pair[0]))[:10]
    assert [[str(size), path] for size, path in largest] == want, largest
    assert all(isinstance(size, int) for size, _path in largest), largest
