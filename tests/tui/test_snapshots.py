"""Pictures of each screen at 80×24 and 120×40, compared with the approved ones.

Update after an intended change with: pytest tests/tui/test_snapshots.py --snapshot-update
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from hubtui.tui.app import HubTuiApp
from tests.harness.app import make_app, press, settle

SIZES = [(80, 24), (120, 40)]
SCREENS: dict[str, tuple[str, ...]] = {
    "hub_list": (),
    "hub_list_display_name_first": ("n",),
    "hub_detail": ("enter",),
    "project_users_limited_reader": ("enter", "enter", "end"),
    "project_users_filtered": ("enter", "enter", "slash", "n", "o", "r", "t", "h", "enter"),
    "go_to_display_name_offer": ("g", *"Nordic Rail Alliance", "enter"),
    "who_results": ("w", *"priya.patel@northwind-eng.com", "enter"),
    "help": ("enter", "enter", "question_mark"),
    "edit_confirm_difference": ("enter", "enter", "down", "e", "down", "enter", "ctrl+s"),
    "promote_limited_reader": ("enter", "enter", "end", "e"),
    "add_form": ("enter", "enter", "a"),
    "change_log": ("enter", "enter", "c"),
    "who_prompt": ("w",),
    "copy_choice": ("y",),
    "project_id_prompt": ("enter", "p"),
    "filter_matches_nothing": ("slash", "z", "z", "z"),
    # Every user marked, set to Editor: sends, no changes and limited readers skipped, read again.
    "staged_preview": ("enter", "enter", "asterisk", "m", "down", "enter", "b", "down"),
    # Every dialog, each control showing its value.
    "add_people": ("enter", "enter", "A"),
    "marked_choice": ("enter", "enter", "space", "m"),
    "edit_form": ("enter", "enter", "down", "e"),
    # A review: the decision dialog, decisions shown in their rows, their preview; the matrix.
    "decision_dialog": ("enter", "P", "l", "space", "space", "d"),
    "hub_people_decided": ("enter", "P", "l", "space", "space", "d", "x", *"left", "enter"),
    "review_preview": ("enter", "P", "l", "space", "space", "d", "x", *"left", "enter", "v"),
    "access_matrix": ("enter", "P", "M", "right", "right", "right", "down"),
    # W on a limited reader: the verdict, the facts behind it (it scrolls at 80×24).
    "why_limited_reader": ("enter", "enter", "slash", *"grace", "enter", "W"),
}
#: What the hub's people count "3 months ago" to: a fixed day, so that their pictures hold.
NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("hubtui.tui.screens.people.hub_people.clock", lambda: NOW)
    monkeypatch.setattr("hubtui.tui.screens.people.why.clock", lambda: NOW)


#: Small windows: where you are, both names and the LIMITED word must still read.
SMALL = {
    name: SCREENS[name]
    for name in ("hub_list", "hub_detail", "project_users_limited_reader", "who_results")
}


def keys_then_settle(keys: tuple[str, ...]) -> Callable[[Pilot[None]], Any]:
    async def run_before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        await press(pilot, *keys)
        await settle(pilot)

    return run_before


def pictured() -> HubTuiApp:
    """The app on the demo, its change log named as it is in every picture (the test's own
    folder, where each test works, is another on every run)."""
    return make_app(change_log=Path("changes.jsonl"))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("screen", list(SCREENS))
def test_screen(snap_compare: Callable[..., bool], screen: str, size: tuple[int, int]) -> None:
    assert snap_compare(
        pictured(), terminal_size=size, run_before=keys_then_settle(SCREENS[screen])
    )


@pytest.mark.parametrize("screen", list(SMALL))
def test_small_window(snap_compare: Callable[..., bool], screen: str) -> None:
    assert snap_compare(
        pictured(), terminal_size=(60, 16), run_before=keys_then_settle(SMALL[screen])
    )


#: A campaign: its packets with their progress, and a packet's people decided with k, r and x.
CAMPAIGN = {
    "campaign_packet": ("space", "space", "k", "down", "r", "down", "x", *"left", "enter"),
    "campaign_packets": (
        "space",
        "space",
        "k",
        "down",
        "r",
        "down",
        "x",
        *"left",
        "enter",
        "escape",
    ),
}


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("screen", list(CAMPAIGN))
def test_campaign(
    snap_compare: Callable[..., bool],
    screen: str,
    size: tuple[int, int],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from hubtui.core.workflows import campaign as use
    from hubtui.core.workflows.campaign import deciding, starting

    for clocked in (starting, deciding):  # the freeze's time, and each decision's
        monkeypatch.setattr(clocked, "now", lambda: "2026-11-25T12:00:00Z")
    # The moment each row's recommendation is decided against (the demo's sign-ins are fixed).
    monkeypatch.setattr(starting, "utc_now", lambda: datetime(2026, 11, 25, 12, tzinfo=UTC))

    async def run_before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        workspace = pilot.app.workspace  # type: ignore[attr-defined]
        client = await workspace.client()
        hub = next(h for h in await client.list_hubs() if h.name == "acme-build")
        await use.start(
            client, hub, workspace.review_store(), "olive.owner", use.StartAsked(), concurrency=4
        )
        await press(pilot, "ctrl+p", *"Campaigns", "enter")
        await settle(pilot)
        await press(pilot, "enter")
        await settle(pilot)
        await press(pilot, "enter")
        await settle(pilot)
        await press(pilot, *CAMPAIGN[screen])
        await settle(pilot)

    app = make_app(
        change_log=Path("changes.jsonl"),
        store_path=tmp_path / "store.sqlite3",
        keeps="all",
        operator="ana.reviewer",  # the same name in the picture on every machine
    )
    assert snap_compare(app, terminal_size=size, run_before=run_before)
