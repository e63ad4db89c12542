"""A large list's first records, handed over before the whole list is read."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import httpx

from hubtui.api import HubClient, ProjectUser
from hubtui.api.client import FIRST_RECORDS
from hubtui.api.parsing import FIRST_BYTES, Records, parse_first
from hubtui.demo import DEMO_TOKEN, DemoSize, DemoStore, Faults, create_app
from tests.conftest import DEMO_URL


def user(n: int) -> dict[str, object]:
    return {
        "User": {"Id": n, "UserName": f"u{n}", "Email": f"user{n}@acme-build.com"},
        "Role": "Reader",
        "IsReviewer": False,
        "IsLimited": n % 2 == 0,
    }


def test_the_first_records_come_from_the_start_of_the_body_only() -> None:
    body = json.dumps([user(n) for n in range(20_000)]).encode()
    assert len(body) > FIRST_BYTES
    first = parse_first(body, ProjectUser, 200)
    assert [u.user.id for u in first] == list(range(200))
    assert [u.is_limited for u in first[:2]] == [True, False]


def test_a_record_cut_at_the_end_of_the_first_bytes_is_never_shown_half_read() -> None:
    body = json.dumps([user(n) for n in range(20_000)]).encode()
    first = parse_first(body, ProjectUser, 100_000)
    complete = body[:FIRST_BYTES].count(b'"IsLimited"')
    # Every record shown is whole: none has lost its IsLimited to the cut.
    assert len(first) in (complete - 1, complete)
    assert all(u.is_limited is not None for u in first)


def test_a_wrapped_list_and_bad_records_are_read_too() -> None:
    items: list[object] = [user(n) for n in range(5)]
    items[1] = {"User": "not an object"}
    body = json.dumps({"value": items}).encode()
    assert [u.user.id for u in parse_first(body, ProjectUser, 10)] == [0, 2, 3, 4]
    assert parse_first(b"<html>", ProjectUser, 10) == []


async def test_a_large_project_hands_over_its_first_users_before_the_rest() -> None:
    store = DemoStore(DemoSize(big_project_users=5000))
    transport = httpx.ASGITransport(app=create_app(store, Faults()))
    hub = store.hub_by_name("load-test")
    assert hub is not None
    project = next(iter(hub.projects.values()))
    seen: list[Records[ProjectUser]] = []
    async with HubClient(DEMO_URL, token=DEMO_TOKEN, transport=transport) as client:
        small = await client.list_project_users(
            "7d1f0c3e-4b8a-4f6e-9a51-acme00000001", 1001, first=seen.append
        )
        assert len(small) == 12
        assert seen == []  # a small list is read at once: nothing handed over early
        users = await client.list_project_users(hub.id, project.id, first=seen.append)
    assert len(users) == 5000
    assert len(seen) == 1
    assert len(seen[0]) == FIRST_RECORDS
    assert [u.user.id for u in seen[0]] == [u.user.id for u in users[:FIRST_RECORDS]]


class HeldBack(httpx.AsyncBaseTransport):
    """The demo API, but a project's users list arrives in two parts: the second only once
    the first records were shown (or after 5 s, remembered as too late)."""

    def __init__(self, body: bytes, *, failures_first: int = 0) -> None:
        self.demo = httpx.ASGITransport(app=create_app())
        self.body = body
        self.shown = asyncio.Event()
        self.rest_sent_before_shown = False
        self.failures_left = failures_first

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if not request.url.path.endswith("/users"):
            return await self.demo.handle_async_request(request)
        if self.failures_left:
            self.failures_left -= 1
            # A failed answer as long as a list: its start is never taken for records.
            return httpx.Response(503, content=self._failed())
        return httpx.Response(200, content=self._parts())

    async def _failed(self) -> AsyncIterator[bytes]:
        yield self.body[: FIRST_BYTES * 2]

    async def _parts(self) -> AsyncIterator[bytes]:
        yield self.body[: FIRST_BYTES + 1000]
        try:
            await asyncio.wait_for(self.shown.wait(), 5)
        except TimeoutError:
            self.rest_sent_before_shown = True
        yield self.body[FIRST_BYTES + 1000 :]


async def test_the_first_users_are_shown_while_the_rest_of_the_answer_is_on_its_way() -> None:
    body = json.dumps([user(n) for n in range(20_000)]).encode()
    transport = HeldBack(body, failures_first=1)
    seen: list[Records[ProjectUser]] = []

    def first(records: Records[ProjectUser]) -> None:
        seen.append(records)
        transport.shown.set()

    async with HubClient(
        DEMO_URL, token=DEMO_TOKEN, transport=transport, sleep=lambda _: asyncio.sleep(0)
    ) as client:
        users = await client.list_project_users(
            "7d1f0c3e-4b8a-4f6e-9a51-acme00000001", 1001, first=first
        )
    assert not transport.rest_sent_before_shown
    assert [len(records) for records in seen] == [FIRST_RECORDS]  # not from the failed answer
    assert [u.user.id for u in seen[0]] == list(range(FIRST_RECORDS))
    assert [u.user.id for u in users] == list(range(20_000))
