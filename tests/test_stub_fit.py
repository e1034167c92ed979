"""``build_stub``'s fitting (the previews it tries until the stub fits :data:`MAX_STUB_BYTES`) gives the stub it gave
before it counted a try's line reads only where the note names them (issue 16, stubcost1): the frozen copy
``tests/reference_stub_fit.py`` against the module, on random contents, content types, shapes, modes and budgets."""

from __future__ import annotations

import io
import tarfile

from hypothesis import example, given, settings
from hypothesis import strategies as st

from scratchfs.api import stub as stub_module
from scratchfs.api.html_preview import IN_TEXT_VIEW
from scratchfs.api.line_fit import lines_within
from scratchfs.api.shape import describe
from scratchfs.api.stub import build_stub
from scratchfs.foundation.limits import MAX_STUB_BYTES
from tests import reference_stub_fit

LINES = st.one_of(
    st.binary(max_size=120),
    st.text(max_size=200).map(lambda text: text.encode("utf-8", "surrogatepass")),
    st.sampled_from([b'{"a": "b\\"c", "d": [1, 2]}', b"a,b,\"c,d\"", b"ERROR: failed", b"Traceback (most recent",
                     b"\x1b[31mred\x1b[0m", b"\t\t\x00\x01", "caf\u00e9 \u6771\u4eac \U0001f600".encode(),
                     b"x" * 3000, b"2026-12-06 17:45:00 INFO ok", b"<p>text</p>", b"\r"]),
)
CONTENTS = st.builds(lambda lines, sep, end, times: (sep.join(lines) + end) * times,
                     st.lists(LINES, max_size=80), st.sampled_from([b"\n", b"\n", b"\r\n", b"\n\n"]),
                     st.sampled_from([b"", b"\n"]), st.sampled_from([1, 1, 3, 20]))
KINDS = st.sampled_from([None, "json", "jsonl", "csv", "html", "xml", "log", "text", "binary"])
SHAPES = st.one_of(st.none(), st.text(max_size=500), st.sampled_from(
    ["described"] * 4 + ['object with 3 keys: "a" (array of 20 objects), "b", "c"', "gzip-compressed data",
                         "tar archive", "zip archive", "terminal output: progress bars redrawn"]))
BUDGETS = st.sampled_from([0, 1, 16, 100, 700, 1024, 1500, 4096, 65536])


def _tar(names: list[str]) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.USTAR_FORMAT) as archive:
        for i, name in enumerate(names):
            data = (name * (i + 1)).encode()
            info = tarfile.TarInfo(f"dir/{name}{i}.txt")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return out.getvalue()


def _stubs(data, tail_bytes, more, lines_more, kind, shape_text, tool, budget, mode, longest, first_error):
    size = len(data) + more
    lines = data.count(b"\n") + (not data.endswith(b"\n")) + lines_more
    tail = data[len(data) - min(len(data), tail_bytes) :] if not more else b"\x00" * min(tail_bytes, more)
    next_read = top = None
    if shape_text == "described":  # the shape, content type and reads its describer gives (a spill's stub)
        found = describe(data, size, lines)
        kind, shape_text, next_read, top = found.content_type, found.text, found.next_read, found.top
        first_error = found.first_error if first_error is None else first_error
    args = ("h_" + "q" * 24, data, tail, size, lines, kind, shape_text, tool, budget, mode, longest, next_read, top,
            first_error)
    return build_stub(*args), reference_stub_fit.build_stub(*args)


@settings(max_examples=400, deadline=None)
@given(CONTENTS, st.sampled_from([0, 100, 4098, 9000]), st.sampled_from([0, 0, 1, 5000, 10**7]),
       st.integers(0, 200), KINDS, SHAPES, st.sampled_from([None, "bash", 't"\\\u00fc' * 30]), BUDGETS,
       st.sampled_from(["head", "head", "head+tail"]), st.none() | st.integers(0, 20000),
       st.none() | st.integers(1, 400))
@example(b"".join(b"line %d of a log\n" % i for i in range(400)), 9000, 0, 0, "log", None, "bash", 1024, "head",
         None, None)  # (its last lines named: the read of them counted)
@example(b"".join(b"line %d of a log\n" % i for i in range(40)), 9000, 0, 0, "text", None, None, 1024, "head",
         None, 30)  # (its last lines not named: the preview and the line read hold them all)
@example((b"x" * 87 + b"\n") * 58 + b"y" * 4007 + b"\n", 9000, 0, 0, "log", None, None, 1024, "head", None, None)
# (its one last line named, the line after the line read's: line=-1, lines=1)
@example(b"a\x00\x01" * 900, 0, 0, 0, "binary", None, None, 1024, "head", None, None)
@example(_tar(["alpha", "beta", "gamma"] * 5), 0, 0, 0, None, "described", None, 1024, "head", None, None)
@example(b"abc def\n<p>x</p>", 0, 0, 0, "html", None, None, 1024, "head", None, None)  # (its text view's start)
def test_the_fit_gives_the_stub_it_gave(data, tail_bytes, more, lines_more, kind, shape_text, tool, budget, mode,
                                        longest, first_error):
    new, old = _stubs(data, tail_bytes, more, lines_more, kind, shape_text, tool, budget, mode, longest, first_error)
    if IN_TEXT_VIEW in new.note and new.content_type == "html" and mode == "head":  # (since htmlpreview1: the start
        assert len(new.to_json().encode("utf-8")) <= MAX_STUB_BYTES or not new.preview  # of its text view)
        return
    if new.content_type == "html" and 'view="text", ' in new.note:  # (since modelfollow1: its text searched, its
        assert len(new.to_json().encode("utf-8")) <= MAX_STUB_BYTES or not new.preview  # headings selected)
        return
    assert (new.to_dict(), new.source_tool) == (old.to_dict(), old.source_tool)
    assert new.to_json() == old.to_json()
    assert len(new.to_json().encode("utf-8")) <= MAX_STUB_BYTES or not new.preview


def test_a_note_that_names_no_last_lines_does_not_count_them(monkeypatch):
    # a 4 KiB text whose line read holds every line after the preview: its last lines are not named, so only the
    # read from the preview's end is counted (both were, before stubcost1: 10 us of a 4 KiB spill's ~50 us stub)
    data = b"".join(b'    "key %d": "a value of a JSON text, with more words in it",\n' % i for i in range(60))
    calls = []
    monkeypatch.setattr(stub_module, "lines_within", lambda *args: calls.append(args) or lines_within(*args))
    new, old = _stubs(data, 9000, 0, 0, "text", None, "bash", 1024, "head", None, None)
    assert (new.to_dict(), new.source_tool) == (old.to_dict(), old.source_tool)
    assert "line=-" not in new.note and ", line=" in new.note  # (a line read named, the last lines not)
    assert [forward for *_, forward in calls] == [True]


def test_a_note_whose_counts_say_what_it_said_is_not_written_again(monkeypatch):
    # short lines of one length: the counted line read holds as many lines as the average line told (50), so the
    # try that fits keeps the note it was written with -- one note a try, not a second for the kept one (a third of
    # a 4 KiB text's stubs wrote it again in the same words, stubcost2)
    data = b"".join(b"line %04d of a log, all as long.\n" % i for i in range(120))
    notes, previews = [], []
    text, make_preview = stub_module._Note.text, stub_module.make_preview
    monkeypatch.setattr(stub_module._Note, "text", lambda *args: notes.append(args) or text(*args))
    monkeypatch.setattr(stub_module, "make_preview", lambda *args: previews.append(args) or make_preview(*args))
    new, old = _stubs(data, 9000, 0, 0, "text", None, "bash", 1024, "head", None, None)
    assert (new.to_dict(), new.source_tool) == (old.to_dict(), old.source_tool)
    assert ", line=" in new.note and "lines=" not in new.note  # (counted 50: the default, left out)
    assert len(notes) == len(previews) >= 1
