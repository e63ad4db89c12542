"""The access matrix of a hub of 500 projects × 100 users at 20 ms an answer, concurrency 8,
against its fan-out floor (latency × calls ÷ concurrency), and how long after the last answer
the matrix is built and its first rows painted.

`hubtui demo-server --hubs 1 --projects-per-hub 500 --users-per-project 100 --people-per-hub 100
--latency 0.02 --keep-answers`, on a core of its own: the generated hub, whose 100 people are
each in every project (the showcase hubs beside it are not read). Reading is core.hub_people's
(`read_hub_people`), as `hubtui access` and the app's `P`/`M` read; the paint is the app's
matrix screen on those people, in Textual's headless driver at 120×40.

    python -m bench.bench_matrix [--projects N] [--users N] [--latency S] [--runs N]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from tests.harness.harness import running_demo_server


async def one_run(url: str, concurrency: int) -> tuple[float, int, float, float]:
    """(read seconds, calls made, matrix built after the read, first rows painted after it)."""
    from datetime import UTC, datetime

    from hubtui.api import HubClient
    from hubtui.core.people.hub import access_matrix, read_hub_people
    from hubtui.demo import DEMO_TOKEN

    async with HubClient(url, token=DEMO_TOKEN) as client:
        hub = next(h for h in await client.list_hubs() if h.name.endswith("-1"))  # generated
        started = time.perf_counter()
        answer = await read_hub_people(client, hub, concurrency=concurrency)
        read = time.perf_counter() - started
        calls = len(answer.projects) + 2  # the projects list, the hub's users, each project
    started = time.perf_counter()
    matrix = access_matrix(answer)
    built = time.perf_counter() - started
    painted = await paint(answer, datetime.now(UTC))
    assert matrix.rows, "the hub has people"
    return read, calls, built, painted


async def raw_fan_out(url: str, concurrency: int) -> float:
    """The anchor: the same calls through a bare httpx client under the same limiter, each
    answer parsed by ``json.loads`` only (no records, no join)."""
    import json

    import httpx

    from hubtui.demo import DEMO_TOKEN

    headers = {"Authorization": f"Bearer {DEMO_TOKEN}"}
    async with httpx.AsyncClient(base_url=url, headers=headers) as client:
        hubs = (await client.get("/v3/hubs")).json()
        hub = next(h for h in hubs if h["Name"].endswith("-1"))
        limiter = asyncio.Semaphore(concurrency)
        started = time.perf_counter()

        async def get(path: str) -> object:
            async with limiter:
                return json.loads((await client.get(path)).content)

        listed = await asyncio.gather(
            get(f"/v3/hubs/{hub['Id']}/projects"), get(f"/v3/hubs/{hub['Id']}/users")
        )
        projects = listed[0]
        assert isinstance(projects, list)
        await asyncio.gather(
            *(get(f"/v3/hubs/{hub['Id']}/projects/{p['Id']}/users") for p in projects)
        )
        return time.perf_counter() - started


async def bare_paint() -> float:
    """The anchor of the paint: an empty screen pushed in the same harness."""
    from textual.app import App
    from textual.screen import Screen
    from textual.widgets import Static

    class Empty(Screen[None]):
        def compose(self):  # type: ignore[no-untyped-def]
            yield Static("empty")

    class Shell(App[None]):
        pass

    app = Shell()
    async with app.run_test(size=(120, 40)) as pilot:
        started = time.perf_counter()
        await app.push_screen(Empty())
        await pilot.pause()
        return time.perf_counter() - started


async def paint(answer: object, now: object) -> float:
    """Seconds from pushing the matrix screen to its first rows on screen."""
    from textual.app import App

    from hubtui.tui.screens.browsing.access_matrix import AccessMatrixScreen

    class Shell(App[None]):
        pass

    app = Shell()
    async with app.run_test(size=(120, 40)) as pilot:
        started = time.perf_counter()
        await app.push_screen(AccessMatrixScreen(answer, now))  # type: ignore[arg-type]
        await pilot.pause()
        return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--projects", type=int, default=500)
    parser.add_argument("--users", type=int, default=100)
    parser.add_argument("--latency", type=float, default=0.02)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    # Loaded as the app has them when M is pressed: the figure is the matrix's, not imports'.
    import hubtui.tui.app
    import hubtui.tui.screens.browsing.access_matrix  # noqa: F401

    flags = (
        *("--hubs", "1", "--projects-per-hub", str(args.projects)),
        *("--users-per-project", str(args.users), "--people-per-hub", str(args.users)),
        *("--latency", str(args.latency)),
    )
    # Each answer kept after its first (it then costs the server almost nothing), the server on
    # a core of its own: the floor is reachable, and the bare client shows how near.
    with running_demo_server(*flags, "--keep-answers", own_core=True) as url:
        asyncio.run(raw_fan_out(url, args.concurrency))  # every answer kept before the timing
        runs, raws, bares = [], [], []
        for _ in range(args.runs):  # alternating, in the same minute
            runs.append(asyncio.run(one_run(url, args.concurrency)))
            raws.append(asyncio.run(raw_fan_out(url, args.concurrency)))
            bares.append(asyncio.run(bare_paint()))
    read = statistics.median(r[0] for r in runs)
    calls = runs[0][1]
    floor = args.latency * calls / args.concurrency
    print(f"{'figure':<44} {'value':>9}")
    print(f"{'calls (projects list, hub users, each project)':<44} {calls:>9}")
    print(f"{'fan-out floor, s (latency × calls ÷ conc.)':<44} {floor:>9.2f}")
    print(f"{'read, median s':<44} {read:>9.2f}")
    print(f"{'read ÷ floor':<44} {read / floor:>9.2f}")
    raw = statistics.median(raws)
    print(f"{'anchor: bare httpx + json.loads, median s':<44} {raw:>9.2f}")
    print(f"{'read ÷ anchor':<44} {read / raw:>9.2f}")
    built = statistics.median(r[2] for r in runs)
    painted = statistics.median(r[3] for r in runs)
    print(f"{'matrix built after the last answer, s':<44} {built:>9.3f}")
    print(f"{'first rows painted, s':<44} {painted:>9.3f}")
    print(f"{'anchor: an empty screen pushed, s':<44} {statistics.median(bares):>9.3f}")


if __name__ == "__main__":
    main()
