"""The search across projects (`w`): time against its floor, first results, loop lag, memory.

`hubtui demo-server --latency 0.02 --keep-answers` serves one hub of 500 projects × 100 users,
each answer kept after its first (so that it costs the server almost nothing), on a core of its
own where the machine has two. The floor of a
search is latency × projects ÷ concurrency (0.02 × 500 ÷ 8 = 1.25 s): the search is reported as
a ratio to it, at concurrency 8 and 16. The event loop's worst lag while searching (a 10 ms
ticker) stands for how fast a key is answered meanwhile. With 10 % injected 503s the findings are
compared with the fault-free run. Beside each search, in the same minute: the same calls through
a bare httpx client under the same limiter (``json.loads`` only), medians of three each.

The anchor below the ratios: one project's users asked again and again on one kept-alive
connection, beside a fresh connection each time (a server that holds back the end of an answer
until the client's delayed ACK shows as +40 ms on the kept-alive line), and hubtui's own client
against a server that writes each answer in several pieces, as a production service may.

    python -m bench.bench_who            # about a minute
"""

from __future__ import annotations

import asyncio
import json
import resource
import statistics
import sys
import time

import httpx

from hubtui.api import HubClient
from hubtui.core.people.search import Finding, PersonQuery, Progress, search_people
from hubtui.demo import DEMO_TOKEN, DemoSize, DemoStore
from tests.harness.harness import free_port, running_demo_server, server_process, wait_for_port
from tests.harness.latency_server import BODY, HEAD

PROJECTS, USERS, LATENCY = 500, 100, 0.02
SIZE = DemoSize(seed=3, hubs=1, projects_per_hub=PROJECTS, users_per_project=USERS)
FLAGS = [
    *("--seed", "3", "--hubs", "1", "--projects-per-hub", str(PROJECTS)),
    *("--users-per-project", str(USERS), "--latency", str(LATENCY)),
]


def target() -> tuple[str, str]:
    """The filler hub's name and one person of it who is in a few projects."""
    store = DemoStore(SIZE)
    hub = next(h for h in store.hubs.values() if h.name.endswith("-1"))
    project = next(iter(hub.projects.values()))
    user = store.users[next(iter(project.members))]
    return hub.name, user.email


async def one_search(
    url: str, hub_name: str, email: str, concurrency: int
) -> tuple[Progress, list[Finding], float, float, float]:
    findings: list[Finding] = []
    first_answer: list[float] = []
    lag = 0.0
    searching = True

    async def ticker() -> None:
        nonlocal lag
        while searching:
            before = time.perf_counter()
            await asyncio.sleep(0.01)
            lag = max(lag, time.perf_counter() - before - 0.01)

    def progressed(progress: Progress) -> None:
        if progress.projects_done and not first_answer:
            first_answer.append(time.perf_counter())

    async with HubClient(url, token=DEMO_TOKEN, timeout=30) as client:
        hub = await client.get_hub_by_name(hub_name)
        tick = asyncio.create_task(ticker())
        started = time.perf_counter()
        progress = await search_people(
            client,
            PersonQuery(email),
            [hub],
            on_finding=findings.append,
            on_progress=progressed,
            concurrency=concurrency,
        )
        took = time.perf_counter() - started
        searching = False
        await tick
    return progress, findings, took, first_answer[0] - started, lag


def key(findings: list[Finding]) -> set[tuple[int, str]]:
    return {
        (f.project.id if f.project else 0, f.user.user.email or "" if f.user else "failed")
        for f in findings
    }


async def bare_fan_out(url: str, hub_id: str, project_ids: list[str], concurrency: int) -> float:
    """The anchor: every project's users read through a bare httpx client under the same
    limiter, each answer parsed by ``json.loads`` and looked through for the address only."""
    headers = {"Authorization": f"Bearer {DEMO_TOKEN}"}
    limiter = asyncio.Semaphore(concurrency)
    async with httpx.AsyncClient(base_url=url, headers=headers) as client:

        async def one(project_id: str) -> None:
            async with limiter:
                answer = await client.get(f"/v3/hubs/{hub_id}/projects/{project_id}/users")
            for user in json.loads(answer.content):
                if user["User"]["Email"] == "":
                    break

        started = time.perf_counter()
        await asyncio.gather(*(one(p) for p in project_ids))
        return time.perf_counter() - started


async def keep_alive_probe(url: str, path: str, rounds: int = 15) -> tuple[float, float]:
    """Median ms of one GET on a kept-alive connection, and on a fresh connection each time."""
    headers = {"Authorization": f"Bearer {DEMO_TOKEN}"}
    kept: list[float] = []
    async with httpx.AsyncClient(base_url=url, headers=headers) as client:
        await client.get(path)
        for _ in range(rounds):
            started = time.perf_counter()
            (await client.get(path)).raise_for_status()
            kept.append(time.perf_counter() - started)
    fresh: list[float] = []
    for _ in range(rounds):
        async with httpx.AsyncClient(base_url=url, headers=headers) as client:
            started = time.perf_counter()
            (await client.get(path)).raise_for_status()
            fresh.append(time.perf_counter() - started)
    return statistics.median(kept) * 1000, statistics.median(fresh) * 1000


async def pieces_probe(pieces: int, rounds: int = 15) -> float:
    """Median ms of hubtui's client reading a 50 KB list on one kept-alive connection, from a
    server that writes the headers, then the body in ``pieces`` writes."""
    body = b"[" + b",".join(b'{"Id":"h%d","Name":"hub-%d"}' % (n, n) for n in range(1700)) + b"]"
    head = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n"

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await serve_pieces(reader, writer)
        except (asyncio.IncompleteReadError, asyncio.CancelledError, ConnectionError):
            writer.close()  # the client went, or the probe ended

    async def serve_pieces(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while await reader.readuntil(b"\r\n\r\n"):
            writer.write(head % len(body))
            step = -(-len(body) // pieces)
            for start in range(0, len(body), step):
                await writer.drain()
                writer.write(body[start : start + step])
            await writer.drain()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    took: list[float] = []
    async with server, HubClient(f"http://127.0.0.1:{port}", token=DEMO_TOKEN) as client:
        await client.list_hubs()
        for _ in range(rounds):
            started = time.perf_counter()
            await client.list_hubs()
            took.append(time.perf_counter() - started)
    return statistics.median(took) * 1000


async def stack_probe(latency: float, rounds: int = 40) -> dict[str, float]:
    """Median ms of one call on a kept-alive connection to the least server (an empty list
    after ``latency``, on a core of its own): a bare socket, asyncio's streams, httpx, and
    hubtui's client. What each adds to the latency is its own, below any server's cost."""
    port = free_port()
    command = [sys.executable, "-m", "tests.harness.latency_server", str(port), str(latency)]
    request = b"GET /v3/hubs HTTP/1.1\r\nhost: probe\r\n\r\n"
    size = len(HEAD) + len(BODY)
    with server_process(command, own_core=True) as server:
        wait_for_port(port, server)
        took: dict[str, list[float]] = {}

        def timed(name: str, started: float) -> None:
            took.setdefault(name, []).append(time.perf_counter() - started)

        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        async with (
            httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as bare,
            HubClient(f"http://127.0.0.1:{port}", token=DEMO_TOKEN) as client,
        ):
            await bare.get("/v3/hubs")
            await client.list_hubs()
            for _ in range(rounds):  # alternating, so that each meets the same machine
                started = time.perf_counter()
                writer.write(request)
                await reader.readexactly(size)
                timed("asyncio streams", started)
                started = time.perf_counter()
                json.loads((await bare.get("/v3/hubs")).content)
                timed("httpx + json.loads", started)
                started = time.perf_counter()
                await client.list_hubs()
                timed("hubtui's client (list_hubs)", started)
        writer.close()
        return {name: statistics.median(values) * 1000 for name, values in took.items()}


async def run() -> None:
    hub_name, email = target()
    print(f"one hub of {PROJECTS} projects × {USERS} users, latency {LATENCY} s; searching {email}")
    print(f"{'run':<28} {'search s':>9} {'floor s':>8} {'ratio':>6} {'first s':>8} {'lag ms':>7}")
    clean: set[tuple[int, str]] = set()
    # A server whose answers cost it almost nothing (each kept after its first), on a core of
    # its own: the floor is then reachable, and the bare client's figure shows how near.
    with running_demo_server(*FLAGS, "--keep-answers", own_core=True) as url:
        async with HubClient(url, token=DEMO_TOKEN) as client:
            hub = await client.get_hub_by_name(hub_name)
            projects = await client.list_projects(hub.id)
        ids = [str(p.id) for p in projects]
        await bare_fan_out(url, hub.id, ids, 16)  # every answer kept before anything is timed
        path = f"/v3/hubs/{hub.id}/projects/{projects[0].id}/users"
        kept, fresh = await keep_alive_probe(url, path)
        print(
            f"anchor: one project's users, median of 15: kept-alive {kept:.1f} ms, fresh "
            f"connection {fresh:.1f} ms (server latency {LATENCY * 1000:.0f} ms)"
        )
        for concurrency in (8, 16):
            searches, bares = [], []
            for _ in range(3):  # alternating with the anchor, in the same minute
                searches.append(await one_search(url, hub_name, email, concurrency))
                bares.append(await bare_fan_out(url, hub.id, ids, concurrency))
            progress, findings, took, first, lag = sorted(searches, key=lambda s: s[2])[1]
            bare = statistics.median(bares)
            floor = LATENCY * PROJECTS / concurrency
            clean = key(findings)
            print(
                f"{'concurrency ' + str(concurrency):<28} {took:>9.2f} {floor:>8.2f} "
                f"{took / floor:>6.2f} {first:>8.3f} {lag * 1000:>7.1f}"
            )
            print(
                f"  {'bare httpx, same limiter':<26} {bare:>9.2f} {floor:>8.2f} "
                f"{bare / floor:>6.2f}   hubtui ÷ bare {took / bare:.2f}"
            )
            print(f"  {progress.summary(PersonQuery(email), findings)}")
    with running_demo_server(*FLAGS, "--failure-rate", "0.1", "--retry-after", "0") as url:
        progress, findings, took, first, lag = await one_search(url, hub_name, email, 8)
        floor = LATENCY * PROJECTS / 8
        print(
            f"{'concurrency 8, 10 % 503s':<28} {took:>9.2f} {floor:>8.2f} {took / floor:>6.2f} "
            f"{first:>8.3f} {lag * 1000:>7.1f}"
        )
        print(f"  findings equal to the fault-free run: {key(findings) == clean}")
    for latency in (0.0, LATENCY):
        probe = await stack_probe(latency)
        print(
            f"one call, median of 40, to the least server (`[]` after {latency * 1000:.0f} ms): "
            + ", ".join(f"{name} {ms:.1f} ms" for name, ms in probe.items())
        )
    whole, pieces = await pieces_probe(1), await pieces_probe(4)
    print(
        f"hubtui's client, a 50 KB list on a kept-alive connection, median of 15: body written "
        f"whole {whole:.1f} ms, in four pieces {pieces:.1f} ms ({pieces / whole:.2f}×)"
    )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS of the searching process: {peak:.0f} MB")


if __name__ == "__main__":
    asyncio.run(run())
