"""The SQLite store shared by the app and the commands: opening it again never loosens the hold
of a connection already open in the same process, so no other process can write beside it."""

from __future__ import annotations

import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from hubtui.core.store import Store

#: Run in another process: try to take the store out of WAL mode, which SQLite allows only to a
#: process alone with the file; the answer says whether the test's process still holds it.
OTHER_PROCESS = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], timeout=0)
try:
    print(db.execute("PRAGMA journal_mode=DELETE").fetchone()[0])
except sqlite3.OperationalError as error:
    print("refused:", error)
"""


def other_process_takes_it_over(path: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-c", OTHER_PROCESS, str(path)], capture_output=True, text=True, timeout=30
    )
    return done.stdout.strip()


def test_opening_the_store_again_keeps_the_first_connection_s_hold(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    first = Store.open(path)  # the app's store, open all day
    try:
        Store.open(path).close()  # a keep, a snapshot, a read: opened and closed beside it
        Store.open(path, read_only=True).close()
        # Still held: another process cannot act as if it were alone with the file (before, the
        # second open closed a descriptor of the file and dropped the process's locks on it).
        assert other_process_takes_it_over(path) == "refused: database is locked"
    finally:
        first.close()
    assert other_process_takes_it_over(path) == "delete"  # alone now: allowed


def test_a_new_store_is_the_person_s_alone_and_a_loose_one_is_tightened(tmp_path: Path) -> None:
    path = tmp_path / "data" / "store.sqlite3"
    Store.open(path).close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    path.chmod(0o644)
    Store.open(path).close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_link_in_the_store_s_place_is_refused_not_followed(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.sqlite3"
    sqlite3.connect(target).close()
    path = tmp_path / "store.sqlite3"
    path.symlink_to(target)
    with pytest.raises(Exception, match="symbolic link"):
        Store.open(path)
