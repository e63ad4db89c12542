"""A batch's rows of a hub: a removal from the hub says what the person loses and is reverted by an
invitation and their projects' roles; a hub role set and put back; a hub's invitations go first
and its removals last; an unknown removal is checked, never sent blind.

Against the demo API in-process; the change log is a real file.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from hubtui.api import HubClient
from hubtui.core.batches import (
    Batch,
    Intent,
    Outcome,
    Verdict,
    Wanted,
    prepare,
    revert_of,
)
from hubtui.core.batches.wanted import hub_change
from hubtui.core.changes.actions import Action
from hubtui.core.changes.kinds import kind_of
from hubtui.core.changes.log import ChangeLog
from hubtui.demo import DEMO_TOKEN, DemoStore, Faults, create_app
from tests.harness.demo_api import DEMO_URL

ACME_ID = "7d1f0c3e-4b8a-4f6e-9a51-acme00000001"
ACME = "acme-build"


class Recorded(httpx.AsyncBaseTransport):
    """The demo API, keeping the method and path of each change, in the order they came; a
    path in ``drop`` is made by the server and its answer never comes."""

    def __init__(self, store: DemoStore, faults: Faults) -> None:
        self.inner = httpx.ASGITransport(app=create_app(store, faults))
        self.changes: list[tuple[str, str]] = []
        self.drop: set[str] = set()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        if request.method != "GET":
            self.changes.append((request.method, request.url.path))
            if request.url.path in self.drop:
                await response.aread()
                raise httpx.RemoteProtocolError("Server disconnected without sending a response.")
        return response


@pytest.fixture
def recorded(demo_store: DemoStore, faults: Faults) -> Recorded:
    return Recorded(demo_store, faults)


@pytest.fixture
async def hub_client(recorded: Recorded) -> HubClient:
    return HubClient(DEMO_URL, token=DEMO_TOKEN, transport=recorded)


def a_member_of_projects(store: DemoStore) -> tuple[str, list[tuple[str, str, str, bool]]]:
    """A hub user of acme-build who is a direct member of two projects or more, with each
    membership (project id, name, role, reviewer)."""
    hub = next(h for h in store.hubs.values() if h.name == ACME)
    for user_id in hub.user_ids:
        held = [
            (str(p.id), p.name, m.role, m.is_reviewer)
            for p in hub.projects.values()
            for uid, m in p.members.items()
            if uid == user_id
        ]
        if len(held) >= 2:
            return store.users[user_id].email, held
    raise AssertionError("the demo has nobody in two projects")


def hub_row(email: str, intent: Intent, role: str | None = None, **kw: object) -> Wanted:
    return Wanted(
        hub_id=ACME_ID,
        hub_name=ACME,
        project_id="",
        project_name=None,
        email=email,
        intent=intent,
        role=role,
        **kw,  # type: ignore[arg-type]
    )


async def hub_role_of(client: HubClient, email: str) -> str | None:
    users = await client.list_hub_users(ACME_ID)
    return next((u.role for u in users if u.user.email == email), None)


async def access_of(client: HubClient, email: str, project_id: str) -> tuple[str, bool] | None:
    users = await client.list_project_users(ACME_ID, project_id)
    found = next((u for u in users if u.user.email == email and u.is_direct_member), None)
    return None if found is None else (found.role, bool(found.is_reviewer))


async def test_a_removal_says_what_is_lost_and_its_revert_invites_and_puts_each_role_back(
    hub_client: HubClient, demo_store: DemoStore, recorded: Recorded, tmp_path: Path
) -> None:
    email, held = a_member_of_projects(demo_store)
    role = await hub_role_of(hub_client, email)
    log = ChangeLog(tmp_path / "changes.jsonl", server="demo")
    projects = tuple((pid, name) for pid, name, _, _ in held)
    preview = await prepare(hub_client, [hub_row(email, Intent.HUB_REMOVE, projects=projects)], log)
    (step,) = preview.steps
    assert step.verdict is Verdict.SEND
    assert step.words.startswith(f"removed from the hub (was {role}): loses ")
    for _, name, project_role, _ in held:
        assert f"{project_role}" in step.words
        assert name in step.words
    assert "1 removal from the hub" in preview.summary()
    batch = Batch(preview.steps)
    await batch.send(hub_client, log)
    assert batch.summary() == "1 done, 0 failed, 0 unknown"
    assert await hub_role_of(hub_client, email) is None
    assert [await access_of(hub_client, email, pid) for pid, *_ in held] == [None] * len(held)

    wanted, cannot = revert_of(log.changes)
    assert cannot == []
    assert [w.intent for w in wanted] == [Intent.HUB_INVITE] + [Intent.MEMBER] * len(held)
    back = await prepare(hub_client, wanted, log)
    assert "invited to the hub as" in back.steps[0].words
    assert "email" in back.steps[0].words
    recorded.changes.clear()
    reverting = Batch(back.steps)
    await reverting.send(hub_client, log)
    assert reverting.summary() == f"{1 + len(held)} done, 0 failed, 0 unknown"
    assert recorded.changes[0] == ("POST", f"/v3/hubs/{ACME_ID}/users")  # the invitation first
    assert await hub_role_of(hub_client, email) == role
    for pid, _, project_role, reviewer in held:
        assert await access_of(hub_client, email, pid) == (project_role, reviewer)


async def test_a_hub_role_is_set_and_put_back(hub_client: HubClient, tmp_path: Path) -> None:
    users = await hub_client.list_hub_users(ACME_ID)
    guest = next(u for u in users if u.role == "Guest").user.email or ""
    log = ChangeLog(tmp_path / "changes.jsonl", server="demo")
    preview = await prepare(hub_client, [hub_row(guest, Intent.HUB_ROLE, "Admin")], log)
    assert preview.steps[0].words == "hub role: Guest → Admin"
    await Batch(preview.steps).send(hub_client, log)
    assert await hub_role_of(hub_client, guest) == "Admin"
    again = await prepare(hub_client, [hub_row(guest, Intent.HUB_ROLE, "Admin")], log)
    assert again.steps[0].verdict is Verdict.SAME
    wanted, _ = revert_of(log.changes)
    await Batch((await prepare(hub_client, wanted, log)).steps).send(hub_client, log)
    assert await hub_role_of(hub_client, guest) == "Guest"


async def test_a_hub_role_changed_after_the_preview_is_not_sent(
    hub_client: HubClient, demo_store: DemoStore, recorded: Recorded, tmp_path: Path
) -> None:
    users = await hub_client.list_hub_users(ACME_ID)
    guest = next(u for u in users if u.role == "Guest")
    log = ChangeLog(tmp_path / "changes.jsonl", server="demo")
    email = guest.user.email or ""
    preview = await prepare(hub_client, [hub_row(email, Intent.HUB_REMOVE)], log)
    hub = next(h for h in demo_store.hubs.values() if h.name == ACME)
    demo_store.set_hub_role(hub, int(guest.user.id), "Admin")  # someone else, meanwhile
    recorded.changes.clear()
    batch = Batch(preview.steps)
    await batch.send(hub_client, log)
    (result,) = batch.results.values()
    assert result.ended is Outcome.NOT_SENT
    assert "was Guest of the hub, now Admin" in result.message
    assert recorded.changes == []
    assert await hub_role_of(hub_client, email) == "Admin"


async def test_an_unknown_removal_is_checked_from_the_hub_users_never_sent_again(
    hub_client: HubClient, recorded: Recorded, tmp_path: Path
) -> None:
    users = await hub_client.list_hub_users(ACME_ID)
    guest = next(u for u in users if u.role == "Guest")
    path = tmp_path / "changes.jsonl"
    log = ChangeLog(path, server="demo")
    recorded.drop.add(f"/v3/hubs/{ACME_ID}/users/{guest.user.id}")
    preview = await prepare(hub_client, [hub_row(guest.user.email or "", Intent.HUB_REMOVE)], log)
    batch = Batch(preview.steps)
    await batch.send(hub_client, log)
    assert batch.outcome_counts()[Outcome.UNKNOWN] == 1
    assert await batch.check(hub_client, log) == [0]
    assert batch.summary() == "1 done, 0 failed, 0 unknown"
    assert [m for m, _ in recorded.changes] == ["DELETE"]  # once
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [line["outcome"] for line in lines] == ["pending", "unknown", "done"]
    assert lines[-1]["checked"] == "found"


async def test_a_hub_row_is_not_sent_read_only_nor_where_hub_users_are_not_offered(
    demo_store: DemoStore, tmp_path: Path
) -> None:
    log = ChangeLog(tmp_path / "changes.jsonl", server="demo")
    row = hub_row("dana.whitfield@acme-build.com", Intent.HUB_ROLE, "Guest")
    transport = httpx.ASGITransport(app=create_app(demo_store, Faults()))
    async with HubClient(DEMO_URL, token=DEMO_TOKEN, transport=transport) as client:
        read_only = await prepare(client, [row], log, read_only=True)
        assert read_only.steps[0].verdict is Verdict.SKIP
        assert read_only.steps[0].words.startswith("read-only mode: nothing is sent")
    transport = httpx.ASGITransport(app=create_app(demo_store, Faults(no_hub_users=True)))
    async with HubClient(DEMO_URL, token=DEMO_TOKEN, transport=transport) as client:
        preview = await prepare(client, [row], log)
        assert preview.steps[0].verdict is Verdict.NOT_READ
        assert "does not offer a hub's users" in preview.steps[0].words
        bad = await prepare(client, [hub_row("x@acme-build.com", Intent.HUB_ROLE, "Editor")], log)
        assert bad.steps[0].words == "a hub role must be Guest or Admin"


def test_an_invitation_is_planned_before_the_projects_and_a_removal_after() -> None:
    kinds = {Action.HUB_INVITE: 0, Action.HUB_ROLE: 0, Action.ADD: 1, Action.HUB_REMOVE: 2}
    row = hub_row("a@b.example", Intent.HUB_INVITE)
    for action, expected in kinds.items():
        assert kind_of(hub_change(row, action, None, {"Role": "Guest"}, None)).phase == expected
