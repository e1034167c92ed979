"""A page whose text before its first large block is short keeps the start of its text view as its stub's preview:
``pydoc -w json.decoder`` (helper modeltask6) -- its name, docstring and ``Modules``, 162 bytes of text, then a
``Classes`` table of one row holding every class, which no cut within the budget of tags closes -- was previewed as
876 bytes of ``<table>`` markup, because the view's start was not told unless it held 256 bytes."""

from __future__ import annotations

from pathlib import Path

from scratchfs.api.contract import ScratchTools
from scratchfs.engine.structure import html_worker

PAGE = Path(__file__).resolve().parent.parent / "fixtures" / "tools" / "pydoc-json-decoder.html"


def test_a_pydoc_page_of_a_one_line_docstring_previews_its_text_and_reads_on_from_it(scratch_scope):
    page = PAGE.read_bytes()
    view = html_worker.view_text(page)
    stub = scratch_scope.spill(page, source_tool="sh")
    covered = len(stub.preview.encode())
    assert stub.preview.startswith("json.decoder\n| index\n") and "<" not in stub.preview, stub.preview
    assert "Implementation of JSONDecoder\n\nModules\n\nre | json.scanner\n" in stub.preview
    assert 128 <= covered < 256 and view.startswith(stub.preview.encode())
    assert f'the preview shows bytes 0-{covered} of its text view (view="text")' in stub.note, stub.note
    after = ScratchTools(scratch_scope).call("read_handle", {"handle": stub.handle, "view": "text",
                                                             "offset": covered, "budget": 4096})
    assert after["text"].lstrip().startswith("Classes") and (stub.preview + after["text"]).encode() == \
        view[: covered + len(after["text"].encode())]
    assert len(stub.to_json().encode()) < 1300  # (the markup preview's stub: 1,836 bytes)
