"""An app left open all day: resident memory per 100 operations, beside the idle line.

Run:  python -m bench.bench_soak            (100 of each operation, about 8 minutes)
      python -m bench.bench_soak --count 1000
      python -m bench.bench_soak --quick    (40 of each)
      python -m bench.bench_soak --terminal (the installed app in tmux: 100 hub-list reloads,
                                             then the RSS after each 100 more, three times)

The app runs headless on the in-process demo API. Each operation is warmed up 20 times, then
repeated; the figure is the growth of the process's resident memory (VmRSS) per 100 operations.
The anchor is the same app left idle for as long as the slowest operation took.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from textual.pilot import Pilot

from hubtui.cli import demo_connector
from hubtui.config import load_settings
from hubtui.core.workspace import open_workspace
from hubtui.tui.app import HubTuiApp

Operation = Callable[[Pilot[None]], Awaitable[None]]


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


async def settle(pilot: Pilot[None]) -> None:
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def keys(pilot: Pilot[None], *pressed: str) -> None:
    for key in pressed:
        await pilot.press(key)
        await settle(pilot)


async def reload(pilot: Pilot[None]) -> None:
    await keys(pilot, "r")


async def open_and_back(pilot: Pilot[None]) -> None:
    await keys(pilot, "enter", "enter", "escape", "escape")


async def search(pilot: Pilot[None]) -> None:
    await keys(pilot, "w")
    await pilot.press(*"@northwind-eng.com")
    await keys(pilot, "enter", "escape", "escape")


async def soak(name: str, operation: Operation | None, count: int, seconds: float) -> float:
    """MB of resident memory per 100 operations (per the same time idle, for None)."""
    settings = load_settings(need_token=False)
    app = HubTuiApp(open_workspace(settings, demo=demo_connector))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        for _ in range(20):
            if operation is not None:
                await operation(pilot)
        gc.collect()
        before, started = rss_mb(), time.perf_counter()
        if operation is None:
            await asyncio.sleep(seconds)
        else:
            for _ in range(count):
                await operation(pilot)
        took = time.perf_counter() - started
        gc.collect()
        grown = rss_mb() - before
    per_100 = grown * 100 / count
    print(f"{name:<22} {count:>6} {took:>8.1f} {grown:>+9.2f} {per_100:>+11.2f}", flush=True)
    return took


async def run(count: int) -> None:
    print(f"{'operation':<22} {'count':>6} {'seconds':>8} {'RSS MB':>9} {'MB per 100':>11}")
    slowest = 0.0
    for name, operation in (
        ("reload the hub list", reload),
        ("open hub, project, back", open_and_back),
        ("search @domain", search),
    ):
        slowest = max(slowest, await soak(name, operation, count, 0))
    await soak("idle (anchor)", None, count, slowest)


def in_a_terminal(warm: int = 100, blocks: int = 3, each: int = 100) -> None:
    """``hubtui --demo`` in tmux, ``r`` pressed as a person would: the process's RSS after
    ``warm`` reloads, then after each ``each`` more (the issue's figure: 300 more grow it by
    0.75 MB at most)."""
    import subprocess
    import sys

    from tests.harness.tmux import Terminal

    data = tempfile.mkdtemp(prefix="hubtui-soak-")
    command = ["env", f"HUBTUI_DATA_DIR={data}", sys.executable, "-m", "hubtui", "--demo"]
    terminal = Terminal(command, width=100, height=30)

    def resident(pid: int) -> float:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0

    def reloads(count: int) -> None:
        for _ in range(count):
            terminal.send("r")
            time.sleep(0.08)
        time.sleep(1.5)

    try:
        terminal.wait_until(lambda s: "acme-build" in s, timeout=30, poll=0.05)
        found = subprocess.run(["pgrep", "-f", "hubtui --demo"], capture_output=True, text=True)
        ours = [  # the app itself: its environment names this run's data folder
            int(p)
            for p in found.stdout.split()
            if data.encode() in Path(f"/proc/{p}/environ").read_bytes()
        ]
        pid = max(ours, key=resident)
        reloads(warm)
        marks = [resident(pid)]
        for _ in range(blocks):
            reloads(each)
            marks.append(resident(pid))
        print(f"RSS MB after {warm} reloads, then every {each} more: {marks}")
        print(f"grown over {blocks * each}: {marks[-1] - marks[0]:+.2f} MB")
        terminal.send("q")
    finally:
        terminal.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--terminal", action="store_true", help="reloads in a real terminal")
    parser.add_argument("--count", type=int, default=100, help="operations of each kind")
    args = parser.parse_args()
    if args.terminal:
        in_a_terminal()
        return
    count = 40 if args.quick else args.count
    os.environ.setdefault("HUBTUI_DATA_DIR", tempfile.mkdtemp(prefix="hubtui-soak-"))
    asyncio.run(run(count))


if __name__ == "__main__":
    main()
