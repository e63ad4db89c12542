"""A large list's first records, handed over before the whole list is read."""

from __future__ import annotations

import json

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
