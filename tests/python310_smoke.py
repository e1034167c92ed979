"""What ``tests/test_python310.py`` runs under the oldest Python that ``pyproject.toml`` allows (3.10), and under the
suite's own Python to compare: every module of the package imported (those that need an extra not installed named
on stderr), then the model's replies to one spill of each of a dozen real outputs of ``fixtures/tools/`` and a few
reads of each (byte range, lines, match, pattern, the structure read the stub names), and a scratchpad round trip --
printed as JSON lines, handles, cursors and times left out, so that both Pythons' bytes can be compared whole.

    python tests/python310_smoke.py ROOT_DIR          # prints the replies; exit 0, or a traceback
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import re
import sys
from pathlib import Path

import scratchfs
from scratchfs import ScratchStore
from scratchfs.api.contract import ScratchTools
from scratchfs.foundation.errors import ScratchError

TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"
STEADY = re.compile(r"h_[a-z0-9]{8,}|(?:(?<=cursor=\\\")|(?<=version=\\\"))[\w.-]+")  # a handle, a cursor, a version
NEXT_READ = re.compile(r"read_handle\(handle=\"[^\"]+\", ([^)]*)\)")  # the note's first next read
ARGUMENT = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|-?\d+|True|False)')


def steady(reply: object) -> str:
    """``reply`` as JSON with what differs between two runs left out: handles, and times (expiry, age) by key."""
    def scrub(value: object) -> object:
        if isinstance(value, dict):
            return {k: scrub(v) for k, v in value.items() if not re.search(r"expire|age|created|_at$|^version$", k)}
        return [scrub(v) for v in value] if isinstance(value, list) else value
    return STEADY.sub("…", json.dumps(scrub(reply), ensure_ascii=False, sort_keys=True))


def next_read(note: str) -> dict[str, object]:
    """The arguments of the first ``read_handle(...)`` a stub's note names (its structure read, when it has one)."""
    found = NEXT_READ.search(note)
    if found is None or "JQ" in found.group(1):
        return {}
    literal = {"True": "true", "False": "false"}
    return {k: json.loads(literal.get(v, v)) for k, v in ARGUMENT.findall(found.group(1))}


def modules() -> list[str]:
    """Every module imported; the names whose import needs an extra not installed (ModuleNotFoundError of another
    package) returned. Any other error (a SyntaxError, a ``re.error`` at import) propagates."""
    missing = []
    for info in pkgutil.walk_packages(scratchfs.__path__, "scratchfs."):
        try:
            importlib.import_module(info.name)
        except ModuleNotFoundError as exc:
            if (exc.name or "").split(".")[0] == "scratchfs":
                raise
            missing.append(info.name)
    return missing


def main(root: str) -> int:
    print(f"modules not imported (an extra not installed): {modules()}", file=sys.stderr)
    store = ScratchStore(root)
    try:
        tools = ScratchTools(store.scope("run-310", "agent-310"))
        for path in sorted(TOOLS.iterdir())[::10]:
            if not path.is_file() or path.suffix == ".md":
                continue
            stub = store.scope("run-310", "agent-310").spill(path.read_bytes(), source_tool="smoke").to_dict()
            handle = stub["handle"]
            print(steady({path.name: stub}))
            calls = [{"offset": 100, "length": 300}, {"line": 3, "lines": 5}, {"match": "e", "max_matches": 3},
                     {"pattern": r"[A-Z]\w+", "max_matches": 3}, {"line": -2, "lines": 2}, next_read(stub["note"])]
            for args in calls:
                try:
                    print(steady(tools.call("read_handle", {"handle": handle, **args})))
                except ScratchError as exc:  # (line=3 of a one-line fixture: its refusal's words compared too)
                    print(steady({"error": type(exc).__name__, "message": str(exc)}))
        for name, args in (("scratch_write", {"key": "k", "value": "v" * 20000}), ("scratch_read", {"key": "k"}),
                           ("scratch_list", {}), ("scratch_delete", {"key": "k"}), ("scratch_read", {"key": "k"})):
            try:
                print(steady(tools.call(name, args)))
            except ScratchError as exc:  # (the read after the delete: Deleted, its time in its words)
                print(steady({"error": type(exc).__name__}))
    finally:
        store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
