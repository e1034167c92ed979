"""A PostgreSQL index opened by a least-privilege runtime role (a fleet trial: every opening ran ``CREATE SCHEMA IF
NOT EXISTS``, so a role without ``CREATE`` on the database could not use a schema migrated for it, and an empty schema
an admin made was reported as "no index schema"): an opening checks first and creates or migrates only what is
missing; what the role may not create is one error naming the privilege and the admin's command. Real roles
(``CREATE ROLE ... LOGIN``) on the test server; the cascade's tie kept when ``runs_table=`` is left off a URL."""

from __future__ import annotations

import json
import uuid

import psycopg
import pytest
from click.testing import CliRunner

from scratchfs import InvalidArgument, NotFound, ScratchStore, StorageError
from scratchfs.api.store import existing_store
from scratchfs.cli import main
from scratchfs.engine.backends import migrate_index
from tests.services import postgres_url


@pytest.fixture
def role(postgres_dsn):
    """A fresh login role with no privilege of its own (dropped after, with what it owns)."""
    name = f"rt_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_dsn, autocommit=True) as conn:
        conn.execute(f'CREATE ROLE "{name}" LOGIN')
    yield name
    with psycopg.connect(postgres_dsn, autocommit=True) as conn:
        conn.execute(f'DROP OWNED BY "{name}"')
        conn.execute(f'DROP ROLE "{name}"')


def as_role(postgres_dsn: str, schema: str, role: str) -> str:
    """The index URL of ``schema`` with ``role`` as its user."""
    return postgres_url(postgres_dsn, schema).replace("postgresql://postgres@", f"postgresql://{role}@", 1)


def admin(postgres_dsn: str, *statements: str) -> None:
    with psycopg.connect(postgres_dsn, autocommit=True) as conn:
        for statement in statements:
            conn.execute(statement)


def runtime_grants(schema: str, role: str) -> tuple[str, ...]:
    """What README says a runtime role needs on a migrated schema."""
    return (f'GRANT USAGE ON SCHEMA "{schema}" TO "{role}"',
            f'GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA "{schema}" TO "{role}"',
            f'GRANT USAGE ON ALL SEQUENCES IN SCHEMA "{schema}" TO "{role}"')


def test_a_runtime_role_without_create_uses_a_migrated_schema(postgres_dsn, pg_schema, role, tmp_path):
    with ScratchStore(tmp_path, index=postgres_url(postgres_dsn, pg_schema)) as store:  # the admin migrates it
        store.scope("run-0", "agent").spill(b"written by the admin\n" * 100)
    admin(postgres_dsn, *runtime_grants(pg_schema, role))
    with ScratchStore(tmp_path, index=as_role(postgres_dsn, pg_schema, role)) as store:
        scope = store.scope("run-1", "agent")
        stub = scope.spill(b"written by the runtime role\n" * 1000)
        assert scope.read_handle(stub.handle, length=9).data == b"written b"
        scope.scratch_write("note", b"a value")
        scope.scratch_write("note", b"a new value")  # (the old value's tombstone)
        assert sorted({e.run_id for e in store.list_entries()}) == ["run-0", "run-1"]
        store.delete_run("run-0")
        store.sweep()
        assert {e.run_id for e in store.list_entries()} == {"run-1"}


def test_an_empty_schema_an_admin_made_is_migrated_when_the_role_may_and_named_when_it_may_not(
        postgres_dsn, pg_schema, role, tmp_path):
    admin(postgres_dsn, f'CREATE SCHEMA "{pg_schema}"', f'GRANT USAGE ON SCHEMA "{pg_schema}" TO "{role}"')
    url = as_role(postgres_dsn, pg_schema, role)
    assert existing_store(tmp_path, busy_timeout=5, index=url) == tmp_path  # (not "no index schema": it is empty)
    with pytest.raises(StorageError) as err:
        ScratchStore(tmp_path, index=url)
    message = str(err.value)
    assert f"the index schema '{pg_schema}' is empty and role '{role}' may not create or migrate it (it lacks " \
           f"CREATE on schema '{pg_schema}')" in message, message
    assert "scratchfs migrate-index" in message and f'GRANT CREATE ON SCHEMA "{pg_schema}" TO "{role}"' in message
    assert "permission denied" not in message
    admin(postgres_dsn, f'GRANT CREATE ON SCHEMA "{pg_schema}" TO "{role}"')
    with ScratchStore(tmp_path, index=url) as store:
        store.scope("run-1", "agent").spill(b"now it is migrated")
        assert len(store.list_entries()) == 1


def test_a_role_that_may_not_create_the_schema_is_told_and_the_admin_command_makes_it(postgres_dsn, pg_schema, role,
                                                                                      tmp_path, monkeypatch):
    url = as_role(postgres_dsn, pg_schema, role)
    with pytest.raises(StorageError) as err:
        ScratchStore(tmp_path, index=url)
    assert f"the index schema '{pg_schema}' does not exist and role '{role}' may not create or migrate it (it lacks " \
           "CREATE on database 'postgres')" in str(err.value), str(err.value)
    monkeypatch.delenv("SCRATCHFS_INDEX", raising=False)
    done = CliRunner().invoke(main, ["migrate-index", "--index", postgres_url(postgres_dsn, pg_schema)])
    assert done.exit_code == 0, done.output
    assert f"schema '{pg_schema}'" in done.output and "created" in done.output, done.output
    assert migrate_index(postgres_url(postgres_dsn, pg_schema), busy_timeout=5)[1:] == (5, 5)  # nothing to do now
    admin(postgres_dsn, *runtime_grants(pg_schema, role))
    with ScratchStore(tmp_path, index=url) as store:
        store.scope("run-1", "agent").spill(b"the runtime role writes")


@pytest.fixture
def runs(postgres_dsn, pg_schema):
    name = f"{pg_schema}_platform"
    admin(postgres_dsn, f'CREATE SCHEMA "{name}"', f'CREATE TABLE "{name}".runs (id text PRIMARY KEY)',
          f'CREATE TABLE "{name}".other (id text PRIMARY KEY)', f"INSERT INTO \"{name}\".runs VALUES ('run-1')")
    return name


def test_the_cascade_is_the_schemas_and_a_url_without_runs_table_is_told_so(postgres_dsn, pg_schema, runs, tmp_path,
                                                                             monkeypatch):
    plain = postgres_url(postgres_dsn, pg_schema)
    with ScratchStore(tmp_path, index=f"{plain}&runs_table={runs}.runs(id)") as store:
        store.scope("run-1", "agent").spill(b"a known run")
    with ScratchStore(tmp_path, index=plain) as store, pytest.raises(InvalidArgument) as err:
        store.scope("run-2", "agent").spill(b"a run the platform does not know")
    message = str(err.value)
    assert "this index URL names no runs_table=, but the index schema" in message, message
    assert f'ALTER TABLE "{pg_schema}".entries DROP CONSTRAINT entries_run_fk' in message
    assert "leave runs_table= off" not in message  # (the old advice: it changed nothing)
    with pytest.raises(InvalidArgument, match=r"is tied to the runs table .*runs\(id\), not .*other\(id\)"):
        ScratchStore(tmp_path, index=f"{plain}&runs_table={runs}.other(id)")
    monkeypatch.setenv("SCRATCHFS_INDEX", plain)
    done = CliRunner().invoke(main, ["spill", "--root", str(tmp_path), "--run", "run-2", "--agent", "a"],
                              input=b"x" * 100)
    assert done.exit_code == 2, done.output  # a setting to fix (was 4: a storage failure)
    assert "invalid argument: the platform's runs table" in done.output


def test_a_runtime_role_opens_a_tied_schema_without_access_to_the_runs_table(postgres_dsn, pg_schema, runs, role,
                                                                             tmp_path):
    """The tie is looked up in the catalogs alone: a runtime role needs no privilege on the platform's schema (the
    foreign key's checks run as the tables' owners)."""
    tie = f"&runs_table={runs}.runs(id)"
    with ScratchStore(tmp_path, index=postgres_url(postgres_dsn, pg_schema) + tie) as store:
        store.scope("run-1", "agent").spill(b"by the admin")
    admin(postgres_dsn, *runtime_grants(pg_schema, role))
    with ScratchStore(tmp_path, index=as_role(postgres_dsn, pg_schema, role) + tie) as store:
        store.scope("run-1", "agent").spill(b"by the runtime role")
        with pytest.raises(InvalidArgument, match="has no run 'run-2'"):
            store.scope("run-2", "agent").spill(b"a run the platform does not know")
        assert len(store.list_entries()) == 2


def test_a_schema_holding_other_tables_is_not_taken_for_an_index(postgres_dsn, pg_schema, tmp_path):
    admin(postgres_dsn, f'CREATE SCHEMA "{pg_schema}"', f'CREATE TABLE "{pg_schema}".unrelated (id int)')
    with pytest.raises(NotFound, match="holds other tables and no scratchfs index"):
        existing_store(tmp_path, busy_timeout=5, index=postgres_url(postgres_dsn, pg_schema))


def schema_of_version_3(postgres_dsn: str, schema: str) -> None:
    """The index schema as scratchfs of schema version 3 left it (before scope_tombstones)."""
    from scratchfs.engine.postgres_schema import MIGRATIONS

    admin(postgres_dsn, f'CREATE SCHEMA "{schema}"', f'CREATE TABLE "{schema}".schema_version (version integer '
          "PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
          *(statement.replace("@S", f'"{schema}"') for step in (1, 2, 3) for statement in MIGRATIONS[step]),
          *(f'INSERT INTO "{schema}".schema_version (version) VALUES ({step})' for step in (1, 2, 3)))


def test_a_runtime_role_not_granted_the_table_an_upgrade_added_is_told_the_grant_as_it_opens(
        postgres_dsn, pg_schema, role, tmp_path, s3_env):
    """An index of schema version 3, its runtime role granted ON ALL TABLES as README says; an admin's new scratchfs
    migrates it (step 4 adds scope_tombstones, which that grant does not cover). The role's stores opened and wrote,
    but every delete of a run or agent and every sweep failed, 'permission denied for table scope_tombstones', naming
    no grant (hostile5): a sweep that never runs keeps expired data for ever. The opening now says so, naming the
    table and the admin's grant; once run, deletes and sweeps work."""
    schema_of_version_3(postgres_dsn, pg_schema)
    admin(postgres_dsn, *runtime_grants(pg_schema, role))
    with ScratchStore(tmp_path / "admin", index=postgres_url(postgres_dsn, pg_schema), blobs=s3_env) as store:
        assert store.index.migrated_from == 3
    with pytest.raises(StorageError) as refused:
        ScratchStore(tmp_path / "rt", index=as_role(postgres_dsn, pg_schema, role), blobs=s3_env).close()
    message = str(refused.value)
    assert f"{pg_schema}.scope_tombstones" in message and f"role '{role}' has no privilege" in message, message
    assert (f'GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA "{pg_schema}" TO "{role}"'
            in message), message
    admin(postgres_dsn, *runtime_grants(pg_schema, role))
    with ScratchStore(tmp_path / "rt", index=as_role(postgres_dsn, pg_schema, role), blobs=s3_env) as store:
        store.scope("run-1", "agent").scratch_write("k", b"v")
        assert store.delete_run("run-1") == 1
        store.sweep()


def test_a_statement_refused_for_a_privilege_names_the_grant(postgres_dsn, pg_schema, role, tmp_path):
    """A role holding some privilege on a table but not the one a statement takes (INSERT on scope_tombstones,
    revoked once the store is open: an opening refuses it) gets the database's refusal and the admin's grant, where it
    got the refusal alone."""
    with ScratchStore(tmp_path, index=postgres_url(postgres_dsn, pg_schema)):
        pass
    admin(postgres_dsn, *runtime_grants(pg_schema, role))
    with ScratchStore(tmp_path, index=as_role(postgres_dsn, pg_schema, role)) as store:
        admin(postgres_dsn, f'REVOKE INSERT, UPDATE ON "{pg_schema}".scope_tombstones FROM "{role}"')  # (once open)
        with pytest.raises(StorageError) as refused:
            store.delete_run("run-1")
    message = str(refused.value)
    assert "permission denied for table scope_tombstones" in message, message
    assert f'GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA "{pg_schema}"' in message, message


@pytest.fixture
def quoted_role(postgres_dsn):
    """A login role whose name holds a double quote (an identifier PostgreSQL allows, quoted by doubling it)."""
    name = f'rt"{uuid.uuid4().hex[:8]}'
    quoted = '"' + name.replace('"', '""') + '"'
    admin(postgres_dsn, f"CREATE ROLE {quoted} LOGIN")
    yield name, quoted
    admin(postgres_dsn, f"DROP OWNED BY {quoted}", f"DROP ROLE {quoted}")


def told_sql(message: str) -> list[str]:
    """The statements a refusal tells an admin to run (at its end, after 'prints them for psql): ', separated by
    '; ')."""
    return message.split("prints them for psql): ", 1)[1].split("; ")


def test_the_grants_a_refusal_names_run_as_they_are_for_any_role_name(postgres_dsn, pg_schema, quoted_role,
                                                                       tmp_path):
    """The refusal after an upgrade (the role not granted scope_tombstones) named the grants with the role in
    double quotes as it was: a role whose name holds one got SQL that does not run (syntax error). The names are
    quoted as identifiers: the SQL of the message, run as it is by an admin, lets the role open, delete and sweep."""
    name, quoted = quoted_role
    schema_of_version_3(postgres_dsn, pg_schema)
    admin(postgres_dsn, f'GRANT USAGE ON SCHEMA "{pg_schema}" TO {quoted}',
          f'GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA "{pg_schema}" TO {quoted}',
          f'GRANT USAGE ON ALL SEQUENCES IN SCHEMA "{pg_schema}" TO {quoted}')
    with ScratchStore(tmp_path / "admin", index=postgres_url(postgres_dsn, pg_schema)) as store:
        assert store.index.migrated_from == 3
    url = postgres_url(postgres_dsn, pg_schema).replace("postgresql://postgres@",
                                                        f"postgresql://{name.replace(chr(34), '%22')}@", 1)
    with pytest.raises(StorageError) as refused:
        ScratchStore(tmp_path / "rt", index=url).close()
    admin(postgres_dsn, *told_sql(str(refused.value)))
    with ScratchStore(tmp_path / "rt", index=url) as store:
        store.scope("run-1", "agent").scratch_write("k", b"v")
        assert store.delete_run("run-1") == 1
        store.sweep()


def test_a_statement_refused_for_a_privilege_names_the_role_in_its_grant(postgres_dsn, pg_schema, role, tmp_path):
    """A statement refused later (a privilege revoked) named '<the runtime role>' in its GRANT: SQL to edit before
    it runs. It names the role the store connects as."""
    with ScratchStore(tmp_path, index=postgres_url(postgres_dsn, pg_schema)):
        pass
    admin(postgres_dsn, *runtime_grants(pg_schema, role))
    with ScratchStore(tmp_path, index=as_role(postgres_dsn, pg_schema, role)) as store:
        admin(postgres_dsn, f'REVOKE INSERT, UPDATE ON "{pg_schema}".scope_tombstones FROM "{role}"')  # (once open)
        with pytest.raises(StorageError) as refused:
            store.delete_run("run-1")
        admin(postgres_dsn, *told_sql(str(refused.value)))
        store.delete_run("run-1")  # (the grants, run as told, are enough)


def test_the_cli_refusal_is_one_line_with_the_sql(postgres_dsn, pg_schema, role, tmp_path):
    """What a user sees when the role lacks the table an upgrade added: one stderr line with the exact GRANTs and
    no traceback, and the storage exit code."""
    schema_of_version_3(postgres_dsn, pg_schema)
    admin(postgres_dsn, *runtime_grants(pg_schema, role))
    with ScratchStore(tmp_path / "admin", index=postgres_url(postgres_dsn, pg_schema)):
        pass
    result = CliRunner().invoke(main, ["ls", "--root", str(tmp_path / "rt"),
                                       "--index", as_role(postgres_dsn, pg_schema, role)])
    assert result.exit_code == 4, (result.exit_code, result.output)  # (storage)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in result.output, result.stderr
    assert (f'GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA "{pg_schema}" TO "{role}"'
            in lines[0]), lines[0]
    assert f"scratchfs grants --role {role}" in lines[0], lines[0]


def test_scratchfs_grants_prints_the_sql_that_lets_a_role_through_upgrades(postgres_dsn, pg_schema, role, tmp_path):
    """``scratchfs grants --role R`` prints, for the index URL's schema, the statements README lists (one a line,
    ready for psql) and the default privileges that grant a table a later upgrade adds as it is made. Run as the
    admin who migrates, they let the role open an index migrated since (version 3 to 4) without a grant more."""
    schema_of_version_3(postgres_dsn, pg_schema)
    url = postgres_url(postgres_dsn, pg_schema)
    result = CliRunner().invoke(main, ["grants", "--role", role, "--index", url])
    assert result.exit_code == 0, result.output
    statements = [line.rstrip(";") for line in result.stdout.splitlines() if line and not line.startswith("--")]
    assert statements[:3] == list(runtime_grants(pg_schema, role)), statements
    assert any(s.startswith(f'ALTER DEFAULT PRIVILEGES IN SCHEMA "{pg_schema}" GRANT') for s in statements)
    admin(postgres_dsn, *statements)
    assert migrate_index(url, busy_timeout=10) == (pg_schema, 3, 5)  # (the admin's upgrade: scope_tombstones made)
    with ScratchStore(tmp_path, index=as_role(postgres_dsn, pg_schema, role)) as store:
        store.scope("run-1", "agent").scratch_write("k", b"v")
        assert store.delete_run("run-1") == 1
    told = json.loads(CliRunner().invoke(main, ["grants", "--role", role, "--index", url, "--json"]).stdout)
    assert told == {"schema": pg_schema, "role": role, "grants": statements[:3], "default_privileges": statements[3:]}
    bad = CliRunner().invoke(main, ["grants", "--role", "", "--index", url])
    assert bad.exit_code == 2 and "Traceback" not in bad.output, bad.output
    local = CliRunner().invoke(main, ["grants", "--role", role], env={"SCRATCHFS_INDEX": None})
    assert local.exit_code == 2 and "postgresql://" in local.output, local.output


def test_advice_to_run_a_command_that_takes_no_root_is_not_given_one(postgres_dsn, pg_schema, role, tmp_path):
    """The CLI writes ``--root ROOT`` after each command its advice names (so that, pasted, it acts on the store
    the failed command was given); after ``migrate-index`` (and ``grants``), which take no ``--root``, the pasted
    advice failed: 'No such option: --root'."""
    admin(postgres_dsn, f'CREATE SCHEMA "{pg_schema}"', f'GRANT USAGE ON SCHEMA "{pg_schema}" TO "{role}"')
    result = CliRunner().invoke(main, ["spill", "--root", str(tmp_path / "rt"), "--run", "r", "--agent", "a",
                                       "--index", as_role(postgres_dsn, pg_schema, role)], input=b"x" * 10)
    assert result.exit_code == 4, result.output
    assert "scratchfs migrate-index" in result.stderr, result.stderr
    assert "migrate-index --root" not in result.stderr, result.stderr


def test_migrate_index_says_the_runtime_roles_need_their_grants_again(postgres_dsn, pg_schema, monkeypatch):
    """An upgrade that migrates the schema (3 to 4 added scope_tombstones) said only 'migrated from version 3': the
    admin learnt that the runtime roles lacked the new table when their hosts were refused. It says so, with the
    command that prints the grants; a schema already current or just created says nothing of it."""
    schema_of_version_3(postgres_dsn, pg_schema)
    monkeypatch.delenv("SCRATCHFS_INDEX", raising=False)
    url = postgres_url(postgres_dsn, pg_schema)
    done = CliRunner().invoke(main, ["migrate-index", "--index", url])
    assert done.exit_code == 0, done.output
    assert "migrated from version 3 (version 5)" in done.stdout, done.output
    assert "scratchfs grants --role ROLE" in done.stdout and "runtime role" in done.stdout, done.output
    again = CliRunner().invoke(main, ["migrate-index", "--index", url])
    assert "already current" in again.stdout and "grants" not in again.stdout, again.output


@pytest.mark.parametrize("schema", ["", "Scratch", 'my"schema', "a-b", "x" * 64, "9lives"])
def test_grants_refuses_a_schema_no_store_opens(schema):
    """``scratchfs grants`` printed grants for any ``?schema=`` (found by a new user from the README: ``?schema=``
    gave ``GRANT USAGE ON SCHEMA "" ...``, which PostgreSQL refuses, and ``?schema=Scratch`` grants on the quoted,
    case-sensitive ``"Scratch"``), where every store refuses the URL as it opens ('schema must be lower-case ...'):
    an admin ran grants for a schema the fleet never uses. Refused alike now, exit code 2, naming ``?schema=``;
    a name a store takes is still granted."""
    from urllib.parse import quote

    url = f"postgresql://admin@db.internal/platform?schema={quote(schema)}"
    result = CliRunner().invoke(main, ["grants", "--role", "scratch_rt", "--index", url])
    assert result.exit_code == 2, result.output
    assert "schema must be lower-case letters" in result.output and "?schema=" in result.output, result.output
    assert "GRANT" not in result.stdout and "Traceback" not in result.output, result.output
    good = CliRunner().invoke(main, ["grants", "--role", "scratch_rt", "--index", url.replace(
        f"schema={quote(schema)}", "schema=_ok9")])
    assert good.exit_code == 0 and 'GRANT USAGE ON SCHEMA "_ok9" TO "scratch_rt";' in good.stdout, good.output


@pytest.mark.parametrize(("granted", "sequence"), [("SELECT", True), ("SELECT, INSERT, DELETE", True),
                                                 ("SELECT, INSERT, UPDATE, DELETE", False)])
def test_a_role_granted_less_than_it_writes_with_is_refused_as_it_opens(postgres_dsn, pg_schema, role, tmp_path,
                                                                         granted, sequence):
    """A runtime role granted SELECT alone (a monitoring role's grant given to the hosts; or UPDATE left off, which
    the SELECT ... FOR UPDATE of a write takes), or no USAGE on the entries' sequence, opened the store (the opening
    checked only that it held *some* privilege on each table: has_table_privilege of 'SELECT, INSERT, UPDATE,
    DELETE' is true when any is held) and failed at its first write, 'permission denied for table entries' -- an MCP
    server started and passed every result through unspilled. The opening now refuses it in one line naming what
    lacks and the grants; the grants named, run as they are, let it open and write."""
    with ScratchStore(tmp_path / "admin", index=postgres_url(postgres_dsn, pg_schema)):
        pass
    admin(postgres_dsn, f'GRANT USAGE ON SCHEMA "{pg_schema}" TO "{role}"',
          f'GRANT {granted} ON ALL TABLES IN SCHEMA "{pg_schema}" TO "{role}"',
          *([f'GRANT USAGE ON ALL SEQUENCES IN SCHEMA "{pg_schema}" TO "{role}"'] if sequence else []))
    url = as_role(postgres_dsn, pg_schema, role)
    with pytest.raises(StorageError) as refused:
        ScratchStore(tmp_path / "rt", index=url).close()
    message = str(refused.value)
    assert "\n" not in message and f"role '{role}' lacks " in message, message
    if granted == "SELECT":
        assert f"lacks INSERT, UPDATE, DELETE on {pg_schema}.schema_version, {pg_schema}.entries" in message, message
    elif "UPDATE" not in granted:
        assert f"lacks UPDATE on {pg_schema}.schema_version, {pg_schema}.entries" in message, message
        assert "INSERT" not in message.split(":", maxsplit=1)[0], message
    else:
        assert f"USAGE on sequence {pg_schema}.entries_id_seq" in message and "UPDATE on" not in message, message
    result = CliRunner().invoke(main, ["spill", "--root", str(tmp_path / "rt"), "--run", "r", "--agent", "a",
                                       "--index", url], input=b"x" * 100)
    assert result.exit_code == 4 and len(result.stderr.strip().splitlines()) == 1, result.output
    admin(postgres_dsn, *told_sql(message))
    with ScratchStore(tmp_path / "rt", index=url) as store:
        scope = store.scope("run-1", "agent")
        assert scope.read_handle(scope.spill(b"written now\n" * 1000).handle, length=7).data == b"written"


_HOSTILE_ROLES = ['rt "quoted" x', "rt'; DROP SCHEMA x; --", 'rt"; GRANT ALL ON SCHEMA public TO PUBLIC; --',
                  "rt naïve 日本", "rt\\back", "RT_Upper"]


@pytest.mark.parametrize("name", [*_HOSTILE_ROLES, "public", "none", "pg_monitor", "pg_x"])
def test_the_grants_printed_for_any_role_name_grant_that_role_alone_or_are_refused(postgres_dsn, pg_schema, name,
                                                                                   tmp_path):
    """``scratchfs grants --role NAME`` for hostile names, on the real server: the SQL it prints, run as it is by
    the admin, grants ``NAME`` and no other role (a bystander has no USAGE on the schema), or the command refuses
    (exit 2, one line, nothing printed on stdout). ``public`` printed ``GRANT ... TO "public"``, which PostgreSQL
    reads as ``TO PUBLIC`` -- every role of the database, the bystander included, got the index's tables (hostile7);
    ``none`` and the ``pg_`` prefix name no role a fleet's host can connect as (``CREATE ROLE`` refuses them)."""
    schema_of_version_3(postgres_dsn, pg_schema)
    quoted = '"' + name.replace('"', '""') + '"'
    bystander = f"by_{uuid.uuid4().hex[:12]}"
    made = name in _HOSTILE_ROLES
    admin(postgres_dsn, f'CREATE ROLE "{bystander}"', *([f"CREATE ROLE {quoted}"] if made else []))
    try:
        result = CliRunner().invoke(main, ["grants", "--role", name, "--index", postgres_url(postgres_dsn, pg_schema),
                                           "--json"])
        if result.exit_code != 0:
            assert not made and result.exit_code == 2 and result.stdout == "", (result.exit_code, result.output)
            assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.output, result.stderr
            return
        told = json.loads(result.stdout)
        admin(postgres_dsn, *told["grants"], *told["default_privileges"])
        with psycopg.connect(postgres_dsn, autocommit=True) as conn:
            may = conn.execute("SELECT has_schema_privilege(%s, %s, 'USAGE'), has_table_privilege(%s, format('%%I.%%I',"
                               " %s::text, 'entries'), 'DELETE')",
                               (bystander, pg_schema, bystander, pg_schema)).fetchone()
            assert may == (False, False), f"{name!r}'s grants reached the bystander role {bystander}"
            assert made and conn.execute("SELECT has_schema_privilege(%s, %s, 'USAGE')",
                                         (name, pg_schema)).fetchone() == (True,)
    finally:
        admin(postgres_dsn, f'REVOKE ALL ON SCHEMA "{pg_schema}" FROM PUBLIC', f'DROP OWNED BY "{bystander}"',
              f'DROP ROLE "{bystander}"', *([f"DROP OWNED BY {quoted}", f"DROP ROLE {quoted}"] if made else []))


def test_a_runtime_role_granted_at_version_4_opens_the_index_an_admin_migrated_to_5(postgres_dsn, pg_schema, role,
                                                                                   tmp_path):
    """Step 5 adds a column, no table: a runtime role granted ON ALL TABLES at version 4 needs no grant more once an
    admin migrated the schema (``migrate-index``); its store opens, writes and sweeps."""
    url = postgres_url(postgres_dsn, pg_schema)
    with ScratchStore(tmp_path / "admin", index=url):
        pass
    admin(postgres_dsn, f'ALTER TABLE "{pg_schema}".store DROP COLUMN took_over',
          f'DELETE FROM "{pg_schema}".schema_version WHERE version = 5', *runtime_grants(pg_schema, role))
    with pytest.raises(StorageError, match="is at version 4 of 5"):  # (the runtime role may not migrate it)
        ScratchStore(tmp_path / "rt", index=as_role(postgres_dsn, pg_schema, role)).close()
    assert migrate_index(url, busy_timeout=10) == (pg_schema, 4, 5)
    with ScratchStore(tmp_path / "admin", index=as_role(postgres_dsn, pg_schema, role)) as store:
        store.scope("run-1", "agent").scratch_write("k", b"v")
        assert store.delete_run("run-1") == 1
        store.sweep()

