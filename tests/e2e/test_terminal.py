"""The installed `hubtui` command in a real terminal (tmux), as a person runs it."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.harness.harness import hubtui_command, running_demo_server
from tests.harness.tmux import Terminal

pytestmark = pytest.mark.e2e


@pytest.fixture
def demo_terminal() -> Iterator[Terminal]:
    terminal = Terminal([*hubtui_command(), "--demo"], width=120, height=32)
    try:
        yield terminal
    finally:
        terminal.close()


def test_demo_browsing_in_a_real_terminal(demo_terminal: Terminal) -> None:
    screen = demo_terminal.wait_for("acme-build", "ACME Construction Group", "8 hubs")
    assert "(none set = Name)" in screen
    demo_terminal.send("Enter")
    demo_terminal.wait_for("Harbour Bridge Retrofit", "3 projects · 2 with Limited access")
    demo_terminal.send("Enter")
    screen = demo_terminal.wait_for(
        "Harbour Bridge Retrofit", "12 users · 7 members · 5 limited readers"
    )
    assert "Grace Osei" in screen
    assert "LIMITED" in screen
    demo_terminal.send("End")
    demo_terminal.wait_for("LIMITED READER")
    demo_terminal.send("q")
    assert demo_terminal.exit_status() == 0


def test_against_demo_server_over_http(server: str) -> None:
    terminal = Terminal(["env", "HUBTUI_TOKEN=demo-token", *hubtui_command(), "--base-url", server])
    try:
        terminal.wait_for("acme-build", "8 hubs")
        assert "127.0.0.1" in terminal.screen()
        terminal.send("g")
        terminal.wait_for("Go to a hub by its URL name")
        time.sleep(0.3)  # at a person's pace: the dialog takes a moment to focus its field
        terminal.type("riverside-infra")
        terminal.send("Enter")
        terminal.wait_for("Kraków Water Works", "trusted")
        terminal.send("q")
        assert terminal.exit_status() == 0
    finally:
        terminal.close()


def test_w_finds_a_person_across_projects(demo_terminal: Terminal) -> None:
    demo_terminal.wait_for("acme-build", "8 hubs")
    demo_terminal.send("w")
    demo_terminal.wait_for("Find a person in all hubs")
    time.sleep(0.3)  # at a person's pace: the dialog takes a moment to focus its field
    demo_terminal.type("priya.patel@northwind-eng.com")
    demo_terminal.send("Enter")
    screen = demo_terminal.wait_for(
        "member of 2 projects (Admin 1, Editor 1), limited reader in 3", "NOT READ"
    )
    assert "Uppsala Depot" in screen
    assert "LIMITED @northwind-eng.com" in screen
    demo_terminal.send("q")
    assert demo_terminal.exit_status() == 0


def test_q_then_e_at_once_quits_cleanly(demo_terminal: Terminal) -> None:
    # The edit form opened while the app quit, and crashed looking for its fields (exit 1).
    demo_terminal.wait_for("acme-build", "8 hubs")
    demo_terminal.send("Enter")
    demo_terminal.wait_for("Harbour Bridge Retrofit")
    demo_terminal.send("Enter")
    demo_terminal.wait_for("12 users")
    demo_terminal.send("q", "e")
    assert demo_terminal.exit_status() == 0


def test_switching_profile_between_two_servers(tmp_path: Path) -> None:
    with running_demo_server() as first, running_demo_server() as second:
        config = tmp_path / "config.toml"
        config.write_text(
            # Each profile with its own server has its own token source.
            f'default_profile = "a"\n[profiles.a]\nbase_url = "{first}"\n'
            'token_command = "echo demo-token"\n'
            f'[profiles.b]\nbase_url = "{second}"\ntoken_command = "echo demo-token"\n',
            encoding="utf-8",
        )
        terminal = Terminal(
            ["env", f"HUBTUI_CONFIG={config}", "HUBTUI_TOKEN=not-for-profiles", *hubtui_command()],
            width=120,
            height=32,
        )
        try:
            terminal.wait_for("8 hubs", f"profile a · server {first.removeprefix('http://')}")
            terminal.send("C-p")
            terminal.wait_for("Search for commands")
            time.sleep(0.3)
            terminal.type("switch to profile b")
            terminal.wait_for("Switch to profile b")
            terminal.send("Enter")
            terminal.wait_for("8 hubs", f"profile b · server {second.removeprefix('http://')}")
            terminal.send("q")
            assert terminal.exit_status() == 0
        finally:
            terminal.close()
        answer = httpx.get(f"{second}/_demo/stats", headers={"Authorization": "Bearer demo-token"})
        assert answer.json()["by_route"]["GET /v3/hubs"] == 1


def test_the_next_start_and_offline_read_what_was_kept_at_80x24() -> None:
    first = Terminal([*hubtui_command(), "--demo"], width=80, height=24)
    try:
        first.wait_for("acme-build", "8 hubs")
        first.send("q")
        assert first.exit_status() == 0
    finally:
        first.close()
    offline = Terminal([*hubtui_command(), "--demo", "--offline"], width=80, height=24)
    try:
        screen = offline.wait_for("acme-build", "8 hubs", "· offline")
        assert "READ-ONLY (no changes) · stored " in screen
        offline.send("Enter")  # a hub whose projects were never read: not stored, said so
        offline.wait_for("Not kept: this hub's projects", "· offline")
        offline.send("q")
        assert offline.exit_status() == 0
    finally:
        offline.close()
