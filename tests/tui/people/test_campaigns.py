"""A campaign's packets and a packet's people in the app (the palette's "Campaigns"): the
progress of each packet, decisions made with k, r and x on marked rows, recorded by the
campaign's use case (one bulk act for many rows), and what ``hubtui campaign`` then says."""

from __future__ import annotations

import asyncio
import csv
import io
import json
from pathlib import Path

import pytest
from textual.pilot import Pilot

from hubtui.config import Settings
from hubtui.core.people.review import Decision
from hubtui.core.store import Store
from hubtui.core.store.campaigns import RosterEntry, campaign_events, roster_add
from hubtui.core.store.server_store import ServerStore
from hubtui.core.workflows import campaign as use
from hubtui.demo import DEMO_TOKEN, DemoStore, Faults
from hubtui.tui.screens.changes.batch import StagedScreen
from hubtui.tui.screens.dialogs.reason_prompt import ReasonPromptScreen
from hubtui.tui.screens.people.campaigns import PacketScreen, PacketsScreen
from tests.harness.app import (
    burst,
    press,
    project_users,
    running,
    screen_words,
    send_key,
    server_workspace,
    settle,
    type_text,
)
from tests.harness.commands import run
from tests.harness.postgres import MEMBER, PostgresServer

BJORN = "bjorn.lindqvist@acme-build.com"
TEAM_SERVER = "https://team.example"


async def start_campaign(pilot: Pilot[None]) -> None:
    workspace = pilot.app.workspace  # type: ignore[attr-defined]
    client = await workspace.client()
    hub = next(h for h in await client.list_hubs() if h.name == "acme-build")
    await use.start(
        client, hub, workspace.review_store(), "olive.owner", use.StartAsked(), concurrency=4
    )


async def to_packet(pilot: Pilot[None]) -> None:
    await press(pilot, "ctrl+p")
    await type_text(pilot, "Campaigns")
    await press(pilot, "enter")
    await settle(pilot)
    await press(pilot, "enter")  # the campaign
    await settle(pilot)
    assert isinstance(pilot.app.screen, PacketsScreen)


async def test_a_packet_is_decided_with_k_r_and_x_and_its_progress_follows(
    tmp_path: Path,
) -> None:
    store_path = tmp_path / "store.sqlite3"
    async with running(
        size=(120, 40), store=DemoStore(), store_path=store_path, keeps="all"
    ) as pilot:
        await start_campaign(pilot)
        await to_packet(pilot)
        words = screen_words(pilot)
        assert "Campaign 1 · open · 23 memberships · 0 decided · 23 left · 0 conflicts" in words
        assert "Harbour Bridge Retrofit 12 0 12 dana.whitfield@acme-build.com" in words
        await press(pilot, "enter")  # Harbour Bridge Retrofit
        await settle(pilot)
        assert isinstance(pilot.app.screen, PacketScreen)
        # Three rows marked (Dana, Aiko, Björn), then k: one bulk act.
        await burst(pilot, ["space", "space", "space", "k"])
        await settle(pilot)
        assert "3 decisions recorded (keep); nothing was sent." in screen_words(pilot)
        await press(pilot, "slash")
        await type_text(pilot, "bjorn")
        await press(pilot, "enter")
        await burst(pilot, ["x", *"left the company", "enter"])
        await settle(pilot)
        words = screen_words(pilot)
        assert f"{BJORN} Editor remove from hub (left the company)" in words
        await press(pilot, "escape", "escape")  # the filter, then back to the packets
        await settle(pilot)
        # Björn's keep changed to a removal: still three decided, and both words kept.
        assert "Harbour Bridge Retrofit 12 3 9" in screen_words(pilot)
    server_store = ServerStore(store_path, "demo", None, "all")
    with server_store.open() as kept:
        events = campaign_events(kept, 1)
    bulk = [e for e in events if e.kind == "bulk"]
    assert len(bulk) == 1
    assert bulk[0].detail == "3 rows · 3 rows marked"
    decided = [e for e in events if e.kind == "decide"]
    assert [e.act for e in decided] == [bulk[0].id] * 3 + [0]  # Björn's alone: no bulk act
    assert decided[-1].reason == "left the company"
    assert [e.decision for e in decided] == ["keep"] * 3 + ["remove from hub"]


def decisions_of(store_path: Path) -> dict[tuple[str, str], tuple[str, str]]:
    server_store = ServerStore(store_path, "demo", None, "all")
    campaign = asyncio.run(use.open_campaign(server_store, 1))
    return {
        (s.row.project, s.row.user_id): (s.decision.value, s.reason)
        for s in campaign.states.values()
        if s.decision is not None
    }


def test_the_app_s_k_r_x_and_campaign_decide_record_the_same_decisions(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One use case records a packet's decisions: the app's keys and a decisions file given to
    ``hubtui campaign decide`` come to the same decision and reason for each membership."""
    monkeypatch.setenv("HUBTUI_OPERATOR", "ana.reviewer")
    monkeypatch.setenv("HUBTUI_DATA_DIR", str(tmp_path / "command"))
    assert run(capsys, "--demo", "campaign", "start", "acme-build")[0] == 0
    status, out, err = run(capsys, "--demo", "campaign", "export", "1", "--packet", "1001")
    assert status == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    wanted = {
        "aiko.tanaka@acme-build.com": ("keep", ""),
        BJORN: ("remove", "left the company"),
        "chloe.moreau@acme-build.com": ("reader", ""),
    }
    for row in rows:
        row["decision"], row["reason"] = wanted.get(row["email"], ("", ""))
    path = tmp_path / "decided.csv"
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    status, _, err = run(capsys, "--demo", "campaign", "decide", "1", str(path))
    assert status == 0, err

    async def from_the_app() -> None:
        async with running(
            size=(80, 24),
            store=DemoStore(),
            store_path=tmp_path / "app.sqlite3",
            keeps="all",
            operator="ana.reviewer",
        ) as pilot:
            await start_campaign(pilot)
            await to_packet(pilot)
            await press(pilot, "enter")
            await settle(pilot)
            # Aiko (the second row) k, Björn x with its reason, Chloé r: as SSH delivers them.
            await burst(pilot, ["down", "k"])
            await settle(pilot)
            await burst(pilot, ["down", "x", *"left the company", "enter"])
            await settle(pilot)
            await burst(pilot, ["down", "r"])
            await settle(pilot)

    asyncio.run(from_the_app())
    by_command = decisions_of(tmp_path / "command" / "demo" / "store.sqlite3")
    assert by_command == decisions_of(tmp_path / "app.sqlite3")
    assert sorted(by_command.values()) == [
        ("keep", ""),
        ("remove from hub", "left the company"),
        ("set Reader", ""),
    ]


async def test_the_owner_settles_a_conflict_in_the_app_and_a_reviewer_cannot(
    tmp_path: Path,
) -> None:
    """Two reviewers disagree on Björn: the row says CONFLICT with both names; the owner's
    word settles it (recorded as a resolution), not the last reviewer's."""
    async with running(
        size=(120, 40),
        store=DemoStore(),
        store_path=tmp_path / "store.sqlite3",
        keeps="all",
        operator="olive.owner",
    ) as pilot:
        await start_campaign(pilot)
        server_store = pilot.app.workspace.review_store()  # type: ignore[attr-defined]
        for who, word in (("dana.w", Decision.REMOVE), ("aiko.t", Decision.KEEP)):
            campaign = await use.open_campaign(server_store, 1)
            bjorn = next(s.row.position for s in campaign.states.values() if s.row.email == BJORN)
            events = use.events_of(
                campaign, [bjorn], word, "gone" if word is Decision.REMOVE else "", who
            )
            await use.decide(server_store, campaign, events, bulk=None)
        await to_packet(pilot)
        words = screen_words(pilot)
        assert "1 conflict" in words
        await press(pilot, "enter")
        await settle(pilot)
        await press(pilot, "slash", *"bjorn", "enter")
        words = screen_words(pilot)
        assert "CONFLICT deciders disagree (dana.w: remove from hub, aiko.t: keep)" in words
        await press(pilot, "k")
        await settle(pilot)
        assert f"{BJORN} Editor keep" in screen_words(pilot)
        campaign = await use.open_campaign(server_store, 1)
    assert not campaign.conflicts()
    assert [e.kind for e in campaign.events if e.kind in ("decide", "resolve")] == [
        "decide",
        "decide",
        "resolve",
    ]


async def test_on_the_team_store_the_app_decides_as_the_role_and_its_account(
    tmp_path: Path, pg_env: PostgresServer
) -> None:
    """The member's role acts for Dana: in the app her packet's rows are hers to decide under
    that role, her own row is not (by account, whatever the operator setting says), and the
    database records each decision under the role."""
    schema = pg_env.new_schema()
    owner, member = pg_env.url(schema=schema), pg_env.url(user=MEMBER, schema=schema)
    Store.open_url(owner).close()  # the owner migrates
    pg_env.grant_member(schema)
    settings = Settings(
        base_url=TEAM_SERVER, token=DEMO_TOKEN, store="all", store_url=member, operator="Ada"
    )
    workspace = server_workspace(settings, tmp_path)
    origin = workspace.review_store().origin
    with Store.open_url(owner) as store:
        store.seal_trail()
        roster_add(
            store, RosterEntry(MEMBER, origin, "1", "dana.whitfield@acme-build.com", "", "t", "")
        )
    async with running(workspace=workspace) as pilot:
        await start_campaign(pilot)
        await to_packet(pilot)
        await press(pilot, "enter")  # Harbour Bridge Retrofit: Dana's row first
        await settle(pilot)
        await burst(pilot, ["space", "space", "space", "k"])
        await settle(pilot)
        words = screen_words(pilot)
        assert "2 decisions recorded (keep); nothing was sent." in words
        assert "1 row not yours to decide: dana.whitfield@acme-build.com decides on their" in words
        # Who decides, as the roster says it: read only, from the palette.
        await press(pilot, "ctrl+p")
        await type_text(pilot, "Team roster")
        await press(pilot, "enter")
        await settle(pilot)
        words = screen_words(pilot)
        assert f"{MEMBER} dana.whitfield@acme-build.com 1" in words
        assert "Who decides in this server's campaigns: 1 role of the team store" in words
    with Store.open_url(owner, read_only=True) as store:
        decided = [e for e in campaign_events(store, 1) if e.kind == "decide"]
    assert [(e.operator, e.db_role) for e in decided] == [("Ada", MEMBER)] * 2


async def test_the_app_closes_a_campaign_and_finishes_the_close_it_stopped(tmp_path: Path) -> None:
    """``C`` on a campaign's packets: the preview as the staged screen, ``a`` and ``y`` send it
    one change at a time; escape once the first has reached the server stops it, and the
    campaign says "closing: interrupted"; ``C`` again finishes it: the change in flight settled
    by reading the hub, only what was never sent sent."""
    store_path, log = tmp_path / "store.sqlite3", tmp_path / "changes.jsonl"
    readers = ("aiko.tanaka@acme-build.com", BJORN, "fatima.rahman@northwind-eng.com")
    demo, faults = DemoStore(), Faults(change_latency=5)

    def readers_now() -> int:
        hub = demo.hub_by_name("acme-build")
        assert hub is not None
        members = hub.projects[1001].members
        return sum(
            1
            for uid, m in members.items()
            if m.role == "Reader" and demo.users[uid].email in readers
        )

    async with running(
        size=(120, 40),
        store=demo,
        faults=faults,
        store_path=store_path,
        change_log=log,
        keeps="all",
        operator="olive.owner",
        concurrency=1,
    ) as pilot:
        await start_campaign(pilot)
        server_store = pilot.app.workspace.review_store()  # type: ignore[attr-defined]
        campaign = await use.open_campaign(server_store, 1)
        chosen = [
            s.row.position
            for s in campaign.states.values()
            if s.row.project == "1001" and s.row.email in readers
        ]
        dana = "dana.whitfield@acme-build.com"
        events = use.events_of(campaign, chosen, Decision.READER, "", dana)
        await use.decide(server_store, campaign, events, bulk=None)
        await to_packet(pilot)
        await press(pilot, "C")
        await settle(pilot)
        assert isinstance(pilot.app.screen, StagedScreen)
        await press(pilot, "a")
        await send_key(pilot, "y")  # not waited out: the batch runs while the test goes on
        for _ in range(250):  # the first change made on the server, its answer held back
            await pilot.pause(0.02)
            if readers_now() == 1:
                break
        await send_key(pilot, "escape")
        await settle(pilot)
        faults.change_latency = 0
        assert "stays closing: run hubtui campaign close 1 again" in screen_words(pilot)
        assert (await use.open_campaign(server_store, 1)).interrupted
        await press(pilot, "escape")  # the stopped batch's screen, back to the packets
        await settle(pilot)
        assert "closing: interrupted" in screen_words(pilot)
        await press(pilot, "C")
        await settle(pilot)
        assert isinstance(pilot.app.screen, StagedScreen)
        assert "1 change of it took effect" in screen_words(pilot)
        await press(pilot, "a", "y")
        await settle(pilot)
        assert "Campaign 1 closed: 3 changes verified by reading back" in screen_words(pilot)
    assert readers_now() == 3
    closed = await use.open_campaign(ServerStore(store_path, "demo", None, "all"), 1)
    assert closed.closed is not None
    outcomes = {
        s.row.email: s.verified
        for s in closed.states.values()
        if s.row.project == "1001" and s.row.email in readers
    }
    assert all(o.startswith("verified: Reader") for o in outcomes.values()), outcomes
    assert sum("(batch " in o for o in outcomes.values()) == 1  # the one made before the stop
    last: dict[str, dict[str, object]] = {}
    for line in log.read_text().splitlines():
        change = json.loads(line)
        last[str(change["id"])] = change
    made = [c["user_id"] for c in last.values() if c["outcome"] == "done"]
    assert len(made) == len(set(made)) == 3  # each made once


async def test_the_app_starts_a_campaign_of_the_hub_it_shows(tmp_path: Path) -> None:
    """On a project of acme-build, ctrl+p "Start a review campaign of this hub": the hub read
    whole and frozen, its packets shown."""
    async with running(
        size=(120, 40),
        store=DemoStore(),
        store_path=tmp_path / "store.sqlite3",
        keeps="all",
        operator="olive.owner",
        start=project_users(),
    ) as pilot:
        await press(pilot, "ctrl+p")
        await type_text(pilot, "Start a review campaign")
        await press(pilot, "enter")
        await settle(pilot)
        assert isinstance(pilot.app.screen, PacketsScreen)
        words = screen_words(pilot)
        assert "Campaign 1 started: 23 memberships of 3 projects frozen" in words
        assert "Campaign 1 · open · 23 memberships · 0 decided · 23 left" in words
    campaign = await use.open_campaign(
        ServerStore(tmp_path / "store.sqlite3", "demo", None, "all"), 1
    )
    assert (campaign.head.owner, len(campaign.rows)) == ("olive.owner", 23)


async def test_x_with_no_reason_keeps_the_dialog_open_and_says_a_reason_is_needed(
    tmp_path: Path,
) -> None:
    async with running(
        size=(80, 24), store=DemoStore(), store_path=tmp_path / "store.sqlite3", keeps="all"
    ) as pilot:
        await start_campaign(pilot)
        await to_packet(pilot)
        await press(pilot, "enter")
        await settle(pilot)
        await burst(pilot, ["down", "x", "enter"])  # no reason typed
        await settle(pilot)
        assert isinstance(pilot.app.screen, ReasonPromptScreen)
        assert "A removal needs a reason: type it, or escape to go back." in screen_words(pilot)
        await burst(pilot, [*"left", "enter"])
        await settle(pilot)
        assert isinstance(pilot.app.screen, PacketScreen)
        assert "1 decision recorded (remove from hub); nothing was sent." in screen_words(pilot)


async def test_the_packet_s_help_lists_k_beside_r_and_x(tmp_path: Path) -> None:
    async with running(
        size=(120, 40), store=DemoStore(), store_path=tmp_path / "store.sqlite3", keeps="all"
    ) as pilot:
        await start_campaign(pilot)
        await to_packet(pilot)
        await press(pilot, "enter")
        await settle(pilot)
        await press(pilot, "question_mark")
        await settle(pilot)
        words = screen_words(pilot)
        assert "k keep their access r Reader in this project x out of the hub" in words


async def test_a_packet_shows_why_s_recommendation_and_r_takes_it_as_one_act(
    tmp_path: Path,
) -> None:
    """Each row says what why's table recommends, and the panel the facts it stands on; ``R``
    on the marked rows records each recommendation with its reason as one act that says so,
    and leaves a limited reader (nothing to decide: the domain gives the access), saying so."""
    diego, grace = "diego.garcia@acme-build.com", "grace.osei@northwind-eng.com"
    async with running(
        size=(80, 24), store=DemoStore(), store_path=tmp_path / "store.sqlite3", keeps="all"
    ) as pilot:
        await start_campaign(pilot)
        await to_packet(pilot)
        await press(pilot, "enter")  # Harbour Bridge Retrofit
        await settle(pilot)
        assert isinstance(pilot.app.screen, PacketScreen)
        await press(pilot, "down", "down", "down", "down")  # Diego, who never signed in
        words = screen_words(pilot)
        assert "Email Access Decision Advised Last seen" in words
        assert f"{diego} Reader (undecided) remove never" in words
        assert "Advised: remove: never signed in" in words  # the panel: why
        await press(pilot, "space", "down", "down", "space")  # Diego and Grace marked
        await press(pilot, "R")
        await settle(pilot)
        words = screen_words(pilot)
        assert "1 row with no recommendation left as it is" in words
        assert "1 decision recorded (as recommended); nothing was sent." in words
        server_store = pilot.app.workspace.review_store()  # type: ignore[attr-defined]
        campaign = await use.open_campaign(server_store, 1)
    states = {(s.row.project, s.row.email): s for s in campaign.states.values()}
    taken = states[("1001", diego)]
    assert (taken.decision, taken.reason) == (Decision.REMOVE, "never signed in")
    assert states[("1001", grace)].decision is None
    with Store.open(tmp_path / "store.sqlite3", read_only=True) as store:
        bulk = [e.detail for e in campaign_events(store, 1) if e.kind == "bulk"]
    assert len(bulk) == 1
    assert bulk[0] == "1 row · accepted the recommendation: 1 row marked"


async def test_my_packets_lists_what_waits_on_the_operator_and_opens_a_packet(
    tmp_path: Path,
) -> None:
    """ctrl+p "My packets": the packets with rows left for the person at the store (here the
    operator, Dana: Harbour Bridge Retrofit and Québec Office Tower, never a packet that is
    not theirs), and enter opens one to decide."""
    async with running(
        size=(80, 24),
        store=DemoStore(),
        store_path=tmp_path / "store.sqlite3",
        keeps="all",
        operator="dana.whitfield@acme-build.com",
    ) as pilot:
        await start_campaign(pilot)
        await press(pilot, "ctrl+p")
        await type_text(pilot, "My packets")
        await press(pilot, "enter")
        await settle(pilot)
        words = screen_words(pilot)
        # Her own row in each is another's to decide: 11 of 12, and 3 of 4.
        assert "14 rows in 2 packets wait on dana.whitfield@acme-build.com" in words
        assert "1 1001 Harbour Bridge Retrofit 11 acme-build" in words
        assert "1 1002 Québec Office Tower 3 acme-build" in words
        assert "Depot 7 Fit-out" not in words  # Aiko's packet
        await press(pilot, "enter")
        await settle(pilot)
        assert isinstance(pilot.app.screen, PacketScreen)
        assert "Harbour Bridge Retrofit · 12 memberships" in screen_words(pilot)
