"""A store that cannot be read is said, naming the file and why, with one status (2), never read
as empty and never as an HTTP status no server sent."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

from tests.harness.commands import run


def damaged_store(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> Path:
    """The demo's store with two snapshots and the lists offline reads, then half of its
    pages overwritten (as a second process writing beside the first once left it)."""
    assert run(capsys, "--demo", "snapshot")[0] in (0, 3)  # 3: one hub's users not offered
    assert run(capsys, "--demo", "--offline", "hubs")[0] == 0
    path = tmp_path / "data" / "demo" / "store.sqlite3"
    body = bytearray(path.read_bytes())
    start, end = len(body) // 4, len(body) * 3 // 4
    body[start:end] = random.Random(7).randbytes(end - start)
    path.write_bytes(bytes(body))
    return path


@pytest.mark.parametrize("action", ["info", "migrate"])
def test_store_info_and_migrate_name_a_damaged_file_and_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, action: str
) -> None:
    path = damaged_store(capsys, tmp_path)
    status, out, err = run(capsys, "--demo", "store", action)
    assert status == 2
    assert f"The store {path} is damaged" in err
    assert "Move the file away to start a new one." in err
    assert "Traceback" not in err
    assert "Snapshots:" not in out  # nothing counted from what is left


@pytest.mark.parametrize("damage", ["pages", "bodies"])
def test_offline_says_the_store_cannot_be_read_not_an_http_status(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, damage: str
) -> None:
    if damage == "pages":
        damaged_store(capsys, tmp_path)
        argv = ("--demo", "--offline", "hubs")
        why = "cannot be read (database disk image is malformed)"
    else:  # whole pages, but the lists kept are not what the store writes
        assert run(capsys, "--demo", "snapshot")[0] in (0, 3)
        with sqlite3.connect(tmp_path / "data" / "demo" / "store.sqlite3") as db:
            db.execute("UPDATE records SET body = x'00ff00ff'")
            db.execute("UPDATE latest SET body = x'00ff00ff'")
        argv = ("--demo", "--offline", "hubs")
        why = "cannot be read"
    status, out, err = run(capsys, *argv)
    assert status == 2, err
    assert why in err
    assert "HTTP 500" not in err
    assert "internal error" not in err
    assert out == ""


def test_reviews_of_a_store_that_cannot_be_read_say_so_with_status_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data = tmp_path / "data"
    (data / "demo").mkdir(mode=0o700, parents=True)
    (data / "demo" / "store.sqlite3").write_bytes(b"garbage" * 1000)
    status, _, err = run(capsys, "--demo", "reviews")
    assert status == 2
    assert "demo/store.sqlite3 cannot be used (file is not a database)" in err
    assert "no review" not in err
    assert "runs without it" not in err  # the command stops: it does not run without it
