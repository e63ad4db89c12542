"""A worker that fails in a way nobody expected never ends the app: the batch send, the
offboarding's reading and the app's own reconnect each raise here; the app runs on and the
failure is said once, in the one wording."""

from __future__ import annotations

from typing import Any

import pytest

from hubtui.demo import DemoStore
from tests.harness.app import CHLOE, mark, press, project_users, running, screen_words, settle

pytestmark = pytest.mark.bug_on_purpose

BUG = "This is a bug in hubtui; please report it."


async def raising(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError("a bug on purpose")


async def test_a_batch_send_that_raises_leaves_the_app_running(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("hubtui.core.workflows.run.apply_reviewed", raising)
    async with running(store=DemoStore(), start=project_users()) as pilot:
        await mark(pilot, CHLOE)
        await press(pilot, "m", "down", "enter", "b", "a", "y")  # Set role: Editor, sent
        await settle(pilot)
        assert pilot.app.is_running
        assert BUG in screen_words(pilot)
        assert "RuntimeError: a bug on purpose" in screen_words(pilot)


async def test_an_offboarding_whose_reading_raises_leaves_the_app_running(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("hubtui.core.workflows.offboard.offboarding", raising)
    async with running(size=(120, 40)) as pilot:
        await press(pilot, "enter", "P")
        await settle(pilot)
        await press(pilot, "O")
        await press(pilot, "enter")  # no reason given
        await settle(pilot)
        assert pilot.app.is_running
        assert BUG in screen_words(pilot)


async def test_a_reconnect_that_raises_leaves_the_app_running(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with running() as pilot:
        monkeypatch.setattr(pilot.app.workspace, "reconnect", raising)  # type: ignore[attr-defined]
        pilot.app.reconnect(None, fresh_start=False)  # type: ignore[attr-defined]
        await settle(pilot)
        assert pilot.app.is_running
        assert BUG in screen_words(pilot)
