"""Latin-1 or cp1252 text read as the user expects (``encoding="latin-1"`` / ``"cp1252"`` on byte, line and search
reads): every read showed U+FFFD for each byte not UTF-8 and the shape said "N bytes not UTF-8 (shown as U+FFFD)",
with no way to read them otherwise. With the argument each byte is one character, so offsets and lengths are exact
byte counts; a search's ``match``/``pattern`` is written in that encoding; every reply stays within its budget and
its next_call repeats the encoding -- in the Python tools face, the MCP tool schema, the CLI and the web API."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from scratchfs import ScratchStore
from scratchfs.api.contract import ScratchTools
from scratchfs.api.tools import TOOL_SPECS
from scratchfs.cli import main
from scratchfs.foundation.errors import InvalidArgument
from scratchfs.mcp.server import ScopeResolver, run_scratch_tool
from scratchfs.web import create_app
from tests.test_budgets import call_args

TEXT = "".join(f"ligne {n}: café au lait, naïve résumé, 10 €\n" for n in range(3000))
LATIN1 = TEXT.replace("€", "EUR").encode("latin-1")
CP1252 = TEXT.encode("cp1252")


@pytest.fixture
def spilled(tmp_path):
    with ScratchStore(tmp_path / "root") as store:
        scope = store.scope("r", "a")
        yield store, scope, scope.spill(LATIN1, source_tool="t"), scope.spill(CP1252, source_tool="t")


def test_the_shape_names_the_encoding_argument(spilled):
    _, _, stub, _ = spilled
    assert stub.content_type != "binary" and "not UTF-8" in stub.shape and 'encoding="latin-1"' in stub.shape


def test_a_range_and_lines_read_as_latin1_are_exact_in_offsets_and_go_on_with_it(spilled):
    _, scope, stub, _ = spilled
    tools = ScratchTools(scope)
    got = tools.read_handle(stub.handle, offset=3, length=200, encoding="latin-1")
    assert got["data"] == LATIN1[3:203].decode("latin-1") and got["offset"] == 3 and got["length"] == 200
    assert "replaced" not in got and got["encoding"] == "latin-1"
    assert got["next_call"].endswith('offset=203, length=200, encoding="latin-1")')
    big = tools.read_handle(stub.handle, offset=0, length=65536, encoding="latin-1", budget=4096)
    assert len(json.dumps(big, ensure_ascii=False, separators=(",", ":")).encode()) <= 4096
    assert big["data"] == LATIN1[: big["length"]].decode("latin-1") and big["next_offset"] == big["length"]
    lines = tools.read_handle(stub.handle, line=3, lines=2, encoding="latin-1")
    assert lines["data"] == "".join(TEXT.replace("€", "EUR").splitlines(keepends=True)[2:4])
    assert 'encoding="latin-1"' in lines["next_call"]
    euro = tools.read_handle(spilled[3].handle, offset=0, length=60, encoding="cp1252")
    assert euro["data"] == CP1252[:60].decode("cp1252") and "€" in euro["data"]


def test_a_search_seeks_text_written_in_the_encoding_with_exact_offsets(spilled):
    _, scope, stub, _ = spilled
    tools = ScratchTools(scope)
    found = tools.read_handle(stub.handle, match="résumé", context=5, max_matches=3, encoding="latin-1")
    starts = [m.start() for m in re.finditer(re.escape("résumé".encode("latin-1")), LATIN1)][:3]
    assert [w.get("match_offset", w["offset"]) for w in found["windows"]] == starts
    assert all("résumé" in w["data"] and "\ufffd" not in w["data"] for w in found["windows"])
    assert found["match"] == "résumé" and 'match="résumé"' in found["next_call"]
    assert 'encoding="latin-1"' in found["next_call"]
    again = tools.read_handle(**call_args(found["next_call"])[1])
    assert again["windows"][0]["match_offset"] == [m.start() for m in re.finditer(
        re.escape("résumé".encode("latin-1")), LATIN1)][3]
    by_pattern = tools.read_handle(stub.handle, pattern="na.ve r[ée]sum", max_matches=1, encoding="latin-1")
    assert by_pattern["windows"] and by_pattern["pattern"] == "na.ve r[ée]sum"
    counted = tools.read_handle(stub.handle, match="naïve", count=True, encoding="latin-1")
    assert counted["matches"] == 3000 and 'encoding="latin-1"' not in (counted["next_call"] or "")
    euro = tools.read_handle(spilled[3].handle, match="10 €", max_matches=1, encoding="cp1252")
    assert euro["windows"] and "10 €" in euro["windows"][0]["data"]
    with pytest.raises(InvalidArgument, match="latin-1"):
        tools.read_handle(stub.handle, match="10 €", encoding="latin-1")  # (no Latin-1 byte is €)
    with pytest.raises(InvalidArgument, match="encoding"):
        tools.read_handle(stub.handle, jq=".", encoding="latin-1")


def test_the_mcp_schema_the_cli_and_the_web_api_take_it(spilled):
    store, _, stub, _ = spilled
    schema = TOOL_SPECS["read_handle"].input_schema["properties"]["encoding"]
    assert set(schema["enum"]) == {"utf-8", "latin-1", "cp1252", "utf-16le", "utf-16be", "utf-16"}
    result = run_scratch_tool(ScopeResolver(store, "r", "a"), "read_handle",
                              {"handle": stub.handle, "line": 1, "lines": 1, "encoding": "latin-1"}, None)
    assert json.loads(result.content[0].text)["data"] == "ligne 0: café au lait, naïve résumé, 10 EUR\n"
    refused = run_scratch_tool(ScopeResolver(store, "r", "a"), "read_handle",
                               {"handle": stub.handle, "encoding": "koi8-r"}, None)
    assert refused.is_error
    done = CliRunner().invoke(main, ["read-handle", stub.handle, "--root", str(store.root), "--run", "r", "--agent",
                                     "a", "--line", "2", "--lines", "1", "--encoding", "latin-1"],
                              catch_exceptions=False)
    assert done.exit_code == 0 and done.stdout_bytes == "ligne 1: café au lait, naïve résumé, 10 EUR\n".encode()
    token = "test-token-0123456789abcdef"
    with TestClient(create_app(store, token), headers={"Authorization": f"Bearer {token}"}) as client:
        got = client.get(f"/api/runs/r/agents/a/handles/{stub.handle}/read",
                         params={"offset": 9, "length": 4, "encoding": "latin-1"}).json()
    assert got["data"] == "café"


@pytest.mark.parametrize(("asked", "where"), [
    ({"match": "résumé"}, {"offset": 999_999}), ({"match": "résumé"}, {"before": 999_999}),
    ({"match": "résumé", "ignore_case": True}, {"offset": 999_999}), ({"pattern": "r.sum[ée]"}, {"offset": 999_999}),
    ({"pattern": "r.sum[ée]"}, {"before": 999_999}), ({"match": "10 €", "end": 5000}, {"offset": 999_999})])
def test_a_search_past_the_end_names_its_calls_as_the_call_wrote_them(spilled, asked, where):
    """Refused past the end, a search with ``encoding=`` named its calls with the needle as the stored bytes read as
    UTF-8 (``match="r\ufffdsum\ufffd"``, ``pattern="r.sum[\\xe9\\xc9]"``) and no ``encoding=``: run, they found
    nothing, or not what the model asked. Each call now is the call's text, its encoding repeated: it finds matches."""
    _, scope, latin1, cp1252 = spilled
    euro = "€" in str(asked)
    tools, stub, encoding = ScratchTools(scope), cp1252 if euro else latin1, "cp1252" if euro else "latin-1"
    with pytest.raises(InvalidArgument) as refused:
        tools.read_handle(stub.handle, **asked, **where, encoding=encoding)
    calls = refused.value.advice.calls
    assert calls and "\ufffd" not in str(refused.value) and "\\x" not in str(refused.value), refused.value
    for call in calls:
        arguments = dict(call.arguments)
        assert {k: arguments.get(k) for k in asked if k != "end"} == {k: v for k, v in asked.items() if k != "end"}
        assert arguments["encoding"] == encoding
        assert tools.call("read_handle", arguments)["windows"], arguments
