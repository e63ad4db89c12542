"""Every key can be found: each screen's ``?`` lists every key the screen takes (those off now
said so), the README's key table names every one of them and nothing else, and ``?`` stays on
the footer at 80 columns."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hubtui.tui.screens.dialogs.help import HelpScreen
from tests.harness.app import press, running, screen_text

README = Path(__file__).resolve().parents[2] / "README.md"

#: The list screens, by the keys that reach them from the hub list.
SCREENS: dict[str, tuple[str, ...]] = {
    "hub list": (),
    "hub detail": ("enter",),
    "project users": ("enter", "enter"),
    "hub's people": ("enter", "P"),
    "project users, a row marked": ("enter", "enter", "space"),
    "person search": ("w", *"priya", "enter"),
    "staged changes": ("enter", "enter", "space", "m", "enter", "b"),
    "requests": ("ctrl+l",),
}


def readme_keys() -> set[str]:
    """The keys the README's key table names (each backticked key of its first column)."""
    text = README.read_text(encoding="utf-8")
    table = text.split("## Keys", 1)[1].split("\n## ", 1)[0]
    keys: set[str] = set()
    for line in table.splitlines():
        if line.startswith("| `"):
            first = line.split("|")[1]
            keys.update(re.findall(r"`([^`]+)`", first))
    return keys


async def help_keys(keys: tuple[str, ...], size: tuple[int, int] = (120, 60)) -> set[str]:
    async with running(size=size) as pilot:
        await press(pilot, *keys, "question_mark")
        screen = pilot.app.screen
        assert isinstance(screen, HelpScreen)
        found: set[str] = set()
        for shown, _ in screen.keys():
            found.update(k for k in shown.split() if k != "/" or shown == "/")
        return found


#: How the help writes a key the README writes otherwise.
SAME = {"←": "←", "⌫": "backspace", "pgup": "pageup", "pgdn": "pagedown", "↑": "up", "↓": "down"}
#: Moving in a list: the README says it in words, not in its table.
MOVING = {"up", "down", "pageup", "pagedown", "home", "end", "tab", "shift+tab", "ctrl+q"}


@pytest.mark.slow
async def test_the_readme_names_every_key_each_screens_help_lists_and_no_other() -> None:
    """Each screen's help read once, for both: the README's key table lacks none of its keys,
    and names none that no screen's help lists."""
    named = readme_keys()
    lacking: dict[str, set[str]] = {}
    listed: set[str] = set()
    for screen, keys in SCREENS.items():
        shown = {SAME.get(k, k) for k in await help_keys(keys)}
        listed |= shown
        if missing := shown - MOVING - named:
            lacking[screen] = missing
    assert lacking == {}, "keys of these screens the README's key table lacks"
    # Keys of the forms and the change log, which have their own footers and no list.
    elsewhere = {"ctrl+s", "R"}
    assert named - listed - elsewhere == set(), "keys the README names that no help lists"


@pytest.mark.parametrize("screen", ["hub list", "hub detail", "project users"])
async def test_help_stays_on_the_footer_at_80_columns(screen: str) -> None:
    async with running(size=(80, 24)) as pilot:
        await press(pilot, *SCREENS[screen])
        footer = screen_text(pilot).splitlines()[-1]
        assert footer.startswith("? Help")
