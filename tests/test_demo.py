"""The main job: `scratchfs demo` on the real fixtures."""

from __future__ import annotations

from click.testing import CliRunner

from scratchfs import ScratchStore
from scratchfs.cli import main

from .conftest import FIXTURE_FILES, FIXTURES


def test_demo_spills_every_fixture_and_verifies_reads(tmp_path):
    result = CliRunner().invoke(main, ["demo", "--root", str(tmp_path), "--fixtures", str(FIXTURES)],
                                catch_exceptions=False, terminal_width=200)
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "WRONG" not in out and "DIFFERENT" not in out
    assert out.count(" ok") >= 2 * len(FIXTURE_FILES)
    assert "read back identical" in out
    assert "(1 windows" not in out and "(1 window of 'SourceAddresses')" in out  # was "1 windows"
    for name in (p.name for p in FIXTURE_FILES):  # its tables cut names to 24 characters (api-ec2-service-model.j…)
        assert f"│ {name} " in out, out
    assert all(f" {tool} " in out for tool in ("api.describe", "browser.get", "workspace.grep"))  # (was api.d…ribe)
    with ScratchStore(tmp_path) as store:
        entries = store.list_entries_for_run("demo")
        assert sorted(e.kind for e in entries) == ["handle"] * len(FIXTURE_FILES) + ["scratch"]
        assert {e.size for e in entries if e.kind == "handle"} == {p.stat().st_size for p in FIXTURE_FILES}


def test_demo_twice_starts_clean(tmp_path):
    for _ in range(2):
        assert CliRunner().invoke(main, ["demo", "--root", str(tmp_path)]).exit_code == 0
    with ScratchStore(tmp_path) as store:
        assert len(store.list_entries_for_run("demo")) == len(FIXTURE_FILES) + 1


def test_demo_without_a_root_uses_a_temporary_store_and_names_the_right_file(tmp_path, monkeypatch):
    """No --root and no $SCRATCHFS_ROOT: nothing is written to the user's cache directory; the stub shown is named
    after the file it replaced, even when the first file was too small to spill."""
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.delenv("SCRATCHFS_ROOT", raising=False)
    fixtures = tmp_path / "outputs"
    fixtures.mkdir()
    (fixtures / "a-small.txt").write_bytes(b"tiny\n")
    (fixtures / "b-page.html").write_bytes((FIXTURES / "browser-rust-book.html").read_bytes())
    result = CliRunner().invoke(main, ["demo", "--fixtures", str(fixtures)], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert "a temporary store at " in result.stdout
    assert "instead of b-page.html" in result.stdout and "instead of a-small.txt" not in result.stdout
    assert not (home / ".cache" / "scratchfs").exists()


def test_demo_without_a_root_stays_local_when_a_fleet_is_exported(tmp_path, monkeypatch):
    """Its temporary store holds the index and the blobs too: a fleet named by the environment is not written to
    (here one that cannot be reached, which a spill into it would fail on)."""
    monkeypatch.delenv("SCRATCHFS_ROOT", raising=False)
    monkeypatch.setenv("SCRATCHFS_INDEX", "postgresql://nobody@127.0.0.1:1/nowhere")
    monkeypatch.setenv("SCRATCHFS_BLOBS", "s3://no-such-bucket/demo")
    fixtures = tmp_path / "outputs"
    fixtures.mkdir()
    (fixtures / "page.html").write_bytes((FIXTURES / "browser-rust-book.html").read_bytes())
    result = CliRunner().invoke(main, ["demo", "--fixtures", str(fixtures)], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert "a temporary store at " in result.stdout and "instead of page.html" in result.stdout
