"""Text items each ended by a NUL byte -- `find -print0`, `git ls-files -z`, `env -0` -- are binary content (more than
1% NUL bytes), and their stub said only "binary, 35 KiB; starts with 2f 75 73 72 ..." over a hex dump (helper
realworld, `find /usr/lib/python3.11 -maxdepth 2 -print0`): nothing said it is a list of names. Its shape now says
so, with the count of items and the first ones, which the plain Python answer (bytes.split) checks."""

from __future__ import annotations

import io
import os
import tarfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scratchfs.api.shape_binary import binary_shape

FIND = Path(__file__).resolve().parent.parent / "fixtures" / "tools" / "find-print0-python3.bin"
CLAUSE = ", text separated by NUL bytes (as find -print0 or git ls-files -z print it), "


def test_find_print0_is_told_a_list_of_names(scope):
    data = FIND.read_bytes()
    names = data.split(b"\0")[:-1]
    assert len(names) == 60
    stub = scope.spill(data, source_tool="shell").to_dict()
    assert stub["content_type"] == "binary"
    assert stub["shape"].startswith(f"binary, 2 KiB{CLAUSE}60 items: /usr/lib/python3.11, "
                                    f"{names[1].decode()}, {names[2].decode()}, {names[3].decode()}, …; starts with")
    assert "starts with 2f 75 73 72 2f 6c 69 62" in stub["shape"]


def test_a_sample_of_a_larger_list_estimates_its_items():
    data = FIND.read_bytes() * 40  # (the sample cut inside an item: its items per byte over the whole)
    sample = data[:30000]
    shape = binary_shape(sample, len(data))
    estimate = int(shape.split(f"{CLAUSE}~", 1)[1].split(" items: ", 1)[0].replace(",", ""))
    assert abs(estimate - 2400) <= 24, shape  # (60 names 40 times, within 1%)


@pytest.mark.parametrize("data", [
    os.urandom(4096), b"\0" * 4096, b"a\0\0b\0" * 100,  # (random bytes; NULs alone; empty items)
    b"name\0with\x1bescape\0" * 100, b"caf\xe9\0" * 100, b"a line\n\0" * 100,  # (a control byte, no UTF-8, lines)
    b"\x7fELF\x02\x01\x01" + b"\0" * 200,
])
def test_other_binary_content_is_not(data):
    assert CLAUSE not in binary_shape(data, len(data))


def test_a_tar_is_a_tar():
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w") as tar:
        info = tarfile.TarInfo("notes.txt")
        info.size = 5
        tar.addfile(info, io.BytesIO(b"hello"))
    shape = binary_shape(out.getvalue(), len(out.getvalue()))
    assert ", tar, " in shape and CLAUSE not in shape


@given(st.lists(st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=30), min_size=2,
                max_size=50))
def test_the_items_are_those_bytes_split_gives(names):
    data = b"".join(name.encode() + b"\0" for name in names)
    shape = binary_shape(data, len(data))
    assert f"{CLAUSE}{len(names):,} items: " in shape
    shown = shape.split(" items: ", 1)[1].rsplit("; starts with", 1)[0]
    assert shown.startswith(names[0][:39].replace(";", "?"))
