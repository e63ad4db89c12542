"""Make the README's pictures: an SVG of each screen, from the demo data.

Run from the repository root:  python screenshots/make_screenshots.py [NAME ...]
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from pathlib import Path

from hubtui.cli import demo_connector
from hubtui.config import Settings
from hubtui.core.workspace import DataPlaces, open_workspace
from hubtui.tui.app import HubTuiApp

HERE = Path(__file__).parent
SIZE = (110, 32)
# name → keys pressed from the hub list
SCREENS: dict[str, tuple[str, ...]] = {
    "hub-list": (),
    "hub-detail": ("enter",),
    "project-users": ("enter", "enter", "end"),
    "go-to-display-name": ("g", *"Nordic Rail Alliance", "enter"),
    "help": ("enter", "enter", "question_mark"),
    "edit-confirm": ("enter", "enter", "down", "e", "down", "enter", "ctrl+s"),
    "who": ("w", *"priya.patel@northwind-eng.com", "enter"),
    "changes": ("D", "enter", "down", "down"),
    "batch": ("enter", "enter", "asterisk", "m", "down", "enter", "b", "down"),
    "hub-people": ("enter", "P", "down"),
    "why": ("enter", "enter", "slash", *"grace", "enter", "W"),
    "why-fix": ("enter", "enter", "slash", *"grace", "enter", "W", "1", "enter"),
    "access-matrix": ("enter", "P", "M", "right", "right", "right"),
    "review-decisions": (
        *("enter", "P", "l", "space", "space", "d", "x", *"left the company", "enter"),
        *("down", "down", "d", "r", *"no site work since May", "enter", "up"),
    ),
    "review": (
        *("enter", "P", "l", "space", "space", "d", "x", *"left the company", "enter"),
        *("down", "down", "d", "r", *"no site work since May", "enter", "v"),
    ),
}


async def shoot(name: str, keys: tuple[str, ...]) -> Path:
    with tempfile.TemporaryDirectory() as data:
        # Files of its own; the store seeded with the demo's last week, as `hubtui --demo` is.
        folder = Path(data) / "demo"
        places = DataPlaces(folder / "changes.jsonl", folder / "store.sqlite3")
        workspace = open_workspace(Settings(store="hubs"), demo=demo_connector, data=places)
        app = HubTuiApp(workspace)
        return await _shoot(app, name, keys)


async def _shoot(app: HubTuiApp, name: str, keys: tuple[str, ...]) -> Path:
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        for key in keys:
            await pilot.press(key)
            await app.workers.wait_for_complete()
            await pilot.pause()
        return Path(app.save_screenshot(f"{name}.svg", str(HERE)))


def main(only: list[str] | None = None) -> None:
    os.environ["TZ"] = "UTC"  # dates are shown in local time; pictures should not depend on it
    time.tzset()
    for name, keys in SCREENS.items():
        if only and name not in only:
            continue
        print(asyncio.run(shoot(name, keys)))


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
