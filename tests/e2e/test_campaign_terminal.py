"""A review campaign in a real terminal at 80×24 against the demo server over HTTP: started
with the command, a packet decided in the app with keys sent in one burst as SSH delivers them,
then closed with the command in the same terminal; each step read back from the server."""

from __future__ import annotations

import subprocess
from pathlib import Path

import httpx
import pytest

from hubtui.demo import DEMO_TOKEN
from tests.harness.demo_api import own_settings
from tests.harness.harness import hubtui_command, running_demo_server
from tests.harness.tmux import Terminal

pytestmark = pytest.mark.e2e

ACME_ID = "7d1f0c3e-4b8a-4f6e-9a51-acme00000001"
BJORN = "bjorn.lindqvist@acme-build.com"
HEADERS = {"Authorization": f"Bearer {DEMO_TOKEN}"}


def hub_users(url: str) -> set[str]:
    answer = httpx.get(f"{url}/v3/hubs/{ACME_ID}/users", headers=HEADERS).json()
    return {u["User"]["Email"] for u in answer}


@pytest.mark.slow
def test_a_packet_decided_in_the_app_and_the_campaign_closed_in_a_real_terminal(
    tmp_path: Path,
) -> None:
    env = own_settings(tmp_path)
    with running_demo_server() as url:
        command = ["env", *env, *hubtui_command(), "--base-url", url]
        started = subprocess.run(
            [*command, "campaign", "start", "acme-build"], capture_output=True, text=True
        )
        assert started.returncode == 0, started.stderr
        terminal = Terminal(command, width=80, height=24)
        try:
            terminal.wait_for("acme-build", "8 hubs", timeout=40)
            terminal.send("C-p")
            terminal.type("Campaigns\r")
            terminal.wait_for("Review of acme-build", timeout=40)
            terminal.send("Enter")
            terminal.wait_for("Harbour Bridge Retrofit", "23 left", timeout=40)
            terminal.send("Enter")
            terminal.wait_for("12 memberships", timeout=40)
            terminal.type("/bjorn\rxleft the company\r")  # one burst: the filter, x, its reason
            terminal.wait_for("remove from hub (left the", "11 left", timeout=40)
            terminal.send("q")
            assert terminal.exit_status() == 0
        finally:
            terminal.close()
        assert BJORN in hub_users(url)  # a decision sends nothing
        closed = subprocess.run(
            [*command, "campaign", "close", "1", "--yes"], capture_output=True, text=True
        )
        assert closed.returncode == 0, closed.stderr
        assert "Campaign 1 closed: 1 change verified by reading back" in closed.stderr
        assert BJORN not in hub_users(url)
