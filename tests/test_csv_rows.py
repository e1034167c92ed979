"""``scratchfs.foundation.csv_rows``: the csv module's reader reading a NUL in a field on every Python. Python 3.10's
refused a line holding one (``line contains NUL``): a table with a NUL in a quoted field was "binary data, not a
table" there and rows on 3.11 (test_cli, test_structure_misfit, each version since)."""

from __future__ import annotations

import csv
import io

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scratchfs.foundation.csv_rows import NulSafeReader, csv_reader


def test_a_nul_in_a_quoted_field_and_the_escape_characters_of_the_text_come_back_as_they_were():
    text = 'a,"b\x00\n\ufdd0\ufdd1x",\x00\n\ufdd0\ufdd2,"\x00\x00"\n'
    for reader in (NulSafeReader(io.StringIO(text, newline="")), csv_reader(io.StringIO(text, newline=""))):
        assert next(reader) == ["a", "b\x00\n\ufdd0\ufdd1x", "\x00"] and reader.line_num == 2
        assert list(reader) == [["\ufdd0\ufdd2", "\x00\x00"]] and reader.line_num == 3


def test_a_malformed_record_holding_a_nul_is_still_the_readers_error():
    with pytest.raises(csv.Error, match="',' expected after '\"'"):
        list(NulSafeReader(['"a\x00"b,c\n'], strict=True))


@given(st.text(alphabet=',"\n\r a\x00\ufdd0\ufdd1\ufdd2', max_size=60))
def test_a_nul_reads_as_any_other_character_would(text):
    """Rows as 3.11's reader reads them: NUL in place of a character the text does not hold (SOH, \\x01)."""
    try:
        expected = [[cell.replace("\x01", "\x00") for cell in row]
                    for row in csv.reader(io.StringIO(text.replace("\x00", "\x01"), newline=""))]
    except csv.Error:
        with pytest.raises(csv.Error):
            list(NulSafeReader(io.StringIO(text, newline="")))
        return
    assert list(NulSafeReader(io.StringIO(text, newline=""))) == expected


@pytest.fixture
def field_limit_8():
    """The csv module's field limit lowered to 8 characters for the test (process-wide: put back after it)."""
    before = csv.field_size_limit(8)
    yield 8
    csv.field_size_limit(before)


@pytest.mark.parametrize("reader", [NulSafeReader, csv_reader])
def test_a_field_of_nuls_is_as_long_to_the_field_limit_as_it_is(field_limit_8, reader):
    """Until 2026-12-06 each NUL was two characters to 3.10's field limit: ``a`` and seven NULs, eight characters,
    were "field larger than field limit (8)" on 3.10 and a row on 3.11."""
    line = '"a' + "\x00" * 7 + '",' + "\x00" * 8 + "\n"
    assert list(reader([line])) == [["a" + "\x00" * 7, "\x00" * 8]]
    with pytest.raises(csv.Error, match=r"field larger than field limit \(8\)"):
        list(reader(["b," + "\x00" * 9 + "\n"]))


@given(st.text(alphabet=',"\n\r a\x00\ufdd2', max_size=40))
def test_the_field_limit_refuses_a_row_as_it_would_with_any_other_character_for_nul(text):
    """The reader raises where 3.11's reader of the text with SOH (\\x01) for each NUL does, under a limit of 6."""
    before = csv.field_size_limit(6)
    try:
        try:
            expected = list(csv.reader(io.StringIO(text.replace("\x00", "\x01"), newline="")))
        except csv.Error as exc:
            with pytest.raises(csv.Error, match=str(exc)[:12]):
                list(NulSafeReader(io.StringIO(text, newline="")))
            return
        got = list(NulSafeReader(io.StringIO(text, newline="")))
        assert got == [[cell.replace("\x01", "\x00") for cell in row] for row in expected]
    finally:
        csv.field_size_limit(before)
