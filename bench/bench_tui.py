"""Figures for the browsing app at scale, and start-up in a real terminal.

Run:  python -m bench.bench_tui            (all figures)
      python -m bench.bench_tui --quick    (smaller data, fewer runs)

Scale: `hubtui demo-server` runs in its own process with 5,000 hubs and a project of 50,000
users; the app runs headless (Textual's test driver) in this process, so the memory figure is
the app's alone. Start-up: the installed `hubtui --demo` in tmux, from launch until the hub list
shows a hub name, median of several runs.
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

import hubtui
from hubtui.api import HubClient
from hubtui.config import Settings
from hubtui.core.workspace import open_workspace
from hubtui.demo import DEMO_TOKEN
from hubtui.tui.app import HubTuiApp
from hubtui.tui.widgets.record_table import RecordTable
from tests.harness.harness import hubtui_command, running_demo_server
from tests.harness.tmux import Terminal


class Timed:
    """Remembers when each client call returned (the response is in and parsed)."""

    def __init__(self) -> None:
        self.returned: dict[str, float] = {}
        self.took: dict[str, float] = {}

    def wrap(self, client: HubClient) -> HubClient:
        for name in ("list_hubs", "list_project_users"):
            original = getattr(client, name)

            async def timed(
                *args: Any, _original: Any = original, _name: str = name, **kw: Any
            ) -> Any:
                started = time.perf_counter()
                result = await _original(*args, **kw)
                self.returned[_name] = time.perf_counter()
                self.took[_name] = self.returned[_name] - started
                return result

            setattr(client, name, timed)
        return client


async def first_rows_painted(pilot: Pilot[None], timed: Timed, call: str) -> float:
    """Seconds from the call's return until the table's first visible row was rendered."""
    while True:
        await asyncio.sleep(0.002)
        returned = timed.returned.get(call)
        tables = pilot.app.screen.query(RecordTable)
        if returned is None or not tables:
            continue
        table = tables.first()
        if table.total_count and table.visible_count and table.row_was_painted(0):
            return time.perf_counter() - returned


async def settle(pilot: Pilot[None]) -> None:
    """Every worker ended: done, or cancelled (a load a screen replaced by a later one)."""
    from textual.worker import WorkerCancelled

    while True:
        try:
            await pilot.app.workers.wait_for_complete()
        except WorkerCancelled:
            continue
        await pilot.pause()
        return


async def to_the_load_test_hub(pilot: Pilot[None]) -> None:
    """The app in Textual's headless driver, settled, gone to the hub ``load-test`` by its URL
    name (``g``), its projects shown."""
    await settle(pilot)
    await pilot.press("g")
    await pilot.pause()
    await pilot.press(*"load-test", "enter")
    await settle(pilot)


def filter_work(table: RecordTable[Any], text: str) -> list[float]:
    """The app's own work per keystroke: re-filter, then render every visible line.

    Measured inside the running app; the pilot's round trip would add its own idle waits.
    """
    times = []
    for end in range(1, len(text) + 1):
        started = time.perf_counter()
        table.set_filter(text[:end])
        for y in range(table.size.height):
            table.render_line(y)
        times.append(time.perf_counter() - started)
    table.set_filter("")
    return times


async def scale(base_url: str, users: int) -> dict[str, float]:
    timed = Timed()

    def connect() -> HubClient:
        return timed.wrap(HubClient(base_url, token=DEMO_TOKEN, timeout=120))

    settings = Settings(base_url=base_url, token=DEMO_TOKEN, allow_insecure_http=True, store="off")
    app = HubTuiApp(open_workspace(settings, server_clients=lambda _: connect))
    figures: dict[str, float] = {}
    async with app.run_test(size=(120, 40)) as pilot:
        figures["hubs: response → first rows painted, s"] = await first_rows_painted(
            pilot, timed, "list_hubs"
        )
        await settle(pilot)
        figures["hubs: call (HTTP + parse), s"] = timed.took["list_hubs"]
        table = app.screen.query_one(RecordTable)
        figures["hubs: rows"] = table.visible_count
        keys = filter_work(table, "harbor")
        figures["hubs: filter work per keystroke, median ms"] = statistics.median(keys) * 1000
        figures["hubs: filter work per keystroke, max ms"] = max(keys) * 1000
        await to_the_load_test_hub(pilot)
        # Watch for the paint while the key is being handled: the pilot's press itself waits.
        watcher = asyncio.create_task(first_rows_painted(pilot, timed, "list_project_users"))
        await pilot.press("enter")
        figures["users: response → first rows painted, s"] = await watcher
        await settle(pilot)
        figures["users: call (HTTP + parse), s"] = timed.took["list_project_users"]
        figures["users: response → every row indexed for filtering, s"] = (
            time.perf_counter() - timed.returned["list_project_users"]
        )
        table = app.screen.query_one(RecordTable)
        figures["users: rows"] = table.visible_count
        keys = filter_work(table, "partner")
        figures["users: filter work per keystroke, median ms"] = statistics.median(keys) * 1000
        figures["users: filter work per keystroke, max ms"] = max(keys) * 1000
    figures["headless app + bench peak RSS, MB"] = (
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    )
    return figures


def at_the_load_test_hub(base_url: str, data: str) -> Terminal:
    """The installed app in tmux (120×40), gone to the hub ``load-test`` by its URL name, its
    projects shown. Its store and logs are in ``data`` and no config file is read: a run keeps
    nothing in the person's own store, and each run starts from the same empty one."""
    command = [
        *("env", f"HUBTUI_TOKEN={DEMO_TOKEN}", "HUBTUI_CONFIG=/nonexistent"),
        *(f"HUBTUI_DATA_DIR={data}", *hubtui_command(), "--base-url", base_url),
    ]
    terminal = Terminal(command, width=120, height=40)
    try:
        terminal.wait_for("Name (URL name) leads", timeout=60)
        terminal.send("g")
        terminal.wait_for("Go to a hub by its URL name")
        time.sleep(0.3)
        terminal.type("load-test")
        terminal.send("Enter")
        terminal.wait_for("Load Test Tower", timeout=60)
        time.sleep(0.5)
    except BaseException:
        terminal.close()
        raise
    return terminal


def keystrokes_in_a_terminal(base_url: str, users: int, text: str) -> list[float]:
    """Enter on the project until its users show, then each keystroke until the count shows.

    The first figure is the open; the rest are keystrokes (tmux send-keys → pane updated).
    """
    with tempfile.TemporaryDirectory() as data:
        terminal = at_the_load_test_hub(base_url, data)
        try:
            # The filter is typed the moment the counts show, as an impatient person would.
            counted = (f"{users:,} users · ", "limited readers")
            return open_then_filter(terminal, "Enter", counted, text)
        finally:
            terminal.close()


def open_then_filter(
    terminal: Terminal,
    key: str,
    counted: tuple[str, ...],
    text: str,
    *,
    prompt: str = "Filter:",
    pause: float = 0.0,
) -> list[float]:
    """``key`` opens the list: seconds to its first rows, to its counts, then per filter
    keystroke (until the pane says what matches), then from the open until the filter's answer
    is complete (every row searched: no "so far"), then the process's peak RSS in MB."""
    times = []
    opened = started = time.perf_counter()
    terminal.send(key)
    terminal.wait_for("@loadtest.example", timeout=120, poll=0.005)
    times.append(time.perf_counter() - started)
    terminal.wait_for(*counted, timeout=120, poll=0.005)
    times.append(time.perf_counter() - started)
    times += filter_keystrokes(terminal, text, prompt=prompt, pause=pause)
    terminal.wait_until(
        lambda screen: f"matching “{text}”" in screen and "so far" not in screen,
        timeout=120,
        poll=0.005,
    )
    times.append(time.perf_counter() - opened)
    times.append(terminal.peak_memory_mb())
    terminal.send("Escape", "q")
    return times


def filter_keystrokes(
    terminal: Terminal, text: str, *, prompt: str = "Filter:", pause: float = 0.0
) -> list[float]:
    """``/``, then each letter of ``text``, backspace to its first letter and the rest typed
    again (3 × len - 2 keys: five keystrokes made a median that moved 10 ms from run to run):
    seconds from each key sent until the pane says what matches the filter it leaves."""
    terminal.send("/")
    terminal.wait_for(prompt)
    time.sleep(pause)
    steps = [
        *((text[end - 1], text[:end]) for end in range(1, len(text) + 1)),
        *(("BSpace", text[:end]) for end in range(len(text) - 1, 0, -1)),
        *((text[end - 1], text[:end]) for end in range(2, len(text) + 1)),
    ]
    times = []
    for key, shown in steps:
        started = time.perf_counter()
        if key == "BSpace":
            terminal.send(key)
        else:
            terminal.type(key)
        terminal.wait_for(f"matching “{shown}”", timeout=30, poll=0.002)
        times.append(time.perf_counter() - started)
    return times


def echo_keystrokes_in_a_terminal(text: str) -> list[float]:
    """The floor of a keystroke in this harness: bench/echo_app.py, whose filter only says what
    was typed, in tmux at the same size (tmux, the polls and Textual's own path per key)."""
    terminal = Terminal([sys.executable, "-m", "bench.echo_app"], width=120, height=40)
    try:
        terminal.wait_for("/ filters", timeout=60)
        time.sleep(0.5)
        return filter_keystrokes(terminal, text, prompt="Filter", pause=0.3)
    finally:
        terminal.send("Escape", "q")
        terminal.close()


async def users_url(base_url: str) -> str:
    """The load-test project's users URL, where hubtui itself would send the call."""
    async with HubClient(base_url, token=DEMO_TOKEN, timeout=120) as client:
        hub = await client.get_hub_by_name("load-test")
        projects = await client.list_projects(hub.id)
        project = next(p for p in projects if p.name == "Load Test Tower")
        route = client.regional_route(hub)
    return f"{route.base_url.rstrip('/')}/v3/hubs/{hub.id}/projects/{project.id}/users"


def stock_keystrokes_in_a_terminal(url: str, users: int, text: str) -> list[float]:
    """The same open and keystrokes on the anchor (bench/stock_users_app.py), in tmux."""
    command = ["env", f"HUBTUI_TOKEN={DEMO_TOKEN}", sys.executable, "-m", "bench.stock_users_app"]
    terminal = Terminal([*command, url], width=120, height=40)
    try:
        terminal.wait_for("l loads the users", timeout=60)
        time.sleep(0.5)
        # "/" only moves the focus to the filter box here: nothing shows that it did.
        counted = (f"{users:,} users · loaded",)
        return open_then_filter(terminal, "l", counted, text, prompt="Filter", pause=0.3)
    finally:
        terminal.close()


def launch_until(command: list[str], text: str) -> float:
    """Seconds from launch until ``text`` shows in the terminal."""
    started = time.perf_counter()
    terminal = Terminal(command, width=120, height=32)
    try:
        terminal.wait_until(lambda s: text in s, timeout=30, poll=0.005)
        took = time.perf_counter() - started
        terminal.send("q")
        terminal.exit_status()
    finally:
        terminal.close()
    return took


def startup_beside_bare_textual(runs: int, base_url: str) -> dict[str, float]:
    """Launch → first hub name, for hubtui and a bare Textual app, alternating in one run.

    hubtui starts with a data folder of its own: its first start has no stored hub list (the
    answer paints the first row); from the second start on, the hub list kept by the one
    before paints it, and the answer replaces it."""
    # As the README installs it: the app's modules byte-compiled once (a module edited since
    # would otherwise be compiled again at every launch where PYTHONDONTWRITEBYTECODE is set).
    compileall.compile_dir(Path(hubtui.__file__).parent, quiet=1)
    bare, demo, http = [], [], []
    with tempfile.TemporaryDirectory() as data:
        env = ["env", f"HUBTUI_DATA_DIR={data}", f"HUBTUI_TOKEN={DEMO_TOKEN}"]
        for _ in range(runs + 1):
            bare.append(
                launch_until([sys.executable, "-m", "tests.harness.bare_app"], "acme-build")
            )
            demo.append(launch_until([*env, *hubtui_command(), "--demo"], "acme-build"))
            http.append(
                launch_until([*env, *hubtui_command(), "--base-url", base_url], "acme-build")
            )
    return {
        "bare": statistics.median(bare[1:]),
        "demo first": demo[0],
        "http first": http[0],
        "bare first": bare[0],
        "demo": statistics.median(demo[1:]),
        "http": statistics.median(http[1:]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--startup", action="store_true", help="only the start-up figures")
    args = parser.parse_args()
    if args.startup:
        startup(7)
        return
    hubs, users, runs, opens = (500, 5000, 3, 1) if args.quick else (5000, 50000, 7, 3)
    print(f"== scale: {hubs:,} hubs, a project of {users:,} users (demo-server over HTTP)")
    flags = ["--hubs", str(hubs), "--projects-per-hub", "1", "--users-per-project", "2"]
    with running_demo_server(*flags, "--big-project-users", str(users)) as url:
        for name, value in asyncio.run(scale(url, users)).items():
            report(name, value)
        ours: list[list[float]] = []
        stock: list[list[float]] = []
        for _ in range(opens):
            ours.append(keystrokes_in_a_terminal(url, users, "partner"))
            # The anchor in the same minute: a stock DataTable, plain httpx + json, the same list.
            stock.append(
                stock_keystrokes_in_a_terminal(asyncio.run(users_url(url)), users, "partner")
            )
        print(
            f"== {users:,} users in tmux, beside a stock DataTable (httpx + json, add_rows); "
            f"{opens} open{'s' if opens > 1 else ''} each, alternating"
        )
        print(f"{'':<52} {'hubtui':>10} {'stock':>10} {'ratio':>7}")
        # Each run: these, and the keystrokes between counted and complete. "Complete" is from
        # the open until the filter, typed key by key the moment the counts show, is answered
        # from every row (the typing included).
        first, counted, complete, peak = 0, 1, -2, -1
        report("users: enter → first rows shown, median s", *_medians(ours, stock, first))
        report(
            "users: enter → counted, filter answering, median s",
            *_medians(ours, stock, counted),
        )
        report(
            "users: enter → filter done over all rows, median s",
            *_medians(ours, stock, complete),
        )
        report(
            "users: keystroke → pane updated, median ms",
            _keys(ours, statistics.median),
            _keys(stock, statistics.median),
        )
        report("users: keystroke → pane updated, worst ms", _keys(ours, max), _keys(stock, max))
        report("users: process peak RSS, median MB", *_medians(ours, stock, peak))
    # The memory goal's case: the users list, with a short hub list held beneath it.
    with running_demo_server("--hubs", "50", *flags[2:], "--big-project-users", str(users)) as url:
        ours, stock = [], []
        for _ in range(opens):
            ours.append(keystrokes_in_a_terminal(url, users, "partner"))
            stock.append(
                stock_keystrokes_in_a_terminal(asyncio.run(users_url(url)), users, "partner")
            )
        report("users: peak RSS with 50 hubs, median MB", *_medians(ours, stock, peak))
    startup(runs)


def startup(runs: int) -> None:
    print(f"== start-up in tmux, launch → first hub name, median of {runs}, alternating")
    # A server that takes 100 ms to answer, as a distant one does: the stored list shows first.
    with running_demo_server("--latency", "0.1") as url:
        times = startup_beside_bare_textual(runs, url)
    print(f"{'':<52} {'hubtui':>10} {'bare':>10} {'ratio':>7}")
    report("start-up: hubtui --demo, first start, s", times["demo first"], times["bare first"])
    report(
        "start-up: --base-url (100 ms server), first start, s",
        times["http first"],
        times["bare first"],
    )
    report("start-up: hubtui --demo, from the second start, s", times["demo"], times["bare"])
    report("start-up: --base-url (100 ms server), second on, s", times["http"], times["bare"])
    print("== import time at start (python -X importtime of what the first frame loads), ms")
    for package, spent in import_times().items():
        print(f"  {package:<50} {spent:>10,.1f}")


#: What a start imports before its first frame (``hubtui.cli.main`` blocks httpx's own CLI).
_START_IMPORTS = (
    "import sys; sys.modules['httpx._main'] = None; "
    "import hubtui.cli, hubtui.core.workspace, hubtui.tui.app"
)


def import_times() -> dict[str, float]:
    """Each hubtui package's own import time at start, and the libraries beside it, in ms
    (the median of five fresh interpreters)."""
    import re
    import subprocess

    runs: list[dict[str, float]] = []
    for _ in range(5):
        done = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", _START_IMPORTS],
            capture_output=True,
            text=True,
            check=True,
        )
        spent: dict[str, float] = {}
        for line in done.stderr.splitlines():
            found = re.match(r"import time:\s+(\d+) \|\s+\d+ \|\s*(\S+)", line)
            if found is None:
                continue
            name = found.group(2)
            parts = name.split(".")
            package = ".".join(parts[:3]) if parts[0] == "hubtui" else parts[0]
            spent[package] = spent.get(package, 0.0) + int(found.group(1)) / 1000
        runs.append(spent)
    packages = {name for run in runs for name in run}
    medians = {name: statistics.median(run.get(name, 0.0) for run in runs) for name in packages}
    ours = {k: v for k, v in medians.items() if k.startswith("hubtui")}
    theirs = {k: v for k, v in medians.items() if k in ("textual", "rich", "httpx", "pydantic")}
    shown = {k: v for k, v in sorted(ours.items(), key=lambda kv: -kv[1]) if v >= 1.0}
    shown["hubtui, its other modules"] = sum(v for v in ours.values() if v < 1.0)
    shown["hubtui, in all"] = sum(ours.values())
    shown.update(sorted(theirs.items(), key=lambda kv: -kv[1]))
    return shown


def _medians(ours: list[list[float]], stock: list[list[float]], at: int) -> tuple[float, float]:
    return statistics.median(run[at] for run in ours), statistics.median(run[at] for run in stock)


def _keys(runs: list[list[float]], summary: Callable[[list[float]], float]) -> float:
    """A summary of every keystroke of every run, in ms."""
    return summary([key for run in runs for key in run[2:-2]]) * 1000


def report(name: str, value: float, anchor: float | None = None) -> None:
    """One figure; with its anchor (measured in the same run) and the ratio to it."""
    line = f"{name:<52} {value:>10,.3f}"
    if anchor is not None:
        line += f" {anchor:>10,.3f} {value / anchor:>6.2f}×"
    print(line)


if __name__ == "__main__":
    main()
