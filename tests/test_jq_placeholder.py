"""The stub's jq placeholder run as written (``jq="JQ"``, which a note leaves for the model's own filter) is refused
with examples that run: each a whole call of the same read -- ``slurp=True`` and the caller's ``budget`` kept, a
records read's ``record=``/``records=`` too -- that fits what the entry holds. newuser12 copied ``jq="length"`` from
the refusal of ``read_handle(handle=<csv>, jq="JQ", slurp=True)`` and was refused again (slurp lost), and the refusal
without slurp named ``jq="keys[]"`` for a CSV, which jq does not read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scratchfs.api.contract import ScratchTools, error_text
from scratchfs.foundation.errors import InvalidArgument, ScratchError

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
STREAM = (FIXTURES / "tools" / "jq-pip-list-stream.json").read_bytes()  # real `pip list --format=json | jq '.[]'`


def contents() -> dict[str, bytes]:
    """Every file of fixtures/ and fixtures/tools/, and JSON lines and a JSON array made of the stream's documents
    (no fixture is either)."""
    found = {path.name: path.read_bytes() for folder in (FIXTURES, FIXTURES / "tools")
             for path in sorted(folder.iterdir()) if path.is_file() and path.name != "README.md"}
    decoder, text, documents, at = json.JSONDecoder(), STREAM.decode(), [], 0
    while text[at:].strip():
        document, end = decoder.raw_decode(text, len(text) - len(text[at:].lstrip()))
        documents.append(document)
        at = end
    found["pip-list.jsonl"] = "".join(json.dumps(document) + "\n" for document in documents).encode()
    found["pip-list-array.json"] = json.dumps(documents, indent=2).encode()
    return found


READS = [{"jq": "JQ"}, {"jq": "JQ", "slurp": True}, {"jq": "JQ", "record": 1, "records": 5}]


def refused(tools: ScratchTools, arguments: dict) -> ScratchError | None:
    try:
        tools.call("read_handle", arguments)
    except ScratchError as exc:
        return exc
    return None


def test_every_example_of_the_placeholders_refusal_runs_as_written(scope):
    tools = ScratchTools(scope)
    kinds: dict[str, int] = {}
    for name, data in contents().items():
        stub = scope.spill(data, source_tool="shell")
        for read in READS:
            for budget in (None, 4096):
                given = {"handle": stub.handle, **read, **({} if budget is None else {"budget": budget})}
                exc = refused(tools, given)
                assert isinstance(exc, InvalidArgument), (name, read)
                assert not error_text(exc).endswith("..."), (name, read)  # (whole: no call cut)
                calls = [call for call in (exc.advice.calls if exc.advice else ()) if call.verb == "read_handle"]
                placeholder = str(exc).startswith('jq="JQ" is the stub\'s placeholder')
                if placeholder and "which a jq= read does not parse" not in str(exc):  # (else: the reads of text)
                    assert calls, (name, read, str(exc))  # (an example of the placeholder's is a call)
                    kinds[stub.content_type] = kinds.get(stub.content_type, 0) + 1
                for call in calls:
                    arguments = dict(call.arguments)
                    assert arguments.get("budget") == budget, (name, read, str(call))
                    if placeholder and read.get("slurp") and "jq" in arguments:
                        assert arguments.get("slurp") is True, (name, str(call))  # (slurp kept)
                    if placeholder and "record" in read and "record" in arguments:
                        assert (arguments["record"], arguments.get("records")) == (1, 5), (name, str(call))
                    again = refused(tools, arguments)
                    assert again is None, (name, read, str(call), str(again))
    assert {"json", "jsonl", "csv", "text"} <= kinds.keys()  # (a JSON document, a stream, tables, aligned text)


def test_the_examples_fit_the_contents_shape(scope):
    tools = ScratchTools(scope)
    data = contents()

    def examples(name: str, **read) -> list[dict]:
        handle = scope.spill(data[name], source_tool="shell").handle
        exc = refused(tools, {"handle": handle, **read})
        assert exc is not None
        return [{k: v for k, v in call.arguments if k != "handle"} for call in exc.advice.calls]

    assert examples("query-packages-by-month.csv", jq="JQ") == [  # (a CSV: its rows, or jq over all of them)
        {"row": 1, "rows": 20}, {"jq": "length", "slurp": True}]
    assert {"jq": "keys[]"} in examples("api-ec2-service-model.json", jq="JQ")  # (an object: its keys)
    assert examples("pip-list-array.json", jq="JQ")[:2] == [{"jq": "length"}, {"jq": ".[0]"}]  # (an array)
    assert examples("pip-list-array.json", jq="JQ", slurp=True) == [{"jq": ".[0]"}]  # (one document: no slurp)
    assert examples("pip-list.jsonl", jq="JQ")[0] == {"record": 1, "records": 10, "jq": "keys"}  # (each record)
    assert examples("query-packages-by-month.csv", jq="JQ", slurp=True)[:2] == [
        {"jq": "length", "slurp": True}, {"jq": ".[0]", "slurp": True}]


@pytest.mark.parametrize("name", ["browser-rust-book.html", "workspace-grep-stdlib-defs.txt"])
def test_content_jq_does_not_parse_gets_the_reads_that_fit(scope, name):
    tools = ScratchTools(scope)
    handle = scope.spill((FIXTURES / name).read_bytes(), source_tool="shell").handle
    said = str(refused(tools, {"handle": handle, "jq": "JQ"}))
    assert said.startswith('jq="JQ" is the stub\'s placeholder: write a jq filter in its place; ')
    assert "which a jq= read does not parse" in said and "keys[]" not in said
