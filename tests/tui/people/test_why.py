"""``W`` on a person's row, and the palette's "Why can't … get in?": the ticket answered in the
app as ``hubtui why`` answers it, at 80×24, copied whole with ``y``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from hubtui.tui.screens.people.hub_people import HubPeopleScreen
from hubtui.tui.screens.people.why import WhyScreen
from tests.harness.app import (
    ask_why,
    burst,
    offline_app,
    press,
    project_users,
    running,
    screen_words,
    settle,
)

GRACE = "grace.osei@northwind-eng.com"


def answer_words(pilot: Pilot[None]) -> str:
    """The dialog's words as it holds them, whole (on screen its wrapped lines sit between the
    list's own, which show at either side of the dialog)."""
    return " ".join(str(pilot.app.screen.query_one("#why-text", Static).content).split())


LIMITED = "can only read, as a limited reader through @northwind-eng.com"


def two_accounts_of_ann() -> tuple[Any, list[str]]:
    """The demo with two accounts of one address in Harbour Bridge Retrofit: ``Ann@`` a Reader,
    ``ann@`` an Admin; their Ids, in that order."""
    from datetime import UTC, datetime

    from hubtui.demo import DemoStore
    from hubtui.demo.data import HubAccess, Membership

    store = DemoStore()
    hub = store.hub_by_name("acme-build")
    assert hub is not None
    ids = []
    for email, role in (("Ann@acme.example", "Reader"), ("ann@acme.example", "Admin")):
        user = store._new_user("Ann", "Lee", email)
        store._hub_access[hub.id, user.id] = HubAccess("Guest", True, datetime.now(UTC), None, None)
        hub.user_ids.append(user.id)
        hub.projects[1001].members[user.id] = Membership(role=role)
        ids.append(str(user.id))
    return store, ids


async def test_w_on_a_limited_reader_explains_it_and_y_copies_the_answer_whole() -> None:
    async with running(size=(80, 24), start=project_users()) as pilot:
        await press(pilot, "slash", *"grace", "enter", "W")
        assert isinstance(pilot.app.screen, WhyScreen)
        words = answer_words(pilot)
        assert f"Harbour Bridge Retrofit (acme-build): {LIMITED}." in words
        assert "Next: [1] To let them edit, add them as a direct member" in words
        assert "IsLimited: true" in screen_words(pilot)
        assert "Next:" not in screen_words(pilot)  # below the window's end at 80×24: it scrolls
        await press(pilot, "end")
        await pilot.wait_for_scheduled_animations()
        assert "Next: [1] To let them edit" in screen_words(pilot)
        assert "y copies the answer for a ticket" in screen_words(pilot)
        await press(pilot, "y")
        copied = pilot.app.clipboard
        assert copied.startswith(f"{GRACE} in Harbour Bridge Retrofit (acme-build): {LIMITED}.")
        assert "Next: To let them edit" in copied  # the whole answer, beyond the window's end
        assert "Sent the answer" in screen_words(pilot)
        await press(pilot, "escape")
        assert not isinstance(pilot.app.screen, WhyScreen)


async def test_the_palette_asks_email_then_project_and_keys_typed_ahead_land_there() -> None:
    async with running(size=(80, 24)) as pilot:
        await press(pilot, "ctrl+p")
        await burst(pilot, [*"Why can", "enter"])
        # One burst, as SSH delivers a fast typist's keys: the email, enter, the project, enter.
        await burst(pilot, [*GRACE, "enter", *"harbour", "enter"])
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, WhyScreen)
        assert [(a.project_id, a.verdict) for a in screen.answers] == [("1001", LIMITED)]


async def test_w_on_the_hub_s_people_answers_for_every_project_they_are_in() -> None:
    async def start(client):  # type: ignore[no-untyped-def]
        return HubPeopleScreen(await client.get_hub_by_name("acme-build"))

    async with running(size=(120, 40), start=start) as pilot:
        await press(pilot, "slash", *"grace", "enter", "W")
        screen = pilot.app.screen
        assert isinstance(screen, WhyScreen)
        verdicts = {a.project_name: a.verdict for a in screen.answers}
        assert verdicts == {
            "Harbour Bridge Retrofit": LIMITED,
            "Depot 7 Fit-out": "can read (a direct Reader)",
        }
        assert "Depot 7 Fit-out (acme-build): can read (a direct Reader)." in answer_words(pilot)


async def test_a_name_that_matches_several_projects_lists_them_to_choose_from() -> None:
    from textual.widgets import OptionList

    from hubtui.tui.screens.people.project_choice import ProjectChoiceScreen

    async with running(size=(80, 24)) as pilot:
        await press(pilot, "enter", "ctrl+p")
        await burst(pilot, [*"Why can", "enter"])
        await burst(pilot, [*GRACE, "enter", "o", "enter"])
        await settle(pilot)
        assert isinstance(pilot.app.screen, ProjectChoiceScreen)
        seen = screen_words(pilot)
        assert "'o' names 3 projects: which one?" in seen
        assert "Québec Office Tower (Id 1002, hub acme-build)" in seen
        options = pilot.app.screen.query_one(OptionList)
        second = str(options.get_option_at_index(1).prompt)
        await press(pilot, "down", "enter")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, WhyScreen)
        (answer,) = screen.answers
        assert f"(Id {answer.project_id}, hub acme-build)" in second
        assert second.startswith(f"{answer.project_name}  ")


async def test_offline_w_answers_from_what_was_kept_and_says_so(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    async with running(store_path=path, keeps="all") as pilot:
        await press(pilot, "enter", "enter")  # acme-build, then Harbour Bridge Retrofit: kept
    app, _ = offline_app(path)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await settle(pilot)
        await press(pilot, "enter", "enter", "slash", *"grace", "enter", "W")
        assert isinstance(pilot.app.screen, WhyScreen)
        words = answer_words(pilot)
        assert f"Harbour Bridge Retrofit (acme-build): {LIMITED}." in words
        assert words.startswith("(offline: from what the store kept (")
        assert "not the server now)" in words
        assert "[1]" not in words  # offline nothing is prepared to send
        await press(pilot, "y")
        assert pilot.app.clipboard.startswith("(offline: from what the store kept (")


async def test_w_on_one_of_two_accounts_of_an_address_answers_for_each() -> None:
    store, ids = two_accounts_of_ann()
    async with running(size=(120, 40), store=store, start=project_users()) as pilot:
        await press(pilot, "slash", *"ann@acme", "enter", "end", "W")  # the row of the Admin
        screen = pilot.app.screen
        assert isinstance(screen, WhyScreen)
        assert {(a.user_id, a.verdict) for a in screen.answers} == {
            (ids[0], "can read (a direct Reader)"),
            (ids[1], "admin"),
        }
        words = answer_words(pilot)
        assert f"account Id {ids[1]} ann@acme.example: admin." in words
        assert "2 accounts have this address" in words


async def test_a_next_step_is_one_key_from_its_previewed_fix() -> None:
    """Lena can open Tower but not Harbour: W's first step adds her, a key away, through the
    role asked and the staged preview read again; nothing leaves before it is confirmed."""
    from hubtui.demo import DemoStore
    from hubtui.tui.screens.changes.batch import StagedScreen
    from hubtui.tui.screens.changes.role_choice import RoleChoiceScreen

    store = DemoStore()
    lena = store.user_by_email("lena.fischer@example-mail.com")
    assert lena is not None
    async with running(size=(80, 24), store=store) as pilot:
        await ask_why(pilot, lena.email, "harbour")
        assert "[1] Add them to Harbour Bridge Retrofit as a direct member" in answer_words(pilot)
        creates = store.creates
        await press(pilot, "1")
        assert isinstance(pilot.app.screen, RoleChoiceScreen)
        await press(pilot, "enter")  # the role it suggests: Reader
        await settle(pilot)
        staged = pilot.app.screen
        assert isinstance(staged, StagedScreen)
        assert "added as a direct member: Role Reader" in screen_words(pilot)
        assert store.creates == creates  # a preview: nothing sent yet
        await press(pilot, "a", "y")
        await settle(pilot)
        harbour = store.hub_by_name("acme-build").projects[1001]  # type: ignore[union-attr]
        assert harbour.members[lena.id].role == "Reader"
        log = pilot.app.workspace.change_log  # type: ignore[attr-defined]
        assert [(c.action, c.email, c.outcome) for c in log.changes] == [
            ("add", lena.email, "done")
        ]


async def test_an_invitation_never_accepted_is_sent_again_from_w_once_asked() -> None:
    from hubtui.demo import DemoStore
    from hubtui.tui.screens.dialogs.confirm import ConfirmScreen

    store = DemoStore()
    async with running(size=(80, 24), store=store, start=project_users()) as pilot:
        await press(pilot, "slash", *"hamid", "enter", "W")
        words = answer_words(pilot)
        assert words.startswith(
            "Harbour Bridge Retrofit (acme-build): cannot get in until they accept the invitation"
        )  # what decides it first, and its fix as step 1
        assert "[1] They cannot get in until they accept the invitation" in words
        assert "[2] To let them edit" in words
        updates = store.updates
        await press(pilot, "1")
        assert isinstance(pilot.app.screen, ConfirmScreen)
        assert store.updates == updates
        await press(pilot, "y")
        await settle(pilot)
        await pilot.app.workers.wait_for_complete()
        assert store.updates == updates + 1  # one email, once
        assert "invitation sent again" in screen_words(pilot)


async def test_the_fix_key_and_enter_typed_in_one_burst_land_in_the_role_asked() -> None:
    from hubtui.tui.screens.changes.batch import StagedScreen

    async with running(size=(80, 24), start=project_users()) as pilot:
        await press(pilot, "slash", *"grace", "enter", "W")
        await burst(pilot, ["1", "enter"])  # as SSH delivers a fast typist's keys
        await settle(pilot)
        assert isinstance(pilot.app.screen, StagedScreen)
        assert "Role Editor" in screen_words(pilot)  # the role the step suggests


async def test_keys_typed_ahead_of_a_list_still_loading_land_on_it_once_loaded() -> None:
    """Enter in the filter while the project's users still load: W waits for the list to load
    and take focus, never typed into the filter ("hamidW" under load, before)."""
    from hubtui.demo import Faults

    faults = Faults()
    async with running(size=(120, 40), faults=faults) as pilot:
        await press(pilot, "enter")  # the hub's projects
        faults.latency = 1.0  # the project's users take a second to come
        await burst(pilot, ["enter", "slash", *"hamid", "enter", "W"])
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, WhyScreen), screen_words(pilot)
        assert screen.email == "hamid.karimi@northwind-eng.com"


async def test_end_typed_while_the_answer_is_read_lands_once_it_shows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``End`` typed as the dialog opens, before the answer is read: the answer, once shown,
    is at its end (its next steps in view at 80×24), not at its top with the key lost."""
    import asyncio

    from hubtui.core.workflows import why as ticket

    async with running(size=(80, 24), start=project_users()) as pilot:
        told = ticket.tell_since
        may_answer = asyncio.Event()

        async def held(workspace: object, answers: object) -> None:
            await may_answer.wait()
            await told(workspace, answers)  # type: ignore[arg-type]

        monkeypatch.setattr(ticket, "tell_since", held)
        await press(pilot, "slash", *"grace", "enter")
        await pilot.press("W")  # the answer is held until the test says so
        for _ in range(100):
            if isinstance(pilot.app.screen, WhyScreen):
                break
            await pilot.pause(0.02)
        assert isinstance(pilot.app.screen, WhyScreen)
        await pilot.press("end")  # the answer is still being read
        await pilot.pause(0.1)
        may_answer.set()
        await settle(pilot)
        await pilot.wait_for_scheduled_animations()
        words = screen_words(pilot)
        assert "Next: [1] To let them edit" in words
        assert "y copies the answer for a ticket" in words


async def test_the_fix_key_sends_no_add_once_the_account_has_another_address() -> None:
    """W on a user of the hub not in the project, 1, the add previewed; the account is renamed
    at the server (same Id); a y sends nothing: a POST of the old address would make a second
    account. The screen says what the account is now."""
    from hubtui.demo import DemoStore
    from hubtui.tui.screens.changes.batch import StagedScreen

    store = DemoStore()
    lena = store.user_by_email("lena.fischer@example-mail.com")
    assert lena is not None
    async with running(size=(80, 24), store=store) as pilot:
        await ask_why(pilot, lena.email, "harbour")
        await press(pilot, "1", "enter")
        await settle(pilot)
        assert isinstance(pilot.app.screen, StagedScreen)
        store._user_by_email.pop(lena.email.lower(), None)
        old, lena.email = lena.email, "lena.lind@example-mail.com"
        store._user_by_email[lena.email] = lena
        creates = store.creates
        await press(pilot, "a", "y")
        await settle(pilot)
        assert store.creates == creates  # no second account at the old address
        assert store.user_by_email(old) is None
        assert f"Id {lena.id} is now lena.lind@example-mail.com, not {old}" in screen_words(pilot)
        log = pilot.app.workspace.change_log  # type: ignore[attr-defined]
        assert [c.outcome for c in log.changes if c.action == "add"] in ([], ["failed"])


async def test_w_on_a_row_answers_first_for_that_row_s_account_at_80x24() -> None:
    """Ann@ (a Reader) and ann@ (an Admin) are two accounts of one address: W on the Admin's row
    opens on the Admin's answer, the Reader's after it, marked as the other account."""
    store, ids = two_accounts_of_ann()
    async with running(size=(80, 24), store=store, start=project_users()) as pilot:
        await press(pilot, "slash", *"ann@acme", "enter", "end", "W")  # the row of the Admin
        screen = pilot.app.screen
        assert isinstance(screen, WhyScreen)
        assert [a.user_id for a in screen.answers] == [ids[1], ids[0]]
        seen = screen_words(pilot)
        # In view as it opens (the list's own letters show at the dialog's sides).
        assert f"Harbour Bridge Retrofit (acme-build), account Id {ids[1]}" in seen
        assert "ann@acme.example: admin." in seen
        assert "can read (a direct Reader)" not in seen
        words = answer_words(pilot)
        assert f"the other account Id {ids[0]} Ann@acme.example: can read" in words
        assert words.index(": admin.") < words.index("the other account")


async def test_a_typo_s_first_step_opens_the_near_address_and_its_add_says_nobody_has_it() -> None:
    """For a mistyped domain, [1] is the near address (W on it: what that account can do); the
    add of the typed address, [2], says in its preview that no one has this address and that it
    is outside the hub's SSO tenant."""
    from hubtui.demo import DemoStore
    from hubtui.tui.screens.changes.batch import StagedScreen

    store = DemoStore()
    typo = "aiko.tanaka@acme-biuld.com"
    async with running(size=(80, 24), store=store) as pilot:
        await ask_why(pilot, typo, "harbour")
        words = answer_words(pilot)
        assert "not a user of acme-build." in words
        assert "[1] Near it in the hub: aiko.tanaka@acme-build.com (Editor in the project)" in words
        assert "[2] If the address is right (it is outside the hub's Entra ID tenant" in words
        await press(pilot, "1")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, WhyScreen)
        assert screen.email == "aiko.tanaka@acme-build.com"
        assert [a.verdict for a in screen.answers] == ["can edit"]
        await press(pilot, "escape")
        await ask_why(pilot, typo, "harbour")
        creates = store.creates
        await press(pilot, "2", "enter")
        await settle(pilot)
        assert isinstance(pilot.app.screen, StagedScreen)
        seen = screen_words(pilot)
        assert "no one has this address in the hub" in seen
        assert "outside the hub's Entra ID tenant acme-build.com" in seen
        assert store.creates == creates


async def test_the_palette_s_why_starts_from_the_highlighted_person_and_typing_replaces_it() -> (
    None
):
    from textual.widgets import Input

    async with running(size=(80, 24), start=project_users()) as pilot:
        await press(pilot, "slash", *"grace", "enter", "ctrl+p")
        await burst(pilot, [*"Why can", "enter"])
        await settle(pilot)
        assert pilot.app.screen.query_one("#why-email", Input).value == GRACE
        await burst(pilot, ["enter", *"harbour", "enter"])  # her address as it is
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, WhyScreen)
        assert (screen.email, [a.verdict for a in screen.answers]) == (GRACE, [LIMITED])
        await press(pilot, "escape", "ctrl+p")
        await burst(pilot, [*"Why can", "enter"])
        # Typed ahead, in one burst: the address typed takes the place of the one filled in.
        await burst(pilot, [*"chloe.moreau@acme-build.com", "enter", *"harbour", "enter"])
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, WhyScreen)
        assert screen.email == "chloe.moreau@acme-build.com"


async def test_a_pasted_add_of_a_known_account_is_not_sent_once_it_has_another_address() -> None:
    """``A`` on a project's users, a user of the hub pasted, the batch previewed; the account
    renamed before it is sent: nothing is sent, and the row says what the account is now."""
    from hubtui.demo import DemoStore
    from hubtui.tui.screens.changes.batch import StagedScreen
    from tests.harness.app import paste

    store = DemoStore()
    lena = store.user_by_email("lena.fischer@example-mail.com")
    assert lena is not None
    async with running(size=(120, 40), store=store, start=project_users()) as pilot:
        await press(pilot, "A")
        await paste(pilot, lena.email)
        await press(pilot, "ctrl+s", "b")
        await settle(pilot)
        assert isinstance(pilot.app.screen, StagedScreen)
        assert "added as a direct member: Role" in screen_words(pilot)
        store._user_by_email.pop(lena.email.lower(), None)
        old, lena.email = lena.email, "lena.lind@example-mail.com"
        store._user_by_email[lena.email] = lena
        creates = store.creates
        await press(pilot, "a", "y")
        await settle(pilot)
        assert store.creates == creates
        assert store.user_by_email(old) is None
        assert f"Id {lena.id} is now lena.lind@example-mail.com, not {old}" in screen_words(pilot)
