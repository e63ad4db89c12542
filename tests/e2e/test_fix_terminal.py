"""From a ticket to a previewed fix in a real terminal at 80×24, against the demo server over
HTTP, keys in bursts as SSH delivers them: ``W`` on the person, the step's key, the preview (read
again), confirmed; each step read back from the server."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from hubtui.demo import DEMO_TOKEN
from tests.harness.demo_api import own_settings
from tests.harness.harness import hubtui_command, running_demo_server
from tests.harness.tmux import Terminal

pytestmark = pytest.mark.e2e

ACME_ID = "7d1f0c3e-4b8a-4f6e-9a51-acme00000001"
HEADERS = {"Authorization": f"Bearer {DEMO_TOKEN}"}


def project_users(url: str) -> dict[str, tuple[str, bool]]:
    answer = httpx.get(f"{url}/v3/hubs/{ACME_ID}/projects/1001/users", headers=HEADERS).json()
    return {u["User"]["Email"]: (u["Role"], u["IsLimited"]) for u in answer}


def stats(url: str) -> dict[str, int]:
    found: dict[str, int] = httpx.get(f"{url}/_demo/stats", headers=HEADERS).json()
    return found


def open_why(terminal: Terminal, person: str, wanted: str) -> None:
    """The ticket's person found and asked about, a step at a time (the keys of a burst are
    the subject of tests/e2e/test_why_terminal.py)."""
    terminal.wait_for("acme-build", "8 hubs", timeout=40)
    terminal.send("Enter")
    terminal.wait_for("Harbour Bridge Retrofit", timeout=40)
    terminal.send("Enter")
    terminal.wait_for("12 users", timeout=40)
    terminal.type(f"/{person}")
    terminal.wait_for(f"matching “{person}”", timeout=40)
    terminal.send("Enter")
    terminal.wait_for("e Edit", timeout=40)  # the filter kept, the list has the keys again
    terminal.send("W")
    terminal.wait_for(f"Why can {person}", timeout=40)
    terminal.send("End")
    terminal.wait_for(wanted, timeout=40)


@pytest.mark.slow
def test_a_limited_reader_made_an_editor_from_the_ticket_at_80x24(tmp_path: Path) -> None:
    grace = "grace.osei@northwind-eng.com"
    env = own_settings(tmp_path)
    with running_demo_server() as url:
        assert project_users(url)[grace] == ("Reader", True)
        terminal = Terminal(
            ["env", *env, *hubtui_command(), "--base-url", url], width=80, height=24
        )
        try:
            open_why(terminal, "grace", "[1] To let them edit")
            terminal.send("1")
            terminal.wait_for("Add grace.osei@northwind-eng.com to Harbour", timeout=40)
            terminal.send("Enter")  # the role the step suggests: Editor
            terminal.wait_for("Fix for grace", "Role Editor", timeout=40)
            assert stats(url)["creates"] == 0  # a preview: nothing sent
            terminal.send("a")
            terminal.wait_for("Send 1 change?", timeout=40)
            terminal.send("y")
            terminal.wait_for("1 done, 0 failed, 0 unknown", timeout=40)
            terminal.send("q")
            assert terminal.exit_status() == 0
        finally:
            terminal.close()
        assert project_users(url)[grace] == ("Editor", False)
        assert stats(url)["creates"] == 1


@pytest.mark.slow
def test_an_invitation_never_accepted_sent_again_from_the_ticket_at_80x24(tmp_path: Path) -> None:
    env = own_settings(tmp_path)
    with running_demo_server() as url:
        terminal = Terminal(
            ["env", *env, *hubtui_command(), "--base-url", url], width=80, height=24
        )
        try:
            open_why(terminal, "hamid", "[1] They cannot get in until they accept")
            before = stats(url)["updates"]
            terminal.send("1")
            terminal.wait_for("Send the invitation to hub acme-build again", timeout=40)
            assert stats(url)["updates"] == before  # asked first
            terminal.send("y")
            terminal.wait_for("invitation sent again", timeout=40)
            terminal.send("q")
            assert terminal.exit_status() == 0
        finally:
            terminal.close()
        assert stats(url)["updates"] == before + 1  # one email, once
