"""What a keystroke costs an SSH link: bytes the app writes per cursor move, against Textual's
stock DataTable in the same run (bench/bench_bytes.py prints the full table)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tests.harness.terminal_bytes import measure


def test_a_cursor_move_costs_no_more_than_a_stock_datatable(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path), PYTHONPATH=str(root))
    env.pop("HUBTUI_PROFILE", None)
    stock = measure(
        [sys.executable, "-m", "tests.harness.stock_table_app", "hubs"], (80, 24), 4, b"acme", env
    )
    answers: dict[str, list[bytes]] = {}
    ours = measure(
        [sys.executable, "-m", "hubtui", "--demo"], (80, 24), 4, b"acme", env, answers, screens=True
    )

    def written(screen: str) -> str:
        """On failure: each move's bytes, and what the largest one wrote."""
        largest = max(answers[screen], key=len)
        return f"{[len(a) for a in answers[screen]]}; the largest: {largest[:1500]!r}"

    anchor = stock["list: move, median bytes"]
    assert ours["list: move, median bytes"] <= anchor, written("list")
    assert ours["hub detail: move, median bytes"] <= anchor, written("hub detail")
    # A users move also sends the new person's explanation (about 3 lines of words): at most
    # the two rows plus the panel, never the list again (that was 3,500 bytes at this size).
    assert ours["users: move, median bytes"] <= anchor + 80 * 4 * 2, written("users")
    assert ours["users: move, median bytes"] < ours["open project users, bytes"] / 5
