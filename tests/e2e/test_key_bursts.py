"""Keys typed ahead land where they were typed for: each key that opens a dialog, a form or an
input, followed in the same burst (one write to the terminal, as SSH and a paste deliver them)
by what is meant for it, in a real terminal at 80×24, on an idle machine and on a loaded one."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.harness.harness import every_core_busy, hubtui_command
from tests.harness.tmux import Terminal

pytestmark = pytest.mark.e2e

#: Where a burst starts: the hub list, or a project's users (reached at a person's pace).
HUB_LIST, PROJECT_USERS = "hub list", "project users"

#: (where, the burst, what the screen then shows). A burst is one ``send-keys``: its text
#: literally, or tmux key names after ``keys:``.
BURSTS = [
    (HUB_LIST, "wpriya.patel@northwind-eng.com\r", ("Who: priya.patel@northwind-eng.com",)),
    (HUB_LIST, "/nordic", ("1 match “nordic”",)),
    (HUB_LIST, "gnordic-rail\r", ("Oslo Freight Link",)),
    (HUB_LIST, "keys:C-p n o r d i c - r", ("nordic-r",)),
    # Enter runs what the whole text finds, not the first hit shown for the text before it.
    (HUB_LIST, "keys:C-p T e a m Space r o s t e r Enter", ("The team roster lives",)),
    (HUB_LIST, "y\r", ("Sent the Name",)),
    (HUB_LIST, "\rPM", ("access matrix: 13 people × 3 projects",)),
    (HUB_LIST, "\rPl", ("shown: those that need a look (l)",)),
    (PROJECT_USERS, "anew.person@acme-build.com", ("Add a user to", "new.person@acme-build.com")),
    (PROJECT_USERS, "Agrace@x.example", ("Add people", "grace@x.example")),
    (PROJECT_USERS, "keys:x C-u {out.csv} Enter", ("Wrote 12 rows",)),
    (PROJECT_USERS, "keys:e C-s", ("Nothing changed, so nothing was sent.",)),
    (PROJECT_USERS, "keys:Space m Enter", ("1 staged (b)",)),
    (PROJECT_USERS, "keys:Space m Enter b", ("Staged changes", "Role: Admin → Reader")),
]


@pytest.fixture(params=["idle", "loaded"])
def machine(request: pytest.FixtureRequest) -> Iterator[str]:
    """An idle machine, or one whose every core is kept busy by other processes."""
    if request.param == "idle":
        yield "idle"
        return
    with every_core_busy():
        yield "loaded"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("where", "burst", "shown"), BURSTS, ids=[f"{w}: {b!r}" for w, b, _ in BURSTS]
)
def test_a_burst_lands_where_it_was_typed_for(
    machine: str, where: str, burst: str, shown: tuple[str, ...], tmp_path: Path
) -> None:
    terminal = Terminal([*hubtui_command(), "--demo"], width=80, height=24)
    try:
        terminal.wait_for("acme-build", "8 hubs", timeout=40)
        if where == PROJECT_USERS:
            terminal.send("Enter")
            terminal.wait_for("Harbour Bridge Retrofit", "3 projects", timeout=40)
            terminal.send("Enter")
            terminal.wait_for("12 users", timeout=40)
        if burst.startswith("keys:"):
            keys: list[str] = []
            for key in burst.removeprefix("keys:").split():  # {name}: a file's path, key by key
                named = key.startswith("{")
                keys += list(str(tmp_path / key.strip("{}"))) if named else [key]
            terminal.send(*keys)
        else:
            terminal.type(burst)
        terminal.wait_for(*shown, timeout=40)
        terminal.send("C-c")
    finally:
        terminal.close()
