"""Against a server with no project list (the published document has none), in a real terminal
at 80×24, keys sent in one burst: the hub's page asks for a project id, digits go into it, and
the screen's own keys (P: the hub's people) still work; the footer offers P."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.harness.demo_api import own_settings
from tests.harness.harness import hubtui_command, running_demo_server
from tests.harness.tmux import Terminal

pytestmark = pytest.mark.e2e


def test_p_opens_the_people_while_the_project_id_prompt_waits(tmp_path: Path) -> None:
    env = own_settings(tmp_path)
    with running_demo_server("--no-project-list") as url:
        terminal = Terminal(
            ["env", *env, *hubtui_command(), "--base-url", url], width=80, height=24
        )
        try:
            terminal.wait_for("acme-build", "8 hubs", timeout=40)
            terminal.send("Enter")
            terminal.wait_for("cannot list a hub's projects", "P People", timeout=40)
            terminal.type("P")
            terminal.wait_for("13 people", timeout=40)
            terminal.send("Escape")
            terminal.wait_for("Projects cannot be listed here", timeout=40)
            terminal.type("p1001\r")  # in one burst: p to the prompt, the id, enter
            terminal.wait_for("project 1001", "12 users", timeout=40)
            terminal.send("q")
            assert terminal.exit_status() == 0
        finally:
            terminal.close()
