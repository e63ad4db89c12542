"""A firm's hub in the app: `P` until every project is read and its summary counted, the app's
memory once `P` has settled, and once `M` shows the matrix; beside the reads' floors.

`hubtui demo-server --hubs 1 --projects-per-hub 2000 --users-per-project 50 --people-per-hub 0`
(2,000 projects, 100,002 people) on a core of its own where the machine has two. In the same
run, each an installed user's process run alone (``bench_firm.run_alone``):

- `who nobody@nowhere.example --hub HUB` reads every project's users and `hub-users HUB` the
  hub's users: `P` reads both, at once; their sum is its floor (issue 67: ≤ their sum);
- the app, in a process of its own, in Textual's headless driver at 120×40: `P` on the hub
  (the people screen pushed as the hub's `P` pushes it) until its load has ended (the summary
  counted: the issue's figure), and until every worker has ended (the rows' search keys made,
  in the background, so that a filter matches them all), then `M`
  until the matrix is shown. Its memory is the process's resident set at each of those
  moments (what the machine holds for it then; after `P`, once what it read is kept too, as
  the app keeps every list read), against `hub-users`'s peak (issue 67: after `P` ≤ 1.3×,
  after `M` ≤ 1.5×). `M` is timed from then: the store's thread no longer shares the core.

    python -m bench.bench_firm_app                  # about a minute
    python -m bench.bench_firm_app --projects 200   # a tenth of it
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.bench_firm import HUB, a_firm, app_on, run_alone, run_alone_with_processor
from bench.where_time_goes import WhereTimeGoes, report
from tests.harness.harness import hubtui_command


def resident_mb() -> float:
    """This process's resident set now, in MB."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 1e6


#: The stages of ``P``'s processor time (:class:`~bench.where_time_goes.WhereTimeGoes`): the
#: innermost frame whose file names one decides.
P_STAGES = (
    (
        "records decoded and validated (pydantic-core)",
        ("hubtui/api/parsing.py", "hubtui/api/models.py", "/pydantic/", "/pydantic_core/"),
    ),
    (
        "people joined (the join, sign-ins, addresses)",
        ("hubtui/core/people/hub.py", "hubtui/core/signins.py", "hubtui/api/identity.py"),
    ),
    (
        "the HTTP exchange (httpx, httpcore, h11, sockets)",
        (
            "/httpx/",
            "/httpcore/",
            "/h11/",
            "/anyio/",
            "hubtui/api/transport.py",
            "hubtui/api/bodies.py",
            "hubtui/api/streaming.py",
            "hubtui/api/client.py",
            "/asyncio/selector_events.py",
            "/selectors.py",
            "/socket.py",
            "/ssl.py",
        ),
    ),
    ("the fan-out over the projects", ("hubtui/core/people/search.py",)),
    ("the screen (Textual, Rich, its rows)", ("/textual/", "/rich/", "hubtui/tui/")),
)


async def in_the_app(url: str, data: str) -> dict[str, Any]:
    """``P`` then ``M`` in the app, as :func:`main` reports them."""
    from bench.bench_tui import settle
    from hubtui.tui.screens.browsing.access_matrix import AccessMatrixScreen
    from hubtui.tui.screens.people.hub_people import HubPeopleScreen

    app = app_on(url, data)
    workspace = app.workspace
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        client = await workspace.client()
        hub = await client.get_hub_by_name(HUB)
        before = resident_mb()
        with WhereTimeGoes(P_STAGES) as profile:
            started, processor = time.perf_counter(), time.process_time()
            people = HubPeopleScreen(hub)
            app.push_screen(people)
            # Until its load has ended (all read, counted), looked at every 10 ms by a bare
            # sleep: the pilot's pause repaints the screen each time it is asked (a hundred
            # repaints a second the app would not make for a person, 0.3-0.5 s of P's figure).
            while people.answer is None or people.is_loading:  # noqa: ASYNC110 (its state)
                await asyncio.sleep(0.01)
            counted = time.perf_counter() - started  # the summary counted: what a person reads
            counted_processor = time.process_time() - processor
        await settle(pilot)  # and every worker ended: the rows' search keys made too
        took = time.perf_counter() - started
        await workspace.all_kept()  # settled: what it read is kept (the store's thread ended)
        after_p = resident_mb()
        started = time.perf_counter()
        await pilot.press("M")
        await settle(pilot)
        assert isinstance(app.screen, AccessMatrixScreen)
        matrix = time.perf_counter() - started
        after_m = resident_mb()
        people_read = len(people.answer.people)
    return {
        "p_seconds": took,
        "p_counted_seconds": counted,
        "p_counted_processor": counted_processor,
        "p_stages": dict(profile.seconds),
        "p_profile_missing": profile.missing,
        "m_seconds": matrix,
        "before_mb": before,
        "after_p_mb": after_p,
        "after_m_mb": after_m,
        "people": people_read,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--projects", type=int, default=2000)
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--child", metavar="URL", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        with tempfile.TemporaryDirectory() as data:
            print(json.dumps(asyncio.run(in_the_app(args.child, data))))
        return
    hubtui = hubtui_command()
    print(
        f"== a firm's hub in the app (120×40): {args.projects:,} projects × {args.users} users "
        f"({args.projects * args.users:,} memberships, a person each), concurrency "
        f"{args.concurrency}"
    )
    with a_firm(args.projects, args.users, args.concurrency) as (url, env, common):
        who = [*hubtui, *common, "who", "nobody@nowhere.example", "--hub", HUB]
        hub_users = [*hubtui, *common, "hub-users", HUB, "--format", "jsonl"]
        run_alone(who, env)  # the server's warm-up: it makes each list at its first ask
        run_alone(hub_users, env)
        who_s, who_mb, _, who_cpu = run_alone_with_processor(who, env)
        hub_s, hub_mb, _, hub_cpu = run_alone_with_processor(hub_users, env)
        child = subprocess.run(
            [sys.executable, "-m", "bench.bench_firm_app", "--child", url],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        if child.returncode != 0:
            raise SystemExit(f"the app's run failed:\n{child.stderr[-3000:]}")
        app = json.loads(child.stdout.strip().splitlines()[-1])
    both = who_s + hub_s
    print(f"{'':<44} {'s':>7} {'MB':>7} {'÷ floor':>8}")
    print(f"{'who (the projects read)':<44} {who_s:>7.2f} {who_mb:>7.0f}")
    print(f"{'hub-users (the hub users read), its peak':<44} {hub_s:>7.2f} {hub_mb:>7.0f}")
    print(
        f"{'P: every project read, summary counted':<44} {app['p_counted_seconds']:>7.2f} "
        f"{'':>7} {app['p_counted_seconds'] / both:>8.2f}  (÷ who + hub-users)"
    )
    print(
        f"{'  and its rows indexed (every worker ended)':<44} {app['p_seconds']:>7.2f} "
        f"{'':>7} {app['p_seconds'] / both:>8.2f}  (÷ who + hub-users)"
    )
    print(
        f"{'  the app, resident once P has settled':<44} {'':>7} {app['after_p_mb']:>7.0f} "
        f"{app['after_p_mb'] / hub_mb:>8.2f}  (÷ hub-users's peak)"
    )
    print(
        f"{'M: the matrix shown':<44} {app['m_seconds']:>7.2f} {app['after_m_mb']:>7.0f} "
        f"{app['after_m_mb'] / hub_mb:>8.2f}  (÷ hub-users's peak)"
    )
    print(f"{'  the app before P (resident)':<44} {'':>7} {app['before_mb']:>7.0f}")
    print(f"people read: {app['people']:,}")
    print(
        f"processor: P until counted {app['p_counted_processor']:.2f} s, who + hub-users "
        f"{who_cpu + hub_cpu:.2f} s ({who_cpu:.2f} + {hub_cpu:.2f}), "
        f"{app['p_counted_processor'] / (who_cpu + hub_cpu):.2f}×; "
        f"P's wall time {app['p_counted_seconds'] / max(app['p_counted_processor'], 1e-9):.2f}× "
        "its processor time"
    )
    print("where P's processor time goes until counted (sampled every 10 ms):")
    print(app["p_profile_missing"] or report(app["p_stages"]))


if __name__ == "__main__":
    main()
