"""The request log's memory after a heavy session, beside what the session itself read.

One in-process demo API holds a project of 50,000 users and a hub of 500 projects × 100 users.
The session lists the 50,000 users, searches one person across the 500 projects, then does both
again (1,003 exchanges, past the log's 1,000). The log's size is measured by walking every object
it holds (each exchange, its strings, headers and bodies, counted once), and beside it the
same walk over the answers the session read: the anchor, so the ratio says how little of a
session the log keeps. Goal: the log ≤ 20 MB.

    python -m bench.bench_request_log        # about 40 s, most of it building the data
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import fields, is_dataclass
from typing import Any

import httpx

from hubtui.api import HubClient
from hubtui.api.exchanges import BODIES_BUDGET, BODY_KEPT, KEPT
from hubtui.core.people.search import PersonQuery, search_people
from hubtui.demo import DEMO_TOKEN, DemoSize, DemoStore, Faults, create_app

BIG, PROJECTS, USERS = 50_000, 500, 100
GOAL = 20 * 1024 * 1024


def deep_size(roots: Iterable[object]) -> int:
    """The bytes of every object reachable from ``roots`` through containers and dataclasses
    (each counted once; classes, functions and modules are not the data's own)."""
    seen: set[int] = set()
    total = 0
    stack: list[Any] = list(roots)
    while stack:
        item = stack.pop()
        if id(item) in seen or isinstance(item, type) or callable(item):
            continue
        seen.add(id(item))
        total += sys.getsizeof(item)
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple | set | frozenset | deque):
            stack.extend(item)
        elif is_dataclass(item):
            stack.extend(getattr(item, f.name) for f in fields(item))
        elif hasattr(item, "__dict__"):
            stack.append(vars(item))
        elif hasattr(item, "__slots__"):
            stack.extend(getattr(item, s, None) for s in item.__slots__)
    return total


async def session() -> None:
    size = DemoSize(
        seed=3, hubs=1, projects_per_hub=PROJECTS, users_per_project=USERS, big_project_users=BIG
    )
    store = DemoStore(size)
    transport = httpx.ASGITransport(app=create_app(store, Faults()))
    filler = next(h for h in store.hubs.values() if h.name.endswith("-1"))
    person = store.users[next(iter(next(iter(filler.projects.values())).members))].email
    async with HubClient("http://localhost", token=DEMO_TOKEN, transport=transport) as client:
        hubs = await client.list_hubs()
        load = next(h for h in hubs if h.name == "load-test")
        big = (await client.list_projects(load.id))[0]
        filler_hub = next(h for h in hubs if h.id == filler.id)
        read: list[object] = []
        started = time.perf_counter()
        for _ in range(2):
            users = await client.list_project_users(load.id, big.id)
            found: list[object] = []
            await search_people(
                client, PersonQuery(person), [filler_hub], on_finding=found.append, concurrency=16
            )
            read = [users, found]
        took = time.perf_counter() - started
        log = client.exchanges
        log_bytes = deep_size([log])
        read_bytes = deep_size(read)
    print(f"session: {len(log)} exchanges kept of {KEPT}, in {took:.1f} s")
    budget = f"budget {BODIES_BUDGET / 2**20:.0f} MB, {BODY_KEPT // 1024} KB a body at most"
    print(f"  bodies kept: {log.body_bytes / 2**20:.1f} MB ({budget})")
    print(f"  the log in memory: {log_bytes / 2**20:.1f} MB (goal ≤ {GOAL / 2**20:.0f} MB)")
    print(f"  anchor, the answers of one round read: {read_bytes / 2**20:.1f} MB")
    print(f"  ratio log / one round's answers: {log_bytes / read_bytes:.2f}")
    print("  within goal" if log_bytes <= GOAL else "  OVER GOAL")


if __name__ == "__main__":
    asyncio.run(session())
