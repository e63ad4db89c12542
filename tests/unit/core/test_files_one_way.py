"""Every file is opened one way: no link followed, a file others can write refused, new files
exclusive and private, sizes and depths bounded; a store that lies about its schema refused; batch
files split by CSV rules only."""

from __future__ import annotations

import sqlite3
import stat
import zlib
from pathlib import Path
from typing import Any

import pytest

from hubtui.core.batches.file import BatchFileError, read_batch_file
from hubtui.core.files import FileRefused, read_bounded, write_new
from hubtui.core.history import SnapshotFileError, read_snapshot_file
from hubtui.core.store import SCHEMA, ListKey, Store, StoreError
from tests.harness.stores import lying_store, snapshot_file, users_list


def test_a_store_reached_through_a_link_or_writable_by_others_is_refused(tmp_path: Path) -> None:
    real = tmp_path / "real.sqlite3"
    Store.open(real).close()
    link = tmp_path / "store.sqlite3"
    link.symlink_to(real)
    for read_only in (True, False):
        with pytest.raises(StoreError, match="symbolic link"):
            Store.open(link, read_only=read_only)
    real.chmod(0o666)
    for read_only in (True, False):
        with pytest.raises(StoreError, match=r"can be written by other users \(mode 0666\)"):
            Store.open(real, read_only=read_only)


def test_a_new_file_never_replaces_or_follows_what_is_there(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    planted = tmp_path / "export.json"
    planted.symlink_to(victim)
    written = write_new(planted, "{}")
    assert written == tmp_path / "export-2.json"
    assert victim.read_text() == "keep me"
    assert stat.S_IMODE(written.stat().st_mode) == 0o600
    assert write_new(planted, "{}") == tmp_path / "export-3.json"


def test_a_store_that_lies_about_its_schema_is_refused_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    lying_store(path)
    for read_only in (True, False):
        with pytest.raises(StoreError) as caught:
            Store.open(path, read_only=read_only)
        assert str(path) in str(caught.value)
        assert f"says it is of schema {SCHEMA} but lacks" in str(caught.value)


def test_a_line_separator_inside_a_cell_smuggles_no_row() -> None:
    text = (
        "hub,project,email,role\n"
        "acme-build,1001,chloe.moreau@acme-build.com\u2028acme-build,1001,evil@attacker.example,"
        "Admin\n"
    )
    _, rows = read_batch_file(text)
    assert len(rows) == 1  # one CSV record, however a line separator inside it reads
    assert rows[0].email == "chloe.moreau@acme-build.com\u2028acme-build"
    assert rows[0].role is None
    assert rows[0].problem is not None
    assert "is not one of Reader, Editor, Admin" in rows[0].problem


def test_a_batch_file_past_its_bounds_says_which() -> None:
    with pytest.raises(BatchFileError, match="longer than 4,096 characters"):
        read_batch_file("hub,project,email,role\nacme-build,1001,a@b.example," + "x" * 200_000)
    many = "hub,project,email,role\n" + "acme-build,1001,a@b.example,Reader\n" * 100_001
    with pytest.raises(BatchFileError, match="more than 100,000 rows"):
        read_batch_file(many)


def test_a_file_larger_than_its_bound_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "big.csv"
    with path.open("wb") as handle:
        handle.truncate(20 * 1024 * 1024)
    path.chmod(0o600)
    with pytest.raises(FileRefused, match="larger than the 17 MB hubtui reads from a batch"):
        read_bounded(path, limit=16 * 1024 * 1024, what="batch file")


@pytest.mark.parametrize(
    ("lines", "said"),
    [
        (['{"kind": ' + "[" * 50_000 + "]" * 50_000 + "}"], "nests deeper than 64 levels"),
        ([users_list([1, 2])], "a record that is not an object"),
        ([users_list([]), users_list([{"Role": "Admin"}])], "appears twice"),
        ([users_list("nope")], "its records are not a list"),
    ],
    ids=["deep", "not objects", "a list twice", "records not a list"],
)
def test_a_snapshot_file_that_breaks_its_shape_is_refused_saying_how(
    tmp_path: Path, lines: list[dict[str, Any] | str], said: str
) -> None:
    path = snapshot_file(tmp_path / "s.jsonl", lines)
    with pytest.raises(SnapshotFileError, match=said):
        read_snapshot_file(path)


def test_a_stored_list_that_inflates_without_bound_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    with Store.open(path) as store:
        store.save_latest("demo", None, ListKey("hubs"), [{"Id": "a", "Name": "a"}])
    bomb = zlib.compress(b"[" + b" " * (200 * 1024 * 1024) + b"]", 9)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE latest SET body = ?", (bomb,))
    with Store.open(path, read_only=True) as store, pytest.raises(StoreError, match="inflates"):
        store.latest("demo", None, ListKey("hubs"))
