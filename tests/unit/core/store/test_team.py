"""The change log's lines copied to a team store: from where the last copy stopped, in bounded
pieces, each line once however often it is copied; and a team store's address refused when it
holds a password. (The copy's target is any store: here the SQLite engine; the tests of the team
store itself run on PostgreSQL.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from hubtui.core.store import Store, StoreError
from hubtui.core.store import team as team_module
from hubtui.core.store.server_store import ServerStore
from hubtui.core.store.team import share_lines, waiting
from hubtui.store_address import store_url_problem
from tests.harness.harness import free_port
from tests.harness.stores import change_line


def line(n: int) -> str:
    return change_line(f"c{n}")


def test_each_line_is_copied_once_from_where_the_last_copy_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(team_module, "CHUNK_BYTES", 300)  # a long log, read in small pieces
    log, cursor = tmp_path / "changes.jsonl", tmp_path / "team-copy.json"
    log.write_text("".join(line(n) + "\n" for n in range(40)) + line(40)[:20])  # the last half
    with Store.open(tmp_path / "team.sqlite3") as store:
        assert waiting(log, cursor, store.where)
        first = share_lines(log, store, cursor)
        assert (first.new, first.read) == (40, 40)  # the line still being written waits
        with log.open("a") as more:
            more.write(line(40)[20:] + "\n" + line(41) + "\n")
        second = share_lines(log, store, cursor)
        assert (second.new, second.read) == (2, 2)  # only what came since
        assert not waiting(log, cursor, store.where)
        again = share_lines(log, store, None, everything=True)
        assert (again.new, again.read) == (0, 42)  # the whole log again: nothing doubles
        assert store.audit_lines(["https://a:443"]) == [line(n) for n in range(42)]


def test_a_log_replaced_is_copied_from_its_start_and_nothing_doubles(tmp_path: Path) -> None:
    log, cursor = tmp_path / "changes.jsonl", tmp_path / "team-copy.json"
    log.write_text(line(1) + "\n" + line(2) + "\n")
    with Store.open(tmp_path / "team.sqlite3") as store:
        assert share_lines(log, store, cursor).new == 2
        log.unlink()
        log.write_text(line(1) + "\n" + line(3) + "\n")  # a new file: read from its start
        assert share_lines(log, store, cursor).new == 1
        cursor.write_text("not json")  # a cursor that cannot be read: from the start
        assert share_lines(log, store, cursor).new == 0
        assert store.info().audit == 3


@pytest.mark.parametrize(
    "address",
    [
        "postgresql://ann:s3cret@db.example.com/hubtui",
        "postgres://:s3cret@db.example.com/hubtui",
        "postgresql://db.example.com/hubtui?sslmode=verify-full&password=s3cret",
        "postgresql://db.example.com/hubtui?sslpassword=s3cret",
        "host=db.example.com dbname=hubtui password=s3cret",
        "host=db.example.com PASSWORD = s3cret",
    ],
)
def test_an_address_holding_a_password_is_refused_without_it(address: str) -> None:
    problem = store_url_problem(address)
    assert problem is not None
    assert "holds a password" in problem
    assert "s3cret" not in problem


@pytest.mark.parametrize(
    "address",
    [
        "postgresql://ann@db.example.com/hubtui?sslmode=verify-full",
        "service=hubtui",
        "host=db.example.com dbname=hubtui user=ann passfile=/home/ann/.pgpass",
    ],
)
def test_an_address_without_a_password_is_taken(address: str) -> None:
    assert store_url_problem(address) is None


def test_a_team_store_that_failed_a_moment_ago_is_not_asked_again(tmp_path: Path) -> None:
    """Every way to the team store (a connection of its own, or the ServerStore's) says a recent
    failure again at once rather than waiting out another connection."""
    away = f"postgresql://ann@127.0.0.1:{free_port()}/hubtui?connect_timeout=2"
    server_store = ServerStore(tmp_path / "store.sqlite3", "https://a:443", None, "all", away)
    with pytest.raises(StoreError) as first:
        server_store.open()
    with pytest.raises(StoreError) as again:
        server_store.with_team(lambda store: store.snapshots())
    assert again.value is first.value
    with pytest.raises(StoreError) as third:
        server_store.open(read_only=True)
    assert third.value is first.value


@pytest.mark.parametrize(
    "address",
    [
        "host='127.0.0.1'password=SECRET dbname=team",  # no space before it: libpq reads it
        "host=127.0.0.1 PASSWORD = SECRET",
        "postgresql://127.0.0.1/team?sslpassword=SECRET",
    ],
)
def test_an_address_holding_a_password_as_libpq_reads_it_is_refused_unrepeated(
    address: str,
) -> None:
    from hubtui.store_address import PASSWORD_HELD

    problem = store_url_problem(address)
    assert problem == PASSWORD_HELD
    assert "SECRET" not in problem
