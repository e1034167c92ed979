"""A PostgreSQL index with local files keeps its data under its root, but the CLI's printed continuations (``next:``
of a read, a spill's note as commands) named no ``--root``, as for S3 blobs (newuser26: after ``fsck
--rebuild-index --root ROOT`` moved a local store under PostgreSQL, the pasted hint opened the default root and was
refused, exit 2). They name the root now; with S3 blobs they still name none (the root holds none of the data)."""

from __future__ import annotations

import shlex

from click.testing import CliRunner

from scratchfs.cli import main
from tests.services import postgres_url


def _hint(stderr: str) -> list[str]:
    line = next(part for part in stderr.splitlines() if "next: " in part)
    return shlex.split(line.split("next: ", 1)[1])[1:]  # (the program's words, as the CLI's tests run it: main)


def test_a_hint_of_a_postgres_index_with_local_files_names_its_root(postgres_dsn, pg_schema, tmp_path):
    root = str(tmp_path / "store")
    env = {"SCRATCHFS_INDEX": postgres_url(postgres_dsn, pg_schema), "SCRATCHFS_ROOT": str(tmp_path / "default")}
    scope = ["--run", "run-1", "--agent", "agent-1"]
    text = "".join(f"line {i}\n" for i in range(1, 3001))
    spilled = CliRunner().invoke(main, ["spill", "--tool", "t", "--root", root, *scope], input=text, env=env)
    assert spilled.exit_code == 0, spilled.output
    handle = next(word for word in spilled.stdout.split('"') if word.startswith("h_"))
    first = CliRunner().invoke(main, ["read-handle", handle, "--line", "1", "--lines", "2", "--root", root, *scope],
                               env=env)
    assert first.exit_code == 0 and first.stdout == "line 1\nline 2\n", first.output
    words = _hint(first.stderr)
    assert words[words.index("--root") + 1] == root, first.stderr
    again = CliRunner().invoke(main, words, env=env)  # (pasted as printed, the index from the environment)
    assert again.exit_code == 0 and again.stdout == "line 3\nline 4\n", again.output


def test_a_hint_of_s3_blobs_names_no_root(postgres_dsn, pg_schema, s3_env, tmp_path):
    env = {"SCRATCHFS_INDEX": postgres_url(postgres_dsn, pg_schema), "SCRATCHFS_BLOBS": s3_env}
    scope = ["--run", "run-1", "--agent", "agent-1", "--root", str(tmp_path / "host")]
    text = "".join(f"line {i}\n" for i in range(1, 3001))
    spilled = CliRunner().invoke(main, ["spill", "--tool", "t", *scope], input=text, env=env)
    assert spilled.exit_code == 0, spilled.output
    handle = next(word for word in spilled.stdout.split('"') if word.startswith("h_"))
    first = CliRunner().invoke(main, ["read-handle", handle, "--line", "1", "--lines", "2", *scope], env=env)
    assert first.exit_code == 0, first.output
    line = next(part for part in first.stderr.splitlines() if "next: " in part)
    assert "--root" not in line and line.endswith("$SCRATCHFS_INDEX and $SCRATCHFS_BLOBS)"), first.stderr
