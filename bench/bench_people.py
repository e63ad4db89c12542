"""The hub's people (`P`) at 20,000 people, beside a stock `DataTable` of the same users.

`hubtui demo-server --big-project-users 20000`: the hub `load-test` has 20,000 hub users, all
in one project. In tmux, 120×40: `P` on the hub until its first rows show and until its counts
show, then each filter keystroke until the pane says what matches; the anchor is
bench/stock_users_app.py loading the same 20,000 users, in the same run. Then, in-process, the
app's own work per filter keystroke on the people and on the users list of the same project
(bench_tui's "filter work": re-filter, then render every visible line).

    python -m bench.bench_people [--users N]
"""

from __future__ import annotations

import argparse
import statistics

import anyio

from bench.bench_tui import (
    at_the_load_test_hub,
    open_then_filter,
    stock_keystrokes_in_a_terminal,
    users_url,
)
from tests.harness.harness import running_demo_server

TEXT = "priya"


def people_in_a_terminal(base_url: str) -> list[float]:
    terminal = at_the_load_test_hub(base_url)
    try:
        return open_then_filter(terminal, "P", (" people · ", "not accepted"), TEXT)
    finally:
        terminal.close()


async def filter_work_in_process(base_url: str) -> tuple[list[float], list[float]]:
    """The app's own work per filter keystroke (re-filter, then render every visible line), on
    the hub's people and, as the anchor, on the users list of the same 20,000, in one app."""
    from bench.bench_tui import filter_work, settle
    from hubtui.api import HubClient
    from hubtui.config import Settings
    from hubtui.core.workspace import open_workspace
    from hubtui.demo import DEMO_TOKEN
    from hubtui.tui.app import HubTuiApp
    from hubtui.tui.widgets.record_table import RecordTable

    def connect() -> HubClient:
        return HubClient(base_url, token=DEMO_TOKEN, timeout=120)

    settings = Settings(base_url=base_url, token=DEMO_TOKEN, allow_insecure_http=True, store="off")
    app = HubTuiApp(open_workspace(settings, server_clients=lambda _: connect))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("g")
        await pilot.pause()
        await pilot.press(*"load-test", "enter")
        await settle(pilot)
        await pilot.press("P")
        await settle(pilot)
        people = filter_work(app.screen.query_one(RecordTable), TEXT)
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        users = filter_work(app.screen.query_one(RecordTable), TEXT)
    return people, users


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=20_000)
    args = parser.parse_args()
    with running_demo_server("--big-project-users", str(args.users)) as url:
        ours = people_in_a_terminal(url)
        anchor = stock_keystrokes_in_a_terminal(anyio.run(users_url, url), args.users, TEXT)
        people_work, users_work = anyio.run(filter_work_in_process, url)
    mine, theirs = ours[2:-2], anchor[2:-2]
    print(f"{'figure':<40} {'people':>9} {'stock':>9}")
    print(f"{'first rows after the key, s':<40} {ours[0]:>9.2f} {anchor[0]:>9.2f}")
    print(f"{'counts shown, s':<40} {ours[1]:>9.2f} {anchor[1]:>9.2f}")
    print(
        f"{'filter keystroke, median ms':<40} {statistics.median(mine) * 1000:>9.1f} "
        f"{statistics.median(theirs) * 1000:>9.1f}"
    )
    print(f"{'peak RSS, MB':<40} {ours[-1]:>9.1f} {anchor[-1]:>9.1f}")
    print(
        f"{'filter work per keystroke, median ms':<40} "
        f"{statistics.median(people_work) * 1000:>9.1f} (the users list, same 20,000: "
        f"{statistics.median(users_work) * 1000:.1f})"
    )


if __name__ == "__main__":
    main()
