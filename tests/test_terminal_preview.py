"""The preview of terminal output shows what a terminal shows: the last redraw of each line (helper replies6). A
``pip install``'s download bars, redrawn 101 times each after a bare ``\\r``, filled 850 bytes of a 1 KiB preview
with the bar's first 16 states, where a terminal shows one line per bar; the note said "bytes 0-852" alone."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from scratchfs.api.contract import ScratchTools
from scratchfs.api.terminal_preview import AS_SHOWN, RENDERED_BYTES
from scratchfs.engine.structure.terminal import render_text


def _bar(name: str) -> str:
    return "".join(f"\rDownloading {name} {i:3d}% [{'#' * (i // 5):<20}]" for i in range(101)) + "\n"


PIP = ("Collecting foo\n" + _bar("foo.tar.gz") + "Installing collected packages: foo\n" + _bar("bar.tar.gz")
       + "Successfully installed foo bar\n" + "".join(f"line {i}\n" for i in range(300)))


def _covered(note: str) -> int:
    return int(re.search(r"the preview shows bytes 0-(\d+)" + re.escape(AS_SHOWN), note).group(1))


def test_a_progress_bar_preview_shows_each_line_as_a_terminal_does(scratch_scope):
    stub = scratch_scope.spill(PIP, source_tool="pip")
    assert stub.shape.startswith("terminal output") and "\r" not in stub.preview
    assert stub.preview.startswith("Collecting foo\nDownloading foo.tar.gz 100% [####################]\nInstalling "
                                   "collected packages: foo\nDownloading bar.tar.gz 100% [####################]\n")
    end = _covered(stub.note)  # (the bytes its whole lines cover: the range read named goes on from there)
    assert stub.preview == render_text(PIP.encode()[:end]) and PIP.encode()[end - 1 : end] == b"\n"
    assert f'offset={end})' in stub.note and "line 60\n" in stub.preview  # (most of the preview: lines it shows)
    view = ScratchTools(scratch_scope).read_handle(stub.handle, view="text")  # (what view="text" shows, too)
    assert view["text"].startswith(stub.preview)


def test_output_with_nothing_drawn_over_keeps_its_bytes(scratch_scope):
    text = "".join(f"line {i}\n" for i in range(400))
    stub = scratch_scope.spill(text, source_tool="sh")
    assert AS_SHOWN not in stub.note and text.startswith(stub.preview)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(st.tuples(st.text(alphabet="ab #%", max_size=30), st.integers(0, 40)), min_size=1, max_size=60))
def test_the_preview_is_the_view_of_the_lines_it_covers(scratch_scope, lines):
    """Whatever the redraws (a line drawn 0 to 40 times, its states of any length), the preview is the text view of
    the whole lines its note says it covers, within the stub's budget."""
    content = "".join("".join(f"\r{text[: k % 31]}" for k in range(n)) + text + "\n" for text, n in lines) * 8
    stub = scratch_scope.spill(content, source_tool="t")
    if AS_SHOWN not in stub.note:
        event("plain preview")  # (not told as terminal output, or nothing drawn over in the lines shown)
        return
    event("drawn preview")
    end = _covered(stub.note) if "shows all of it" not in stub.note else len(content)
    assert stub.preview == render_text(content.encode()[:end])


def test_lines_past_the_rendered_bytes_keep_the_plain_preview(scratch_scope):
    """A first line longer than RENDERED_BYTES (a progress line of 300 KB) is not rendered for the preview (the
    rendering of dense redraws runs at a few MB/s): the plain preview, its note saying bytes alone."""
    line = "".join(f"\r{i % 100:3d}% [{'#' * (i % 100 // 5):<20}]" for i in range(RENDERED_BYTES // 20)) + "\n"
    stub = scratch_scope.spill(line + "done\n", source_tool="t")
    assert stub.shape.startswith("terminal output") and AS_SHOWN not in stub.note
    assert (line + "done\n").startswith(stub.preview)
