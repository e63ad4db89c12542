"""Bytes written to the terminal per keystroke: hubtui beside a stock Textual DataTable.

Run:  python -m bench.bench_bytes            (80×24 and 200×60, 12 moves each)
      python -m bench.bench_bytes --quick    (80×24 only, 4 moves)

Each app runs in its own pseudo-terminal (TERM=xterm-256color) in the same run; a cursor move
is down or up on a list, and the figure is the median of the bytes the app wrote in answer. A
screen change is enter (open the highlighted row). Over SSH these bytes are the keystroke's cost.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from collections.abc import Sequence

from tests.harness.pty_terminal import PtyTerminal


def moves(terminal: PtyTerminal, count: int) -> list[bytes]:
    """What the app wrote in answer to each of ``count`` cursor moves (down, then up)."""
    half = max(1, count // 2)
    return [terminal.key("down") for _ in range(half)] + [terminal.key("up") for _ in range(half)]


def measure(
    command: Sequence[str],
    size: tuple[int, int],
    count: int,
    ready: bytes,
    env: dict[str, str],
    answers: dict[str, list[bytes]] | None = None,
) -> dict[str, float]:
    """The figures of one app; ``answers`` gets what it wrote for each move, by screen."""
    terminal = PtyTerminal(command, width=size[0], height=size[1], env=env)
    figures: dict[str, float] = {}
    seen = answers if answers is not None else {}

    def moved(screen: str) -> None:
        seen[screen] = moves(terminal, count)
        figures[f"{screen}: move, median bytes"] = statistics.median(map(len, seen[screen]))

    try:
        terminal.wait_for(ready)
        terminal.read_until_quiet(quiet=0.5)
        figures["start-up, bytes"] = len(terminal.screen_bytes)
        moved("list")
        if "hubtui" in " ".join(command):
            terminal.key("down")
            terminal.key("down")
            # Each screen is measured once it has loaded (its summary counts what it read).
            opened = terminal.key("enter", until=b"with Limited access")
            figures["open hub detail, bytes"] = len(opened)
            terminal.read_until_quiet(quiet=0.5)
            moved("hub detail")
            opened = terminal.key("enter", until=b"limited readers")
            figures["open project users, bytes"] = len(opened)
            terminal.read_until_quiet(quiet=0.5)
            moved("users")
    finally:
        terminal.close()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    sizes = [(80, 24)] if args.quick else [(80, 24), (200, 60)]
    count = 4 if args.quick else 12
    with tempfile.TemporaryDirectory() as home:
        env = dict(os.environ, HOME=home, XDG_CONFIG_HOME=home, XDG_STATE_HOME=home)
        env.pop("HUBTUI_PROFILE", None)
        for size in sizes:
            print(f"== {size[0]}×{size[1]}, TERM=xterm-256color")
            stock = measure(
                [sys.executable, "-m", "bench.stock_table_app", "hubs"], size, count, b"acme", env
            )
            ours = measure([sys.executable, "-m", "hubtui", "--demo"], size, count, b"acme", env)
            anchor = stock["list: move, median bytes"]
            report("stock DataTable: move, median bytes", anchor, 1.0)
            for name, value in ours.items():
                ratio = value / anchor if name.endswith("move, median bytes") else None
                report(f"hubtui {name}", value, ratio)
            report("stock DataTable: start-up, bytes", stock["start-up, bytes"], None)


def report(name: str, value: float, ratio: float | None) -> None:
    shown = f"{ratio:5.2f}×" if ratio is not None else ""
    print(f"{name:<46} {value:>10,.0f} {shown}")


if __name__ == "__main__":
    main()
