"""A store's settings from the command line and the environment (``scratchfs.cli.settings_options``): a quota set by
option or by environment variable refuses the write past it through ``scratchfs spill`` and through the real MCP
server and proxy over stdio; a reply budget from the environment is the default budget of ``read_handle`` replies
over MCP; a bad value is one stderr line and exit 2."""

from __future__ import annotations

import json
import re
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from scratchfs import ScratchStore
from scratchfs.cli import main
from scratchfs.cli.settings_options import SettingOption, Size

from .mcp_fake_upstream import big_text
from .mcp_support import ERAS, FAKE_UPSTREAM, connect, error_of, one_era, payload, run, scratchfs_params

SETTINGS_ENV = ("SCRATCHFS_DEFAULT_TTL", "SCRATCHFS_RUN_QUOTA_BYTES", "SCRATCHFS_RUN_QUOTA_ENTRIES",
                "SCRATCHFS_REPLY_BUDGET_BYTES", "SCRATCHFS_PATTERN_TIMEOUT", "SCRATCHFS_BUSY_TIMEOUT",
                "SCRATCHFS_DURABLE", "SCRATCHFS_REFRESH_ON_READ", "SCRATCHFS_SPILL_THRESHOLD_BYTES")
GREP = "workspace-grep-stdlib-defs.txt"
CSV = "query-packages-by-month.csv"


@pytest.fixture(autouse=True)
def no_settings_in_the_environment(monkeypatch):
    """The caller's own settings variables would change what these tests see."""
    for name in SETTINGS_ENV:
        monkeypatch.delenv(name, raising=False)


def spill(root, run_id: str, data: bytes, *options: str, env: dict[str, str] | None = None):
    return CliRunner(env=env).invoke(main, ["spill", "--root", str(root), "--run", run_id, "--agent", "a", *options],
                                     input=data)


def entries_of(root, run_id: str) -> list[dict]:
    with ScratchStore(root) as store:
        return [entry.to_dict() for entry in store.list_entries_for_run(run_id)]


@pytest.mark.parametrize("how", ["option", "env"])
def test_a_byte_quota_refuses_the_spill_past_it_with_exit_5(how, tmp_path, fixture_data):
    data = fixture_data[GREP]  # 512 KiB of grep output: some 80 KB stored
    given = (["--run-quota-bytes", "64KiB"], None) if how == "option" else ([], {"SCRATCHFS_RUN_QUOTA_BYTES": "64KiB"})
    refused = spill(tmp_path, "r", data, *given[0], env=given[1])
    assert refused.exit_code == 5
    assert re.fullmatch(r"scratchfs: quota exceeded: the entry alone takes [0-9]{2},[0-9]{3} stored bytes, over run "
                        r"'r''s quota of 65,536: no deletion makes room for it; store less\n", refused.stderr)
    assert entries_of(tmp_path, "r") == []  # nothing stored
    small = spill(tmp_path, "r", data[:20_000], *given[0], env=given[1])
    assert small.exit_code == 0, small.stderr
    assert [entry["size"] for entry in entries_of(tmp_path, "r")] == [20_000]
    assert spill(tmp_path, "r", data).exit_code == 0  # without the setting the same write is taken
    assert len(entries_of(tmp_path, "r")) == 2
    again = spill(tmp_path, "r", b"x", *given[0], env=given[1])  # the run is past its quota: even a byte is refused
    assert again.exit_code == 5 and re.search(r"is at its quota: it holds [0-9,]+ stored bytes, its quota 65,536;",
                                              again.stderr)


def test_an_entry_quota_by_env_and_a_larger_byte_quota_with_a_suffix(tmp_path, fixture_data):
    big = ["--run-quota-bytes", "64MiB"]  # 64 bytes, had the suffix been dropped, would refuse the second spill
    assert spill(tmp_path, "r", fixture_data[GREP], *big).exit_code == 0
    assert spill(tmp_path, "r", fixture_data[CSV], *big).exit_code == 0
    refused = spill(tmp_path, "r", b"x", env={"SCRATCHFS_RUN_QUOTA_ENTRIES": "2"})
    assert refused.exit_code == 5 and "2 entries" in refused.stderr
    assert spill(tmp_path, "r", b"x", "--run-quota-entries", "3", env={"SCRATCHFS_RUN_QUOTA_ENTRIES": "2"}).exit_code \
        == 0  # the option wins over the variable
    assert len(entries_of(tmp_path, "r")) == 3


def test_default_ttl_and_durable_from_the_environment_reach_the_store(tmp_path):
    result = CliRunner(env={"SCRATCHFS_DEFAULT_TTL": "77", "SCRATCHFS_DURABLE": "yes"}).invoke(
        main, ["scratch-write", "k", "--root", str(tmp_path), "--run", "r", "--agent", "a"], input=b"v")
    assert result.exit_code == 0, result.stderr
    entry = json.loads(result.stdout)
    assert entry["ttl"] == 77.0 and entry["expires_at"] - entry["created_at"] == pytest.approx(77.0)
    with_ttl = spill(tmp_path, "r", b"v", "--ttl", "5", env={"SCRATCHFS_DEFAULT_TTL": "77"})
    assert json.loads(with_ttl.stdout)["handle"] and entries_of(tmp_path, "r")[-1]["ttl"] == 5.0  # --ttl wins


@pytest.mark.parametrize(("args", "env", "line"), [
    (["--run-quota-bytes", "1KB"], None,
     "Invalid value for '--run-quota-bytes': '1KB' is not a size: KB is not guessed (decimal or binary?): 1KiB is "
     "1,024 bytes, 1000 is 1 kB"),
    (["--run-quota-bytes", "-1"], None, "Invalid value for '--run-quota-bytes': '-1' is not a size"),
    ([], {"SCRATCHFS_RUN_QUOTA_BYTES": "lots"}, "Invalid value for $SCRATCHFS_RUN_QUOTA_BYTES: 'lots' is not a size"),
    ([], {"SCRATCHFS_REPLY_BUDGET_BYTES": "1000"},
     "Invalid value for $SCRATCHFS_REPLY_BUDGET_BYTES: reply_budget_bytes must be between 2048 and 65536: 1000"),
    (["--reply-budget-bytes", "1MiB"], None,
     "Invalid value for '--reply-budget-bytes': reply_budget_bytes must be between 2048 and 65536: 1048576"),
    ([], {"SCRATCHFS_DEFAULT_TTL": "0.5"}, "Invalid value for $SCRATCHFS_DEFAULT_TTL: default_ttl must be"),
    # worded as Settings words it (before: "must be positive, finite seconds of at most 2592000" for 0)
    (["--default-ttl", "0"], None,
     "Invalid value for '--default-ttl': default_ttl must be finite seconds between 1 and 2592000: 0.0"),
    ([], {"SCRATCHFS_DEFAULT_TTL": "0"},
     "Invalid value for $SCRATCHFS_DEFAULT_TTL: default_ttl must be finite seconds between 1 and 2592000: 0.0"),
    (["--pattern-timeout", "nan"], None, "Invalid value for '--pattern-timeout': pattern_timeout must be"),
    ([], {"SCRATCHFS_DURABLE": "maybe"}, "Invalid value for $SCRATCHFS_DURABLE: 'maybe' is not a valid boolean"),
    (["--run-quota-entries", "٣"], None, "Invalid value for '--run-quota-entries': '٣' is not an integer"),
    # a size like the others (it said "segment_entry_bytes must be an integer, not str: '1MiB'", exit 2 as an
    # invalid argument, not as usage)
    ([], {"SCRATCHFS_SEGMENT_ENTRY_BYTES": "lots"}, "$SCRATCHFS_SEGMENT_ENTRY_BYTES: 'lots' is not a size"),
    ([], {"SCRATCHFS_SEGMENT_ENTRY_BYTES": "2MiB"},
     "$SCRATCHFS_SEGMENT_ENTRY_BYTES: segment_entry_bytes must be between 0 and 1048576: 2097152"),
])
def test_a_bad_value_is_one_stderr_line_and_exit_2(args, env, line, tmp_path):
    result = spill(tmp_path, "r", b"v", *args, env=env)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"scratchfs: usage: {line}")
    assert result.stderr.count("\n") == 1 and result.stderr.endswith("(see scratchfs spill --help)\n")
    assert not (tmp_path / "index.sqlite").exists() or entries_of(tmp_path, "r") == []


def test_a_misspelt_variable_is_one_stderr_line_naming_the_one_it_meant(tmp_path):
    """A misspelt settings variable ($SCRATCHFS_DEFAULT_TL) was ignored silently: the store took the default TTL.
    It is still ignored (it may be another program's), with one line naming the variable meant; a variable of
    another name far from any of the CLI's (the test suite's own) is not named."""
    env = {"SCRATCHFS_DEFAULT_TL": "60", "SCRATCHFS_SPILL_TRESHOLD_BYTES": "100", "SCRATCHFS_REQUIRE_SERVICES": "0",
           "SCRATCHFS_STRESS": "1"}
    result = spill(tmp_path, "r", b"v", env=env)
    assert result.exit_code == 0, result.stderr
    assert result.stderr.splitlines() == [
        "scratchfs: $SCRATCHFS_DEFAULT_TL is no scratchfs variable (did you mean $SCRATCHFS_DEFAULT_TTL?); ignored",
        "scratchfs: $SCRATCHFS_SPILL_TRESHOLD_BYTES is no scratchfs variable (did you mean "
        "$SCRATCHFS_SPILL_THRESHOLD_BYTES?); ignored"]
    (entry,) = entries_of(tmp_path, "r")
    assert entry["expires_at"] - entry["created_at"] == 3600  # the default: the misspelt variable was not read
    assert spill(tmp_path, "r", b"w", env={"SCRATCHFS_REQUIRE_SERVICES": "0"}).stderr == ""


@pytest.mark.parametrize(("text", "size"), [("0", 0), ("65536", 65536), ("64KiB", 65536), ("64 kib", 65536),
                                            ("1MiB", 1 << 20), ("2GiB", 2 << 30), ("512B", 512)])
def test_size_takes_bytes_and_binary_suffixes(text, size):
    assert Size().convert(text, None, None) == size


@pytest.mark.parametrize(("text", "size"), [("1MiB", 1 << 20), ("64 KiB", 65536), ("0", 0), ("512B", 512)])
def test_the_segment_entry_bytes_is_a_size_from_its_variable_and_the_servers_option(text, size, tmp_path,
                                                                                      monkeypatch):
    """$SCRATCHFS_SEGMENT_ENTRY_BYTES=1MiB exited 2 ("must be an integer, not str") and `mcp --segment-entry-bytes
    1MiB` was refused, where every other size setting takes KiB and MiB."""
    result = spill(tmp_path, "r", b"v", env={"SCRATCHFS_SEGMENT_ENTRY_BYTES": text})
    assert result.exit_code == 0, result.stderr
    monkeypatch.setenv("SCRATCHFS_SEGMENT_ENTRY_BYTES", text)
    assert ScratchStore(tmp_path / "py").settings.segment_entry_bytes == size
    monkeypatch.delenv("SCRATCHFS_SEGMENT_ENTRY_BYTES")
    for command in ("mcp", "mcp-proxy"):
        option = next(p for p in main.commands[command].params if p.name == "segment_entry_bytes")
        ctx = main.commands[command].make_context(command, [], resilient_parsing=True)
        assert option.process_value(ctx, text) == size
        with pytest.raises(click.BadParameter, match="between 0 and 1048576: 2097152"):
            option.process_value(ctx, "2MiB")


_READS = (("--reply-budget-bytes", "SCRATCHFS_REPLY_BUDGET_BYTES"), ("--pattern-timeout", "SCRATCHFS_PATTERN_TIMEOUT"),
          ("--busy-timeout", "SCRATCHFS_BUSY_TIMEOUT"), ("--refresh-on-read", "SCRATCHFS_REFRESH_ON_READ"))
_WRITES = (("--run-quota-bytes", "SCRATCHFS_RUN_QUOTA_BYTES"), ("--run-quota-entries", "SCRATCHFS_RUN_QUOTA_ENTRIES"),
           ("--durable", "SCRATCHFS_DURABLE"), ("--default-ttl", "SCRATCHFS_DEFAULT_TTL"))


@pytest.mark.parametrize("command", ["spill", "scratch-write", "read-handle", "scratch-read", "load", "mcp",
                                     "mcp-proxy", "serve"])
def test_every_command_that_writes_or_serves_shows_the_settings_and_their_variables(command):
    """A command that only reads shows only the settings a read uses (before: quotas, TTL and --durable too)."""
    text = CliRunner().invoke(main, [command, "--help"], terminal_width=400).output
    reads_only = command in ("read-handle", "scratch-read")
    for option, env in _READS + _WRITES:
        shown = option in text and f"[env: {env}" in text
        assert shown is not (reads_only and (option, env) in _WRITES), (command, option)


def test_the_proxys_ttl_is_the_default_ttl_option_and_takes_its_variable():
    text = CliRunner().invoke(main, ["mcp-proxy", "--help"], terminal_width=400).output
    assert "--ttl, --default-ttl SECONDS" in text and text.count("--default-ttl") == 1


def mcp_server(root, *options: str, env: dict[str, str] | None = None):
    return scratchfs_params("mcp", "--root", str(root), "--run", "r", "--agent", "a", *options, env=env)


@pytest.mark.parametrize("era", one_era(0))  # (a quota of the store: the same under either client era; its
# neighbour takes the other)
def test_a_byte_quota_option_of_the_mcp_server_refuses_the_scratch_write_past_it(era, tmp_path, fixture_data):
    value = fixture_data[CSV].decode()  # 512 KiB of CSV: tens of KB stored

    async def body():
        async with connect(mcp_server(tmp_path, "--run-quota-bytes", "16KiB"), era) as client:
            refused = await client.call_tool("scratch_write", {"key": "csv", "value": value})
            small = payload(await client.call_tool("scratch_write", {"key": "head", "value": value[:1000]}))
            listed = payload(await client.call_tool("scratch_list", {}))
            return error_of(refused), small, listed

    error, small, listed = run(body)
    assert re.fullmatch(r"quota exceeded: the entry alone takes [0-9,]+ stored bytes, over run 'r''s quota of "
                        r"16,384: no deletion makes room for it; store less", error)
    assert small["key"] == "head" and small["size"] == 1000
    assert [entry["key"] for entry in entries_of(tmp_path, "r")] == ["head"]
    assert "head" in json.dumps(listed) and "csv" not in json.dumps(listed)


@pytest.mark.parametrize("era", one_era(1))  # (a quota of the store, as above)
def test_an_entry_quota_from_the_environment_of_the_mcp_proxy_refuses_the_write_past_it(era, tmp_path):
    params = scratchfs_params("mcp-proxy", "--root", str(tmp_path), "--run", "r", "--agent", "a", "--",
                              *FAKE_UPSTREAM, env={"SCRATCHFS_RUN_QUOTA_ENTRIES": "2"})

    async def body():
        async with connect(params, era) as client:
            results = [await client.call_tool("scratch_write", {"key": f"k{i}", "value": "v"}) for i in range(3)]
            return [r.is_error for r in results], error_of(results[2])

    errors, error = run(body)
    assert errors == [False, False, True]
    assert error == "quota exceeded: run 'r' would hold 3 entries, over its quota of 2; delete entries or wait for " \
                    "them to expire"
    assert sorted(entry["key"] for entry in entries_of(tmp_path, "r")) == ["k0", "k1"]


def test_a_large_result_the_proxy_cannot_store_past_the_quota_is_a_preview_and_a_notice(tmp_path):
    """Before: the 200 KB result went to the model whole (the spill's failure passed it through), past the quota
    whose purpose is to bound what a run takes."""
    params = scratchfs_params("mcp-proxy", "--root", str(tmp_path), "--run", "r", "--agent", "a", "--",
                              *FAKE_UPSTREAM, env={"SCRATCHFS_RUN_QUOTA_ENTRIES": "1"})

    async def body():
        async with connect(params, ERAS[0]) as client:
            first = await client.call_tool("big", {"size": 20_000})
            second = await client.call_tool("big", {"size": 200_000})
            return json.loads(first.content[0].text), second

    stub, second = run(body)
    (text,) = second.content
    notice = json.loads(text.text)
    assert not second.is_error and len(text.text.encode()) <= 1536
    assert notice["stored"] is False and notice["size"] == len(big_text(200_000).encode())
    assert big_text(200_000).startswith(notice["preview"]) and len(notice["preview"]) > 200
    assert "NOT stored: quota exceeded: run 'r' is at its quota: it holds 1 entry, its quota 1." in notice["note"]
    assert [entry["key"] for entry in entries_of(tmp_path, "r")] == [stub["handle"]]


def test_a_reply_budget_from_the_environment_is_the_default_budget_of_read_handle_over_mcp(tmp_path, fixture_data):
    data = fixture_data[GREP]
    with ScratchStore(tmp_path) as store:
        handle = store.scope("r", "a").spill(data).handle

    async def read(env):
        async with connect(mcp_server(tmp_path, env=env), ERAS[0]) as client:
            (block,) = (await client.call_tool("read_handle", {"handle": handle})).content
            (asked,) = (await client.call_tool("read_handle", {"handle": handle, "budget": 8192})).content
            return block.text, asked.text

    default_reply, _ = run(lambda: read(None))
    small, asked = run(lambda: read({"SCRATCHFS_REPLY_BUDGET_BYTES": "3KiB"}))
    assert json.loads(default_reply)["length"] == 4096 and len(default_reply.encode()) > 3072  # the read's default
    reply = json.loads(small)
    assert len(small.encode()) <= 3072 and 2048 < reply["length"] < 4096  # cut to the budget from the environment
    assert reply["data"].encode() == data[:reply["length"]] and reply["next_offset"] == reply["length"]
    asked_for = json.loads(asked)  # a call that names its budget is not changed by the setting
    assert asked_for["length"] == 4096 and asked_for["data"] == json.loads(default_reply)["data"]


def test_the_proxys_threshold_and_ttl_take_their_variables(tmp_path):
    params = scratchfs_params("mcp-proxy", "--root", str(tmp_path), "--run", "r", "--agent", "a", "--",
                              *FAKE_UPSTREAM, env={"SCRATCHFS_SPILL_THRESHOLD_BYTES": "16KiB",
                                                   "SCRATCHFS_DEFAULT_TTL": "123"})

    async def body():
        async with connect(params, ERAS[0]) as client:
            (under,) = (await client.call_tool("big", {"size": 12_000})).content  # over the default 8 KiB
            (over,) = (await client.call_tool("big", {"size": 20_000})).content
            return under.text, json.loads(over.text)

    under, stub = run(body)
    assert under == big_text(12_000)  # passed through: 16 KiB is the threshold
    (entry,) = entries_of(tmp_path, "r")
    assert entry["key"] == stub["handle"] and entry["size"] == len(big_text(20_000).encode())
    assert entry["ttl"] == 123.0


def test_the_readme_table_names_every_settings_option_with_its_variable_and_field():
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    params = [p for p in main.commands["spill"].params if isinstance(p, SettingOption)]
    assert len(params) == 8
    for param in params:
        flags = "/".join(param.opts + param.secondary_opts)
        assert f"| `{flags}` | `{param.envvar}` | `{param.name}` |" in readme or \
            f"| `{flags}` (`mcp-proxy`: `--ttl`) | `{param.envvar}` | `{param.name}` |" in readme, flags


def test_the_tools_listed_give_the_servers_own_default_budget_and_ttl(tmp_path):
    """Before: a server started with a 2 KiB reply budget and a 120 s TTL listed 'default 8192' and 'default one
    hour', and answered with 2 KiB replies and 120 s values."""
    from scratchfs.api.tools import TOOL_SPECS, tool_specs

    async def listed(env):
        async with connect(mcp_server(tmp_path, env=env), ERAS[0]) as client:
            return {t.name: t for t in (await client.list_tools()).tools}

    default = run(lambda: listed(None))
    tools = run(lambda: listed({"SCRATCHFS_REPLY_BUDGET_BYTES": "2KiB", "SCRATCHFS_DEFAULT_TTL": "120"}))
    assert {n: t.input_schema for n, t in default.items()} == {n: s.input_schema for n, s in TOOL_SPECS.items()}
    for name in ("read_handle", "scratch_read", "scratch_list"):
        budget = tools[name].input_schema["properties"]["budget"]
        assert budget["default"] == 2048  # (the schema's default; the description says it once, below)
        assert "(2048 by default," in tools[name].description
    assert "(default: 120 seconds)" in tools["scratch_write"].input_schema["properties"]["ttl"]["description"]
    text = json.dumps({n: [t.description, t.input_schema] for n, t in tools.items()})
    assert "default 8192" not in text and "8192 by default" not in text and "one hour" not in text
    assert tool_specs() is TOOL_SPECS


def test_a_load_stopped_by_the_quota_prints_the_handles_it_stored(tmp_path, fixture_data):
    """Before: exit 5 and nothing on stdout, the two files stored findable only by ls."""
    folder = tmp_path / "outs"
    folder.mkdir()
    for n, name in enumerate(sorted(fixture_data)):
        (folder / f"{n}-{name}").write_bytes(fixture_data[name])
    result = CliRunner().invoke(main, ["load", str(folder), "--root", str(tmp_path / "root"), "--run", "L",
                                       "--agent", "a", "--run-quota-entries", "2"])
    assert result.exit_code == 5
    printed = json.loads(result.stdout)
    assert [p["file"] for p in printed] == sorted(p.name for p in folder.iterdir())[:2]
    assert sorted(p["handle"] for p in printed) == sorted(e["key"] for e in entries_of(tmp_path / "root", "L"))
    assert result.stderr.count("\n") == 1 and "(after loading 2 files, printed)" in result.stderr


@pytest.mark.parametrize("option", [["--run-quota-bytes", "1KiB"], ["--run-quota-bytes=1KiB"], ["--durable"]])
def test_a_settings_option_before_the_command_says_it_goes_after_the_command_name(option, tmp_path):
    """The settings are options of the commands that open a store, not of ``scratchfs`` itself (only --root, --run
    and --agent may come before the command). Given before the command it is refused -- one line, exit 2, nothing
    written -- and the line says where it goes: before, 'No such option' alone, as for a misspelt option."""
    result = CliRunner().invoke(main, [*option, "spill", "--root", str(tmp_path), "--run", "r", "--agent", "a"],
                                input=b"v")
    assert result.exit_code == 2
    found = re.fullmatch(rf"scratchfs: usage: No such option '{option[0].partition('=')[0]}'\. It is an option of "
                         r"([a-z, -]+): give it after the command's name \(see scratchfs --help\)\n", result.stderr)
    assert found and {"spill", "scratch-write", "mcp", "serve"} <= set(found.group(1).split(", ")), result.stderr
    assert not (tmp_path / "index.sqlite").exists()
    misspelt = CliRunner().invoke(main, ["--run-quota-byte", "1", "spill"])
    assert misspelt.exit_code == 2 and "after the command" not in misspelt.stderr


@pytest.mark.parametrize("rebuild", [False, True])
def test_fsck_waits_the_busy_timeout_of_the_environment(tmp_path, monkeypatch, rebuild):
    """``$SCRATCHFS_BUSY_TIMEOUT`` is read by every command that opens a store; ``fsck`` (and ``fsck
    --rebuild-index``) opened it with the default, so over a frozen PostgreSQL or S3 server it waited 24 s where
    ``sweep`` gave up in 9 (found by a platform engineer's trial)."""
    from scratchfs.cli import fsck_report

    assert spill(tmp_path, "r", b"x" * 20_000).exit_code == 0
    seen = []
    monkeypatch.setattr(fsck_report, "report_fsck", lambda store, *args: seen.append(store.settings.busy_timeout))
    args = ["fsck", "--root", str(tmp_path), *(["--rebuild-index"] if rebuild else [])]
    result = CliRunner(env={"SCRATCHFS_BUSY_TIMEOUT": "2.5"}).invoke(main, args)
    assert result.exit_code == 0, result.output
    assert seen == [2.5]


@pytest.mark.parametrize(("command", "option", "said"), [
    ("read-handle", "--budget", "[default: --reply-budget-bytes, else $SCRATCHFS_REPLY_BUDGET_BYTES, else 8 KiB]"),
    ("scratch-read", "--budget", "[default: --reply-budget-bytes, else $SCRATCHFS_REPLY_BUDGET_BYTES, else 8 KiB]"),
    ("spill", "--ttl", "[default: --default-ttl, else $SCRATCHFS_DEFAULT_TTL, else 3600]"),
    ("scratch-write", "--ttl", "[default: --default-ttl, else $SCRATCHFS_DEFAULT_TTL, else 3600]"),
    ("load", "--ttl", "[default: --default-ttl, else $SCRATCHFS_DEFAULT_TTL, else 3600]"),
])
def test_an_options_help_says_the_setting_its_default_comes_from(command, option, said):
    """newuser12: ``read-handle --help`` said ``--budget ... [default: 8192]``, where a read without it takes the
    store's reply budget (``--reply-budget-bytes``, ``$SCRATCHFS_REPLY_BUDGET_BYTES``); a write's ``--ttl`` said
    ``[default: 3600]`` beside ``--default-ttl``, which sets it. Each help names where its default comes from, and
    the command does what it says (below)."""
    text = " ".join(CliRunner().invoke(main, [command, "--help"], terminal_width=400).output.split())
    helped = text[text.index(f"{option} "):]
    assert helped[helped.index("[default: "): helped.index("]") + 1] == said, helped[:300]  # (its first bracket)
    assert "[default: 8192]" not in text and "[default: 3600]" not in text


def test_the_defaults_the_help_names_are_the_ones_a_command_takes(tmp_path, fixture_data):
    root = tmp_path / "root"
    stub = json.loads(spill(root, "r", fixture_data[GREP], env={"SCRATCHFS_DEFAULT_TTL": "100"}).stdout)
    listed = CliRunner().invoke(main, ["ls", "--root", str(root), "--json"]).stdout
    assert [entry["ttl"] for entry in json.loads(listed)] == [100.0]  # (the variable, not 3600)

    def read(env: dict[str, str] | None = None, *options: str) -> int:
        done = CliRunner(env=env).invoke(main, ["read-handle", stub["handle"], "--root", str(root), "--run", "r",
                                                "--agent", "a", "--line", "1", "--lines", "200", "--json", *options])
        assert done.exit_code == 0, done.output
        return len(done.stdout.strip().encode())

    assert 4096 < read() <= 8192  # (the 8 KiB default)
    assert read({"SCRATCHFS_REPLY_BUDGET_BYTES": "2KiB"}) <= 2048  # (the variable's)
    assert read({"SCRATCHFS_REPLY_BUDGET_BYTES": "2KiB"}, "--reply-budget-bytes", "3KiB") <= 3072 < read()
