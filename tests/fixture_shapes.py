"""The shapes ``describe`` gives every file of ``fixtures/`` and ``fixtures/tools/`` (whole, its first 4 KiB as a
content of its own, and its first 8 KiB as the sample of the whole), and of wide tables made from each of them that
is a table (each line's cells repeated until the header has 400, 1,000 or 4,000 columns or more), recorded to show
that bounding the header vote (``table_start.header_votes``, branch wide1) changed no shape.

``tests/fixture_shapes.json`` was recorded with the code of main at be2cbb1, before that bound, by
``python -m tests.fixture_shapes --write``; ``tests/test_wide_tables.py`` checks that the code reproduces it. Rewritten
on branch replies7: the text view indents no ``<div>``, so ``browser-rust-book.html``'s "~N KiB of text" is smaller.
"""

from __future__ import annotations

import csv
import io
import json
import sys
from collections.abc import Iterator
from pathlib import Path

from scratchfs.api.shape import SAMPLE_BYTES, describe

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
RECORD = Path(__file__).resolve().parent / "fixture_shapes.json"
WIDTHS = (400, 1000, 4000)  # the fewest columns of the wide tables made from each table
WIDE_BYTES = 65536  # each wide table's bytes (its whole lines within them)


def line_count(data: bytes) -> int:
    """Lines as a spill counts them: ``\\n`` count, plus one for an unterminated last line."""
    return data.count(b"\n") + (bool(data) and not data.endswith(b"\n"))


def shape(data: bytes, size: int | None = None, lines: int | None = None) -> list[str]:
    """``[content_type, text]`` of ``data`` as the sample of a content of ``size`` bytes and ``lines`` lines."""
    found = describe(data[:SAMPLE_BYTES], len(data) if size is None else size,
                     line_count(data) if lines is None else lines)
    return [found.content_type, found.text]


def fixture_files() -> list[Path]:
    """The regular files at the top of ``fixtures/`` and of ``fixtures/tools/``, sorted (scripts too: each has a
    shape), but ``fixtures/README.md``, which grows a line with each fixture added (its provenance): its shape
    would change with every new fixture, not with the code."""
    return sorted(path for folder in (FIXTURES, FIXTURES / "tools") for path in folder.iterdir()
                  if path.is_file() and path != FIXTURES / "README.md")


def widened(data: bytes, width: int) -> bytes | None:
    """A table of at least ``width`` columns made from the CSV/TSV ``data``: each record's cells repeated as often as
    its header's must be (written back with its delimiter, quoted where a cell needs it), its whole records within
    :data:`WIDE_BYTES`; ``None`` when ``data`` is no table ``describe`` names."""
    found = describe(data[:SAMPLE_BYTES], len(data), line_count(data))
    if found.content_type != "csv":
        return None
    delimiter = "\t" if found.text.startswith("TSV") else ";" if "; separators" in found.text else ","
    text = data.decode("utf-8", "replace").removeprefix("\ufeff")
    skip = 0
    while text.startswith(("#", "sep="), skip):  # (comment lines and a sep= line stay as they are)
        skip = text.find("\n", skip) + 1
    try:
        records = list(csv.reader(io.StringIO(text[skip:], newline=""), delimiter=delimiter))
    except csv.Error:
        return None
    if not records or len(records[0]) < 2:
        return None
    times = -(-width // len(records[0]))
    out = io.StringIO()
    out.write(text[:skip])
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\n")
    for record in records:
        if out.tell() > 4 * WIDE_BYTES:
            break
        writer.writerow(record * times)
    wide = out.getvalue().encode("utf-8")
    return wide[: wide.rfind(b"\n", 0, WIDE_BYTES) + 1] or wide[:WIDE_BYTES]


def cases() -> Iterator[tuple[str, list[str]]]:
    """``(name, [content_type, text])`` of every recorded content."""
    for path in fixture_files():
        data = path.read_bytes()
        name = path.relative_to(FIXTURES).as_posix()
        yield f"{name}", shape(data)
        yield f"{name}@0+4096", shape(data[:4096])
        if len(data) > 8192:
            yield f"{name}@sample8192", shape(data[:8192], len(data), line_count(data))
        for width in WIDTHS:
            wide = widened(data, width)
            if wide is not None:
                yield f"{name}@wide{width}", shape(wide)


def main() -> None:
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python -m tests.fixture_shapes --write")
    record = dict(cases())
    RECORD.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(record)} shapes written to {RECORD}")


if __name__ == "__main__":
    main()
