"""The store: bytes per snapshot of 50,000 users, and the time of a diff between two.

The 50,000 users of the demo's load-test project are read through the client, as a snapshot
reads them. Snapshot 1 is written to an empty store; snapshot 2 has 1 % of the users changed
(500 promoted) and is written after it. Bytes are the file's growth after a checkpoint. The diff
compares the two as `hubtui diff` does; its anchor, in the same run, is `json.loads` of the list's
body (the least any reading of those users costs).

Goals: the first snapshot ≤ 10 MB, the second ≤ 1 MB, the diff ≤ 0.5 s.

    python -m bench.bench_store        # about 20 s
"""

from __future__ import annotations

import asyncio
import json
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from hubtui.api import HubClient
from hubtui.core.history.diff import Side, compare
from hubtui.core.store import ListKey, Snapshot, Store, now
from hubtui.demo import DEMO_TOKEN, DemoSize, DemoStore, Faults, create_app

USERS = 50_000


async def read_users(count: int = USERS) -> list[dict[str, Any]]:
    store = DemoStore(DemoSize(hubs=0, big_project_users=count))
    transport = httpx.ASGITransport(app=create_app(store, Faults()))
    async with HubClient("http://localhost", token=DEMO_TOKEN, transport=transport) as client:
        load = await client.get_hub_by_name("load-test")
        project = (await client.list_projects(load.id))[0]
        users = await client.list_project_users(load.id, project.id)
    return [u.as_sent() for u in users]


def size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*"))


def main() -> None:
    users = asyncio.run(read_users())
    key = ListKey("users", "load-test", "1")
    changed = [dict(u) for u in users]
    for record in changed[:: len(changed) // 500][:500]:
        record["Role"] = "Editor" if record.get("Role") != "Editor" else "Admin"
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "store.sqlite3"
        with Store.open(path) as store:
            empty = size(path)
            started = time.perf_counter()
            first = store.write_snapshot(
                Snapshot("bench", "", "all", now(), {key: (True, "", users)})
            )
            wrote = time.perf_counter() - started
            store.engine.run("PRAGMA wal_checkpoint(TRUNCATE)")
            after_first = size(path)
            second = store.write_snapshot(
                Snapshot("bench", "", "all", now(), {key: (True, "", changed)})
            )
            store.engine.run("PRAGMA wal_checkpoint(TRUNCATE)")
            after_second = size(path)
            times = []
            for _ in range(5):
                started = time.perf_counter()
                found = compare(Side.from_store(store, first.id), Side.from_store(store, second.id))
                times.append(time.perf_counter() - started)
        body = json.dumps(users).encode()
        anchors = []
        for _ in range(5):
            started = time.perf_counter()
            json.loads(body)
            anchors.append(time.perf_counter() - started)
    diff, anchor = min(times), min(anchors)
    print(f"{USERS:,} users, {len(body) / 2**20:.1f} MB as JSON")
    print(
        f"  snapshot 1: {(after_first - empty) / 2**20:.2f} MB (goal ≤ 10 MB), "
        f"written in {wrote:.2f} s"
    )
    print(f"  snapshot 2, 1 % changed: {(after_second - after_first) / 2**20:.2f} MB (goal ≤ 1 MB)")
    print(f"  diff: {diff:.3f} s for {len(found)} differences (goal ≤ 0.5 s)")
    print(f"  anchor, json.loads of the list: {anchor:.3f} s; diff / anchor = {diff / anchor:.2f}")


if __name__ == "__main__":
    main()
