"""The one way a change is sent: written ahead, sent once, its outcome written, never resent blind.

Against the demo API in-process; the change log is a real file.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path

import httpx
import pytest

from hubtui.api import HubClient
from hubtui.core.changes.actions import NOT_SENT_WORDS, Action, Outcome
from hubtui.core.changes.log import ChangeLog, ChangeLogError
from hubtui.core.changes.record import Change
from hubtui.core.changes.sending import EarlierAddUnknown, plan, send_change
from hubtui.core.clock import now
from hubtui.demo import DEMO_TOKEN, DemoStore, Faults, create_app
from tests.harness.demo_api import DEMO_URL

ACME = "acme-build"
NEW = "night.shift@acme-build.com"


def lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


async def an_add(client: HubClient, email: str = NEW, **after: object) -> Change:
    hub = await client.get_hub_by_name(ACME)
    return Change(
        time=now(),
        action=Action.ADD,
        hub_id=hub.id,
        hub_name=hub.name,
        project_id="1002",
        project_name=None,
        user_id=None,
        email=email,
        before=None,
        after={"Role": "Editor", **after},
        outcome="",
    )


async def test_an_add_is_logged_pending_then_done_and_sent_once(
    client: HubClient, demo_store: DemoStore, tmp_path: Path
) -> None:
    path = tmp_path / "changes.jsonl"
    sent = await send_change(client, ChangeLog(path, server="demo"), await an_add(client))
    assert sent.outcome is Outcome.DONE
    assert sent.user is not None
    assert (sent.user.user.email, sent.user.role) == (NEW, "Editor")
    written = lines(path)
    assert [w["outcome"] for w in written] == ["pending", "done"]
    assert written[0]["id"] == written[1]["id"]
    assert written[1]["user_id"] == str(sent.user.user.id)
    assert demo_store.creates == 1
    # The outcome names the exchange that carried it, as the request log keeps it.
    carried = client.exchanges.find(str(written[1]["request_id"]))
    assert carried is not None
    assert (carried.method, carried.status) == ("POST", 201)
    assert written[0]["request_id"] is None  # written before the request left


async def test_what_is_sent_is_what_plan_shows(client: HubClient) -> None:
    add = await an_add(client)
    request = await plan(client, add)
    assert (request.method, request.body) == ("POST", {"Email": NEW, "Role": "Editor"})
    assert request.url.endswith("/projects/1002/users")
    with_flag = await plan(client, await an_add(client, IsReviewer=True))
    assert with_flag.body == {"Email": NEW, "Role": "Editor", "IsReviewer": True}


async def test_a_log_that_cannot_be_written_sends_nothing(
    client: HubClient, demo_store: DemoStore, tmp_path: Path
) -> None:
    (tmp_path / "data").write_text("a file where the folder should be")
    log = ChangeLog(tmp_path / "data" / "changes.jsonl")
    with pytest.raises(ChangeLogError):
        await send_change(client, log, await an_add(client))
    assert demo_store.creates == 0


async def test_a_refused_change_is_logged_failed(
    client: HubClient, faults: Faults, demo_store: DemoStore, tmp_path: Path
) -> None:
    faults.change_failure_status = 400
    path = tmp_path / "changes.jsonl"
    sent = await send_change(client, ChangeLog(path), await an_add(client))
    assert sent.outcome is Outcome.FAILED
    assert sent.user is None
    assert sent.error is not None
    assert [w["outcome"] for w in lines(path)] == ["pending", "failed"]
    assert str(sent.error) in str(lines(path)[1]["detail"])


async def test_a_gateway_timeout_leaves_the_add_unknown_and_it_is_not_sent_again(
    client: HubClient, faults: Faults, demo_store: DemoStore, tmp_path: Path
) -> None:
    faults.change_failure_status = 504
    path = tmp_path / "changes.jsonl"
    log = ChangeLog(path, server="demo")
    sent = await send_change(client, log, await an_add(client))
    assert sent.outcome is Outcome.UNKNOWN
    faults.change_failure_status = None
    with pytest.raises(EarlierAddUnknown):
        await send_change(client, log, await an_add(client))
    assert [w["outcome"] for w in lines(path)] == ["pending", "unknown"]  # no second pending


async def test_an_unknown_add_left_by_an_earlier_process_is_not_sent_again(
    client: HubClient, faults: Faults, demo_store: DemoStore, tmp_path: Path
) -> None:
    path = tmp_path / "changes.jsonl"
    faults.change_failure_status = 502
    await send_change(client, ChangeLog(path, server="demo"), await an_add(client))
    faults.change_failure_status = None
    later = ChangeLog(path, server="demo")  # a new process: nothing in memory
    with pytest.raises(EarlierAddUnknown):
        await send_change(client, later, await an_add(client, email=NEW.upper()))
    # Another server's unknown add is not this one's to guard.
    elsewhere = ChangeLog(path, server="another")
    sent = await send_change(client, elsewhere, await an_add(client))
    assert sent.outcome is Outcome.DONE
    # Once the list is checked, the add goes out again.
    later.settle_adds(sent.change.hub_id, "1002", [])
    again = await send_change(client, later, await an_add(client, email="second@acme-build.com"))
    assert again.outcome is Outcome.DONE


class Reached(httpx.AsyncBaseTransport):
    """The demo API, counting the changes that have reached it."""

    def __init__(self, store: DemoStore, faults: Faults) -> None:
        self.inner = httpx.ASGITransport(app=create_app(store, faults))
        self.changes = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method in ("POST", "PUT", "PATCH", "DELETE"):
            self.changes += 1
        return await self.inner.handle_async_request(request)


async def test_a_wait_given_up_is_logged_unknown_and_goes_on_up(
    demo_store: DemoStore, faults: Faults, tmp_path: Path
) -> None:
    faults.change_latency = 30
    path = tmp_path / "changes.jsonl"
    reached = Reached(demo_store, faults)
    client = HubClient(DEMO_URL, token=DEMO_TOKEN, transport=reached)
    task = asyncio.create_task(
        send_change(client, ChangeLog(path), await an_add(client), stopped="You stopped it.")
    )
    # Stopped once the request has reached the server: a change stopped while its pending line
    # is flushed is not sent at all, and says so (the next test).
    for _ in range(500):
        if reached.changes:
            break
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    written = lines(path)
    assert [w["outcome"] for w in written] == ["pending", "unknown"]
    assert written[1]["detail"] == "You stopped it."


async def test_a_change_stopped_while_its_line_is_flushed_is_not_sent_and_says_so(
    demo_store: DemoStore, faults: Faults, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "changes.jsonl"
    reached = Reached(demo_store, faults)
    client = HubClient(DEMO_URL, token=DEMO_TOKEN, transport=reached)
    log = ChangeLog(path)
    flushing = asyncio.Event()

    async def a_slow_disk() -> None:
        flushing.set()
        await asyncio.sleep(30)

    monkeypatch.setattr(log, "_flushed", a_slow_disk)
    task = asyncio.create_task(send_change(client, log, await an_add(client)))
    await asyncio.wait_for(flushing.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert reached.changes == 0
    written = lines(path)
    assert [w["outcome"] for w in written] == ["pending", "failed"]
    assert written[1]["detail"] == NOT_SENT_WORDS


async def test_an_update_sends_the_logged_values(client: HubClient, tmp_path: Path) -> None:
    hub = await client.get_hub_by_name(ACME)
    member = next(u for u in await client.list_project_users(hub.id, 1001) if u.is_direct_member)
    update = Change(
        time=now(),
        action=Action.UPDATE,
        hub_id=hub.id,
        hub_name=hub.name,
        project_id="1001",
        project_name=None,
        user_id=str(member.user.id),
        email=member.user.email,
        before={"Role": member.role, "IsReviewer": member.is_reviewer},
        after={"Role": "Admin", "IsReviewer": not member.is_reviewer},
        outcome="",
    )
    request = await plan(client, update)
    assert request.method == "PUT"
    assert request.body == {"Role": "Admin", "IsReviewer": not member.is_reviewer}
    sent = await send_change(client, ChangeLog(tmp_path / "c.jsonl"), update)
    assert sent.user is not None
    assert (sent.user.role, sent.user.is_reviewer) == ("Admin", not member.is_reviewer)


async def test_a_redirected_change_says_where_it_was_answered(tmp_path: Path) -> None:
    app = create_app(DemoStore(), Faults(datacenter_redirect=True))
    async with HubClient(DEMO_URL, token=DEMO_TOKEN, transport=httpx.ASGITransport(app)) as c:
        hub = await c.get_hub_by_name("riverside-infra")
        project = (await c.list_projects(hub.id))[0]
    async with HubClient(DEMO_URL, token=DEMO_TOKEN, transport=httpx.ASGITransport(app)) as c:
        add = replace(await an_add(c), hub_id=hub.id, hub_name=hub.name, project_id=str(project.id))
        planned = await plan(c, add)
        sent = await send_change(c, ChangeLog(tmp_path / "changes.jsonl", server="demo"), add)
        again = replace(add, email="second@riverside.example")
        plain = await send_change(c, ChangeLog(tmp_path / "other.jsonl", server="demo"), again)
    assert sent.outcome is Outcome.DONE
    assert sent.change.sent_to is not None
    assert "/regions/eu/" in sent.change.sent_to
    assert "/regions/eu/" not in planned.url  # the service names no regional API
    assert plain.outcome is Outcome.DONE
    assert plain.change.sent_to is None  # the hub's calls now go straight there
