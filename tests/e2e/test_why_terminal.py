"""The support ticket in a real terminal at 80×24, keys in one burst as SSH delivers them: a
project's users, filtered to the person, ``W``: the verdict and its facts on screen, the next
step a scroll away, nothing cut."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.tmux import Terminal
from hubtui.demo import DEMO_TOKEN
from tests.conftest import hubtui_command

pytestmark = pytest.mark.e2e


def test_w_answers_the_ticket_of_a_limited_reader_at_80x24(tmp_path: Path) -> None:
    env = [
        f"HUBTUI_TOKEN={DEMO_TOKEN}",
        f"HUBTUI_DATA_DIR={tmp_path / 'data'}",
        f"HUBTUI_CONFIG={tmp_path / 'none.toml'}",
    ]
    terminal = Terminal(["env", *env, *hubtui_command(), "--demo"], width=80, height=24)
    try:
        terminal.wait_for("acme-build", timeout=40)
        terminal.send("Enter")
        terminal.wait_for("Harbour Bridge Retrofit", timeout=40)
        terminal.type("\r/grace\rW")  # the project, the filter, the question: one burst
        shown = terminal.wait_for(
            "Why can grace.osei@northwind-eng.com get in",
            "IsLimited: true",
            "y Copy for a ticket",
            timeout=40,
        )
        assert "Harbour Bridge Retrofit (acme-build): can only read, as a" in shown
        assert "reader through @northwind-eng.com." in shown
        assert "…" not in shown  # wrapped, never cut
        terminal.send("End")
        terminal.wait_for("Next: To let them edit, add them as a direct member", timeout=40)
        terminal.send("Escape")
        terminal.wait_for("Grace Osei", timeout=40)
        terminal.send("q")
        assert terminal.exit_status() == 0
    finally:
        terminal.close()
