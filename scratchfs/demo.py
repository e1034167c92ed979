"""``scratchfs demo``: the main job on real tool outputs.

For each recorded output in the fixtures folder: offload it as the agent runtime would (so the spill policy decides),
then show the bytes the tool returned, the bytes that reached the context (the stub), the bytes on disk, and check a
range read and a match search against the original bytes. Then a scratchpad round trip and the run's listing.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

from scratchfs.api.policy import Observation
from scratchfs.api.store import ScratchStore
from scratchfs.cli.render import entries_listing, human_bytes
from scratchfs.foundation.checks import clean_tool

RUN_ID = "demo"
AGENT_ID = "agent-1"

DEMO_OUTPUTS = ("api-ec2-service-model.json", "browser-rust-book.html", "query-packages-by-month.csv",
                "workspace-grep-stdlib-defs.txt")
"""The recorded outputs of this clone's ``fixtures/`` the demo runs on when no folder is given (the folder holds
their provenance and generators too)."""
_CLASSES = {".html": "browser", ".htm": "browser", ".xhtml": "browser", ".json": "query", ".jsonl": "query",
            ".ndjson": "query", ".csv": "query", ".tsv": "query"}


def tool_of(path: Path) -> tuple[str, str]:
    """The tool name and result class an output is offloaded as: the file's name without its last suffix, as
    ``scratchfs load`` records it (``browser-rust-book.html`` -> ``browser-rust-book``; control characters dropped);
    ``browser`` for a web page, ``query`` for JSON, JSON lines, CSV and TSV, ``workspace`` (a file read, a command's
    output) for any other file, binary ones included -- each a class the spill policy spills."""
    return clean_tool(path.stem) or "file", _CLASSES.get(path.suffix.lower(), "workspace")


_WORD = re.compile(rb"(?<![A-Za-z0-9_])[A-Za-z_][A-Za-z0-9_]{5,}")


def find_fixtures(explicit: str | None) -> Path:
    """The fixtures folder: ``explicit``, else this clone's ``fixtures/`` (beside the package), else ``./fixtures``."""
    if explicit:
        return Path(explicit)
    for candidate in (Path(__file__).resolve().parent.parent / "fixtures", Path.cwd() / "fixtures"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("no fixtures folder found: run from a clone of scratchfs or pass --fixtures DIR")


def outputs(folder: Path, every: bool) -> list[Path]:
    """The outputs the demo runs on, sorted by name: with ``every``, each regular file at the top of ``folder`` whose
    name does not start with ``.`` (of any kind: a page, JSON lines, a log, a tar, any binary), else those of
    :data:`DEMO_OUTPUTS` it holds. Raises FileNotFoundError when there is none."""
    files = sorted(p for p in folder.iterdir() if not p.name.startswith(".") and p.is_file() and
                   (every or p.name in DEMO_OUTPUTS))
    if not files:
        raise FileNotFoundError(f"no recorded outputs in {folder}: " + (
            "it holds no file" if every else f"none of {', '.join(DEMO_OUTPUTS)}"))
    return files


def pick_needle(data: bytes) -> bytes:
    """A word from the middle of the content, to search for."""
    found = _WORD.search(data, len(data) // 2) or _WORD.search(data)
    return found.group(0) if found else data[len(data) // 2 : len(data) // 2 + 8] or b"a"


def run_demo(store: ScratchStore, fixtures_dir: str | None) -> None:
    """Run the demo against ``store`` under run :data:`RUN_ID` and print its report to stdout."""
    console = Console() if sys.stdout.isatty() else Console(width=120)  # a pipe or a file does not fold lines
    folder = find_fixtures(fixtures_dir)
    files = outputs(folder, every=fixtures_dir is not None)
    store.delete_run(RUN_ID)
    scope = store.scope(RUN_ID, AGENT_ID)
    console.print(f"scratchfs demo: {len(files)} real tool outputs from {folder}, store at {store.root}\n")

    table = Table(title="each tool result: returned, reached the context, went to disk")
    for name in ("output", "returned", "to context", "on disk", "saved"):
        table.add_column(name, justify="left" if name == "output" else "right", no_wrap=True, overflow="ellipsis",
                         min_width=None if name == "output" else 6)  # (a name is cut only where the width is short)
    checks: list[str] = []  # one line per spilled output: its range read and search checked against the original
    total_in = total_ctx = total_disk = 0
    stubs: list[tuple[str, str]] = []  # (file name, stub JSON) of the outputs that were spilled
    for path in files:
        try:
            data = path.read_bytes()
        except OSError as exc:  # unreadable (permissions, gone): named, and the others go on
            table.add_row(path.name, "-", "-", "-", "-")
            checks.append(f"  {path.name}: not read ({exc.strerror or exc})")
            continue
        tool, result_class = tool_of(path)
        out = scope.offload(Observation(tool=tool, content=data, result_class=result_class))
        to_context = len(out.content.encode("utf-8") if isinstance(out.content, str) else out.content)
        total_in += len(data)
        total_ctx += to_context
        if out.stub is None:
            table.add_row(path.name, human_bytes(len(data)), human_bytes(to_context), "-", "-")
            checks.append(f"  {path.name}: kept in context")
            continue
        handle = out.stub.handle
        stubs.append((path.name, out.content))
        entry = next(e for e in scope.list_entries() if e.key == handle)
        total_disk += entry.stored_size
        middle = len(data) // 2
        part = scope.read_handle(handle, offset=middle, length=256)
        range_ok = part.data == data[middle : middle + 256]
        needle = pick_needle(data)
        found = scope.read_handle(handle, match=needle, context=40, max_matches=5)
        windows_ok = all(w.data == data[w.offset : w.offset + w.length] and
                         data[w.match_offset : w.match_offset + len(needle)] == needle for w in found.windows)
        first = data.find(needle)
        windows_ok = windows_ok and bool(found.windows) and found.windows[0].match_offset == first
        table.add_row(path.name, human_bytes(len(data)), human_bytes(to_context), human_bytes(entry.stored_size),
                      f"{1 - to_context / len(data):.1%}")
        more = "+" if found.next_offset is not None else ""
        windows = f"{len(found.windows)}{more} window{'' if len(found.windows) == 1 and not more else 's'}"
        checks.append(f"  {path.name}: range read {'ok' if range_ok else 'WRONG'} ({len(part.data)} B at byte "
                      f"{middle}), search {'ok' if windows_ok else 'WRONG'} ({windows} of "
                      f"{needle.decode('utf-8', 'replace')!r})")
    table.add_section()
    table.add_row("total", human_bytes(total_in), human_bytes(total_ctx), human_bytes(total_disk),
                  f"{1 - total_ctx / max(1, total_in):.1%}")
    console.print(table)
    console.print("read back from the store and checked against the original bytes:", highlight=False)
    for line in checks:
        console.print(line, markup=False, highlight=False, soft_wrap=True)

    if stubs:
        name, stub = stubs[0]
        console.print(f"\nthe stub that reached the context instead of {name} ({len(stub.encode())} bytes):")
        console.print(stub, markup=False, highlight=False, soft_wrap=True)

    note = "plan: 1) read the CSV's header 2) search the grep output for 'class Thread'"
    scope.scratch_write("plan", note)
    back = scope.scratch_read("plan").decode("utf-8")
    keys = [e.key for e in scope.scratch_list()]
    console.print(f"\nscratchpad: wrote 'plan' ({len(note)} bytes), read back "
                  f"{'identical' if back == note else 'DIFFERENT'}; keys: {keys}\n")
    listing = entries_listing(store.list_entries_for_run(RUN_ID), store.now(), title=f"run {RUN_ID!r}")
    console.print(listing.table(console.width))


__all__ = [
    "AGENT_ID",
    "DEMO_OUTPUTS",
    "RUN_ID",
    "find_fixtures",
    "outputs",
    "pick_needle",
    "run_demo",
    "tool_of",
]
