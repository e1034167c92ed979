"""The refusal of the stub's jq placeholder run as written (``jq="JQ", slurp=true``) gives example filters; each one
that names no placeholder of its own runs, as the model copies it, on the rows or records the stub spoke of and gives
no null. The examples were ``map(.name)`` and ``group_by(.unit) | ...``: on ``dpkg-query``'s CSV export (columns
package, version, installed_kb, description) the first gave 825 nulls and the second one group keyed null, silently.
"""

from __future__ import annotations

import csv
import io
import json
import re

import pytest

from scratchfs.api.contract import ScratchTools
from scratchfs.foundation.errors import InvalidArgument

ROWS = [{"package": f"p{i}", "version": f"1.{i}", "installed_kb": i * 10} for i in range(40)]
_CSV = "package,version,installed_kb\n" + "".join(f"{r['package']},{r['version']},{r['installed_kb']}\n" for r in ROWS)
_JSONL = "".join(json.dumps(r) + "\n" for r in ROWS)


def _nulls(value: object) -> bool:
    if isinstance(value, dict):
        return any(_nulls(v) for v in value.values())
    if isinstance(value, list):
        return any(_nulls(v) for v in value)
    return value is None


@pytest.mark.parametrize("data", [_CSV, _JSONL])
def test_every_example_of_the_placeholders_refusal_runs_and_gives_no_null(scratch_scope, data):
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill(data.encode(), source_tool="export").handle
    with pytest.raises(InvalidArgument) as refused:
        tools.call("read_handle", {"handle": handle, "jq": "JQ", "slurp": True})
    examples = [json.loads(f'"{text}"') for text in re.findall(r'jq="((?:[^"\\]|\\.)*)"', str(refused.value))]
    runnable = [example for example in examples if example != "JQ" and "KEY" not in example]
    assert "length" in runnable and ".[0]" in runnable, examples
    for example in runnable:
        results = tools.call("read_handle", {"handle": handle, "jq": example, "slurp": True})["results"]
        assert not _nulls(results), (example, results)
    first = tools.call("read_handle", {"handle": handle, "jq": ".[0]", "slurp": True})["results"][0]
    assert set(first) == set(next(csv.DictReader(io.StringIO(_CSV))))  # (its keys: what KEY stands for)
