"""Bytes an app writes to a real pseudo-terminal in answer to each cursor move and screen
change: what ``bench.bench_bytes`` prints beside a stock DataTable, and what a test holds."""

from __future__ import annotations

import statistics
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
    *,
    screens: bool = False,
) -> dict[str, float]:
    """The figures of one app; ``answers`` gets what it wrote for each move, by screen.
    ``screens``: the app is hubtui, whose hub detail and project users are measured too (said
    by the caller, never guessed from the command: a checkout named ``hubtui`` runs the stock
    app from a path that holds the word)."""
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
        if screens:
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
