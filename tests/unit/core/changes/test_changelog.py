"""The change log itself: written ahead of every change, or nothing is sent; the file is private.

Root writes through any mode, so "cannot be written" is made here as a data folder that is a
file (ENOTDIR) and as a file-size limit (RLIMIT_FSIZE binds root too).
"""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from hubtui.core.changes.actions import Outcome
from hubtui.core.changes.log import ChangeLog, ChangeLogError
from hubtui.core.changes.record import Change
from hubtui.core.clock import now

NEW = "night.shift@acme-build.com"


def change() -> Change:
    return Change(
        time=now(),
        action="add",
        hub_id="h",
        hub_name="acme-build",
        project_id="1001",
        project_name=None,
        user_id=None,
        email=NEW,
        before=None,
        after={"Role": "Reader", "IsReviewer": False},
        outcome="",
    )


def test_a_pending_line_that_cannot_be_written_raises_and_keeps_nothing(tmp_path: Path) -> None:
    blocker = tmp_path / "data"
    blocker.write_text("a file where the data folder should be")
    log = ChangeLog(blocker / "changes.jsonl")
    with pytest.raises(ChangeLogError, match=r"Could not write the change log .*data/changes"):
        log.begin(change())
    assert log.changes == []
    assert log.in_flight == []


def test_a_symlinked_log_is_refused_and_its_target_untouched(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.txt"
    target.write_text("keep me\n")
    (tmp_path / "data").mkdir(mode=0o700)
    (tmp_path / "data" / "changes.jsonl").symlink_to(target)
    log = ChangeLog(tmp_path / "data" / "changes.jsonl")
    with pytest.raises(ChangeLogError, match="symbolic link"):
        log.begin(change())
    assert target.read_text() == "keep me\n"


def test_a_loose_folder_and_file_are_tightened(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    path = folder / "changes.jsonl"
    path.write_text("")
    path.chmod(0o644)
    ChangeLog(path).begin(change())
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text())["outcome"] == "pending"


def test_an_outcome_that_cannot_be_written_is_said_with_its_line(tmp_path: Path) -> None:
    said: list[str] = []
    path = tmp_path / "changes.jsonl"
    log = ChangeLog(path, on_write_error=said.append)
    pending = log.begin(change())
    path.unlink()
    path.mkdir()  # the outcome line now meets a folder
    log.finish(pending, Outcome.DONE)
    assert len(said) == 1
    assert "Could not write the change log" in said[0]
    line = json.loads(said[0].split("The line it should hold: ", 1)[1])
    assert (line["id"], line["outcome"]) == (pending.id, "done")


async def test_changes_sent_together_are_each_on_disk_before_they_leave(tmp_path: Path) -> None:
    """Many pending lines at once: each is written and flushed before its begin returns (the
    lines waiting share one flush), and each outcome after it, in order per change."""
    import asyncio
    from dataclasses import replace

    path = tmp_path / "changes.jsonl"
    log = ChangeLog(path)
    on_disk_when_begun: list[bool] = []

    async def one(n: int) -> None:
        pending = await log.begin_sending(replace(change(), email=f"crew{n}@sub.example"))
        on_disk_when_begun.append(pending.id in path.read_text())
        await asyncio.sleep(0)
        await log.finish_sending(pending, Outcome.DONE)

    await asyncio.gather(*(one(n) for n in range(40)))
    assert on_disk_when_begun == [True] * 40
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(lines) == 80
    for entry in {x["id"] for x in lines}:
        assert [x["outcome"] for x in lines if x["id"] == entry] == ["pending", "done"]
    assert log.in_flight == []


async def test_a_change_stopped_while_its_pending_line_is_flushed_is_never_sent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cancel (escape, a signal) while the disk is slow to flush: nothing goes out, and its
    outcome says it was not sent (not unknown: it never left)."""
    import asyncio
    import threading

    disk = threading.Event()
    real = ChangeLog._sync_to_disk

    def slow(self: ChangeLog) -> None:
        disk.wait(5)
        real(self)

    monkeypatch.setattr(ChangeLog, "_sync_to_disk", slow)
    path = tmp_path / "changes.jsonl"
    log = ChangeLog(path)
    begun = asyncio.ensure_future(log.begin_sending(change()))
    await asyncio.sleep(0.05)
    begun.cancel()
    with pytest.raises(asyncio.CancelledError):
        await begun
    disk.set()
    for _ in range(100):
        await asyncio.sleep(0.01)
        if path.exists() and len(path.read_text().splitlines()) == 2:
            break
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [x["outcome"] for x in lines] == ["pending", "failed"]
    assert "nothing was sent" in lines[1]["detail"]
    assert log.in_flight == []
