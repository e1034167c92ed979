"""A size written in decimal-looking units (``64KB``, ``2M``, ``1 gb``) is refused, as the README says (decimal or
binary is not guessed), and the refusal now names the binary size meant and its bytes, and the decimal bytes
(helper newuser3: ``--run-quota-bytes 64KB`` said only "is not a size (bytes in ASCII digits, optionally followed by
B, KiB, MiB or GiB)"; ``$SCRATCHFS_SEGMENT_ENTRY_BYTES=64KB`` from Python "segment_entry_bytes must be an integer,
not str", naming no variable). The advice is followed here: what it names parses to the bytes it says."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from scratchfs import ScratchStore
from scratchfs.api.settings import Settings
from scratchfs.cli import main
from scratchfs.foundation import text as sizes
from scratchfs.foundation.errors import InvalidArgument

_ADVICE = re.compile(r"'(.+)' is not a size: (\w+) is not guessed \(decimal or binary\?\): (\d+)(KiB|MiB|GiB) is "
                     r"([\d,]+) bytes, (\d+) is (\d+) (kB|MB|GB)")


@given(st.integers(0, 10**6), st.sampled_from(["K", "KB", "kb", "M", "MB", "mb", "G", "GB", "gB"]), st.booleans())
def test_a_decimal_looking_size_names_the_binary_one_and_the_bytes_of_each(number, unit, space):
    text = f"{number}{' ' if space else ''}{unit}"
    assert sizes.size_bytes(text) is None
    found = _ADVICE.fullmatch(sizes.not_a_size(text))
    assert found, sizes.not_a_size(text)
    power = "KMG".index(unit[0].upper()) + 1
    assert sizes.size_bytes(found[3] + found[4]) == int(found[5].replace(",", "")) == number * 1024 ** power
    assert int(found[6]) == number * 1000 ** power and int(found[7]) == number


@pytest.mark.parametrize("text", ["-5", "1.5KiB", "10 TB", "lots", ""])
def test_other_text_is_told_as_before(text):
    told = f"{text!r} is not a size (bytes in ASCII digits, optionally followed by B, KiB, MiB or GiB)"
    assert sizes.not_a_size(text) == told


def test_every_face_that_takes_a_size_gives_the_advice(tmp_path, monkeypatch):
    advice = "'64KB' is not a size: KB is not guessed (decimal or binary?): 64KiB is 65,536 bytes, 64000 is 64 kB"
    result = CliRunner().invoke(main, ["spill", "-", "--run-quota-bytes", "64KB", "--root", str(tmp_path / "a"),
                                       "--run", "r", "--agent", "a"], input="x")
    assert result.exit_code == 2 and f"Invalid value for '--run-quota-bytes': {advice}" in result.stderr
    monkeypatch.setenv("SCRATCHFS_SEGMENT_ENTRY_BYTES", "64KB")
    result = CliRunner().invoke(main, ["spill", "-", "--root", str(tmp_path / "b"), "--run", "r", "--agent", "a"],
                                input="x")
    assert result.exit_code == 2 and f"$SCRATCHFS_SEGMENT_ENTRY_BYTES: {advice}" in result.stderr
    with pytest.raises(InvalidArgument) as caught:
        ScratchStore(tmp_path / "c")
    assert str(caught.value) == f"$SCRATCHFS_SEGMENT_ENTRY_BYTES (segment_entry_bytes): {advice}"


def test_a_size_given_as_text_is_the_callers_not_the_variables(tmp_path, monkeypatch):
    """The API told a bad $SCRATCHFS_SEGMENT_ENTRY_BYTES from a setting given as text by comparing the two (review
    helper revG): with the variable set to 64KiB, Settings(segment_entry_bytes="64KiB") was refused as the
    variable's "'64KiB' is not a size". The variable's text is marked by its default; text given is the caller's."""
    monkeypatch.setenv("SCRATCHFS_SEGMENT_ENTRY_BYTES", "64KiB")
    with pytest.raises(InvalidArgument) as caught:
        Settings(segment_entry_bytes="64KiB")
    assert "SCRATCHFS_SEGMENT_ENTRY_BYTES" not in str(caught.value), caught.value
    assert Settings().segment_entry_bytes == 65536


@given(text=st.text(min_size=61, max_size=100_000))
def test_a_long_text_is_named_by_its_first_characters(text):
    """A 100 KB value of a size setting (ScratchStore(segment_entry_bytes=...), $SCRATCHFS_SEGMENT_ENTRY_BYTES) was
    echoed whole in its refusal (found by helper hostile4): it is named by its first characters, as shorten() names
    any bad value."""
    told = sizes.not_a_size(text)
    assert told.startswith(repr(text)[:57] + "... is not a size") and len(told) < 150


def test_a_store_setting_of_100_kb_is_refused_in_a_short_message(tmp_path):
    with pytest.raises(InvalidArgument) as caught:
        ScratchStore(tmp_path / "r", segment_entry_bytes="6" * 100_000 + "KB")
    assert len(str(caught.value)) < 300, len(str(caught.value))
