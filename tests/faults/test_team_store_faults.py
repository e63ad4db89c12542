"""The team store's faults, on a real PostgreSQL: unreachable, a wrong password, a certificate
nobody trusts, a statement timeout, the connection dropped in the middle of a snapshot. Each time
the command exits with the table's status and a message naming the store, never a password; a
snapshot is whole or absent; and a store once unreachable is used again when it is back."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import trustme

from hubtui.core.store import ListKey, Snapshot, Store, StoreError, now
from hubtui.core.store import server_store as stored
from hubtui.core.store.server_store import ServerStore
from tests.harness.commands import headless_settings, run
from tests.harness.harness import free_port
from tests.harness.postgres import OWNER, PostgresServer


@pytest.fixture(autouse=True)
def headless_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    headless_settings(monkeypatch, tmp_path)


USERS = ListKey("users", "h1", "1001")


@pytest.fixture
def server(shared_server: str) -> str:
    """The module's one server: these tests read it and change nothing of it."""
    return shared_server


def snapshot_with(
    capsys: pytest.CaptureFixture[str], server: str, url: str, hub: str = "acme-build"
) -> tuple[int, str]:
    status, _, err = run(capsys, "--base-url", server, "--store-url", url, "snapshot", hub)
    return status, err


@pytest.mark.reads_only
def test_an_unreachable_team_store_is_named_and_nothing_is_kept(
    capsys: pytest.CaptureFixture[str], server: str, pg_env: PostgresServer
) -> None:
    away = f"postgresql://{OWNER}@127.0.0.1:{free_port()}/hubtui?connect_timeout=2"
    status, err = snapshot_with(capsys, server, away)
    assert status == 2
    assert f"The team store {away} cannot be reached" in err
    assert "Connection refused" in err


@pytest.mark.reads_only
def test_a_wrong_password_is_named_as_such_and_never_printed(
    capsys: pytest.CaptureFixture[str],
    server: str,
    pg_env: PostgresServer,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    wrong = tmp_path / "pgpass"
    wrong.write_text(f"127.0.0.1:{pg_env.port}:*:{OWNER}:not-the-password-4711\n")
    wrong.chmod(0o600)
    monkeypatch.setenv("PGPASSFILE", str(wrong))
    url = pg_env.url(schema=pg_env.new_schema())
    status, err = snapshot_with(capsys, server, url)
    assert status == 2
    assert f"The team store {url} cannot be reached" in err
    assert "password authentication failed" in err
    assert "not-the-password-4711" not in err
    assert pg_env.passwords[OWNER] not in err


@pytest.mark.reads_only
def test_an_address_holding_a_password_is_refused_without_repeating_it(
    capsys: pytest.CaptureFixture[str], server: str
) -> None:
    for given in (
        "postgresql://ann:s3cret-77@db.example/hubtui",
        "postgresql://db.example/hubtui?password=s3cret-77",
        "host=db.example dbname=hubtui password=s3cret-77",
    ):
        status, err = snapshot_with(capsys, server, given)
        assert status == 2
        assert "holds a password" in err
        assert "~/.pgpass" in err
        assert "s3cret-77" not in err


@pytest.mark.reads_only
def test_a_certificate_nobody_trusts_is_refused_and_the_right_one_is_used(
    capsys: pytest.CaptureFixture[str],
    server: str,
    pg_env: PostgresServer,
    tmp_path: Path,
) -> None:
    stranger = tmp_path / "other-ca.pem"
    trustme.CA().cert_pem.write_to_path(str(stranger))
    schema = pg_env.new_schema()
    untrusted = pg_env.url(schema=schema, sslmode="verify-full", sslrootcert=str(stranger))
    status, err = snapshot_with(capsys, server, untrusted)
    assert status == 2
    assert "certificate verify failed" in err
    trusted = pg_env.url(schema=schema, sslmode="verify-full", sslrootcert=str(pg_env.ca))
    status, err = snapshot_with(capsys, server, trusted)
    assert status == 0, err
    assert "kept as snapshot #1" in err


@contextmanager
def members_held(server: PostgresServer, schema: str) -> Iterator[None]:
    """Another session holds the snapshot's last table: a writer stops in the middle of its
    snapshot, waiting, until the block ends."""
    hold = f"BEGIN; LOCK TABLE {schema}.members IN EXCLUSIVE MODE; SELECT pg_sleep(60); COMMIT"

    def holding() -> None:
        try:
            server.sql(hold)
        except RuntimeError:
            pass  # cancelled at the end of the block, as it should be

    holder = threading.Thread(target=holding, daemon=True)
    holder.start()
    for _ in range(100):
        if server.sql("SELECT count(*) FROM pg_locks WHERE mode = 'ExclusiveLock' AND relation "
                      f"= '{schema}.members'::regclass") == "1":  # fmt: skip
            break
        time.sleep(0.05)
    try:
        yield
    finally:
        server.sql(
            "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(60)%' "
            "AND pid <> pg_backend_pid()"
        )
        holder.join(10)


def waiting_writer(server: PostgresServer) -> str:
    """The process id of hubtui's connection waiting for a lock, once it waits."""
    for _ in range(200):
        found = server.sql(
            "SELECT pid FROM pg_stat_activity WHERE application_name = 'hubtui' "
            "AND wait_event_type = 'Lock'"
        )
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError("the writer never reached the lock")


def users(count: int, role: str) -> list[dict[str, object]]:
    return [{"User": {"Id": n}, "Role": role} for n in range(count)]


def test_a_statement_timeout_leaves_no_half_snapshot(
    capsys: pytest.CaptureFixture[str], server: str, pg_env: PostgresServer
) -> None:
    schema = pg_env.new_schema()
    url = pg_env.url(schema=schema)
    assert snapshot_with(capsys, server, url)[0] == 0  # the schema is made, one snapshot kept
    assert run(capsys, "--base-url", server, "set-role", "acme-build", "1001",
               "chloe.moreau@acme-build.com", "Admin", "--yes")[0] == 0  # fmt: skip
    cut = url.replace("search_path%3D", "statement_timeout%3D1000%20-csearch_path%3D")
    with members_held(pg_env, schema):
        status, err = snapshot_with(capsys, server, cut)
    assert status == 3
    assert f"Could not write to the store {cut}" in err
    assert "statement timeout" in err
    status, out, _ = run(capsys, "--store-url", url, "store", "info")
    assert "Snapshots: 1\n" in out  # the first, whole; of the second, nothing


def test_a_connection_dropped_mid_snapshot_leaves_it_absent_and_the_next_one_lands(
    pg_env: PostgresServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = pg_env.url(schema=(schema := pg_env.new_schema()))
    server_store = ServerStore(tmp_path / "store.sqlite3", "https://a:443", None, "all", url)

    def taken(role: str) -> Snapshot:
        return Snapshot(
            "https://a:443", "", "all hubs", now(), {USERS: (True, "", users(2_000, role))}
        )

    server_store.with_team(lambda store: store.write_snapshot(taken("Reader")))
    failed: list[BaseException] = []

    def write() -> None:
        try:
            server_store.with_team(lambda store: store.write_snapshot(taken("Editor")))
        except StoreError as error:
            failed.append(error)

    with members_held(pg_env, schema):
        writer = threading.Thread(target=write)
        writer.start()
        pg_env.sql(f"SELECT pg_terminate_backend({waiting_writer(pg_env)})")
        writer.join(10)
    assert len(failed) == 1
    assert url in str(failed[0])
    with pytest.raises(StoreError) as again:  # a moment later: said again, not waited for
        server_store.with_team(lambda store: len(store.snapshots()))
    assert again.value is failed[0]
    monkeypatch.setattr(stored, "TEAM_RETRY_AFTER", 0.0)  # the retry's moment has come
    server_store._breaker = None
    assert server_store.with_team(lambda store: len(store.snapshots())) == 1  # whole, or absent
    server_store.with_team(lambda store: store.write_snapshot(taken("Admin")))  # connected again
    with Store.open_url(url, read_only=True) as store:
        kept = store.snapshots()
        assert len(kept) == 2
        for info in kept:
            hashes = store.reads(info.id)[USERS].hashes
            assert len(hashes) == 2_000
            assert len({store.record(h)["Role"] for h in hashes}) == 1
    server_store.close()
