"""Every exchange of the client is kept, the token never, and any one is handed over as curl."""

from __future__ import annotations

import asyncio
import json
import shlex
import subprocess

import pytest

from hubtui.api import HubClient
from hubtui.api.exchanges import (
    PACKED_FROM,
    Exchange,
    ExchangeLog,
    KeptBody,
    as_curl,
    new_id,
    stamp,
)
from hubtui.demo import DEMO_TOKEN, Faults
from tests.harness.harness import running_demo_server


async def test_each_attempt_is_kept_with_its_status_and_the_token_hidden(
    client: HubClient, faults: Faults
) -> None:
    hub = await client.get_hub_by_name("acme-build")
    faults.failure_rate, faults.failure_statuses = 1.0, (503,)
    with pytest.raises(Exception, match="503"):
        await client.list_projects(hub.id)
    faults.failure_rate = 0.0
    kept = list(client.exchanges)
    assert [(e.method, e.status) for e in kept][:1] == [("GET", 200)]
    retried = [e for e in kept if e.operation.startswith("list projects")]
    assert [e.attempt for e in retried] == list(range(len(retried)))
    assert {e.status for e in retried} == {503}
    assert len(retried) >= 2
    for exchange in kept:
        assert DEMO_TOKEN not in repr(exchange)
        assert ("Authorization", "Bearer ***") in exchange.request_headers
    assert json.loads(kept[0].response_body)["Name"] == "acme-build"
    assert kept[0].response_size == len(kept[0].response_body)


def test_the_log_keeps_the_newest_and_lets_old_bodies_go_within_its_budget() -> None:
    log = ExchangeLog(kept=5, budget=250)

    def one(size: int, letter: int) -> Exchange:
        return Exchange(
            id=new_id(),
            started=stamp(),
            operation="op",
            method="GET",
            url="https://api.example/v3/hubs",
            request_headers=(),
            response_kept=KeptBody.of(bytes([letter]) * size),
        )

    for n in range(8):
        log.add(one(100, 65 + n))
    kept = list(log)
    assert len(kept) == 5
    assert log.body_bytes <= 250
    assert [e.body_dropped for e in kept] == [True, True, True, False, False]
    assert kept[-1].response_body == b"H" * 100


def test_the_same_answer_read_again_and_again_is_held_once() -> None:
    """A list reloaded all day: one body in memory, every line still showing it."""
    log = ExchangeLog(kept=1000, budget=10_000)
    body = b'[{"Id": "h1", "Name": "acme-build"}]' * 100
    for _ in range(500):
        log.add(
            Exchange(
                id=new_id(),
                started=stamp(),
                operation="list hubs",
                method="GET",
                url="https://api.example/v3/hubs",
                request_headers=(),
                response_kept=KeptBody.of(bytes(body)),  # a new copy each time, as each answer is
            )
        )
    kept = list(log)
    assert log.body_bytes == KeptBody.of(body).held < len(body)
    assert all(e.response_body == body and not e.body_dropped for e in kept)
    assert len({id(e.response_kept) for e in kept}) == 1


def test_a_long_body_is_held_compressed_and_read_back_as_it_came() -> None:
    """A firm's hub read in the app: 2,000 bodies of 17 KB each in the log, held at a fraction
    of their size, each shown byte for byte when a person opens its request."""
    log = ExchangeLog()
    bodies = [
        json.dumps(
            [
                {"User": {"Email": f"person{p}.{n}@firm.example", "Name": f"Person {n}"}}
                for n in range(50)
            ]
        ).encode()
        for p in range(20)
    ]
    short = b'{"Role": "Editor"}'
    for body in bodies:
        log.add(
            Exchange(
                id=new_id(),
                started=stamp(),
                operation="list users",
                method="GET",
                url="https://api.example/v3/hubs/h/projects/1/users",
                request_headers=(),
                request_kept=KeptBody.of(short),
                response_kept=KeptBody.of(body),
            )
        )
    kept = list(log)
    assert [e.response_body for e in kept] == bodies
    assert all(e.request_body == short for e in kept)
    assert all(len(body) >= PACKED_FROM for body in bodies)
    assert log.body_bytes < sum(map(len, bodies)) / 4


def test_a_log_that_keeps_no_bodies_keeps_every_line() -> None:
    """A headless command's log: each exchange stays (a change's line names the one that
    carried it), its bodies not held."""
    log = ExchangeLog(keeps_bodies=False)
    told: list[Exchange] = []
    log.listeners.append(told.append)
    body = b'[{"Id": "h1", "Name": "acme-build"}]' * 100
    log.add(
        Exchange(
            id="r1",
            started=stamp(),
            operation="list hubs",
            method="GET",
            url="https://api.example/v3/hubs",
            request_headers=(),
            response_kept=KeptBody(body),
            response_size=len(body),
        )
    )
    (kept,) = list(log)
    assert (kept.id, kept.response_size, kept.response_body) == ("r1", len(body), b"")
    assert told == [kept]
    assert log.body_bytes == 0


def test_a_curl_command_holds_no_token_and_no_control_character() -> None:
    exchange = Exchange(
        id=new_id(),
        started=stamp(),
        operation="add",
        method="POST",
        url="https://api.example/v3/hubs/h/projects/1/users",
        request_headers=(
            ("Authorization", "Bearer ***"),
            ("Content-Type", "application/json"),
            ("Accept-Encoding", "gzip, deflate"),
        ),
        request_kept=KeptBody.of(
            json.dumps(
                {"Email": "it's\u202e\x1b[2J\x7f@evil.example", "Role": "Editor"},
                ensure_ascii=False,
            ).encode()
        ),
    )
    command = as_curl(exchange)
    assert "***" not in command
    assert '"Authorization: Bearer $HUBTUI_TOKEN"' in command
    assert all(" " <= c <= "~" for c in command), command
    words = shlex.split(command.replace('"Authorization: Bearer $HUBTUI_TOKEN"', "'A: x'"))
    body = json.loads(words[words.index("--data-binary") + 1])
    assert body["Email"] == "it's\u202e\x1b[2J\x7f@evil.example"  # the same value, escaped
    assert words[words.index("--request") + 1] == "POST"


@pytest.mark.e2e
async def test_a_copied_curl_command_gets_the_same_answer() -> None:
    with running_demo_server() as url:
        async with HubClient(url, token=DEMO_TOKEN) as client:
            hub = await client.get_hub_by_name("acme-build")
            users = await client.list_project_users(hub.id, 1001)
        exchange = client.exchanges.last_for("list users of project 1001")
        assert exchange is not None
        done = await asyncio.to_thread(
            subprocess.run,
            ["sh", "-c", as_curl(exchange)],
            env={"HUBTUI_TOKEN": DEMO_TOKEN, "PATH": "/usr/bin:/bin"},
            capture_output=True,
            timeout=30,
            check=True,
        )
    answered = json.loads(done.stdout)
    assert [u["User"]["Email"] for u in answered] == [u.user.email for u in users]
