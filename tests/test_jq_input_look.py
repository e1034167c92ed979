"""A jq step's runtime error names a look at the step's input: the filter up to the failing step, then ``| .[0]``.
That look was named for every error, so for ``Cannot index object with number`` (``.regions | .[0]`` where
``regions`` is an object, as in botocore's ``endpoints.json``) it was the failing filter again. Now the look fits
the value jq says the step met -- ``| keys`` for an object, ``| .[0]`` for an array, the filter up to the step alone
for a scalar or null -- and the look the error names runs, against the plain Python answer."""

from __future__ import annotations

import json
import re

import pytest

from scratchfs.api.contract import ScratchTools
from scratchfs.engine.structure import jsondoc
from scratchfs.foundation.errors import InvalidArgument

DOC = {"partitions": [{"partition": "aws", "regions": {"us-east-1": {"description": "US East"}},
                       "tags": ["a", "b"], "name": "aws", "size": 3, "gone": None}]}


@pytest.mark.parametrize("streamed", [False, True])
@pytest.mark.parametrize(("up_to", "step", "then", "want"), [
    (".partitions[0].regions", "[0]", "| keys", [["us-east-1"]]),  # (an object met by an index)
    (".partitions[0].tags", ".x", "| .[0]", ["a"]),  # (an array met by a key)
    (".partitions[0].size", "[]", "", [3]),  # (a number met by an iteration)
    (".partitions[0].gone", "[]", "", [None]),  # (null met by an iteration)
])
def test_the_look_at_the_input_a_failed_step_names_runs(monkeypatch, scratch_scope, streamed, up_to, step, then,
                                                         want):
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill(json.dumps(DOC).encode()).handle
    with monkeypatch.context() as patch:
        if streamed:  # (the streaming path read past the jq bound writes jq's words itself)
            patch.setattr(jsondoc, "MAX_JQ_DOCUMENT_BYTES", 0)
        with pytest.raises(InvalidArgument) as refused:
            tools.call("read_handle", {"handle": handle, "jq": up_to + step})  # (a path: streamed reads take it)
    said = str(refused.value)
    [(_, look)] = re.findall(r"see its input \(the filter up to it(, then `([^`]*)`| alone)\)", said) or [(0, None)]
    assert look == then, said
    assert tools.call("read_handle", {"handle": handle, "jq": f"{up_to} {look}".strip()})["results"] == want
