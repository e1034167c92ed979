"""A bad record read once (open10). A jq parse error in JSON lines that names no byte (jq was given other bytes than
the content's: one not UTF-8) placed its line with ``line_offset`` and its record with ``record_at_line``: two passes
over the content from byte 0; one pass now (``row_jump.line_place``), and the record a cut record starts on, lines
before, is counted from that line's start. A slurp read over records parsed each bad record again for the words a
records read gives it; its first parse (with its ``\n``, as a records read parses it) gives them now. The advice and
the words are the same (tests/test_jq_parse_places.py, test_jsonl_cut_records.py)."""

from __future__ import annotations

import json

import pytest

from scratchfs.api import jq_failure
from scratchfs.engine.structure import BytesSource, jsonl_records, row_jump
from scratchfs.engine.structure.slurp import slurp_page
from scratchfs.foundation.errors import NotJson

_RECORDS = 120_000
_GOOD = b"".join(b'{"i": %d}\n' % i + (b"\n" if i % 7 == 0 else b"") for i in range(_RECORDS))
"""~1.6 MB of records, blank lines among them: more than broken_start reads back (a window, 1 MiB, and 64 KiB)."""


class _FromZero(BytesSource):
    """Content that counts its reads that start at byte 0."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.from_zero = 0

    def read(self, offset: int, length: int) -> bytes:
        self.from_zero += offset == 0
        return super().read(offset, length)


@pytest.mark.parametrize(("broken", "back"), [(b'{"s": \xff}\n', 0), (b'{"s": "cut \xff\n', 1),
                                              (b'{"s": "cut\nstill \xff cut\n', 2)])
def test_a_parse_error_with_no_byte_passes_over_the_content_once(broken, back):
    data = _GOOD + broken + b'{"after": 1}\n' * 3
    line = _GOOD.count(b"\n") + 1 + back  # (the line jq names: the cut record read on into the lines after it)
    source = _FromZero(data)
    advice = jq_failure.stream_broken(NotJson("jq: parse error", by_jq=True, line=line, column=3), "h_x", ".i",
                                      None, source)
    record = row_jump.record_at_line(BytesSource(data), _GOOD.count(b"\n") + 1)
    assert record == _RECORDS + 1 and f"(record {record:,})" in str(advice), str(advice)
    assert ("jq read it on into line" in str(advice)) == bool(back), str(advice)
    assert source.from_zero == 1, source.from_zero


@pytest.mark.parametrize("ended", [True, False])
def test_a_slurp_read_parses_a_bad_record_once_and_names_it_as_a_records_read(monkeypatch, ended):
    bad = ['{"bad": "cut', '{"bad": 1,', '{"bad" 1}', '{"bad": [' * 3, '{"bad": "tab\there"}']
    lines = [json.dumps({"n": i}) for i in range(20)] + bad
    data = ("\n".join(lines) + ("\n" if ended else "")).encode()
    parsed: list[str] = []
    loads = json.loads

    def counted(text, *args, **kwargs):
        parsed.append(text)
        return loads(text, *args, **kwargs)

    monkeypatch.setattr(json, "loads", counted)
    page = slurp_page(BytesSource(data), "map(.n)", "records", budget_bytes=65536)
    monkeypatch.undo()
    assert page.items == [list(range(20))]
    for number, text in enumerate(bad, start=21):
        assert sum(p.startswith(text) for p in parsed if isinstance(p, str)) == 1, (text, parsed[-12:])
        start = data.index(text.encode())
        last = number == len(lines) and not ended
        said = jsonl_records.bad_record(number, start, len(text) + (not last), _error(text + ("" if last else "\n")))
        assert f"{said} -- passed over" in page.extra["note"], (said, page.extra["note"])


def _error(text: str) -> ValueError:
    try:
        json.loads(text)
    except ValueError as exc:
        return exc
    raise AssertionError(text)
