"""An access review in a real terminal at 80×24 against the demo server over HTTP, as a reviewer
does it: the hub's people, a decision typed in one burst, the preview, apply, the review kept;
then the change log's revert puts the person back. Each step is read back from the server."""

from __future__ import annotations

import csv
import io
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


def hub_users(url: str) -> dict[str, str]:
    answer = httpx.get(f"{url}/v3/hubs/{ACME_ID}/users", headers=HEADERS).json()
    return {u["User"]["Email"]: u["Role"] for u in answer}


def project_users(url: str) -> dict[str, tuple[str, bool]]:
    answer = httpx.get(f"{url}/v3/hubs/{ACME_ID}/projects/1001/users", headers=HEADERS).json()
    return {u["User"]["Email"]: (u["Role"], u["IsReviewer"]) for u in answer}


@pytest.mark.slow
def test_review_decide_preview_apply_revert_in_a_real_terminal(tmp_path: Path) -> None:
    env = own_settings(tmp_path)
    with running_demo_server() as url:
        assert project_users(url)[BJORN] == ("Editor", True)
        terminal = Terminal(
            ["env", *env, *hubtui_command(), "--base-url", url], width=80, height=24
        )
        try:
            terminal.wait_for("acme-build", "8 hubs", timeout=40)
            terminal.send("Enter")
            terminal.wait_for("3 projects", timeout=40)
            terminal.send("P")
            terminal.wait_for("13 people", timeout=40)
            terminal.type("/bjorn\r")
            terminal.wait_for("1 row shown matching", timeout=40)
            terminal.type("dxleft the company\r")  # one burst: the dialog takes it all
            terminal.wait_for("REMOVE FROM HUB", "1 decided", timeout=40)
            terminal.send("v")
            terminal.wait_for("Review of acme-build", "1 to send", timeout=40)
            terminal.send("a")
            terminal.wait_for("Send 1 change?", timeout=40)
            terminal.send("y")
            terminal.wait_for("Review #1 kept", timeout=40)
            assert BJORN not in hub_users(url)
            assert BJORN not in project_users(url)
            terminal.send("Escape")
            terminal.wait_for("12 people", "0 rows shown matching", timeout=40)  # read again
            terminal.send("c")
            terminal.wait_for("remove from hub", timeout=40)
            terminal.send("R")
            terminal.wait_for("Revert of batch", "invited to the hub as Guest", timeout=40)
            terminal.send("a")
            terminal.wait_for("Send 2 changes?", timeout=40)
            terminal.send("y")
            terminal.wait_for("2 done, 0 failed, 0 unknown", timeout=40)
            terminal.send("q")
            assert terminal.exit_status() == 0
        finally:
            terminal.close()
        assert hub_users(url)[BJORN] == "Guest"
        assert project_users(url)[BJORN] == ("Editor", True)
        kept = subprocess.run(
            ["env", *env, *hubtui_command(), "--base-url", url, "reviews", "1", "--format", "csv"],
            capture_output=True,
            text=True,
            check=True,
        )
        (row,) = list(csv.DictReader(io.StringIO(kept.stdout)))
        assert (row["email"], row["decision"], row["reason"], row["outcome"]) == (
            BJORN,
            "remove from hub",
            "left the company",
            "done",
        )
