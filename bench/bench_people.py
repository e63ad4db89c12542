"""The hub's people (`P`) at 20,000 people, beside a stock `DataTable` of the same users.

`hubtui demo-server --big-project-users 20000`: the hub `load-test` has 20,000 hub users, all
in one project. In tmux, 120×40: `P` on the hub until its first rows show and until its counts
show, then each filter keystroke until the pane says what matches; the anchor is
bench/stock_users_app.py loading the same 20,000 users, in the same run. Then, in-process, the
app's own work per filter keystroke on the people and on the users list of the same project
(bench_tui's "filter work": re-filter, then render every visible line).

    python -m bench.bench_people [--users N] [--cold]

Last, where the people's peak is, by stage, in process (bench/where_memory_goes.py).

Before either is measured, the server is asked once for each list they read (``--cold``: not),
so that the first rows are the reader's time: the demo server makes a hub's users at the first
ask, 0.3 s before its first byte.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile

import anyio

from bench.bench_tui import (
    at_the_load_test_hub,
    echo_keystrokes_in_a_terminal,
    open_then_filter,
    stock_keystrokes_in_a_terminal,
    users_url,
)
from hubtui.api import HubClient
from hubtui.demo import DEMO_TOKEN
from tests.harness.harness import running_demo_server

TEXT = "priya"


async def warm(base_url: str) -> None:
    """Ask the server once for every list the two read: the demo server makes a hub's users at
    the first ask (0.3 s before its first byte, 24 ms after), which is the server's time, not
    the reader's. The anchor read its list after ``P`` had warmed it; now neither is first."""
    async with HubClient(base_url, token=DEMO_TOKEN, timeout=120) as client:
        hub = await client.get_hub_by_name("load-test")
        await client.list_hub_users(hub.id)
        for project in await client.list_projects(hub.id):
            await client.list_project_users(hub.id, project.id)


def people_in_a_terminal(base_url: str) -> list[float]:
    with tempfile.TemporaryDirectory() as data:
        terminal = at_the_load_test_hub(base_url, data)
        try:
            return open_then_filter(terminal, "P", (" people · ", "not accepted"), TEXT)
        finally:
            terminal.close()


async def filter_work_in_process(base_url: str) -> tuple[list[float], list[float]]:
    """The app's own work per filter keystroke (re-filter, then render every visible line), on
    the hub's people and, as the anchor, on the users list of the same 20,000, in one app."""
    from bench.bench_firm import app_on
    from bench.bench_tui import filter_work, settle, to_the_load_test_hub
    from hubtui.tui.widgets.record_table import RecordTable

    with tempfile.TemporaryDirectory() as data:
        async with app_on(base_url, data, store="off").run_test(size=(120, 40)) as pilot:
            await to_the_load_test_hub(pilot)
            await pilot.press("P")
            await settle(pilot)
            people = filter_work(pilot.app.screen.query_one(RecordTable), TEXT)
            await pilot.press("escape")
            await settle(pilot)
            await pilot.press("enter")
            await settle(pilot)
            users = filter_work(pilot.app.screen.query_one(RecordTable), TEXT)
    return people, users


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=20_000)
    parser.add_argument(
        "--cold", action="store_true", help="measure without asking the server for the lists first"
    )
    args = parser.parse_args()
    with running_demo_server("--big-project-users", str(args.users)) as url:
        if not args.cold:
            anyio.run(warm, url)
        ours = people_in_a_terminal(url)
        anchor = stock_keystrokes_in_a_terminal(anyio.run(users_url, url), args.users, TEXT)
        people_work, users_work = anyio.run(filter_work_in_process, url)
        # In a process of its own: nothing the measures above held stands in its start.
        where = subprocess.run(
            [sys.executable, "-m", "bench.where_memory_goes", url],
            capture_output=True,
            text=True,
            check=False,
        )
    floor = echo_keystrokes_in_a_terminal(TEXT)
    mine, theirs = ours[2:-2], anchor[2:-2]
    keystroke, stock_keystroke = statistics.median(mine), statistics.median(theirs)
    floor_ms = statistics.median(floor) * 1000
    print(f"{'figure':<40} {'people':>9} {'stock':>9} {'÷ stock':>8}  goal (issue 78)")
    for words, value, stock, digits, goal in (
        ("first rows after the key, s", ours[0], anchor[0], 2, "as today (0.06×)"),
        ("counts shown, s", ours[1], anchor[1], 2, ""),
        (
            "filter keystroke, median ms",
            keystroke * 1000,
            stock_keystroke * 1000,
            1,
            "as today (0.23×)",
        ),
        ("peak RSS, MB", ours[-1], anchor[-1], 1, "≤ 1.2×"),
    ):
        print(
            f"{words:<40} {value:>9.{digits}f} {stock:>9.{digits}f} "
            f"{value / max(stock, 1e-9):>8.2f}  {goal}"
        )
    print(f"{'  the floor: a bare filter box in tmux, ms':<40} {floor_ms:>9.1f}")
    print(
        f"{'filter work per keystroke, median ms':<40} "
        f"{statistics.median(people_work) * 1000:>9.1f} (the users list, same 20,000: "
        f"{statistics.median(users_work) * 1000:.1f})"
    )
    print(where.stdout.rstrip() or f"where the peak is: not measured ({where.stderr.strip()})")


if __name__ == "__main__":
    main()
