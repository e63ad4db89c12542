"""What a hostile or broken server cannot do to a search or a change (second review).

A search has an overall bound, a server's long wait is not waited out, a project listed twice is
searched once, a change's outcome follows the status, and a proxy never sees a plain-http or
loopback request.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from collections import Counter
from collections.abc import AsyncIterator

import httpx
import pytest

from hubtui.api import HubClient, InvalidResponseError, ServerError
from hubtui.core.changes.actions import DONE, UNKNOWN
from hubtui.core.changes.record import change_outcome
from hubtui.core.people.search import Finding, PersonQuery, search_people
from tests.harness.demo_api import SleepRecorder
from tests.harness.harness import running_demo_server

PERSON = "pat@example.com"


def user(email: str, role: str = "Editor") -> dict[str, object]:
    return {
        "User": {"Id": 7, "Email": email, "FirstName": "Pat", "LastName": "Doe"},
        "Role": role,
        "IsLimited": False,
    }


def server(projects: list[int], **kinds: object) -> tuple[httpx.MockTransport, Counter[str]]:
    """One hub with these projects; ``kinds`` maps a project id (as text) to how it answers:
    ``"hang"``, a ``(status, headers)`` pair, or (default) a list holding the person."""
    asked: Counter[str] = Counter()

    async def handle(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        asked[path] += 1
        if path == "/v3/hubs":
            return httpx.Response(200, json=[{"Id": "h", "Name": "h"}])
        if path.endswith("/projects"):
            return httpx.Response(200, json=[{"Id": p, "Name": f"P{p}"} for p in projects])
        project = path.split("/")[-2]
        kind = kinds.get(f"p{project}")
        if kind == "hang":
            await asyncio.sleep(3600)
        if isinstance(kind, tuple):
            status, headers = kind
            return httpx.Response(status, headers=headers)
        return httpx.Response(200, json=[user(PERSON)])

    return httpx.MockTransport(handle), asked


async def search(
    transport: httpx.MockTransport, sleeps: SleepRecorder, deadline: float | None = 300.0
) -> tuple[list[Finding], str]:
    findings: list[Finding] = []
    query = PersonQuery(PERSON)
    async with HubClient("https://api.example.com", transport=transport, sleep=sleeps) as client:
        hubs = await client.list_hubs()
        progress = await search_people(
            client, query, hubs, on_finding=findings.append, deadline=deadline
        )
    return findings, progress.summary(query, findings)


async def test_a_project_listed_500_times_is_searched_once(sleeps: SleepRecorder) -> None:
    transport, asked = server([1] * 500 + [2])
    findings, summary = await search(transport, sleeps)
    assert asked["/v3/hubs/h/projects/1/users"] == 1
    assert len(findings) == 2
    assert (
        summary == f"{PERSON}: member of 2 projects (Editor 2), limited reader in 0, absent from 0"
    )


async def test_a_retry_after_of_a_day_marks_projects_not_read_at_once(
    sleeps: SleepRecorder,
) -> None:
    projects = list(range(1, 25))
    refusals = {f"p{p}": (429, {"Retry-After": "86400"}) for p in projects}
    transport, asked = server(projects, **refusals)
    findings, summary = await search(transport, sleeps)
    assert sum(sleeps.waits) == 0  # nobody waits for a day, nor 30 s per project
    assert all(f.failed for f in findings)
    assert len(findings) == 24
    assert "24 projects could not be read" in summary
    assert max(asked.values()) == 1


async def test_a_search_gives_up_at_its_deadline_and_says_so(sleeps: SleepRecorder) -> None:
    transport, _ = server([1, 2, 3, 4], p2="hang", p4="hang")
    findings, summary = await search(transport, sleeps, deadline=0.5)
    by_project = {f.project.id: f for f in findings if f.project is not None}
    assert not by_project[1].failed
    assert not by_project[3].failed
    for hung in (2, 4):
        assert "gave up after 0.5 s, the limit for the whole search" in str(by_project[hung].error)
    assert "member of 2 projects (Editor 2)" in summary
    assert "2 projects could not be read" in summary


async def test_a_wait_past_the_search_deadline_is_not_waited(sleeps: SleepRecorder) -> None:
    transport, asked = server([1, 2], p1=(503, {"Retry-After": "20"}))
    findings, summary = await search(transport, sleeps, deadline=2)
    assert [w for w in sleeps.waits if w >= 2] == []
    by_project = {f.project.id: f for f in findings if f.project is not None}
    assert "Service unavailable" in str(by_project[1].error) or "503" in str(by_project[1].error)
    # The server asked every caller to wait 20 s: the other project is not asked in its
    # stead, nor waited for, since the search's 2 s would be over first.
    assert "the server asked to wait 20 s" in str(by_project[2].error)
    assert asked["/v3/hubs/h/projects/2/users"] == 0
    assert "2 projects could not be read" in summary


def change_answer(
    status: int, headers: dict[str, str], body: bytes | AsyncIterator[bytes]
) -> HubClient:
    def handle(request: httpx.Request) -> httpx.Response:
        if request.method == "GET":  # the hub, looked up for its region
            return httpx.Response(200, json={"Id": "h", "Name": "h"})
        return httpx.Response(status, headers=headers, content=body)

    return HubClient("https://api.example.com", transport=httpx.MockTransport(handle))


async def huge() -> AsyncIterator[bytes]:
    chunk = b"x" * (1024 * 1024)
    for _ in range(130):
        yield chunk


@pytest.mark.parametrize(
    ("status", "headers", "body", "outcome"),
    [
        (201, {"Content-Encoding": "zstd-unknown"}, b"\x00\x01", DONE),
        (201, {}, huge(), DONE),
        # A server that failed may have acted first: unknown, settled by reading back.
        (500, {}, huge(), UNKNOWN),
        (500, {"Content-Encoding": "zstd-unknown"}, b"\x00\x01", UNKNOWN),
        (502, {}, huge(), UNKNOWN),
    ],
    ids=["201-unreadable", "201-oversized", "500-oversized", "500-unreadable", "502-oversized"],
)
async def test_a_changes_outcome_follows_the_status_not_the_method(
    status: int, headers: dict[str, str], body: bytes, outcome: str
) -> None:
    async with change_answer(status, headers, body) as client:
        with pytest.raises((InvalidResponseError, ServerError)) as caught:
            await client.create_project_user("h", 1, email=PERSON, role="Reader")
    assert change_outcome(caught.value) == outcome


class TrapProxy:
    """A listening socket standing in for a proxy: it records every connection it gets."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.sock.settimeout(0.2)
        self.seen: list[bytes] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}"

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            with conn:
                conn.settimeout(1)
                try:
                    self.seen.append(conn.recv(65536))
                except OSError:
                    self.seen.append(b"")

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self.sock.close()


async def test_a_proxy_never_sees_a_plain_http_or_loopback_request(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    trap = TrapProxy()
    try:
        for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "ALL_PROXY"):
            monkeypatch.setenv(name, trap.url)
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        with running_demo_server() as url:
            async with HubClient(url, token="demo-token") as client:
                hubs = await client.list_hubs()
        assert hubs
        assert trap.seen == []
    finally:
        trap.close()
    assert not any(b"demo-token" in seen for seen in trap.seen)


def test_summary_and_rows_agree_for_a_domain(sleeps: SleepRecorder) -> None:
    """Four people, four projects, one membership each: the summary says four, as the rows; the
    project where a limited reader sits beside a member is counted once, as a member's."""
    people = ["a@x.example", "b@x.example", "c@x.example", "d@x.example"]
    roles = ["Admin", "Editor", "Editor", "Reader"]

    def handle(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path == "/v3/hubs":
            return httpx.Response(200, json=[{"Id": "h", "Name": "h"}])
        if path.endswith("/projects"):
            return httpx.Response(200, json=[{"Id": p, "Name": f"P{p}"} for p in range(4)])
        project = int(path.split("/")[-2])
        members = [user(people[project], roles[project])]
        if project == 0:  # a limited reader beside the member
            limited = user("z@x.example", "Reader")
            limited["IsLimited"] = True
            members.append(limited)
        return httpx.Response(200, content=json.dumps(members).encode())

    async def run() -> str:
        findings: list[Finding] = []
        query = PersonQuery("@x.example")
        transport = httpx.MockTransport(handle)
        async with HubClient("https://api.example.com", transport=transport) as client:
            hubs = await client.list_hubs()
            progress = await search_people(client, query, hubs, on_finding=findings.append)
        return progress.summary(query, findings)

    summary = asyncio.run(run())
    assert (
        "member of 4 projects (Admin 1, Editor 2, Reader 1), limited reader in 0, absent from 0"
        in summary
    )
