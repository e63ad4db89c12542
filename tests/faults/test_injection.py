"""Server strings that would be markup or terminal control are shown inert everywhere.

Every screen, the palette, the forms, the change log screen and its JSON-lines export.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hubtui.demo import DemoStore
from hubtui.text import inert
from tests.harness.app import FORBIDDEN, HOSTILE, LONG, assert_inert, press, running, type_text


def hostile_store() -> DemoStore:
    store = DemoStore()
    hub = store.hub_by_name("acme-build")
    assert hub is not None
    hub.display_name = HOSTILE
    hub.tenant_domain = HOSTILE
    project = hub.projects[1001]
    project.name = "Harbour " + HOSTILE
    for user in store.users.values():
        if user.first_name == "Grace":
            user.first_name = HOSTILE
    return store


@pytest.mark.parametrize(
    ("place", "keys", "visible"),
    [
        ("hub list", ("n",), "[bold red]boom[/]"),
        ("hub detail", ("enter",), "␛[2J"),
        ("project users", ("enter", "enter"), "[bold red]boom[/]"),
        ("limited reader panel", ("enter", "enter", "end", "up", "up", "up", "up"), "<U+202E>"),
        ("promote form", ("enter", "enter", "end", "up", "up", "up", "up", "e"), "␛]52;c;"),
        ("help", ("enter", "enter", "question_mark"), "LIMITED"),
    ],
)
async def test_screens_show_hostile_strings_inert(
    place: str, keys: tuple[str, ...], visible: str
) -> None:
    # The help's legend is below its keys: a terminal tall enough to show both at once.
    size = (120, 80) if place == "help" else (120, 40)
    async with running(store=hostile_store(), size=size) as pilot:
        await press(pilot, *keys)
        text = assert_inert(pilot)
        assert visible in text, f"{place}: {visible!r} not shown"


async def test_palette_and_go_to_show_hostile_strings_inert() -> None:
    async with running(store=hostile_store()) as pilot:
        await press(pilot, "ctrl+p")
        await type_text(pilot, "boom")
        text = assert_inert(pilot)
        assert "[bold red]boom[/]" in text
        await press(pilot, "escape", "g")
        await type_text(pilot, "boom")
        await press(pilot, "enter")
        text = assert_inert(pilot)
        assert "[bold red]boom[/]" in text


async def test_change_log_screen_and_export_are_inert(tmp_path: Path) -> None:
    log = tmp_path / "changes.jsonl"
    async with running(store=hostile_store(), change_log=log) as pilot:
        await press(pilot, "enter", "enter", "end", "up", "up", "up", "up", "e", "ctrl+s")
        assert_inert(pilot)  # the confirmation names the project inert
        await press(pilot, "y", "c")
        text = assert_inert(pilot)
        assert "Harbour [bold red]boom[/]" in text
    raw = log.read_bytes()
    for character in FORBIDDEN:
        assert character.encode() not in raw
    entry = json.loads(raw.splitlines()[-1])
    assert entry["project_name"] == "Harbour " + HOSTILE  # kept exactly, escaped as JSON


def test_inert_cuts_long_values_and_says_how_long() -> None:
    shown = inert(LONG)
    assert len(shown) < 400
    assert shown.endswith("(10,000 characters)")
