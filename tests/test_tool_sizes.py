"""The tool definitions a model carries on every turn, held small, and the words they no longer carry said by the
replies that show what they explain (tooldefs1).

The five definitions were 10,214 bytes of compact JSON (read_handle 6,620 in MCP's form), about a third of it rules
that matter only once a reply shows them: how to join `part` pieces, what `as_text` lists, what `record` and `first`
number in jq over records. Those now come with the page that carries the field (tests/test_page_words.py), and
the definitions keep what makes a first call right: what a handle is, search first, each mode's argument names,
bytes, the budget, next_call.
"""

from __future__ import annotations

import json

from scratchfs.adapter import tool_definitions
from scratchfs.api.tools import TOOL_SPECS

MOST_BYTES = 7_000
"""The five definitions' compact JSON, at most (6,959 with scratch_list's ``spilled``, listhandles1; 6,878 when
pinned, modeltask10; 10,214 before)."""
MOST_READ_HANDLE_BYTES = 4_200
"""read_handle's definition in MCP's form (``{name, description, inputSchema}``), at most (4,053 when pinned; 6,620
before)."""


def _mcp_size(name: str) -> int:
    spec = TOOL_SPECS[name]
    return len(json.dumps({"name": name, "description": spec.description, "inputSchema": spec.input_schema},
                          separators=(",", ":")).encode("utf-8"))


def test_the_definitions_stay_under_their_bound():
    assert len(json.dumps(tool_definitions(), separators=(",", ":")).encode("utf-8")) <= MOST_BYTES
    assert _mcp_size("read_handle") <= MOST_READ_HANDLE_BYTES
    assert sum(_mcp_size(name) for name in TOOL_SPECS) <= MOST_BYTES


def test_read_handle_names_every_mode_and_its_arguments_before_the_first_call():
    """Cut as it is, the description still names each mode's arguments (a model picks its first call from them) and
    says the units and how to go on."""
    description = TOOL_SPECS["read_handle"].description
    for argument in ("match", "pattern", "encoding", "line", "lines", "offset", "length", "jq", "record", "records",
                     "row", "rows", "columns", "slurp", "view", "select", "budget"):
        assert f"`{argument}`" in description, argument
    assert "usually best first" in description and "Offsets and sizes are bytes" in description
    assert "next_call is the exact call that goes on" in description
    properties = TOOL_SPECS["read_handle"].input_schema["properties"]
    assert all(prop["description"] for prop in properties.values())
