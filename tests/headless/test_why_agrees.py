"""``hubtui why`` and the app's palette answer a ticket by one use case
(``core/workflows/why.py``): the same answers, record for record, for the same tickets."""

from __future__ import annotations

import asyncio
import json

import pytest

from hubtui.demo import DemoStore, Faults, create_app
from hubtui.tui.screens.people.why import WhyScreen
from tests.harness.app import ask_why, running
from tests.harness.commands import run
from tests.harness.fronts import Served


def app_answers(email: str, project: str) -> list[dict[str, object]]:
    async def ask() -> list[dict[str, object]]:
        async with running(size=(120, 40), server=create_app(DemoStore(), Faults())) as pilot:
            await ask_why(pilot, email, project)
            screen = pilot.app.screen
            assert isinstance(screen, WhyScreen)
            return [answer.as_record() for answer in screen.answers]

    return asyncio.run(ask())


@pytest.mark.parametrize(
    ("email", "project"),
    [
        ("grace.osei@northwind-eng.com", "harbour"),  # a limited reader
        ("lena.fischer@example-mail.com", "harbour"),  # a user of the hub, not in the project
        ("aiko.tanaka@acme-biuld.com", "harbour"),  # a typo: nobody, the near address
        ("hamid.karimi@northwind-eng.com", "1001"),  # an invitation never accepted
    ],
)
def test_the_command_and_the_app_answer_a_ticket_the_same(
    capsys: pytest.CaptureFixture[str], demo: Served, email: str, project: str
) -> None:
    status, out, err = run(
        capsys, "--base-url", demo.url, "why", email, project, "--format", "json"
    )
    assert status == 0, err
    said = json.loads(out)
    command = [said] if isinstance(said, dict) else said
    for record in command:
        record.pop("offline")
    assert command == app_answers(email, project)
