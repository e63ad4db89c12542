"""A hub at a large firm's scale: each command that reads a whole hub beside the read's floor.

`hubtui demo-server --hubs 1 --projects-per-hub 2000 --users-per-project 50 --people-per-hub 0`
(2,000 projects, 100,000 memberships, a person for each) on a core of its own where the machine
has two. Each command runs alone, one after another, as an installed user runs it; its time and
its peak memory (the process's own, from ``wait4``) are printed beside the floors of the same
run:

- `who nobody@nowhere.example --hub HUB` reads every project's users and keeps nothing: the
  floor of anything that reads them all;
- `hub-users HUB` reads the hub's users, which `snapshot` and `access` read beside every
  project's: `who` + `hub-users` is the floor of what those two read (issue 78), and
  `hub-users`' peak the floor of their memory;
- a bare httpx client reading the same lists and the hub's users (``json.loads`` only, the same
  concurrency): the floor of what the commands read, below hubtui's code.

Goals (issue 78): a snapshot into a new store ≤ 1.5× `who` + `hub-users`, the daily one ≤ 1.0×;
memory ≤ 1.5× `hub-users`' peak.

    python -m bench.bench_firm                 # about two minutes
    python -m bench.bench_firm --projects 200  # a tenth of it
    python -m bench.bench_firm --people 100000 # each project's users drawn from 100,000
    python -m bench.bench_firm --apart         # also a snapshot's read and write, timed apart
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import json
import os
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx

import hubtui
from hubtui.demo import DEMO_TOKEN
from tests.harness.harness import hubtui_command, running_demo_server

if TYPE_CHECKING:
    from hubtui.tui.app import HubTuiApp

HUB = "lakeshore-partners-1"
#: GNU time (Debian's package `time`), for each command's own peak memory.
TIME = "/usr/bin/time"


@contextmanager
def a_firm(
    projects: int, users: int, concurrency: int, people: int = 0
) -> Iterator[tuple[str, dict[str, str], list[str]]]:
    """The demo server of one hub of ``projects`` × ``users`` on a core of its own
    (``people``: each project's users drawn from this many of the hub's; 0, a person of their
    own each), and a data folder for what is run against it: the server's URL, the commands'
    environment, and the flags they share."""
    flags = (
        *("--hubs", "1", "--projects-per-hub", str(projects)),
        *("--users-per-project", str(users), "--people-per-hub", str(people)),
    )
    with (
        running_demo_server(*flags, own_core=True) as url,
        tempfile.TemporaryDirectory() as data,
    ):
        yield url, installed_env(data), ["--base-url", url, "--concurrency", str(concurrency)]


def installed_env(data: str, **more: str) -> dict[str, str]:
    """The environment a command runs in, as an installed user's: the demo's token, no config
    file, a data folder of its own (``more``: further settings); the app's modules
    byte-compiled as the README installs them (a module edited since would otherwise be
    compiled again at every command where PYTHONDONTWRITEBYTECODE is set: 50–80 ms of a
    campaign's start)."""
    compileall.compile_dir(Path(hubtui.__file__).parent, quiet=1)
    return {
        **os.environ,
        "HUBTUI_TOKEN": DEMO_TOKEN,
        "HUBTUI_CONFIG": "/nonexistent",
        "HUBTUI_DATA_DIR": data,
        **more,
    }


def app_on(url: str, data: str, **settings: Any) -> HubTuiApp:
    """The app on the demo server at ``url``, as an installed user's (the demo's token, a data
    folder of its own, ``settings`` beside), for a benchmark to run in this process."""
    from hubtui.api import HubClient
    from hubtui.config import Settings
    from hubtui.core.workspace import DataPlaces, open_workspace
    from hubtui.tui.app import HubTuiApp

    def connect() -> HubClient:
        return HubClient(url, token=DEMO_TOKEN, timeout=120)

    said = Settings(base_url=url, token=DEMO_TOKEN, allow_insecure_http=True, **settings)
    places = DataPlaces(Path(data) / "changes.jsonl", Path(data) / "store.sqlite3")
    return HubTuiApp(open_workspace(said, server_clients=lambda _: connect, data=places))


def run_alone(command: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """Seconds, peak MB and exit status of one command, its output thrown away. The peak is
    GNU time's (``%M``): a child forked from this process would count this process's memory
    as its own until it runs the command."""
    took, peak, status, _ = run_alone_with_processor(command, env)
    return took, peak, status


def run_alone_with_processor(
    command: list[str], env: dict[str, str]
) -> tuple[float, float, int, float]:
    """:func:`run_alone`'s figures, and the processor seconds the command used (user and
    system, GNU time's ``%U`` and ``%S``)."""
    with tempfile.NamedTemporaryFile("r") as measured:
        started = time.perf_counter()
        status = subprocess.run(
            [TIME, "-f", "%M %U %S", "-o", measured.name, *command],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        ).returncode
        took = time.perf_counter() - started
        peak, user, system = measured.read().split()[-3:]
        return took, int(peak) / 1024, status, float(user) + float(system)


async def bare_read(url: str, concurrency: int) -> float:
    """The hub's projects, each project's users and the hub's users through a bare httpx
    client under one limiter, each answer parsed by ``json.loads`` only."""
    headers = {"Authorization": f"Bearer {DEMO_TOKEN}"}
    limiter = asyncio.Semaphore(concurrency)
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=120) as client:
        started = time.perf_counter()
        hub = (await client.get(f"/v3/hubs/name/{HUB}")).json()
        base = f"/v3/hubs/{hub['Id']}"

        async def read(path: str) -> object:
            async with limiter:
                answer = await client.get(path)
            return json.loads(answer.content)

        projects, _ = await asyncio.gather(read(f"{base}/projects"), read(f"{base}/users"))
        assert isinstance(projects, list)
        await asyncio.gather(*(read(f"{base}/projects/{p['Id']}/users") for p in projects))
        return time.perf_counter() - started


async def snapshot_apart(url: str, concurrency: int) -> tuple[float, float]:
    """In this process: the snapshot's read, then its write into a new store, each timed
    alone (``bench_snapshot.one_snapshot``), collected as a headless command collects."""
    from bench.bench_snapshot import one_snapshot
    from hubtui.core.collection import collected_rarely

    with collected_rarely(), tempfile.TemporaryDirectory() as folder:
        read, write, _ = await one_snapshot(url, HUB, Path(folder), concurrency)
        return read, write


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--projects", type=int, default=2000)
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument(
        "--people",
        type=int,
        default=0,
        help="each project's users drawn from this many people"
        " of the hub (0: a person of their own for each membership)",
    )
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument(
        "--apart", action="store_true", help="also a snapshot's read and write, timed apart"
    )
    args = parser.parse_args()
    hubtui = hubtui_command()
    print(
        f"one hub of {args.projects:,} projects × {args.users} users "
        f"({args.projects * args.users:,} memberships, "
        f"{'a person each' if not args.people else f'drawn from {args.people:,} people'}), "
        f"concurrency {args.concurrency}"
    )
    with a_firm(args.projects, args.users, args.concurrency, args.people) as (url, env, common):
        commands = {
            "who (the read's floor)": ["who", "nobody@nowhere.example", "--hub", HUB],
            "hub-users (the hub's users)": ["hub-users", HUB],
            "snapshot (a new store)": ["snapshot", HUB],
            "snapshot (a second, same store)": ["snapshot", HUB],
            "access --format csv": ["access", HUB, "--format", "csv"],
        }
        bare = asyncio.run(bare_read(url, args.concurrency))  # also the server's warm-up
        bare = min(bare, asyncio.run(bare_read(url, args.concurrency)))
        rows = []
        for name, command in commands.items():
            rows.append((name, *run_alone([*hubtui, *command, *common], env)))
        floor, hub_users, hub_peak = rows[0][1], rows[1][1], rows[1][2]
        both = floor + hub_users  # what snapshot and access read (issue 78)
        print(
            f"{'command':<34} {'s':>7} {'peak MB':>8} {'÷ who':>6} {'÷ who+hub-users':>16} "
            f"{'peak ÷ hub-users':>17} {'÷ bare':>7}"
        )
        print(f"{'bare httpx + json.loads, all lists':<34} {bare:>7.2f}")
        for name, took, peak, status in rows:
            note = "" if status in (0, 1) else f"  (exit {status})"
            print(
                f"{name:<34} {took:>7.2f} {peak:>8.0f} {took / floor:>6.2f} "
                f"{took / both:>16.2f} {peak / hub_peak:>17.2f} {took / bare:>7.2f}{note}"
            )
        if args.apart:
            read, write = asyncio.run(snapshot_apart(url, args.concurrency))
            print(
                f"{'snapshot, read alone (in process)':<34} {read:>7.2f} {'':>8} {'':>6} "
                f"{read / bare:>7.2f}"
            )
            print(f"{'snapshot, its write to a new store':<34} {write:>7.2f}")


if __name__ == "__main__":
    main()
