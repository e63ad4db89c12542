"""Edits against `hubtui demo-server` over real HTTP: timeouts, and the installed command."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import httpx
import pytest

from hubtui.api import HubClient
from hubtui.demo import DEMO_TOKEN
from hubtui.tui.screens.browsing.project_users import ProjectUsersScreen
from hubtui.tui.screens.changes.user_form import UserFormScreen
from tests.harness.app import make_app, press, screen_words, settle, type_text
from tests.harness.harness import hubtui_command, running_demo_server
from tests.harness.tmux import Terminal

pytestmark = pytest.mark.e2e

AUTH = {"Authorization": f"Bearer {DEMO_TOKEN}"}
ACME_ID = "7d1f0c3e-4b8a-4f6e-9a51-acme00000001"


async def creates(url: str) -> int:
    async with httpx.AsyncClient() as plain:
        stats = (await plain.get(f"{url}/_demo/stats", headers=AUTH)).json()
    count: int = stats["creates"]
    return count


async def test_a_create_that_times_out_is_never_sent_again_by_itself(tmp_path: Path) -> None:
    with running_demo_server("--change-latency", "2.5") as url:
        app = make_app(
            connect=lambda: HubClient(url, token=DEMO_TOKEN, timeout=1.0),
            change_log=tmp_path / "changes.jsonl",
        )
        async with app.run_test(size=(120, 40), notifications=True) as pilot:
            await settle(pilot)
            await press(pilot, "enter", "enter", "a")
            await type_text(pilot, "slow.network@acme-build.com")
            await press(pilot, "ctrl+s", "y")
            assert isinstance(pilot.app.screen, UserFormScreen)
            words = screen_words(pilot)
            assert "may or may not have been added" in words
            await press(pilot, "ctrl+s")
            assert "it is not sent again until then" in screen_words(pilot)
            await asyncio.sleep(2.0)  # the server's late answer goes nowhere
            assert await creates(url) == 1
            await press(pilot, "ctrl+r")
            assert isinstance(pilot.app.screen, ProjectUsersScreen)
            assert "The add did reach the server" in screen_words(pilot)
            assert "13 users · 8 members" in screen_words(pilot)
        assert await creates(url) == 1
    log = (tmp_path / "changes.jsonl").read_text()
    assert '"outcome": "unknown"' in log


def test_adding_a_user_with_the_keys_in_a_real_terminal(server: str, tmp_path: Path) -> None:
    command = [
        "env",
        f"HUBTUI_TOKEN={DEMO_TOKEN}",
        f"HUBTUI_DATA_DIR={tmp_path}",
        *hubtui_command(),
        "--base-url",
        server,
    ]
    terminal = Terminal(command, width=120, height=36)
    try:
        terminal.wait_for("8 hubs")
        terminal.send("Enter")
        terminal.wait_for("Harbour Bridge Retrofit")
        terminal.send("Enter")
        terminal.wait_for("12 users · 7 members")
        terminal.send("a")
        terminal.wait_for("Add a user to")
        # At a person's pace: a form takes a moment to mount its fields.
        time.sleep(0.3)
        terminal.type("typed.in.tmux@acme-build.com")
        terminal.wait_for("typed.in.tmux@acme-build.com")
        for key in ("Tab", "Down", "Enter", "C-s"):
            terminal.send(key)
            time.sleep(0.2)
        terminal.wait_for("Confirm: add typed.in.tmux@acme-build.com")  # asked before it goes
        terminal.send("y")
        terminal.wait_for("13 users · 8 members")
        terminal.send("q")
        assert terminal.exit_status() == 0
    finally:
        terminal.close()
    users = httpx.get(f"{server}/v3/hubs/{ACME_ID}/projects/1001/users", headers=AUTH).json()
    added = [u for u in users if u["User"]["Email"] == "typed.in.tmux@acme-build.com"]
    assert len(added) == 1
    assert added[0]["Role"] == "Editor"
    assert added[0]["IsLimited"] is False
    assert (tmp_path / "changes.jsonl").exists()
