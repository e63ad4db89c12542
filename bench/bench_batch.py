"""A batch of 500 changes over 50 projects at 20 ms latency, against the fan-out floor.

`hubtui demo-server --latency 0.02 --keep-answers` serves one hub of 50 projects, on a core
of its own where the machine has two (a read's answer kept until the next change). The batch
adds ten people to each project (500 adds), each sent the one way: its ``pending`` line
written and flushed to disk before it leaves, its outcome after. The floor of sending is
latency × changes ÷ concurrency (0.02 × 500 ÷ 8 = 1.25 s), and of the preview's re-reads
latency × projects ÷ concurrency (0.125 s). Measured beside it in the same run: the same 500
requests sent bare (httpx, the same limiter, no log, no preview), so that what hubtui adds is
its own.

Goal: preview + send ≤ 1.2× the floor (1.375 s).

Also measured: the same bare adds against a second server with no latency, which is what the
HTTP stack costs in processor time alone (client and server): each of the eight slots pays it
on top of the latency, so that even the bare sends cannot reach the floor.

    python -m bench.bench_batch        # about 20 s
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from pathlib import Path

import httpx

from hubtui.api import HubClient
from hubtui.core.batches import Batch, Intent, Outcome, Wanted, prepare
from hubtui.core.changes.log import ChangeLog
from hubtui.demo import DEMO_TOKEN
from tests.harness.harness import running_demo_server

PROJECTS, PER_PROJECT, LATENCY, CONCURRENCY = 50, 10, 0.02, 8
FLAGS = [
    *("--seed", "5", "--hubs", "1", "--projects-per-hub", str(PROJECTS)),
    *("--users-per-project", "20", "--latency", str(LATENCY)),
]
ROUNDS = 3


async def one_batch(url: str, folder: Path, round_: int) -> tuple[float, float, int]:
    """Seconds to preview, seconds to send, changes done."""
    async with HubClient(url, token=DEMO_TOKEN, timeout=30) as client:
        hub = next(h for h in await client.list_hubs() if h.name.endswith("-1"))
        projects = await client.list_projects(hub.id)
        wanted = [
            Wanted(
                hub_id=hub.id,
                hub_name=hub.name,
                project_id=str(project.id),
                project_name=project.name,
                email=f"crew{round_}-{n}@batch.example",
                intent=Intent.ADD,
                role="Reader",
            )
            for project in projects
            for n in range(PER_PROJECT)
        ]
        log = ChangeLog(folder / f"changes-{round_}.jsonl", server="bench")
        started = time.perf_counter()
        preview = await prepare(client, wanted, log, concurrency=CONCURRENCY)
        previewed = time.perf_counter() - started
        batch = Batch(preview.steps)
        started = time.perf_counter()
        await batch.send(client, log, concurrency=CONCURRENCY)
        sent = time.perf_counter() - started
    return previewed, sent, batch.outcome_counts()[Outcome.DONE]


async def bare(url: str, round_: int) -> float:
    """The same 500 adds, sent bare: httpx and the limiter, nothing else."""
    headers = {"Authorization": f"Bearer {DEMO_TOKEN}"}
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=30) as client:
        hubs = (await client.get("/v3/hubs")).json()
        hub = next(h for h in hubs if h["Name"].endswith("-1"))
        projects = (await client.get(f"/v3/hubs/{hub['Id']}/projects")).json()
        limiter = asyncio.Semaphore(CONCURRENCY)

        async def add(project: int, n: int) -> None:
            async with limiter:
                body = {"Email": f"bare{round_}-{n}@batch.example", "Role": "Reader"}
                answer = await client.post(
                    f"/v3/hubs/{hub['Id']}/projects/{project}/users", json=body
                )
                answer.raise_for_status()

        started = time.perf_counter()
        async with asyncio.TaskGroup() as group:
            for project in projects:
                for n in range(PER_PROJECT):
                    group.create_task(add(project["Id"], n))
        return time.perf_counter() - started


async def run() -> None:
    changes = PROJECTS * PER_PROJECT
    floor = LATENCY * changes / CONCURRENCY + LATENCY * PROJECTS / CONCURRENCY
    print(
        f"{changes} adds over {PROJECTS} projects, latency {LATENCY} s, concurrency {CONCURRENCY}"
    )
    previews, sends, bares = [], [], []
    instant: list[float] = []
    no_latency = [flag if flag != str(LATENCY) else "0" for flag in FLAGS]
    with (
        running_demo_server(*FLAGS, "--keep-answers", own_core=True) as url,
        running_demo_server(*no_latency) as instant_url,
        tempfile.TemporaryDirectory(dir=Path.home()) as folder,
    ):
        for round_ in range(ROUNDS):
            previewed, sent, done = await one_batch(url, Path(folder), round_)
            assert done == changes, f"{done} of {changes} done"
            previews.append(previewed)
            sends.append(sent)
            bares.append(await bare(url, round_))
            instant.append(await bare(instant_url, round_))
    preview, send, plain = (statistics.median(x) for x in (previews, sends, bares))
    print(f"{'':<36} {'s':>7}")
    print(f"{'preview (50 lists read again)':<36} {preview:>7.2f}")
    print(f"{'send, logged ahead (500 changes)':<36} {send:>7.2f}")
    print(f"{'the same adds sent bare':<36} {plain:>7.2f}")
    print(f"{'the same, bare, with no latency':<36} {statistics.median(instant):>7.2f}")
    print(f"floor {floor:.3f} s · preview + send ÷ floor {(preview + send) / floor:.2f}")
    print(f"send ÷ bare sends in the same run: {send / plain:.2f}")
    sends_floor = LATENCY * changes / CONCURRENCY
    print(f"bare sends ÷ their floor ({sends_floor:.2f} s): {plain / sends_floor:.2f}")


def main() -> None:
    asyncio.run(run())


if __name__ == "__main__":
    main()
