"""Browse every project of a hub as a person would, through injected faults, and check the data."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from typing import TypeVar

import httpx

from hubtui.api import HubClient, HubError
from hubtui.demo import DEMO_TOKEN, DemoSize, DemoStore, create_app

Users = dict[int, frozenset[tuple[str, str, bool | None]]]
T = TypeVar("T")


@dataclass
class Browse:
    users: Users = field(default_factory=dict)
    seconds: float = 0.0
    requests: int = 0
    retries: int = 0
    person_retries: int = 0
    """Calls that still failed after the client's own retries, tried again (as `r` does)."""


async def browse_every_project(url: str, hub_name: str, *, person_retries: int = 5) -> Browse:
    result = Browse()
    started = time.perf_counter()
    async with HubClient(url, token=DEMO_TOKEN, timeout=30) as client:

        async def again(call: Callable[[], Awaitable[T]]) -> T:
            for attempt in range(person_retries + 1):
                try:
                    return await call()
                except HubError:
                    if attempt == person_retries:
                        raise
                    result.person_retries += 1
            raise AssertionError("unreachable")

        hub = await again(lambda: client.get_hub_by_name(hub_name))
        projects = await again(lambda: client.list_projects(hub.id))
        for project in projects:
            users = await again(partial(client.list_project_users, hub.id, project.id))
            result.users[project.id] = frozenset(
                (u.user.email or "", u.role, u.is_limited) for u in users
            )
        result.requests, result.retries = client.stats.requests, client.stats.retries
    result.seconds = time.perf_counter() - started
    return result


async def expected_users(size: DemoSize, hub_name: str) -> Users:
    """The same data from a fault-free demo API built from the same seed."""
    store = DemoStore(size)
    hub = store.hub_by_name(hub_name)
    assert hub is not None
    transport = httpx.ASGITransport(app=create_app(store))
    users: Users = {}
    headers = {"Authorization": f"Bearer {DEMO_TOKEN}"}
    prefix = "/regions/eu" if hub.region == "eu" else ""
    async with httpx.AsyncClient(
        transport=transport, base_url="http://localhost", headers=headers
    ) as plain:
        for project_id in hub.projects:
            path = f"{prefix}/v3/hubs/{hub.id}/projects/{project_id}/users"
            body = (await plain.get(path)).json()
            users[project_id] = frozenset(
                (u["User"]["Email"], u["Role"], u["IsLimited"]) for u in body
            )
    return users


def filler_hub_name(size: DemoSize) -> str:
    """The URL name of the first generated hub (the one with `projects_per_hub` projects)."""
    store = DemoStore(size)
    return list(store.hubs.values())[4].name
