"""The support ticket in a real terminal at 80×24, keys in one burst as SSH delivers them: a
project's users, filtered to the person, ``W``: the verdict and its facts on screen, the next
step a scroll away, nothing cut."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from tests.harness.demo_api import own_settings
from tests.harness.harness import hubtui_command
from tests.harness.tmux import Terminal

pytestmark = pytest.mark.e2e


def test_w_answers_the_ticket_of_a_limited_reader_at_80x24(tmp_path: Path) -> None:
    env = own_settings(tmp_path)
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
        terminal.wait_for("Next: [1] To let them edit, add them as a direct member", timeout=40)
        terminal.send("Escape")
        terminal.wait_for("Grace Osei", timeout=40)
        terminal.send("q")
        assert terminal.exit_status() == 0
    finally:
        terminal.close()


TICKETS = [
    ("grace.osei@northwind-eng.com", "1001", "acme-build",
     "can only read, as a limited reader through @northwind-eng.com.",
     "add them as a direct member"),
    ("chloe.moreau@acme-build.com", "1001", "acme-build", "can read (a direct Reader).", None),
    ("aiko.tanaka@acme-build.com", "1001", "acme-build", "can edit.", None),
    ("dana.whitfield@acme-build.com", "1001", "acme-build", "admin.", "hub role: Admin"),
    ("hamid.karimi@northwind-eng.com", "1001", "acme-build",
     "cannot get in until they accept the invitation", "hubtui resend-invite acme-build"),
    ("diego.garcia@acme-build.com", "1001", "acme-build", "can read", "They have never signed in."),
    ("fatima.rahman@northwind-eng.com", "1001", "acme-build", "can edit.",
     "Inactive: last seen 5"),
    ("ines.nunes@northwind-eng.com", "1001", "acme-build", "can only read",
     "likely reason they cannot sign in"),
    ("nobody@acme-build.com", "1001", "acme-build", "not a user of acme-build.",
     "not a user of the hub"),
    ("priya.patel@northwind-eng.com", "1012", "nordic-rail", "unknown.", "EXPIRED_SUBSCRIPTION"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("email", "project", "hub", "verdict", "fact"),
    TICKETS,
    ids=[
        "limited reader", "direct Reader", "Editor", "hub Admin", "invitation not accepted",
        "never signed in", "inactive", "outside the SSO tenant", "no access", "not readable",
    ],
)  # fmt: skip
def test_hubtui_why_answers_each_ticket_at_80x24(
    tmp_path: Path, email: str, project: str, hub: str, verdict: str, fact: str | None
) -> None:
    env = own_settings(tmp_path)
    command = [*hubtui_command(), "--demo", "why", email, project, "--hub", hub]
    shell = f"{shlex.join(['env', *env, *command])}; echo exit=$?; sleep 60"
    terminal = Terminal(["sh", "-c", shell], width=80, height=24)
    try:
        terminal.wait_for("exit=", timeout=40)
        shown = terminal.text()
        assert f"{email} in " in shown
        assert f"): {verdict}" in shown.split(f"{email} in ", 1)[1].splitlines()[0]
        if fact is not None:
            assert fact in shown
        assert "exit=3" in shown if verdict == "unknown." else "exit=0" in shown
    finally:
        terminal.close()
