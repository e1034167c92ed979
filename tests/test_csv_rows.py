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
