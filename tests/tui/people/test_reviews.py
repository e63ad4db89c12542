"""A review on a hub's people, as a reviewer does it: `d` decides for the marked people (keys typed
in one burst land in the dialog), the row says the decision, `v` previews the decisions read
again, `a` applies them and the review is kept in the store; `O` offboards a person from every
hub; read-only, nothing of it is sent."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot

from hubtui.core.store.server_store import ServerStore
from hubtui.core.workflows.keeping import review_kept, reviews_kept
from hubtui.demo import DemoStore
from hubtui.tui.screens.changes.batch import StagedScreen
from hubtui.tui.screens.dialogs.reason_prompt import ReasonPromptScreen
from hubtui.tui.screens.people.hub_people import HubPeopleScreen
from tests.harness.app import burst, press, running, screen_text, screen_words, settle, type_text

BJORN = "bjorn.lindqvist@acme-build.com"
DANA = "dana.whitfield@acme-build.com"
FATIMA = "fatima.rahman@northwind-eng.com"


async def to_person(pilot: Pilot[None], email: str) -> None:
    """The hub's people filtered to ``email``, its row highlighted."""
    await press(pilot, "slash")
    await type_text(pilot, email)
    await press(pilot, "enter")


def members(store: DemoStore, project: int = 1001) -> dict[str, str]:
    hub = next(h for h in store.hubs.values() if h.name == "acme-build")
    found = hub.projects[project].members
    return {store.users[uid].email: m.role for uid, m in found.items()}


def hub_users(store: DemoStore) -> set[str]:
    hub = next(h for h in store.hubs.values() if h.name == "acme-build")
    return {store.users[uid].email for uid in hub.user_ids}


@pytest.mark.parametrize("size", [(80, 24), (140, 40)], ids=["80x24", "wide"])
async def test_a_review_is_decided_previewed_applied_and_kept(
    size: tuple[int, int], tmp_path: Path
) -> None:
    store = DemoStore()
    async with running(
        size=size, store=store, store_path=tmp_path / "store.sqlite3", keeps="all"
    ) as pilot:
        await press(pilot, "enter", "P")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, HubPeopleScreen)
        await to_person(pilot, BJORN)
        # d, x, a reason and enter in one burst: x is the dialog's, not the list's export.
        await burst(pilot, ["d", "x", *"left the company", "enter"])
        assert pilot.app.screen is screen
        assert "▸ REMOVE FROM HUB" in screen_words(pilot)
        assert "1 decided (v previews)" in screen_words(pilot)
        await to_person(pilot, DANA)
        await burst(pilot, ["d", "r", "enter"])
        await press(pilot, "v")
        await settle(pilot)
        assert isinstance(pilot.app.screen, StagedScreen)
        words = screen_words(pilot)
        assert "Review of acme-build" in words
        assert "3 to send (0 adds, 2 updates, 1 removal from the hub)" in words
        assert BJORN in words
        await press(pilot, "a", "y")
        await settle(pilot)
        words = screen_words(pilot)
        assert "Review #1 kept: hubtui reviews 1" in words
        kept = await reviews_kept(pilot.app.workspace)
        assert [r.counts for r in kept] == [{"remove from hub": 1, "set Reader": 1}]
        _, rows = await review_kept(pilot.app.workspace, kept[0].id)
        by_email = {r["email"]: r for r in rows}
        assert by_email[BJORN]["reason"] == "left the company"
        assert by_email[BJORN]["outcome"] == "done"
        assert by_email[DANA]["decision"] == "set Reader"
        await press(pilot, "escape")
        await settle(pilot)
        assert pilot.app.screen is screen
        assert screen.decisions == {}  # the next review starts afresh
    assert BJORN not in hub_users(store)
    assert members(store)[DANA] == "Reader"


async def test_offboarding_from_the_hubs_people_is_previewed_sent_and_kept(
    tmp_path: Path,
) -> None:
    store = DemoStore()
    server_store = ServerStore(tmp_path / "store.sqlite3", "demo", None, "all")
    async with running(
        size=(120, 40), store=store, store_path=tmp_path / "store.sqlite3", keeps="all"
    ) as pilot:
        await press(pilot, "enter", "P")
        await settle(pilot)
        await to_person(pilot, FATIMA)
        await press(pilot, "O")
        assert isinstance(pilot.app.screen, ReasonPromptScreen)  # asked why before it reads
        assert "Offboard fatim" in " ".join(screen_text(pilot).split())
        await type_text(pilot, "left the company")
        await press(pilot, "enter")
        await settle(pilot)
        assert isinstance(pilot.app.screen, StagedScreen)
        words = screen_words(pilot)
        assert "not read, they may have access there too" in words  # in the counts, once
        assert "loses Editor in Harbour Bridge Retrofit" in words
        # Said on the preview itself and in the question that sends it, not only in a toast.
        shown = " ".join(screen_text(pilot).split())
        assert "Offboarding of fatim" in shown
        assert "INCOMPLETE · 1 to send" in shown
        await press(pilot, "a")
        shown = " ".join(screen_text(pilot).split())
        assert "Incomplete: not read, they may have access there too" in shown
        await press(pilot, "y")
        await settle(pilot)
        assert "Review #1 kept" in screen_words(pilot)
        await press(pilot, "ctrl+p")
        await type_text(pilot, "Reviews kept")
        await press(pilot, "enter")
        await settle(pilot)
        assert "offboarding" not in screen_words(pilot)  # the list first, one line a review
        assert "#1 acme-build" in screen_words(pilot)
        await press(pilot, "enter")
        words = screen_words(pilot)
        assert f"Review #1 (offboarding {FATIMA})" in words
        assert f"{FATIMA}: remove from hub (left the company) → done" in words
    assert FATIMA not in hub_users(store)
    with server_store.open() as kept:
        rows = kept.review_rows(1)
    assert [row["reason"] for row in rows] == ["left the company"]  # kept with the review


async def test_an_offboarding_left_at_its_preview_sends_nothing_and_keeps_no_review(
    tmp_path: Path,
) -> None:
    """The app runs the one offboarding use case, which waits at the preview for the person:
    escape there ends it with nothing sent and nothing kept, and the app goes on as before."""
    store = DemoStore()
    server_store = ServerStore(tmp_path / "store.sqlite3", "demo", None, "all")
    async with running(
        size=(120, 40), store=store, store_path=tmp_path / "store.sqlite3", keeps="all"
    ) as pilot:
        await press(pilot, "enter", "P")
        await settle(pilot)
        await to_person(pilot, FATIMA)
        await burst(pilot, ["O", *"left", "enter"])
        await settle(pilot)
        assert isinstance(pilot.app.screen, StagedScreen)
        await press(pilot, "escape")
        await settle(pilot)
        assert isinstance(pilot.app.screen, HubPeopleScreen)
        assert not [w for w in pilot.app.workers if not w.is_finished]  # the use case ended
        assert "Review #" not in screen_words(pilot)
    assert FATIMA in hub_users(store)
    with server_store.open() as kept:
        assert kept.reviews(None, None) == []


async def test_read_only_a_review_is_previewed_and_nothing_is_sent() -> None:
    store = DemoStore()
    async with running(size=(120, 40), store=store, read_only=True) as pilot:
        await press(pilot, "enter", "P")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, HubPeopleScreen)
        assert screen.check_action("offboard", ()) is False
        await to_person(pilot, BJORN)
        await burst(pilot, ["d", "x", "enter"])
        await press(pilot, "v")
        await settle(pilot)
        assert "read-only mode: nothing is sent" in screen_words(pilot)
        await press(pilot, "a")
        await settle(pilot)
    assert BJORN in hub_users(store)


async def test_o_on_a_person_search_offboards_the_person_found(tmp_path: Path) -> None:
    store = DemoStore()
    server_store = ServerStore(tmp_path / "store.sqlite3", "demo", None, "all")
    async with running(
        size=(80, 24), store=store, store_path=tmp_path / "store.sqlite3", keeps="all"
    ) as pilot:
        await press(pilot, "w")
        await type_text(pilot, BJORN)
        await press(pilot, "enter")
        await settle(pilot)
        await burst(pilot, ["O", *"gone", "enter"])  # the reason typed ahead lands in its prompt
        await settle(pilot)
        assert isinstance(pilot.app.screen, StagedScreen)
        assert "removed from the hub (was Guest)" in screen_words(pilot)
        await press(pilot, "a", "y")
        await settle(pilot)
        assert "Review #1 kept" in screen_words(pilot)
    assert BJORN not in hub_users(store)
    with server_store.open() as kept:
        rows = kept.review_rows(1)
    assert [row["reason"] for row in rows] == ["gone"]


async def test_a_removal_s_preview_says_what_it_does_once() -> None:
    async with running(size=(120, 40)) as pilot:
        await press(pilot, "enter", "P")
        await to_person(pilot, BJORN)
        await burst(pilot, ["d", "x", "enter"])
        await press(pilot, "v")
        words = screen_words(pilot)
        assert "(hub acme-build): removed from the hub (was Guest)" in words
        assert "asked removed from the hub" not in words  # said once, not asked and said
