"""The team store on PostgreSQL against the local SQLite file, in the same run.

1. A 50,000-user snapshot written to PostgreSQL on loopback, against the same snapshot written
   to a SQLite file (alternating, best of --runs). Goal: ≤ 1.5× the SQLite write.
2. A diff of two 50,000-user snapshots (1 % changed) read from PostgreSQL. Goal: ≤ 0.5 s (the
   same diff read from SQLite beside it).
3. A campaign's decisions recorded under the database's rules (``store migrate``'s triggers:
   each decision checked against the roster and its row, numbered and chained), against the
   same decisions in a schema whose rules were dropped, in the same run. 100,000 rows (a firm's
   hub), --quick 5,000. Goal: each decision in constant time (the ratio the same at any size).
4. Ten ``hubtui snapshot`` processes recording ten hubs into one team store at once, against
   the slowest of the same ten run alone. Goal: ≤ 1.3×. The demo server answers each request
   after 20 ms (a server over a network, not one on the same two cores), and every process
   reads its hub with the search's fan-out. Its anchor, the same minute: the same ten at once,
   each into a SQLite file of its own (what ten processes cost the machine whatever the store).

The PostgreSQL is started from the distribution's package, as the tests start it
(``tests/harness/postgres.py``).

    python -m bench.bench_team_store [--runs 3] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import tempfile
import time
from pathlib import Path

from bench.bench_store import read_users
from hubtui.core.history.diff import Side, compare
from hubtui.core.store import ListKey, Snapshot, Store, now
from hubtui.core.store.campaigns import (
    CampaignEvent,
    CampaignRow,
    Kind,
    RosterEntry,
    add_events,
    roster_add,
    save_campaign,
)
from hubtui.demo import DEMO_TOKEN
from tests.harness.harness import hubtui_command, running_demo_server
from tests.harness.postgres import PostgresServer, running_postgres

KEY = ListKey("users", "load-test", "1")


def write_once(store: Store, users: list[dict[str, object]]) -> float:
    started = time.perf_counter()
    store.write_snapshot(Snapshot("bench", "", "all hubs", now(), {KEY: (True, "", users)}))
    return time.perf_counter() - started


def writes_and_diffs(pg: PostgresServer, users: list[dict[str, object]], runs: int) -> None:
    changed = [dict(u) for u in users]
    for record in changed[:: len(changed) // 500][:500]:
        record["Role"] = "Editor" if record.get("Role") != "Editor" else "Admin"
    sqlite_times, pg_times, diffs = [], [], {"sqlite": [], "postgresql": []}  # type: ignore[var-annotated]
    with tempfile.TemporaryDirectory() as folder:
        for run in range(runs):
            for engine in ("sqlite", "postgresql") if run % 2 == 0 else ("postgresql", "sqlite"):
                if engine == "sqlite":
                    store = Store.open(Path(folder) / f"store-{run}.sqlite3")
                else:
                    store = Store.open_url(pg.url(schema=pg.new_schema()))
                with store:
                    (sqlite_times if engine == "sqlite" else pg_times).append(
                        write_once(store, users)
                    )
                    write_once(store, changed)
                    first, second = store.snapshots()
                    started = time.perf_counter()
                    found = compare(
                        Side.from_store(store, first.id), Side.from_store(store, second.id)
                    )
                    diffs[engine].append(time.perf_counter() - started)
    sqlite, postgres = min(sqlite_times), min(pg_times)
    print(f"== {len(users):,}-user snapshot written, best of {runs} (alternating)")
    ratio = postgres / sqlite
    print(f"  sqlite {sqlite:.2f} s; postgresql {postgres:.2f} s: {ratio:.2f}× (goal ≤ 1.5×)")
    print(
        f"== diff of two {len(users):,}-user snapshots ({len(found)} differences), best of {runs}"
    )
    print(
        f"  postgresql {min(diffs['postgresql']):.3f} s (goal ≤ 0.5 s); "
        f"sqlite {min(diffs['sqlite']):.3f} s"
    )


def processes(pg: PostgresServer, hubs: int, projects: int, users: int) -> None:
    url = pg.url(schema=pg.new_schema())
    flags: tuple[str, ...] = (
        "--hubs",
        str(hubs),
        "--projects-per-hub",
        str(projects),
        "--users-per-project",
    )
    flags += (str(users), "--latency", "0.02")
    with tempfile.TemporaryDirectory() as folder, running_demo_server(*flags) as server:
        env = {
            **os.environ,
            **pg.environment(),
            "HUBTUI_TOKEN": DEMO_TOKEN,
            "HUBTUI_CONFIG": str(Path(folder) / "none.toml"),
        }

        def start(hub: str, person: str, team: bool = True) -> subprocess.Popen[bytes]:
            command = [*hubtui_command(), "--base-url", server]
            command += ["--store-url", url] if team else []
            return subprocess.Popen(
                [*command, "snapshot", hub],
                env={**env, "HUBTUI_DATA_DIR": str(Path(folder) / person)},
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )

        listed = subprocess.run(
            [*hubtui_command(), "--base-url", server, "hubs", "--format", "csv"],
            env={**env, "HUBTUI_DATA_DIR": folder},
            capture_output=True,
            text=True,
            check=True,
        )
        names = [line.split(",")[0] for line in listed.stdout.splitlines()[1:]][4:]
        start(names[0], "warm").wait()  # the schema made, the interpreter's files cached
        alone = []
        for n, hub in enumerate(names):
            started = time.perf_counter()
            assert start(hub, f"alone-{n}").wait() == 0
            alone.append(time.perf_counter() - started)
        started = time.perf_counter()
        together = [start(hub, f"together-{n}") for n, hub in enumerate(names)]
        statuses = [p.wait() for p in together]
        at_once = time.perf_counter() - started
        # The anchor, the same minute: the same ten at once, each into a file of its own (no
        # store shared): what ten processes cost this machine whatever the store.
        started = time.perf_counter()
        local = [start(hub, f"local-{n}", team=False) for n, hub in enumerate(names)]
        statuses += [p.wait() for p in local]
        anchor = time.perf_counter() - started
    with Store.open_url(url, read_only=True) as store:
        whole = all(s.counts["not_read"] == 0 for s in store.snapshots())
    print(
        f"== {len(names)} processes, each a hub of {projects} projects × {users} users at 20 ms "
        "an answer"
    )
    print(
        f"  alone: slowest {max(alone):.2f} s (median {sorted(alone)[len(alone) // 2]:.2f} s); "
        f"at once: {at_once:.2f} s: {at_once / max(alone):.2f}× the slowest (goal ≤ 1.3×); "
        f"exit statuses {sorted(set(statuses))}, every snapshot whole: {whole}"
    )
    print(
        f"  anchor, the same ten at once into files of their own: {anchor:.2f} s; "
        f"the team store at once / the anchor = {at_once / anchor:.2f}×"
    )


def campaign_rules(pg: PostgresServer, rows: int) -> None:
    """The same campaign frozen and decided with the database's rules, and without them."""
    took: dict[bool, tuple[float, float]] = {}
    for rules in (False, True):
        with Store.open_url(pg.url(schema=pg.new_schema())) as store:
            roster_add(store, RosterEntry("hubtui_owner", "bench", "5", "r@x", "", "t", ""))
            if not rules:
                store.engine.run("DROP TRIGGER campaign_events_rules ON campaign_events")
                store.engine.run("DROP TRIGGER campaign_rows_sealed ON campaign_rows")
            population = [
                CampaignRow(n, "p", "P", str(100 + n), f"u{n}@x", "", "Editor", "Guest", "Editor",
                            "r@x", "", "5")
                for n in range(rows)
            ]  # fmt: skip
            started = time.perf_counter()
            number = save_campaign(store, {"origin": "bench", "hub": "h"}, population)
            frozen = time.perf_counter() - started
            decided = [
                CampaignEvent(
                    position=n, kind=Kind.DECIDE, decision="keep", operator="b", moment="t"
                )
                for n in range(rows)
            ]
            started = time.perf_counter()
            add_events(store, number, decided, bulk="bench")
            took[rules] = (frozen, time.perf_counter() - started)
    (bare_freeze, bare_decide), (ruled_freeze, ruled_decide) = took[False], took[True]
    print(f"== a campaign of {rows:,} rows on the team store, with the database's rules ÷ without")
    print(
        f"  freeze {ruled_freeze:.2f} s ÷ {bare_freeze:.2f} s = {ruled_freeze / bare_freeze:.2f}×; "
        f"decide every row {ruled_decide:.2f} s ÷ {bare_decide:.2f} s = "
        f"{ruled_decide / bare_decide:.2f}× ({ruled_decide / rows * 1e6:.0f} µs a decision)"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="small sizes: a smoke test")
    args = parser.parse_args()
    with running_postgres() as pg:
        os.environ.update(pg.environment())  # signed in as libpq does: the password file
        users = asyncio.run(read_users(2_000 if args.quick else 50_000))
        writes_and_diffs(pg, users, 1 if args.quick else args.runs)
        campaign_rules(pg, 5_000 if args.quick else 100_000)
        if args.quick:
            processes(pg, 10, 2, 10)
        else:
            processes(pg, 10, 20, 50)


if __name__ == "__main__":
    main()
