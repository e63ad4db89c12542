"""Changes in batches: previewed against a fresh read, sent the one way, checked, reverted.

Against the demo API in-process, through a transport that can fail one row's request in any of
the ways a single change can fail; the change log is a real file.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from hubtui.api import HubClient
from hubtui.core.batches import (
    Batch,
    Intent,
    ListedAccess,
    Outcome,
    Verdict,
    Wanted,
    batches_in,
    prepare,
    revert_of,
)
from hubtui.core.changes.log import ChangeLog
from hubtui.demo import DEMO_TOKEN, DemoStore, Faults, create_app
from tests.harness.demo_api import DEMO_URL, SleepRecorder

ACME_ID = "7d1f0c3e-4b8a-4f6e-9a51-acme00000001"
#: Who is in Harbour Bridge Retrofit (1001), as the demo seeds it.
CHLOE = "chloe.moreau@acme-build.com"  # Reader
DIEGO = "diego.garcia@acme-build.com"  # Reader
AIKO = "aiko.tanaka@acme-build.com"  # Editor
GRACE = "grace.osei@northwind-eng.com"  # a limited reader
HAMID = "hamid.karimi@northwind-eng.com"  # a limited reader

#: What the fault transport does to one request: None passes it on.
Fault = Callable[[httpx.Request], "str | None"]


class RowFaults(httpx.AsyncBaseTransport):
    """The demo API, with the changes that name ``email`` failing as ``how`` says:
    ``drop`` (the server makes the change, the answer never comes), ``409``, ``504``, ``429``."""

    def __init__(self, store: DemoStore, faults: Faults) -> None:
        self.inner = httpx.ASGITransport(app=create_app(store, faults))
        self.rules: dict[str, str] = {}
        self.changes: list[tuple[str, str]] = []
        """(method, email or user path) of every change that reached the server."""

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method in ("POST", "PUT"):
            body = json.loads(request.content or b"{}")
            who = str(body.get("Email") or request.url.path.rsplit("/", 1)[-1])
            how = next((h for key, h in self.rules.items() if key in (who, request.url.path)), None)
            if how in ("409", "504", "429"):
                status = int(how)
                return httpx.Response(
                    status,
                    json={"title": f"Refused {status}", "status": status},
                    headers={"Content-Type": "application/problem+json", "Retry-After": "1"},
                )
            self.changes.append((request.method, who))
            response = await self.inner.handle_async_request(request)
            if how == "drop":
                await response.aread()
                raise httpx.RemoteProtocolError("Server disconnected without sending a response.")
            return response
        return await self.inner.handle_async_request(request)


@pytest.fixture
def rows(demo_store: DemoStore, faults: Faults) -> RowFaults:
    return RowFaults(demo_store, faults)


@pytest.fixture
async def batch_client(rows: RowFaults, sleeps: SleepRecorder) -> HubClient:
    return HubClient(DEMO_URL, token=DEMO_TOKEN, transport=rows, sleep=sleeps)


def wanted(email: str, intent: Intent = Intent.SET, role: str | None = "Editor", **kw: object):  # type: ignore[no-untyped-def]
    return Wanted(
        hub_id=ACME_ID,
        hub_name="acme-build",
        project_id=str(kw.pop("project", "1001")),
        project_name=None,
        email=email,
        intent=intent,
        role=role,
        **kw,  # type: ignore[arg-type]
    )


def logged(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


async def users_of(client: HubClient, project: str = "1001") -> dict[str, tuple[str, bool | None]]:
    return {
        u.user.email or "": (u.role, u.is_limited)
        for u in await client.list_project_users(ACME_ID, project)
    }


async def test_the_preview_says_each_difference_and_why_a_row_is_not_sent(
    batch_client: HubClient, rows: RowFaults, tmp_path: Path
) -> None:
    log = ChangeLog(tmp_path / "changes.jsonl", server="demo")
    preview = await prepare(
        batch_client,
        [
            wanted(CHLOE),  # Reader → Editor
            wanted(AIKO),  # already Editor
            wanted(GRACE),  # a limited reader cannot be PUT
            wanted(HAMID, Intent.ADD, "Reader"),  # made a direct member
            wanted("new.person@subcontractor.example", Intent.ADD, "Reader"),
            wanted(CHLOE.upper(), role="Admin"),  # the same person again
            wanted("not-an-email", Intent.ADD, "Reader"),
        ],
        log,
    )
    verdicts = [(s.verdict, s.words) for s in preview.steps]
    assert verdicts[0] == (Verdict.SEND, "Role: Reader → Editor")
    assert verdicts[1] == (Verdict.SAME, "already Editor")
    assert verdicts[2][0] is Verdict.SKIP
    assert "limited reader cannot be PUT" in verdicts[2][1]
    assert verdicts[3] == (Verdict.SEND, "a limited reader made a direct member: Role Reader")
    assert verdicts[4] == (Verdict.SEND, "added as a direct member: Role Reader")
    assert verdicts[5][0] is Verdict.SKIP
    assert "duplicate" in verdicts[5][1]
    assert verdicts[6][0] is Verdict.SKIP
    assert "not an email" in verdicts[6][1]
    assert preview.summary() == "3 to send (2 adds, 1 updates) · 1 no change · 3 skipped"
    assert rows.changes == []  # a preview sends nothing
    assert not (tmp_path / "changes.jsonl").exists()  # and logs nothing


async def test_a_row_changed_since_it_was_staged_is_shown_again_not_sent(
    batch_client: HubClient, tmp_path: Path
) -> None:
    # the list said Editor; it now says Reader
    staged_as = ListedAccess(True, False, "Editor", False)
    preview = await prepare(
        batch_client, [wanted(CHLOE, role="Admin", seen=staged_as)], ChangeLog(None)
    )
    step = preview.steps[0]
    assert step.verdict is Verdict.CHANGED
    assert step.words == "was Editor when staged, now Reader: stage it again"
    assert step.change is None


async def test_read_only_previews_what_would_be_sent_and_sends_nothing(
    batch_client: HubClient,
) -> None:
    preview = await prepare(batch_client, [wanted(CHLOE)], ChangeLog(None), read_only=True)
    assert preview.steps[0].verdict is Verdict.SKIP
    assert preview.steps[0].words.startswith("read-only mode: nothing is sent")
    assert Batch(preview.steps).steps == []


async def test_a_batch_goes_on_past_a_409_and_logs_every_row_under_one_batch_id(
    batch_client: HubClient, rows: RowFaults, tmp_path: Path
) -> None:
    path = tmp_path / "changes.jsonl"
    log = ChangeLog(path, server="demo")
    preview = await prepare(
        batch_client, [wanted(CHLOE), wanted(DIEGO), wanted(HAMID, Intent.ADD, "Reader")], log
    )
    rows.rules[DIEGO] = "409"
    diego_id = next(
        str(u.user.id)
        for u in await batch_client.list_project_users(ACME_ID, 1001)
        if u.user.email == DIEGO
    )
    rows.rules[f"/v3/hubs/{ACME_ID}/projects/1001/users/{diego_id}"] = "409"
    batch = Batch(preview.steps)
    seen: list[tuple[str, Outcome]] = []
    await batch.send(
        batch_client, log, on_result=lambda _, r: seen.append((r.step.wanted.email, r.ended))
    )
    assert sorted(seen) == [(CHLOE, Outcome.DONE), (DIEGO, Outcome.FAILED), (HAMID, Outcome.DONE)]
    assert batch.summary().startswith("2 done, 1 failed (")
    assert "409" in batch.summary()
    assert batch.summary().endswith(", 0 unknown")
    lines = logged(path)
    assert {line["batch"] for line in lines} == {batch.id}
    assert sorted(str(line["outcome"]) for line in lines) == sorted(
        ["pending"] * 3 + ["done", "done", "failed"]
    )
    now = await users_of(batch_client)
    assert now[CHLOE] == ("Editor", False)
    assert now[DIEGO] == ("Reader", False)
    assert now[HAMID] == ("Reader", False)  # a direct member now
    # r: only the failed row is prepared and sent again.
    assert [w.email for w in batch.again()] == [DIEGO]


async def test_a_dropped_connection_after_a_create_is_unknown_checked_and_never_resent(
    batch_client: HubClient, rows: RowFaults, tmp_path: Path
) -> None:
    log = ChangeLog(tmp_path / "changes.jsonl", server="demo")
    newcomer = "night.shift@subcontractor.example"
    preview = await prepare(batch_client, [wanted(newcomer, Intent.ADD, "Reader")], log)
    rows.rules[newcomer] = "drop"
    batch = Batch(preview.steps)
    await batch.send(batch_client, log)
    assert batch.summary() == "0 done, 0 failed, 1 unknown"
    settled = await batch.check(batch_client, log)
    assert settled == [0]
    assert batch.results[0].ended is Outcome.DONE
    assert "the add reached the server" in batch.results[0].message
    # Sent again (r), it is already so: nothing goes out a second time.
    again = await prepare(
        batch_client, batch.again() or [wanted(newcomer, Intent.ADD, "Reader")], log
    )
    assert again.steps[0].verdict is Verdict.SAME
    assert rows.changes == [("POST", newcomer)]


async def test_an_unknown_add_left_unchecked_is_not_sent_again_by_a_later_batch(
    batch_client: HubClient, rows: RowFaults, tmp_path: Path
) -> None:
    path = tmp_path / "changes.jsonl"
    newcomer = "night.shift@subcontractor.example"
    first = ChangeLog(path, server="demo")
    preview = await prepare(batch_client, [wanted(newcomer, Intent.ADD, "Reader")], first)
    rows.rules[newcomer] = "drop"
    await Batch(preview.steps).send(batch_client, first)
    rows.rules.clear()
    # A later run: its preview reads the list, which settles the earlier add (it is there).
    later = ChangeLog(path, server="demo")
    again = await prepare(batch_client, [wanted(newcomer, Intent.ADD, "Reader")], later)
    assert [c.checked for c in again.settled] == ["found"]
    assert again.steps[0].verdict is Verdict.SAME
    assert rows.changes == [("POST", newcomer)]


@pytest.mark.parametrize("status", ["504", "429"])
async def test_a_gateway_timeout_or_a_429_storm_on_a_put_ends_the_row_and_the_batch_goes_on(
    batch_client: HubClient, rows: RowFaults, sleeps: SleepRecorder, tmp_path: Path, status: str
) -> None:
    log = ChangeLog(tmp_path / "changes.jsonl", server="demo")
    preview = await prepare(batch_client, [wanted(CHLOE), wanted(DIEGO)], log)
    chloe = next(s.change for s in preview.steps if s.wanted.email == CHLOE)
    assert chloe is not None
    rows.rules[f"/v3/hubs/{ACME_ID}/projects/1001/users/{chloe.user_id}"] = status
    batch = Batch(preview.steps)
    await batch.send(batch_client, log)
    ended = {r.step.wanted.email: r.ended for r in batch.results.values()}
    # A 504 may have been applied: unknown, then checked. A 429 was not: failed.
    assert ended == {
        CHLOE: Outcome.UNKNOWN if status == "504" else Outcome.FAILED,
        DIEGO: Outcome.DONE,
    }
    if status == "504":
        await batch.check(batch_client, log)  # the list still shows Reader: it did not apply
        assert batch.results[0].ended is Outcome.FAILED
        assert "the list shows the old values" in batch.results[0].message


async def test_stopping_mid_batch_leaves_the_rows_in_flight_unknown_and_the_rest_not_sent(
    batch_client: HubClient, rows: RowFaults, faults: Faults, tmp_path: Path
) -> None:
    path = tmp_path / "changes.jsonl"
    log = ChangeLog(path, server="demo")
    people = [f"crew{n}@subcontractor.example" for n in range(6)]
    preview = await prepare(batch_client, [wanted(p, Intent.ADD, "Reader") for p in people], log)
    faults.change_latency = 30
    batch = Batch(preview.steps)
    task = asyncio.create_task(batch.send(batch_client, log, concurrency=2))
    # Stopped once two requests have reached the server (a pending line alone is not that: a
    # change stopped while its line is flushed is not sent, and says so).
    for _ in range(500):
        if len(rows.changes) == 2:
            break
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    counts = batch.outcome_counts()
    assert (counts[Outcome.UNKNOWN], counts[Outcome.NOT_SENT]) == (2, 4)
    # Every row that left has its pending line, and its outcome is logged as unknown.
    lines = logged(path)
    assert [line["outcome"] for line in lines] == ["pending", "pending", "unknown", "unknown"]
    faults.change_latency = 0
    await batch.check(batch_client, log)
    # The demo made both adds before its delayed answer: the check finds them.
    assert batch.outcome_counts()[Outcome.DONE] == 2
    again = await prepare(batch_client, batch.again(), log)
    assert [s.verdict for s in again.steps] == [Verdict.SEND] * 4


async def test_a_change_log_that_cannot_be_written_sends_nothing(
    batch_client: HubClient, rows: RowFaults, tmp_path: Path
) -> None:
    (tmp_path / "data").write_text("a file where the folder should be")
    log = ChangeLog(tmp_path / "data" / "changes.jsonl", server="demo")
    preview = await prepare(batch_client, [wanted(CHLOE), wanted(DIEGO)], log)
    batch = Batch(preview.steps)
    await batch.send(batch_client, log, concurrency=1)
    assert {r.ended for r in batch.results.values()} == {Outcome.NOT_SENT}
    assert "Could not write the change log" in batch.results[0].message
    assert rows.changes == []


async def test_a_batch_is_reverted_from_its_logged_before_values(
    batch_client: HubClient, tmp_path: Path
) -> None:
    path = tmp_path / "changes.jsonl"
    log = ChangeLog(path, server="demo")
    newcomer = "temp.crew@subcontractor.example"
    preview = await prepare(
        batch_client,
        [wanted(CHLOE, role="Admin"), wanted(AIKO, reviewer=True), wanted(newcomer, Intent.ADD)],
        log,
    )
    batch = Batch(preview.steps)
    await batch.send(batch_client, log)
    assert batch.outcome_counts()[Outcome.DONE] == 3
    kept = batches_in(log)
    assert list(kept) == [batch.id]
    assert batches_in(ChangeLog(path, server="http://h:80/b")) == {}
    assert batches_in(ChangeLog(path, server="demo", profile="staging")) == {}
    back, cannot = revert_of(kept[batch.id])
    assert [c.email for c in cannot] == [newcomer]  # nobody can be removed through this API
    undo = await prepare(batch_client, back, log)
    assert sorted(s.words for s in undo.steps) == [
        "IsReviewer: yes → no",
        "Role: Admin → Reader",
    ]
    reverting = Batch(undo.steps)
    reverting.reverts = batch.id
    await reverting.send(batch_client, log)
    now = await users_of(batch_client)
    assert now[CHLOE] == ("Reader", False)
    assert now[newcomer] == ("Editor", False)
    assert {line["reverts"] for line in logged(path) if line["batch"] == reverting.id} == {batch.id}


async def test_a_revert_holds_back_a_row_changed_since_the_batch(
    batch_client: HubClient, tmp_path: Path
) -> None:
    path = tmp_path / "changes.jsonl"
    log = ChangeLog(path, server="demo")
    batch = Batch((await prepare(batch_client, [wanted(CHLOE, role="Admin")], log)).steps)
    await batch.send(batch_client, log)
    later = Batch((await prepare(batch_client, [wanted(CHLOE, role="Editor")], log)).steps)
    await later.send(batch_client, log)
    back, _ = revert_of(batches_in(log)[batch.id])
    undo = await prepare(batch_client, back, log)
    assert undo.steps[0].verdict is Verdict.CHANGED
    assert undo.steps[0].words == "was Admin when staged, now Editor: stage it again"


async def test_an_add_left_pending_by_a_process_that_died_is_checked_before_anything_is_sent(
    batch_client: HubClient, rows: RowFaults, tmp_path: Path
) -> None:
    path = tmp_path / "changes.jsonl"
    newcomer = "night.shift@subcontractor.example"
    first = ChangeLog(path, server="demo")
    preview = await prepare(batch_client, [wanted(newcomer, Intent.ADD, "Reader")], first)
    change = preview.steps[0].change
    assert change is not None
    first.begin(change)  # the pending line, and then the process is gone (a kill, a hang-up)
    later = ChangeLog(path, server="demo")
    again = await prepare(batch_client, [wanted(newcomer, Intent.ADD, "Reader")], later)
    assert [c.checked for c in again.settled] == ["not found"]  # read, and logged so
    assert again.steps[0].verdict is Verdict.SEND
    assert [line["outcome"] for line in logged(path)] == ["pending", "failed"]
    assert rows.changes == []


def test_a_preview_names_its_projects_and_the_hub_apart() -> None:
    from hubtui.core.batches import DecidedRow, Intent, Preview, Verdict, Wanted
    from hubtui.tui.screens.changes.batch import StagedScreen

    def row(project: str, email: str) -> DecidedRow:
        wanted = Wanted(
            hub_id="h",
            hub_name="h",
            project_id=project,
            project_name=None,
            email=email,
            intent=Intent.HUB_REMOVE if not project else Intent.SET,
        )
        return DecidedRow(wanted, Verdict.SAME, "")

    preview = Preview([row("", "a@x.example"), row("1", "a@x.example"), row("2", "a@x.example")])
    assert StagedScreen._preview_words(preview).endswith(" · over 2 projects and the hub")


def test_a_file_row_that_drops_limited_but_keeps_the_dash_asks_for_a_role() -> None:
    from hubtui.core.batches.file import read_batch_file

    text = (
        "hub,project,email,role,reviewer,access\n"
        "acme-build,1001,grace.osei@northwind-eng.com,—,no,limited reader\n"
        "acme-build,1001,hamid.karimi@northwind-eng.com,—,no,\n"
    )
    _, (kept, promoted) = read_batch_file(text)
    assert kept.problem is None  # as exported: a limited reader, nothing asked
    assert promoted.problem is not None
    assert "a limited reader's (no role of their own): write Reader, Editor, Admin" in (
        promoted.problem
    )
