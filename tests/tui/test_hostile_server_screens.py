"""The app against a hostile server: its words are inert in every message, field and dialog;
nothing unsafe reaches the clipboard; lookalike names are marked; a change is never sent twice
and never missing from the change log; no key sequence crashes the app."""

from __future__ import annotations

import json
import os
import random
import stat
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send
from textual.pilot import Pilot
from textual.widgets import Input

from hubtui.demo import DemoStore, Faults, create_app
from hubtui.tui.screens.browsing.project_users import ProjectUsersScreen
from hubtui.tui.screens.changes.user_form import UserFormScreen
from hubtui.tui.screens.dialogs.confirm import ConfirmScreen
from hubtui.tui.widgets.record_table import RecordTable
from tests.harness.app import (
    EVIL,
    FORBIDDEN,
    HOSTILE,
    assert_inert,
    hand_key,
    press,
    project_users,
    running,
    screen_words,
    settle,
    type_text,
)

#: Every way a server's text can steer a terminal, short enough to be shown whole.


def answering_changes(
    status: int, body: dict[str, Any], changes: list[str] | None = None
) -> ASGIApp:
    """The demo API, except that every create and update is answered with ``body``."""
    inner = create_app(DemoStore(), Faults())

    async def server(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] in ("POST", "PUT"):
            if changes is not None:
                changes.append(scope["method"])
            await JSONResponse(body, status_code=status)(scope, receive, send)
            return
        await inner(scope, receive, send)

    return server


def answering_by_name(status: int, body: dict[str, Any]) -> ASGIApp:
    inner = create_app(DemoStore(), Faults())

    async def server(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"].startswith("/v3/hubs/name/"):
            await JSONResponse(body, status_code=status)(scope, receive, send)
            return
        await inner(scope, receive, send)

    return server


@pytest.mark.parametrize(
    ("status", "body"),
    [
        (409, {"title": EVIL, "detail": EVIL}),
        (409, {"Code": EVIL, "Message": EVIL}),
        (400, {"title": "Bad", "detail": EVIL}),
        (502, {"title": EVIL}),
    ],
    ids=["409 title", "409 Code", "400 detail", "502 title"],
)
async def test_a_failed_save_shows_the_servers_words_inert(
    status: int, body: dict[str, Any]
) -> None:
    async with running(server=answering_changes(status, body), start=project_users()) as pilot:
        await press(pilot, "a")
        await type_text(pilot, "someone@acme-build.com")
        await press(pilot, "ctrl+s", "y")
        text = assert_inert(pilot)
        assert "␛]52;c;" in text
        assert isinstance(pilot.app.screen, UserFormScreen)


async def test_the_go_to_dialogs_error_is_inert() -> None:
    server = answering_by_name(500, {"title": EVIL, "Code": EVIL})
    async with running(server=server) as pilot:
        await press(pilot, "g")
        await type_text(pilot, "acme-build")
        await press(pilot, "enter")
        text = assert_inert(pilot)
        assert "HTTP 500" in screen_words(pilot)
        assert "␛[2J" in text


def hostile_records() -> DemoStore:
    store = DemoStore()
    hub = store.hub_by_name("acme-build")
    assert hub is not None
    for user in store.users.values():
        if user.first_name == "Grace":  # a limited reader of the Bridge project
            user.email = f"grace{EVIL}@northwind-eng.com"
        if user.first_name == "Aiko":  # a member
            user.email = "evil\n\x1b[201~touch /tmp/x\n@a.example"
    for membership in hub.projects[1001].members.values():
        if membership.role == "Admin":
            membership.role = f"Admin{EVIL}"
    return store


async def test_emails_and_roles_are_inert_in_the_table_the_panel_and_the_forms() -> None:
    store = hostile_records()
    async with running(store=store, start=project_users()) as pilot:
        assert_inert(pilot)
        table = pilot.app.screen.query_one(RecordTable)
        for key in ("8", "2"):
            assert table.select_key(key)
            await settle(pilot)
            assert_inert(pilot)
        assert table.select_key("8")
        await press(pilot, "e")  # promote the limited reader: the email is prefilled
        email = pilot.app.screen.query_one("#email", Input).value
        assert all(ch not in email for ch in FORBIDDEN)
        assert "␛]52;c;" in email
        assert_inert(pilot)
        await press(pilot, "ctrl+s")
        assert_inert(pilot)  # the confirmation names them inert too
        await press(pilot, "y")
        assert_inert(pilot)
    # What was sent is the server's own email, exactly: the person is found, not a lookalike.
    hub = store.hub_by_name("acme-build")
    assert hub is not None
    members = {store.users[uid].email for uid in hub.projects[1001].members}
    assert f"grace{EVIL}@northwind-eng.com" in members


async def test_y_refuses_to_copy_what_a_person_could_not_type() -> None:
    store = hostile_records()
    async with running(store=store, start=project_users()) as pilot:
        table = pilot.app.screen.query_one(RecordTable)
        assert table.select_key("2")
        await press(pilot, "y")
        assert pilot.app.clipboard == ""
        words = screen_words(pilot)
        assert "Not copied" in words
        assert "U+000A" in words
        assert_inert(pilot)
        assert table.select_key("3")
        await press(pilot, "y")
        assert pilot.app.clipboard.endswith("@acme-build.com")


async def test_hub_ids_are_inert_and_not_copied() -> None:
    store = DemoStore()
    hub = store.hub_by_name("acme-build")
    assert hub is not None
    store.hubs.pop(hub.id)
    hub.id = f"id{EVIL}"
    store.hubs[hub.id] = hub
    async with running(store=store) as pilot:
        table = pilot.app.screen.query_one(RecordTable)
        assert table.select_key(hub.id)
        await press(pilot, "y")
        assert "Id: id␛]52;c;" in assert_inert(pilot)  # the choice itself is inert
        await press(pilot, "down", "enter")  # Id
        assert_inert(pilot)
        words = screen_words(pilot)
        assert "Not copied" in words
        assert "id␛]52" in words
        assert pilot.app.clipboard == ""
        await press(pilot, "enter")
        assert "id␛]52;c;" in assert_inert(pilot)


def lookalike_store() -> DemoStore:
    store = DemoStore()
    acme = store.hub_by_name("acme-build")
    riverside = store.hub_by_name("riverside-infra")
    assert acme is not None
    assert riverside is not None
    acme.name = "\u0430cme-build"  # a Cyrillic а
    riverside.display_name = "(none set = Name)"
    return store


async def test_lookalike_names_are_marked_and_explained() -> None:
    async with running(store=lookalike_store()) as pilot:
        table = pilot.app.screen.query_one(RecordTable)
        marked = {row.cells[1]: row.cells[0] for row in table.rows}
        assert marked["\u0430cme-build"] == "≠!"
        assert marked["riverside-infra"] == "≠!"
        assert marked["nordic-rail"] in ("", "≠")
        imitation = next(r for r in table.rows if r.cells[1] == "riverside-infra")
        genuine = next(
            r
            for r in table.rows
            if r.cells[2] == "(none set = Name)" and r.cells[1] != "riverside-infra"
        )
        assert 2 in genuine.placeholders  # hubtui's own words: dim italic
        assert 2 not in imitation.placeholders  # the server's: plain, and marked
        lookalike = next(i for i, r in enumerate(table.rows) if r.cells[1] == "\u0430cme-build")
        assert table.select_key(table.view.key(lookalike))
        await press(pilot, "enter")
        words = screen_words(pilot)
        assert "! LOOKALIKE it holds characters that are not plain ASCII" in words


async def test_an_add_answered_201_with_an_unreadable_body_is_done_once() -> None:
    store = DemoStore()
    inner = create_app(store, Faults())

    async def server(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "POST":

            async def discard(message: Any) -> None:  # the demo makes the change...
                return None

            await inner(scope, receive, discard)
            await JSONResponse("<html>", status_code=201)(scope, receive, send)  # ...badly said
            return
        await inner(scope, receive, send)

    async with running(server=server, start=project_users()) as pilot:
        await press(pilot, "a")
        await type_text(pilot, "made.once@acme-build.com")
        await press(pilot, "ctrl+s", "y")
        assert isinstance(pilot.app.screen, ProjectUsersScreen)
        assert "made.once@acme-build.com" in screen_words(pilot)
        log = pilot.app.workspace.change_log  # type: ignore[attr-defined]
        assert [c.outcome for c in log.changes] == ["done"]
    assert store.creates == 1


def change_log_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


async def test_a_gateway_error_to_an_add_is_unknown_and_never_resent(tmp_path: Path) -> None:
    log = tmp_path / "data" / "changes.jsonl"
    changes: list[str] = []
    server = answering_changes(502, {"title": "Bad gateway"}, changes)
    async with running(server=server, change_log=log, start=project_users()) as pilot:
        await press(pilot, "a")
        await type_text(pilot, "twice@acme-build.com")
        await press(pilot, "ctrl+s", "y")
        assert "may or may not have been added" in screen_words(pilot)
        await press(pilot, "ctrl+s")
        assert "not sent again until then" in screen_words(pilot)
        # Leaving the form does not forget it: the same email in a new form is refused too.
        await press(pilot, "escape")
        assert isinstance(pilot.app.screen, ProjectUsersScreen)
        await press(pilot, "a")
        await type_text(pilot, "twice@acme-build.com")
        await press(pilot, "ctrl+s", "y")
        assert "An earlier add of this email" in screen_words(pilot)
        assert changes == ["POST"]
        # Reloading the list is the check: the log says what it found.
        await press(pilot, "escape", "y", "r")
    lines = change_log_lines(log)
    assert [line["outcome"] for line in lines] == ["pending", "unknown", "failed"]
    assert lines[-1]["checked"] == "not found"
    assert len({line["id"] for line in lines}) == 1
    assert all(line["server"] == "demo" for line in lines)
    assert stat.S_IMODE(os.stat(log).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(log.parent).st_mode) == 0o700


async def test_escape_abandons_a_slow_save_and_the_check_finds_it(tmp_path: Path) -> None:
    log = tmp_path / "changes.jsonl"
    store = DemoStore()
    faults = Faults(change_latency=30)
    async with running(store=store, faults=faults, change_log=log, start=project_users()) as pilot:
        await press(pilot, "a")
        await type_text(pilot, "slow@acme-build.com")
        await pilot.press("ctrl+s", "y")
        await pilot.pause(0.3)
        assert "Sending" in screen_words(pilot)
        email = pilot.app.screen.query_one("#email", Input)
        assert email.disabled  # nothing can change under a request on its way
        assert "Check list" not in screen_words(pilot)
        # ctrl+s is not offered while the change is on its way (pressing it would do nothing).
        assert "Save" not in screen_words(pilot)
        await press(pilot, "escape")
        words = screen_words(pilot)
        assert "You stopped waiting" in words
        assert "may or may not have been added" in words
        # The footer now offers the check, and what was typed can be corrected again.
        assert "Check list" in words
        assert "Save" in words
        assert not email.disabled
        assert email.value == "slow@acme-build.com"
        faults.change_latency = 0
        await press(pilot, "ctrl+r")
        assert isinstance(pilot.app.screen, ProjectUsersScreen)
    lines = change_log_lines(log)
    assert [line["outcome"] for line in lines] == ["pending", "unknown", "done"]
    assert lines[-1]["checked"] == "found"
    assert store.creates == 1


async def test_an_update_applied_but_never_answered_is_unknown_not_failed(tmp_path: Path) -> None:
    log = tmp_path / "changes.jsonl"
    server = answering_changes(504, {"title": "Gateway timeout"})
    async with running(server=server, change_log=log, start=project_users()) as pilot:
        await press(pilot, "down", "e", "down", "enter", "ctrl+s", "y")
        assert "may or may not have been made" in screen_words(pilot)
    lines = change_log_lines(log)
    assert [line["outcome"] for line in lines] == ["pending", "unknown"]


async def test_quitting_while_a_change_is_in_flight_asks_first(tmp_path: Path) -> None:
    log = tmp_path / "changes.jsonl"
    faults = Faults(change_latency=30)
    async with running(faults=faults, change_log=log, start=project_users()) as pilot:
        await press(pilot, "a")
        await type_text(pilot, "inflight@acme-build.com")
        await pilot.press("ctrl+s", "y")
        await pilot.pause(0.3)
        await pilot.press("ctrl+c")
        await pilot.pause(0.1)
        assert isinstance(pilot.app.screen, ConfirmScreen)
        assert "A change is being sent" in screen_words(pilot)
        await pilot.press("n")
        await pilot.pause(0.1)
        assert pilot.app.is_running
        await pilot.press("ctrl+c")
        await pilot.pause(0.1)
        await pilot.press("y")
        await pilot.pause(0.3)
    lines = change_log_lines(log)
    assert [line["outcome"] for line in lines] == ["pending", "unknown"]
    assert "quit before the answer came" in lines[-1]["detail"]


KEYS = [
    *"aeglnpqrsvwxyc/?S",
    "enter",
    "escape",
    "up",
    "down",
    "end",
    "home",
    "tab",
    "ctrl+s",
    "ctrl+r",
    "ctrl+p",
    "backspace",
]
START: dict[str, Callable[[Pilot[None]], Awaitable[None]]] = {
    "hub list": lambda pilot: press(pilot),
    "hub detail": lambda pilot: press(pilot, "enter"),
    "project users": lambda pilot: press(pilot, "enter", "enter"),
    "add form": lambda pilot: press(pilot, "enter", "enter", "a"),
}


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("start", list(START))
async def test_random_key_sequences_never_crash(start: str, seed: int) -> None:
    rng = random.Random(f"{start}-{seed}")
    keys = [rng.choice(KEYS) for _ in range(60)]
    async with running(store=DemoStore(), size=(80, 24)) as pilot:
        await START[start](pilot)
        for at in range(0, len(keys), 6):  # in bursts, as SSH delivers a fast typist's keys
            if not pilot.app.is_running:
                break
            for key in keys[at : at + 6]:
                hand_key(pilot, key)
            await pilot.pause()
        await pilot.pause()
    # run_test re-raises anything the app raised; reaching here means none did.
    assert keys


def test_hostile_text_of_the_injection_tests_covers_every_kind() -> None:
    for character in ("\x1b", "\x07", "\u202e"):
        assert character in HOSTILE
        assert character in EVIL


async def test_w_on_a_row_answers_for_its_account_whatever_its_address_holds() -> None:
    """Aiko's address, as the server sends it, holds a newline and an escape: nobody typed it,
    so W does not ask to type it again; it answers for her account, the address shown inert."""
    store = hostile_records()
    async with running(store=store, start=project_users()) as pilot:
        table = pilot.app.screen.query_one(RecordTable)
        assert table.select_key("2")
        await press(pilot, "W")
        await settle(pilot)
        words = screen_words(pilot)
        assert "type it again" not in words
        assert "can edit" in words
        assert_inert(pilot)
