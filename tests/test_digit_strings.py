"""A number written as a string of digits -- by a caller (a JSON pointer, a column, a jq path, an environment
variable) or inside a stored output (a terminal's control sequence) -- is converted without ``int()``'s ValueError
past Python's 4,300-digit limit (``sys.get_int_max_str_digits``): each gave an internal error or a traceback
(``ESC[`` and 5,000 digits in a build log failed its ``view="text"``; ``?path=/a/99...9`` and ``?columns=99...9``
answered 500; ``--column 99...9`` printed a traceback; a path read past the jq bound crashed on ``."\\q"``). Each is
now what a number of that size means there, or one typed refusal."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from scratchfs import InvalidArgument, ScratchStore
from scratchfs.api.contract import ScratchTools
from scratchfs.cli import main
from scratchfs.engine.structure import BytesSource, jq_page, jsondoc
from scratchfs.engine.structure.terminal import render_text
from scratchfs.foundation.text import digits_int
from scratchfs.web import create_app

LONG = "9" * 5000


def test_digits_int_never_raises():
    assert digits_int("0042") == 42 and digits_int("0" * 5000 + "7") == 7 and digits_int("0") == 0
    assert digits_int(LONG) is None and digits_int("1" * 31) is None and digits_int("1" * 30) == int("1" * 30)
    assert digits_int("") is None and digits_int("-1") is None and digits_int("²") is None and digits_int("١") is None


def test_a_terminal_sequence_with_thousands_of_digits_renders(scratch_scope):
    raw = (b"\x1b[32mok\x1b[0m\n" * 3 + b"\rbar\r" * 3 + b"\nab\x1b[" + LONG.encode() + b"Dc\n"
           + b"x\x1b[" + LONG.encode() + b"Cy\n" + b"z\x1b[" + b"0" * 5000 + b"2Gw\n")
    assert render_text(raw).splitlines()[-3:] == ["cb", "x" + " " * 1023 + "y", "zw"]
    handle = scratch_scope.spill(raw, source_tool="make").handle
    reply = ScratchTools(scratch_scope).call("read_handle", {"handle": handle, "view": "text"})
    assert reply["text"] == render_text(raw)


def test_the_web_api_refuses_long_digit_strings_as_bad_arguments(tmp_path):
    with ScratchStore(tmp_path / "s") as store:
        scope = store.scope("r", "a")
        doc = scope.spill(json.dumps({"a": [1, 2]}), source_tool="api").handle
        table = scope.spill("a,b\n1,2\n", source_tool="sql").handle
        with TestClient(create_app(store, "t0ken"), headers={"Authorization": "Bearer t0ken"}) as client:
            base = "/api/runs/r/agents/a/handles/"
            got = client.get(f"{base}{doc}/tree", params={"path": "/a/" + LONG})
            assert got.status_code == 400 and "no node" in got.json()["error"]["message"]
            assert client.get(f"{base}{doc}/tree", params={"path": "/a/" + "0" * 5000}).status_code == 400
            got = client.get(f"{base}{table}/read", params={"row": 1, "columns": "1" * 1000})
            assert got.status_code == 400 and got.json()["error"]["kind"] == "invalid argument"


def test_the_cli_refuses_a_long_digit_column_in_one_line(tmp_path):
    root = str(tmp_path / "s")
    with ScratchStore(root) as store:
        handle = store.scope("r", "a").spill("a,b\n1,2\n", source_tool="sql").handle
    result = CliRunner().invoke(main, ["read-handle", handle, "--row", "1", "--column", LONG, "--root", root,
                                       "--run", "r", "--agent", "a"])
    assert result.exit_code == 2 and (result.exception is None or isinstance(result.exception, SystemExit))
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, result.stderr


def test_a_long_digit_segment_setting_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("SCRATCHFS_SEGMENT_ENTRY_BYTES", LONG)
    with pytest.raises(InvalidArgument):
        ScratchStore(tmp_path / "s")


def test_path_reads_past_the_jq_bound_refuse_what_jq_does_not_compile(monkeypatch):
    doc = BytesSource(b'{"a": [1, 2]}')
    under = [jq_page(doc, flt).to_dict()["results"] for flt in (".a[" + "0" * 4000 + "1]", ".a[" + "9" * 4000 + "]")]
    monkeypatch.setattr(jsondoc, "MAX_JQ_DOCUMENT_BYTES", 0)
    assert [jq_page(doc, flt).to_dict()["results"]
            for flt in (".a[" + "0" * 4000 + "1]", ".a[" + "9" * 4000 + "]")] == under == [[2], [None]]
    for flt in ('."\\q"', '.["\\u12"]', "." + "a" * 5000):
        with pytest.raises(InvalidArgument):
            jq_page(doc, flt)
