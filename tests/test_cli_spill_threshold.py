"""``scratchfs spill --threshold SIZE``: a shell agent's pipe spilled only when large (newuser24: ``scratchfs spill``
always spilled, so ``env | scratchfs spill -``, 1.4 KB, reached the model as a 1.5 KiB stub plus 1 KB of commands;
only Python's ``offload`` and ``mcp-proxy --threshold`` decided by size). An input at most SIZE bytes as a model
receives it (its text as a JSON string, escapes included) is written to stdout unchanged and nothing is stored; a
larger one is spilled whole, the bytes read for the decision first."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

import scratchfs
from scratchfs import ScratchStore
from scratchfs.cli.passthrough import MAX_THRESHOLD_BYTES, READ_BYTES
from tests.cli_run import invoke

CHECKOUT = Path(scratchfs.__file__).resolve().parent.parent
GREP = (CHECKOUT / "fixtures" / "workspace-grep-stdlib-defs.txt").read_bytes()


def _spill(root: Path, data: bytes, *args: str):
    return invoke(root, "spill", *args, "-", stdin=data)


def _model_bytes(data: bytes) -> int:
    """The plain Python answer: the JSON string of the text shown, escapes included, its quotes not."""
    return len(json.dumps(data.decode("utf-8", "replace"), ensure_ascii=False).encode()) - 2


def _stored(root: Path) -> list[bytes]:
    with ScratchStore(root) as store:
        scope = store.scope("r", "a")
        return [b"".join(scope.iter_content("handle", e.key)) for e in store.list_entries_for_run("r")]


def test_a_small_real_output_passes_through_unchanged_and_nothing_is_stored(tmp_path):
    small = GREP[:GREP.index(b"\n", 3000) + 1]
    done = _spill(tmp_path / "s", small, "--threshold", "8KiB")
    assert done.exit_code == 0, done.output
    assert done.stdout_bytes == small
    assert done.stderr == ""
    assert _stored(tmp_path / "s") == []


def test_a_large_stream_is_spilled_whole_the_decisions_bytes_first(tmp_path):
    data = GREP * 7  # 3.5 MiB: the bytes read for the decision, then several reads of READ_BYTES
    assert len(data) > 3 * READ_BYTES
    done = _spill(tmp_path / "s", data, "--threshold", "8KiB")
    assert done.exit_code == 0, done.output
    stub = json.loads(done.stdout)
    assert stub["size"] == len(data)
    [stored] = _stored(tmp_path / "s")
    assert hashlib.sha256(stored).digest() == hashlib.sha256(data).digest()
    assert "read-handle " + stub["handle"] in done.stderr  # the note's reads as commands, as without --threshold


def test_the_threshold_counts_json_bytes_at_its_edge(tmp_path):
    for data, spilled in ((b"a" * 100, False), (b"a" * 101, True), (b'"' * 50, False), (b'"' * 51, True),
                          (b"\x01" * 16, False), (b"\x01" * 17, True), (b"\xff" * 33, False), (b"\xff" * 34, True),
                          ("é".encode() * 50, False), ("é".encode() * 51 , True)):
        root = tmp_path / f"s{len(list(tmp_path.iterdir()))}"
        done = _spill(root, data, "--threshold", "100")
        assert done.exit_code == 0, done.output
        assert (done.stdout_bytes != data) is spilled, data
        assert len(_stored(root)) == spilled, data


@settings(max_examples=40, deadline=None)
@given(data=st.binary(max_size=300) | st.text(max_size=150).map(lambda t: t.encode("utf-8", "surrogatepass")),
       threshold=st.integers(0, 400))
def test_passed_through_exactly_when_the_model_would_get_at_most_the_threshold(tmp_path_factory, data, threshold):
    root = tmp_path_factory.mktemp("s")
    done = _spill(root, data, "--threshold", str(threshold))
    assert done.exit_code == 0, done.output
    if _model_bytes(data) <= threshold:
        assert done.stdout_bytes == data
        assert _stored(root) == []
    else:
        assert _stored(root) == [data]
        assert json.loads(done.stdout)["size"] == len(data)


def test_a_threshold_past_its_bound_is_one_usage_line(tmp_path):
    done = _spill(tmp_path / "s", b"x", "--threshold", str(MAX_THRESHOLD_BYTES + 1))
    assert done.exit_code == 2
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and "--threshold is at most 16MiB" in done.stderr
    done = _spill(tmp_path / "s", b"x", "--threshold", "8KB")
    assert done.exit_code == 2 and "--threshold" in done.stderr


def test_without_threshold_a_small_input_is_still_spilled(tmp_path):
    done = _spill(tmp_path / "s", b"small\n")
    assert json.loads(done.stdout)["size"] == 6
    assert _stored(tmp_path / "s") == [b"small\n"]


def _unscoped(root: Path, data: bytes, *args: str):
    return invoke(root, "spill", "--threshold", "8KiB", *args, "-", stdin=data,
                  env={"SCRATCHFS_RUN_ID": None, "SCRATCHFS_AGENT_ID": None}, scope=())


def test_with_no_run_or_agent_a_small_output_still_passes_through(tmp_path):
    """leftovers5: ``cmd | scratchfs spill --threshold 8KiB`` in a shell agent's environment that set no run or
    agent exited 2 before reading stdin: the small output, that would have passed through anyway, was lost. It now
    passes through, byte for byte, exit 0, and one stderr line says what is missing; nothing is stored."""
    small = GREP[:GREP.index(b"\n", 3000) + 1]
    done = _unscoped(tmp_path / "s", small)
    assert done.exit_code == 0, done.output
    assert done.stdout_bytes == small
    assert done.stderr == (f"scratchfs: warning: this output ({len(small):,} bytes, within --threshold) passed through "
                           "unchanged, but a larger one would not be stored: Missing option '--run' "
                           "(or $SCRATCHFS_RUN_ID)\n")
    assert not (tmp_path / "s").exists()


def test_with_no_run_or_agent_a_larger_output_passes_through_whole_up_to_the_passthrough_bound(tmp_path):
    """leftovers6: an output over --threshold with no run or agent set exited 2 and was lost (stdin consumed). A
    failed spill is never a failed tool call: it passes as the Python API's failed spills do -- 30 KB of real grep
    output, under passthrough_max_bytes (64 KiB), whole and unchanged, exit 0 -- and one stderr line says so and
    what was missing; nothing is stored."""
    data = GREP[:GREP.index(b"\n", 30_000) + 1]
    done = _unscoped(tmp_path / "s", data)
    assert done.exit_code == 0, done.output
    assert done.stdout_bytes == data
    assert done.stderr == (f"scratchfs: warning: this output ({len(data):,} bytes, over --threshold) was passed "
                           "through whole (at most passthrough_max_bytes, 65,536 bytes): Missing option '--run' "
                           "(or $SCRATCHFS_RUN_ID)\n")
    assert not (tmp_path / "s").exists()


def test_with_no_run_or_agent_an_output_past_the_passthrough_bound_is_a_notice_with_its_preview(tmp_path):
    """The whole grep output (524 KB, past 64 KiB): stdout is the failed spill's notice, one line of JSON of at most
    1.5 KiB -- its head as the preview, its size, ``stored: false``, a note naming what was missing and how to store
    it --, exit 0, one stderr line; nothing is stored. With ``--preview head+tail`` the preview ends with its last
    line."""
    done = _unscoped(tmp_path / "s", GREP)
    assert done.exit_code == 0, done.output
    assert len(done.stdout_bytes) <= 1536 + 1 and done.stdout_bytes.endswith(b"}\n")
    notice = json.loads(done.stdout)
    assert (notice["size"], notice["stored"]) == (len(GREP), False)
    assert GREP.decode().startswith(notice["preview"].rsplit("\n", 2)[0])
    assert "no run or agent was set to store it under (Missing option '--run'" in notice["note"]
    assert "--run and --agent" in notice["note"]
    assert done.stderr.count("\n") == 1 and f"this output ({len(GREP):,} bytes, over --threshold) was not " \
        "stored: a notice with its preview went to stdout in its place" in done.stderr, done.stderr
    assert not (tmp_path / "s").exists()
    last = GREP.rstrip(b"\n").rsplit(b"\n", 1)[1].decode()
    tail = _unscoped(tmp_path / "s", GREP, "--preview", "head+tail")
    assert tail.exit_code == 0 and json.loads(tail.stdout)["preview"].endswith(last + "\n")
