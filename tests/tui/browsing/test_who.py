"""`w`: one search for a person across every project, and `x`: the answer into a ticket."""

from __future__ import annotations

import asyncio
import csv
import json
from pathlib import Path

import httpx
import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from hubtui.api import HubClient
from hubtui.core.batches.file import USERS_CSV_COLUMNS
from hubtui.demo import DemoStore, Faults, create_app
from hubtui.tui.screens.browsing.project_users import ProjectUsersScreen
from hubtui.tui.screens.browsing.who import WhoScreen
from hubtui.tui.screens.dialogs.export import ExportScreen
from hubtui.tui.widgets.record_table import RecordTable
from tests.harness.app import press, running, screen_text, screen_words, settle, type_text
from tests.harness.demo_api import SleepRecorder

PRIYA = "priya.patel@northwind-eng.com"


async def search(pilot: Pilot[None], text: str, *, start: tuple[str, ...] = ()) -> WhoScreen:
    await press(pilot, *start, "w")
    await type_text(pilot, text)
    await press(pilot, "enter")
    screen = pilot.app.screen
    assert isinstance(screen, WhoScreen)
    return screen


def shown(screen: WhoScreen) -> list[tuple[str, ...]]:
    return [row.cells for row in screen.table.shown_rows]


async def test_search_by_email_finds_every_access_and_says_why() -> None:
    async with running() as pilot:
        screen = await search(pilot, "Priya.Patel@NORTHWIND-eng.com")
        words = screen_words(pilot)
        assert (
            "Priya.Patel@NORTHWIND-eng.com: member of 2 projects (Admin 1, Editor 1), limited "
            "reader in 3, absent from 18; 1 project could not be read" in words
        )
        rows = shown(screen)
        access = sorted((r[1], r[4]) for r in rows)
        assert access == [
            ("Bergen Tunnel Survey", "NOT READ (project 1012)"),
            ("Lund Signal Upgrade", "LIMITED @northwind-eng.com"),
            ("Malmö Central Platform 4", "LIMITED @northwind-eng.com"),
            ("Oslo Freight Link", "LIMITED @northwind-eng.com"),
            ("Trondheim Yard Expansion", "Admin (member)"),
            ("Uppsala Depot", "Editor (member)"),
        ]
        failed = next(r for r in rows if r[4].startswith("NOT READ"))
        assert failed[3] == "HTTP 409: EXPIRED_SUBSCRIPTION"
        assert all(r[0] == "nordic-rail" for r in rows)


async def test_search_by_domain_and_by_name() -> None:
    async with running() as pilot:
        screen = await search(pilot, "@northwind-eng.com")
        emails = {r[3] for r in shown(screen)}
        assert {"fatima.rahman@northwind-eng.com", "grace.osei@northwind-eng.com", PRIYA} <= emails
        assert all(e.endswith("@northwind-eng.com") for e in emails if "@" in e)
        assert "(7 people)" in screen_words(pilot)
        await press(pilot, "escape")
        screen = await search(pilot, "bjorn lindqvist")  # Björn, accents ignored
        people = {r[2] for r in shown(screen) if r[2] != "—"}
        assert people == {"Björn Lindqvist"}


async def test_a_hub_detail_searches_only_its_hub() -> None:
    async with running() as pilot:
        screen = await search(pilot, "@northwind-eng.com", start=("enter",))  # acme-build
        hubs = {r[0] for r in shown(screen)}
        assert hubs == {"acme-build"}  # the URL name; the access panel names both
        assert "in hub acme-build" in screen_words(pilot)


async def test_enter_opens_the_project_with_the_person_selected_and_escape_comes_back() -> None:
    async with running() as pilot:
        screen = await search(pilot, PRIYA)
        table = screen.table
        position = next(
            n for n, row in enumerate(table.shown_rows) if row.cells[1] == "Uppsala Depot"
        )
        table.cursor = position
        await press(pilot, "enter")
        users = pilot.app.screen
        assert isinstance(users, ProjectUsersScreen)
        row = users.table.highlighted_row
        assert row is not None
        assert row.cells[1] == PRIYA
        assert "DIRECT MEMBER Priya Patel" in screen_words(pilot)
        await press(pilot, "escape")
        assert pilot.app.screen is screen
        assert len(shown(screen)) == 6


async def test_r_retries_only_the_projects_that_failed() -> None:
    store = DemoStore()
    server = create_app(store, Faults())
    async with running(server=server) as pilot:
        screen = await search(pilot, PRIYA)
        stats = server.state.stats
        before = dict(stats.by_route)
        bergen = next(
            p for h in store.hubs.values() for p in h.projects.values() if p.subscription_expired
        )
        bergen.subscription_expired = False  # the subscription was renewed
        await press(pilot, "r")
        after = stats.by_route
        users_route = "GET /v3/hubs/{hubId}/projects/{id}/users"
        assert after[users_route] - before[users_route] == 1
        words = screen_words(pilot)
        # Renewed, the Limited project shows her as a limited reader there too.
        summary = "member of 2 projects (Admin 1, Editor 1), limited reader in 4, absent from 18"
        assert summary in words
        assert "could not be read" not in words
        assert len(shown(screen)) == 6


async def test_escape_cancels_a_running_search_and_nothing_keeps_running() -> None:
    server = create_app(DemoStore(), Faults(latency=0.3))
    async with running(server=server) as pilot:
        await press(pilot, "w")
        await type_text(pilot, PRIYA)
        await pilot.press("enter")
        await pilot.pause(0.4)
        screen = pilot.app.screen
        assert isinstance(screen, WhoScreen)
        assert screen.searching
        await pilot.press("escape")
        await settle(pilot)
        assert not screen.searching
        assert pilot.app.screen is screen  # the results so far are kept
        stats = server.state.stats
        await asyncio.sleep(0.4)
        requests = stats.requests
        await asyncio.sleep(0.7)
        assert stats.requests == requests  # nothing more was sent
        assert stats.in_flight == 0
        assert "Search stopped" in screen_words(pilot)


async def test_the_fan_out_is_bounded_by_the_concurrency_setting() -> None:
    server = create_app(DemoStore(), Faults(latency=0.05))
    async with running(server=server, concurrency=3) as pilot:
        await search(pilot, PRIYA)
        await settle(pilot)
    assert 2 <= server.state.stats.max_in_flight <= 3


async def test_users_loaded_in_the_session_are_reused_and_said_so() -> None:
    server = create_app(DemoStore(), Faults())
    async with running(server=server) as pilot:
        await press(pilot, "enter", "enter", "escape", "escape")  # Harbour Bridge loaded
        users_route = "GET /v3/hubs/{hubId}/projects/{id}/users"
        before = server.state.stats.by_route[users_route]
        await search(pilot, "@northwind-eng.com")
        words = screen_words(pilot)
        assert "1 reused from this session (loaded just now; r searches afresh)" in words
        total = sum(len(h.projects) for h in server.state.store.hubs.values())
        assert server.state.stats.by_route[users_route] - before == total - 1


async def test_the_palette_offers_the_search_and_says_it_searches_only_what_is_loaded() -> None:
    async with running() as pilot:
        await press(pilot, "ctrl+p")
        await type_text(pilot, "priya")
        words = screen_words(pilot)
        assert "Find priya in all hubs (nothing loaded matches" in words
        await press(pilot, "enter")
        assert isinstance(pilot.app.screen, WhoScreen)


def read_csv(path: Path) -> tuple[dict[str, str], list[list[str]]]:
    context: dict[str, str] = {}
    lines = []
    raw = path.read_bytes()
    assert raw.startswith("\ufeff".encode())  # a byte-order mark: spreadsheets read UTF-8
    for line in raw.decode("utf-8-sig").splitlines():
        if line.startswith("# "):
            key, _, value = line[2:].partition(": ")
            context[key] = value
        else:
            lines.append(line)
    return context, list(csv.reader(lines))


@pytest.mark.parametrize("fmt", ["csv", "json"])
async def test_x_exports_exactly_what_is_shown(tmp_path: Path, fmt: str) -> None:
    store = DemoStore()
    for user in store.users.values():
        if user.first_name == "Grace":
            user.first_name = '=HYPERLINK("http://x")'
        if user.first_name == "Hamid":
            user.last_name = "Karimi\x1b]52;c;x\x07"
    async with running(store=store) as pilot:
        await press(pilot, "enter", "enter", "/")
        await type_text(pilot, "northwind")
        await press(pilot, "enter", "s", "x")
        dialog = pilot.app.screen
        assert isinstance(dialog, ExportScreen)
        path = tmp_path / f"out.{fmt}"
        field = dialog.query_one("#export-path", Input)
        await press(pilot, "z")  # the path is never selected: a key edits it, never replaces it
        assert field.value.endswith(".csvz")
        assert field.value.startswith(str(tmp_path))
        if fmt == "json":
            await press(pilot, "tab", "down", "enter", "shift+tab")  # tab reaches the format
        field.value = str(path)
        await press(pilot, "enter")
        users = pilot.app.screen
        assert isinstance(users, ProjectUsersScreen)
        shown = [list(row.cells) for row in users.table.shown_rows]
        assert "Wrote 6 rows to" in screen_words(pilot)
    # The rows shown, in the order shown, in the users export's columns: `hubtui apply` takes it.
    columns = list(USERS_CSV_COLUMNS)
    if fmt == "csv":
        context, table = read_csv(path)
        header, rows = table[0], table[1:]
        assert header == columns
        assert [r[2] for r in rows] == [r[1] for r in shown]  # the emails, as shown
        grace = next(r for r in rows if "grace" in r[2])
        assert grace[6] == '\'=HYPERLINK("http://x") Osei'  # never a formula
        assert (grace[4], grace[5]) == ("no", "limited reader")  # reviewer, access
        assert {r[0] for r in rows} == {"acme-build"}
        assert {r[9] for r in rows} == {"Harbour Bridge Retrofit"}
    else:
        body = json.loads(path.read_text(encoding="utf-8"))
        context = body["context"]
        assert body["columns"] == columns
        assert [r["email"] for r in body["rows"]] == [r[1] for r in shown]
        assert {r["reviewer"] for r in body["rows"]} <= {True, False}  # JSON booleans
    assert context["hub Name"] == "acme-build"
    assert context["hub DisplayName"] == "ACME Construction Group"
    assert context["project"] == "Harbour Bridge Retrofit (id 1001)"
    assert context["filter"] == "northwind"
    assert context["sort"].startswith("Name")
    assert context["server"] == "demo API (in-process)"
    raw = path.read_text(encoding="utf-8")
    assert "\x1b" not in raw
    assert "\x07" not in raw
    assert "Karimi␛]52;c;x␇" in raw


async def test_y_on_the_results_copies_a_summary_for_a_ticket() -> None:
    async with running() as pilot:
        await search(pilot, PRIYA)
        await press(pilot, "y")
        copied = pilot.app.clipboard.splitlines()
        assert copied[0].startswith(f"{PRIYA}: member of 2 projects")
        assert (
            "- nordic-rail / Uppsala Depot: Priya Patel <priya.patel@northwind-eng.com>, "
            "member, Editor" in copied
        )
        assert any("Bergen Tunnel Survey: could not be read (HTTP 409" in line for line in copied)
        assert "Sent the summary (7 lines) to the terminal's clipboard" in screen_words(pilot)


async def test_a_429_slows_every_request_of_the_client_down(sleeps: SleepRecorder) -> None:
    refused: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path == "/v3/hubs":
            return httpx.Response(200, json=[{"Id": "h", "Name": "h"}])
        if path.endswith("/1/users") and not refused:
            refused.append(path)
            return httpx.Response(429, headers={"Retry-After": "3"})
        return httpx.Response(200, json=[])

    transport = httpx.MockTransport(answer)
    async with HubClient("https://api.example.com", transport=transport, sleep=sleeps) as c:
        await c.list_hubs()
        await asyncio.gather(*(c.list_project_users("h", n) for n in (1, 2, 3)))
    # The refused request waits as asked, and so do the two sent after the 429 came back,
    # instead of each finding out for itself.
    assert sleeps.waits[0] == 3
    assert len(sleeps.waits) == 3
    assert all(2.5 < wait <= 3 for wait in sleeps.waits[1:])


async def test_the_results_table_reads_on_80_columns() -> None:
    async with running(size=(80, 24)) as pilot:
        await search(pilot, PRIYA)
        table = pilot.app.screen.query_one(RecordTable)
        assert table.visible_count == 6
        words = screen_words(pilot)
        assert "NOT READ" in words
        assert "LIMITED" in words


async def test_the_export_of_a_search_gives_a_project_not_read_its_own_reason_column(
    tmp_path: Path,
) -> None:
    async with running(size=(100, 30)) as pilot:
        await search(pilot, PRIYA)
        await press(pilot, "x")
        dialog = pilot.app.screen
        assert isinstance(dialog, ExportScreen)
        path = tmp_path / "who.csv"
        dialog.query_one("#export-path", Input).value = str(path)
        await press(pilot, "enter")
    _, table = read_csv(path)
    table = [row for row in table if not row[0].startswith("# ")]  # quoted context lines
    header, rows = table[0], table[1:]
    assert header[-1] == "not_read_reason"
    email, reason = header.index("Email"), header.index("not_read_reason")
    bergen = next(r for r in rows if r[1] == "Bergen Tunnel Survey")
    assert bergen[email] == ""  # the screen borrows the Email column for it; the file does not
    assert "EXPIRED_SUBSCRIPTION" in bergen[reason]
    found = [r for r in rows if r[1] != "Bergen Tunnel Survey"]
    assert len(found) == 5
    assert all(r[email] == PRIYA and r[reason] == "" for r in found)


async def test_every_list_a_search_reads_is_kept_for_offline(tmp_path: Path) -> None:
    """Online, ``w @northwind-eng.com`` reads every project; offline, a search of one of them
    finds them in every project again (before: each project "not kept (offline)")."""
    import os
    import subprocess

    from tests.harness.harness import hubtui_command

    data = tmp_path / "data"
    async with running(store_path=data / "demo" / "store.sqlite3", keeps="all") as pilot:
        screen = await search(pilot, "@northwind-eng.com")
        await settle(pilot)
        online = {(row[0], row[1]) for row in shown(screen) if PRIYA in row}
        assert online
    env = {**os.environ, "HUBTUI_DATA_DIR": str(data), "HUBTUI_CONFIG": str(tmp_path / "none")}
    done = await asyncio.to_thread(
        subprocess.run,
        [*hubtui_command(), "--demo", "--offline", "who", PRIYA, "--format", "json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    # The one project that could not be read online (its subscription expired) is the only
    # one not read offline; every other answer is the one the search read.
    assert done.returncode == 3, done.stderr
    assert "member of 2 projects (Admin 1, Editor 1), limited reader in 3" in done.stderr
    assert "; 1 project could not be read" in done.stderr
    found = [row["User"] for row in json.loads(done.stdout) if "User" in row]
    assert len(found) == 5  # two memberships and three limited readings, as online
    assert {row["User"]["Email"] for row in found} == {PRIYA}


async def test_star_marks_only_the_rows_that_are_a_person() -> None:
    """``*`` after a search marks each person found, never the row saying a project could not
    be read (before: "18 marked", then "1 row left out: no person to change")."""
    async with running(size=(120, 40)) as pilot:
        screen = await search(pilot, "@northwind-eng.com")
        await settle(pilot)
        shown = [screen.table.view.record(i) for i in screen.table.view.shown]
        people = [record for record in shown if record[1].user is not None]
        assert len(people) < len(shown)  # the demo has a project that cannot be read
        await press(pilot, "asterisk")
        assert len(screen.table.marks) == len(people)
        await press(pilot, "space")  # the highlighted row, if not a person, is not marked either
        assert all(
            screen.table.view.record(i)[1].user is not None
            for i in screen.table.view.shown
            if screen.table.view.key(i) in screen.table.marks
        )


async def test_at_80x24_no_column_is_wider_than_it_holds_while_another_is_cut() -> None:
    async with running(size=(80, 24)) as pilot:
        await press(pilot, "w", *"@northwind-eng.com", "enter", "end")
        lines = screen_text(pilot).splitlines()
        header = next(line for line in lines if line.startswith("Hub (U"))
        hub_width = header.index("Project")
        assert hub_width == len("nordic-rail") + 1  # its longest name and the gap, no more
        assert "LIMITED @northwind-eng.com" in screen_text(pilot)  # what the row means, whole
        failed = next(line for line in lines if "NOT READ" in line)
        assert "NOT READ (project 1012)" in failed  # which project, though its name is cut


async def test_a_change_the_app_makes_is_never_answered_from_what_was_read_before_it() -> None:
    """Harbour Bridge loaded, then Grace removed from the hub by a review: a search reads the
    hub's projects again (before, it reused the list read before the removal and still showed
    her LIMITED there)."""
    store = DemoStore()
    server = create_app(store, Faults())
    async with running(server=server) as pilot:
        await press(pilot, "enter", "enter", "escape")  # Harbour Bridge loaded: Grace in it
        await press(pilot, "P")
        await settle(pilot)
        await press(pilot, "slash", *"grace", "enter", "d", "x", *"left", "enter", "v")
        await settle(pilot)
        await press(pilot, "a", "y")
        await settle(pilot)
        hub = store.hub_by_name("acme-build")
        assert hub is not None
        grace = store.user_by_email("grace.osei@northwind-eng.com")
        assert grace is not None
        assert grace.id not in hub.user_ids  # removed from the hub
        await press(pilot, "escape", "escape", "escape")
        await search(pilot, "grace.osei@northwind-eng.com")
        words = screen_words(pilot)
        assert "reused from this session" not in words
        assert "Harbour Bridge Retrof" not in words  # not shown LIMITED where she is gone
