"""Small faults left open by the last stop (replies10): a slurp read checked its cursor and budget twice (the API,
then ``slurp_page``, which checks them first thing); ``RunsListing.scans`` was typed ``Any``; ``failed_step`` wrote
its object look by ``str.replace`` over a text that could hold the replaced words twice."""

from __future__ import annotations

import typing

from scratchfs.api import structured
from scratchfs.engine import runs_listing
from scratchfs.engine.segments import Record
from scratchfs.engine.structure import jsonstream, slurp


def test_a_slurp_read_checks_its_cursor_and_budget_once(scope, monkeypatch):
    calls = []

    def counted(real):
        return lambda *args, **kwargs: calls.append(args) or real(*args, **kwargs)

    monkeypatch.setattr(structured, "check_page", counted(structured.check_page))
    monkeypatch.setattr(slurp, "check_page", counted(slurp.check_page))
    handle = scope.spill(b"".join(b'{"n": %d}\n' % i for i in range(2000)), source_tool="t").handle
    page = scope.structure.slurp(handle, "map(.n) | add", budget=4096)
    assert page.items == [sum(range(2000))]
    assert calls == [(None, 4096)]


def test_the_scans_of_a_runs_listing_are_typed_as_what_scan_segment_returns():
    hints = typing.get_type_hints(runs_listing.RunsListing)
    assert hints["scans"] == dict[tuple[str, ...], tuple[list[Record], int, str | None]]


def test_failed_step_names_each_look_once():
    assert jsonstream.FAILED_STEP.endswith("(the filter up to it, then `| .[0]`)")
    on_object = jsonstream.failed_step("Cannot index object with number")
    assert on_object == jsonstream.FAILED_STEP.replace("`| .[0]`", "`| keys`")
    assert jsonstream.failed_step("Cannot iterate over null").endswith("(the filter up to it alone)")
    assert jsonstream.failed_step("Cannot index array with string") == jsonstream.FAILED_STEP
    assert all(text.count("the filter up to it") == 1 for text in (on_object, jsonstream.FAILED_STEP))
