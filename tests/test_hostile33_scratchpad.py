"""hostile33: the scratchpad verbs, scopes and MCP faces attacked (keys, cursors, ids, expiry, kills). Each test is
one finding: it failed before its fix."""

from __future__ import annotations

import pytest

from scratchfs.api.contract import ScratchTools, error_text
from scratchfs.foundation.errors import NotFound
from scratchfs.foundation.limits import MAX_ID_BYTES, MAX_KEY_BYTES, MIN_REPLY_BYTES


@pytest.mark.parametrize("char", ["\\", "\u2028", "\ufeff"])
def test_a_near_key_too_long_to_name_whole_is_not_named_cut(scratch_store, char):
    """A read of a long key one character from a live one (512 backslashes, ids of 256 bytes) was told ``did you
    mean '\\\\\\\\...`` cut at the tool error's cap of 2,048 bytes: a key that is not the live one, and the way
    on (``scratch_list lists them all``) lost with the cut. A near key the error cannot hold whole is not named:
    the error says to list the keys instead (the web API still gives it as data: ``NotFound.meant``)."""
    scope = scratch_store.scope("r" * MAX_ID_BYTES, "a" * MAX_ID_BYTES)
    live = char * (MAX_KEY_BYTES // len(char.encode()) - 1) + "a"
    scope.scratch_write(live, "v")
    with pytest.raises(NotFound) as missing:
        ScratchTools(scope).call("scratch_read", {"key": live[:-1] + "b"})
    text = error_text(missing.value)
    assert len(text.encode()) <= MIN_REPLY_BYTES and not text.endswith("..."), text[-200:]
    assert text.endswith("; scratch_list lists the keys of this scope"), text[-200:]
    assert missing.value.meant == ("scratch", live)


@pytest.mark.parametrize("reading", [True, False])
def test_a_missing_key_beside_ids_too_long_to_name_whole_says_how_to_go_on(scratch_store, reading):
    """A missing key (no near one) of 512 escaped characters in a scope of ids of 256 escaped bytes: its tool error
    was cut inside the agent id, the way on (list the keys) lost; the ids, which the caller gave, are left out."""
    scope = scratch_store.scope("\\" * MAX_ID_BYTES, "\u2028" * (MAX_ID_BYTES // 3))
    tools = ScratchTools(scope)
    key = "\ufeff" * (MAX_KEY_BYTES // 3)
    if reading:
        with pytest.raises(NotFound) as missing:
            tools.call("scratch_read", {"key": key})
        text = error_text(missing.value)
    else:
        text = tools.call("scratch_delete", {"key": key})["note"]
    assert len(text.encode()) <= MIN_REPLY_BYTES and not text.endswith("..."), text[-200:]
    assert text.endswith(" in this scope; scratch_list lists the keys of this scope"), text[-200:]


def test_a_near_key_that_fits_is_still_named(scratch_store):
    scope = scratch_store.scope("r", "a")
    scope.scratch_write("plan-1", "v")
    with pytest.raises(NotFound) as missing:
        ScratchTools(scope).call("scratch_read", {"key": "plan-2"})
    assert "did you mean 'plan-1', a key of this scope? (scratch_list lists them all)" in error_text(missing.value)


@pytest.mark.parametrize(("key", "shown"), [("\u202egnp.txe", "\\u202egnp.txe"), ("a\u200bb", "a\\u200bb"),
                                            ("\u2066x\u2069", "\\u2066x\\u2069"), ("\ufeffk", "\\ufeffk"),
                                            ("\U000e0041x", "\\U000e0041x"), ("a\u00a0b", "a\u00a0b")])
def test_ls_shows_a_key_of_invisible_or_reordering_characters_escaped(tmp_path, key, shown):
    """``scratchfs ls`` printed a key holding a right-to-left override (U+202E), a zero-width space or another
    format character as it is: a terminal that reorders bidirectional text showed ``\\u202egnp.txe`` as ``ext.png``, and
    ``a\\u200bb`` looked like the key ``ab`` (error messages, which quote keys as Python does, escaped them). A cell
    is now shown with every such character escaped, as a line separator already was; a space stays a space."""
    from click.testing import CliRunner

    from scratchfs.cli import main

    env = {"SCRATCHFS_ROOT": str(tmp_path / "root"), "SCRATCHFS_RUN_ID": "r", "SCRATCHFS_AGENT_ID": "a"}
    runner = CliRunner()
    assert runner.invoke(main, ["scratch-write", key], input=b"v", env=env).exit_code == 0
    listed = runner.invoke(main, ["ls"], env=env)
    assert listed.exit_code == 0, listed.output
    row = listed.stdout.splitlines()[1].split("\t")
    assert row[3] == shown, row


@pytest.mark.parametrize("face", ["mcp", "proxy"])
def test_the_screens_log_lines_name_the_server_that_wrote_them(face, tmp_path):
    """``scratchfs mcp-proxy`` logged what its screen of stdin dropped or refused (a batch, a malformed notification)
    as ``scratchfs mcp: ...``, the server it is not, as it did a client gone (fixed in 075ae33); each line now names
    the server that wrote it."""
    import subprocess

    from tests.test_mcp_wire import INIT, face_command, req

    lines = [req("i", "initialize", INIT), b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
             b"[" + req(5, "ping") + b"]", b'{"jsonrpc":"2.0","id":1,"error":"x"}']
    done = subprocess.run(face_command(face, tmp_path), input=b"\n".join(lines) + b"\n", capture_output=True,
                          timeout=90)
    assert done.returncode == 0, done.stderr
    said = [line for line in done.stderr.decode().splitlines() if "batch" in line or "malformed" in line]
    server = "scratchfs mcp-proxy" if face == "proxy" else "scratchfs mcp"
    assert [line.split(": ", 1)[0] for line in said] == [server, server], said
