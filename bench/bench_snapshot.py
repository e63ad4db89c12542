"""A snapshot of 500 projects × 100 users at 20 ms latency, against the fan-out floor.

`hubtui demo-server --latency 0.02` serves one hub of 500 projects × 100 users (as
`bench.bench_who`). The floor of reading every project's users is latency × projects ÷
concurrency (0.02 × 500 ÷ 8 = 1.25 s). In the same run, beside the snapshot: a person search of
the same hub (the same fan-out, keeping one person), so that the snapshot's cost over the search
is its own. The write into a fresh store is timed apart.

Goal: the snapshot's read ≤ 1.2× the floor, plus the write.

    python -m bench.bench_snapshot        # about 20 s
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from bench.bench_who import FLAGS, LATENCY, PROJECTS, USERS, one_search, target
from hubtui.api import HubClient
from hubtui.core.history import take_snapshot
from hubtui.core.store import Store
from hubtui.demo import DEMO_TOKEN
from tests.harness.harness import running_demo_server

CONCURRENCY = 8
ROUNDS = 3


async def one_snapshot(
    url: str, hub_name: str, folder: Path, concurrency: int = CONCURRENCY
) -> tuple[float, float, int]:
    """Seconds to read, seconds to write (into a new store in ``folder``), users kept."""
    async with HubClient(url, token=DEMO_TOKEN, timeout=30) as client:
        hub = await client.get_hub_by_name(hub_name)
        started = time.perf_counter()
        snapshot = await take_snapshot(
            client,
            [hub],
            every_hub=False,
            origin="bench",
            profile=None,
            concurrency=concurrency,
            deadline=None,
        )
        read = time.perf_counter() - started
    started = time.perf_counter()
    with Store.open(folder / f"store-{time.monotonic_ns()}.sqlite3") as store:
        info = store.write_snapshot(snapshot)
    return read, time.perf_counter() - started, info.counts["users"]


async def run() -> None:
    hub_name, email = target()
    floor = LATENCY * PROJECTS / CONCURRENCY
    print(f"one hub of {PROJECTS} projects × {USERS} users, latency {LATENCY} s")
    reads, writes, searches = [], [], []
    with running_demo_server(*FLAGS) as url, tempfile.TemporaryDirectory() as folder:
        for _ in range(ROUNDS):
            read, write, users = await one_snapshot(url, hub_name, Path(folder))
            reads.append(read)
            writes.append(write)
            searches.append((await one_search(url, hub_name, email, CONCURRENCY))[2])
    read, search = statistics.median(reads), statistics.median(searches)
    print(f"{'':<34} {'s':>7} {'floor s':>8} {'ratio':>6}")
    print(
        f"{'snapshot read (' + format(users, ',') + ' users)':<34} {read:>7.2f} {floor:>8.2f} "
        f"{read / floor:>6.2f}"
    )
    print(
        f"{'person search, same fan-out':<34} {search:>7.2f} {floor:>8.2f} {search / floor:>6.2f}"
    )
    print(f"{'snapshot write, fresh store':<34} {statistics.median(writes):>7.2f}")
    print(f"snapshot read ÷ search in the same run: {read / search:.2f}")


def main() -> None:
    asyncio.run(run())


if __name__ == "__main__":
    main()
