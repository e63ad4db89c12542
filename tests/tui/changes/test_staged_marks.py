"""Staged, not yet sent, and seen so: a row with a change staged shows ``±`` in its list until the
change is sent or dropped, and the staged preview drops every change at once, asked first."""

from __future__ import annotations

from pathlib import Path

from hubtui.core.changes.actions import Action, Outcome
from hubtui.core.changes.log import ChangeLog
from hubtui.core.changes.record import Change
from hubtui.tui.screens.browsing.project_users import ProjectUsersScreen
from hubtui.tui.screens.changes.batch import StagedScreen
from tests.harness.app import press, project_users, running, screen_text, screen_words

DANA, AIKO = "dana.whitfield@acme-build.com", "aiko.tanaka@acme-build.com"
CHLOE, DIEGO = "chloe.moreau@acme-build.com", "diego.garcia@acme-build.com"
ACME_ID = "7d1f0c3e-4b8a-4f6e-9a51-acme00000001"


def row_of(text: str, email: str) -> str:
    return next(line for line in text.splitlines() if email in line)


async def test_a_staged_row_is_marked_until_its_change_is_dropped() -> None:
    async with running(size=(120, 40), start=project_users()) as pilot:
        # Dana marked (space moves down to Aiko), set to Reader: staged, not sent.
        await press(pilot, "space", "m", "enter")
        text = screen_text(pilot)
        assert row_of(text, DANA).startswith("± ")
        assert not row_of(text, AIKO).startswith("±")
        assert "1 staged (b)" in text
        # The preview drops every change, once asked; the mark goes with it.
        await press(pilot, "b")
        assert isinstance(pilot.app.screen, StagedScreen)
        await press(pilot, "D")
        assert "Drop 1 staged change? Nothing of them is sent." in screen_text(pilot)
        await press(pilot, "y", "escape")
        screen = pilot.app.screen
        assert isinstance(screen, ProjectUsersScreen)
        text = screen_text(pilot)
        assert "staged (b)" not in text
        assert not row_of(text, DANA).startswith("±")
        assert len(pilot.app.session.staged) == 0


async def test_a_notification_is_not_carried_to_the_next_screen() -> None:
    async with running(size=(80, 24), start=project_users()) as pilot:
        await press(pilot, "space", "m", "enter")  # "1 change staged…" shown on the list
        assert pilot.app.screen.query("Toast")
        await press(pilot, "b")  # the staged preview opens without it
        assert not pilot.app.screen.query("Toast")
        # Back on the list it takes lines of its own below it: no row is covered.
        await press(pilot, "escape", "y")
        toasts = list(pilot.app.screen.query("Toast"))
        assert toasts
        table = pilot.app.screen.query_one("#records")
        for toast in toasts:
            assert not toast.region.overlaps(table.region)
            assert toast.region.y >= table.region.bottom


async def test_the_change_log_lists_every_batch_in_its_file_and_r_reverts_the_one_chosen(
    tmp_path: Path,
) -> None:
    """Batches of earlier runs (a headless apply, yesterday's) are in the file: c lists them
    all, newest first, and R reverts the one highlighted, not only the newest."""
    path = tmp_path / "changes.jsonl"
    log = ChangeLog(path, server="demo API (in-process)")
    for batch, (email, time) in {
        "b00000000old": (CHLOE, "2026-11-23T09:00:00Z"),
        "b00000000new": (DIEGO, "2026-11-24T09:00:00Z"),
    }.items():
        change = Change(
            time=time,
            action=Action.UPDATE,
            hub_id=ACME_ID,
            hub_name="acme-build",
            project_id="1001",
            project_name="Harbour Bridge Retrofit",
            user_id=None,
            email=email,
            before={"Role": "Editor", "IsReviewer": False},
            after={"Role": "Reader", "IsReviewer": False},
            outcome="",
            batch=batch,
        )
        log.finish(log.begin(change), Outcome.DONE, "")
    async with running(size=(120, 40), change_log=path, start=project_users()) as pilot:
        await press(pilot, "c")
        words = screen_words(pilot)
        assert "Batches in the change log (this server), newest first" in words
        assert words.index("b00000000new") < words.index("b00000000old")
        await press(pilot, "down", "R")
        screen = pilot.app.screen
        assert isinstance(screen, StagedScreen)
        words = screen_words(pilot)
        assert "chloe.moreau@acme-build.com" in words  # the older batch, as chosen
        assert "diego.garcia@acme-build.com" not in words


async def test_at_80x24_c_opens_with_the_batches_r_acts_on_in_view() -> None:
    """After a batch, the change log's list of batches, the one R reverts highlighted, is in
    view as the dialog opens, above the changes of the session (which fill the window)."""
    from tests.harness.app import CHLOE, DIEGO, mark, settle

    async with running(size=(80, 24), start=project_users()) as pilot:
        await mark(pilot, CHLOE, DIEGO)
        await press(pilot, "m", "down", "enter", "b", "a", "y")
        await settle(pilot)
        await press(pilot, "escape", "c")
        await settle(pilot)
        words = screen_words(pilot)
        batch = pilot.app.workspace.change_log.changes[-1].batch  # type: ignore[attr-defined]
        assert batch
        assert f"{batch} " in words
        assert "2 changes: 2 done" in words
        assert "R puts it back" in words
        assert words.index("R puts it back") < words.index("Changes in this session")
