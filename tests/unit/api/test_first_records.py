"""A large list as it arrives: its first records handed over, and the rest parsed meanwhile."""

from __future__ import annotations

import asyncio
import gc
import json
import random
import sys
import threading
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from hubtui.api import HubClient, ProjectUser, models, streaming
from hubtui.api import client as client_module
from hubtui.api.client import FIRST_RECORDS
from hubtui.api.errors import InvalidResponseError
from hubtui.api.exchanges import BODY_KEPT
from hubtui.api.models import SentRecord
from hubtui.api.parsing import Records, parse_first, parse_list
from hubtui.api.streaming import FIRST_BYTES, Abandoned, GrowingBody
from hubtui.demo import DEMO_TOKEN, DemoSize, DemoStore, Faults, create_app
from tests.harness.demo_api import DEMO_URL


def user(n: int) -> dict[str, object]:
    return {
        "User": {"Id": n, "UserName": f"u{n}", "Email": f"user{n}@acme-build.com"},
        "Role": "Reader",
        "IsReviewer": False,
        "IsLimited": n % 2 == 0,
    }


def test_the_first_records_come_from_the_start_of_the_body_only() -> None:
    body = json.dumps([user(n) for n in range(20_000)]).encode()
    assert len(body) > FIRST_BYTES
    first = parse_first(body, ProjectUser, 200)
    assert [u.user.id for u in first] == list(range(200))
    assert [u.is_limited for u in first[:2]] == [True, False]


def test_a_record_cut_at_the_end_of_the_first_bytes_is_never_shown_half_read() -> None:
    body = json.dumps([user(n) for n in range(20_000)]).encode()
    first = parse_first(body, ProjectUser, 100_000)
    complete = body[:FIRST_BYTES].count(b'"IsLimited"')
    # Every record shown is whole: none has lost its IsLimited to the cut.
    assert len(first) in (complete - 1, complete)
    assert all(u.is_limited is not None for u in first)


def test_a_wrapped_list_and_bad_records_are_read_too() -> None:
    items: list[object] = [user(n) for n in range(5)]
    items[1] = {"User": "not an object"}
    body = json.dumps({"value": items}).encode()
    assert [u.user.id for u in parse_first(body, ProjectUser, 10)] == [0, 2, 3, 4]
    assert parse_first(b"<html>", ProjectUser, 10) == []


async def test_a_large_project_hands_over_its_first_users_before_the_rest() -> None:
    store = DemoStore(DemoSize(big_project_users=5000))
    transport = httpx.ASGITransport(app=create_app(store, Faults()))
    hub = store.hub_by_name("load-test")
    assert hub is not None
    project = next(iter(hub.projects.values()))
    seen: list[Records[ProjectUser]] = []
    async with HubClient(DEMO_URL, token=DEMO_TOKEN, transport=transport) as client:
        small = await client.list_project_users(
            "7d1f0c3e-4b8a-4f6e-9a51-acme00000001", 1001, first=seen.append
        )
        assert len(small) == 12
        assert seen == []  # a small list is read at once: nothing handed over early
        users = await client.list_project_users(hub.id, project.id, first=seen.append)
    assert len(users) == 5000
    assert len(seen) == 1
    assert len(seen[0]) == FIRST_RECORDS
    assert [u.user.id for u in seen[0]] == [u.user.id for u in users[:FIRST_RECORDS]]


class HeldBack(httpx.AsyncBaseTransport):
    """The demo API, but a project's users list arrives in two parts: the second only once
    the first records were shown (or after 5 s, remembered as too late)."""

    def __init__(self, body: bytes, *, failures_first: int = 0) -> None:
        self.demo = httpx.ASGITransport(app=create_app())
        self.body = body
        self.shown = asyncio.Event()
        self.rest_sent_before_shown = False
        self.failures_left = failures_first

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if not request.url.path.endswith("/users"):
            return await self.demo.handle_async_request(request)
        if self.failures_left:
            self.failures_left -= 1
            # A failed answer as long as a list: its start is never taken for records.
            return httpx.Response(503, content=self._failed())
        return httpx.Response(200, content=self._parts())

    async def _failed(self) -> AsyncIterator[bytes]:
        yield self.body[: FIRST_BYTES * 2]

    async def _parts(self) -> AsyncIterator[bytes]:
        yield self.body[: FIRST_BYTES + 1000]
        try:
            await asyncio.wait_for(self.shown.wait(), 5)
        except TimeoutError:
            self.rest_sent_before_shown = True
        yield self.body[FIRST_BYTES + 1000 :]


async def test_the_first_users_are_shown_while_the_rest_of_the_answer_is_on_its_way() -> None:
    body = json.dumps([user(n) for n in range(20_000)]).encode()
    transport = HeldBack(body, failures_first=1)
    seen: list[Records[ProjectUser]] = []

    def first(records: Records[ProjectUser]) -> None:
        seen.append(records)
        transport.shown.set()

    async with HubClient(
        DEMO_URL, token=DEMO_TOKEN, transport=transport, sleep=lambda _: asyncio.sleep(0)
    ) as client:
        users = await client.list_project_users(
            "7d1f0c3e-4b8a-4f6e-9a51-acme00000001", 1001, first=first
        )
    assert not transport.rest_sent_before_shown
    assert [len(records) for records in seen] == [FIRST_RECORDS]  # not from the failed answer
    assert [u.user.id for u in seen[0]] == list(range(FIRST_RECORDS))
    assert [u.user.id for u in users] == list(range(20_000))


def test_a_body_read_on_a_thread_while_it_arrives_gives_the_records_of_the_whole() -> None:
    users: list[object] = [user(n) for n in range(3000)]
    users[1234] = {"User": {"Id": "not a number"}}
    body = json.dumps(users, ensure_ascii=False).encode()
    expected = parse_list(body, "list users", ProjectUser)
    for seed in range(5):
        growing = GrowingBody()
        parsed: list[Records[ProjectUser]] = []
        reading = threading.Thread(
            target=lambda out=parsed, body=growing: out.append(
                parse_list(body, "list users", ProjectUser)
            )
        )
        reading.start()
        sizes = random.Random(seed)
        sent = 0
        while sent < len(body):
            part = body[sent : sent + sizes.randint(1, 40_000)]
            growing.data.extend(part)
            growing.grew()
            sent += len(part)
        growing.end()
        reading.join(10)
        assert parsed == [expected]
        assert parsed[0].skipped == expected.skipped


def test_giving_up_an_answer_stops_the_thread_reading_it() -> None:
    growing = GrowingBody()
    growing.data.extend(json.dumps([user(n) for n in range(100)]).encode()[:-500])
    failures: list[BaseException] = []

    def read() -> None:
        try:
            parse_list(growing, "list users", ProjectUser)
        except Abandoned as exc:
            failures.append(exc)

    reading = threading.Thread(target=read)
    reading.start()
    growing.abandon()
    reading.join(10)
    assert not reading.is_alive()
    assert len(failures) == 1


class Dropped(httpx.AsyncBaseTransport):
    """The demo API, but the users list: sent in parts, the first answer cut off midway."""

    def __init__(self, body: bytes) -> None:
        self.demo = httpx.ASGITransport(app=create_app())
        self.body = body
        self.answers = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if not request.url.path.endswith("/users"):
            return await self.demo.handle_async_request(request)
        self.answers += 1
        return httpx.Response(200, content=self._parts(cut=self.answers == 1))

    async def _parts(self, *, cut: bool) -> AsyncIterator[bytes]:
        half = len(self.body) // 2
        yield self.body[:half]
        await asyncio.sleep(0.05)  # the parse has started on what came
        if cut:
            raise httpx.ReadError("connection reset")
        yield self.body[half:]


async def test_a_list_is_parsed_while_it_arrives_and_a_cut_answer_is_read_afresh(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    body = json.dumps([user(n) for n in range(20_000)]).encode()
    ended_when_parsed: list[bool] = []
    outcomes: list[str] = []

    def watched(content: object, *args: Any, **kwargs: Any) -> Records[Any]:
        if isinstance(content, GrowingBody):
            ended_when_parsed.append(content.ended)
        try:
            records = parse_list(content, *args, **kwargs)  # type: ignore[arg-type]
        except Abandoned:
            outcomes.append("given up")
            raise
        outcomes.append("read")
        return records

    monkeypatch.setattr(client_module, "parse_list", watched)
    transport = Dropped(body)
    async with HubClient(
        DEMO_URL, token=DEMO_TOKEN, transport=transport, sleep=lambda _: asyncio.sleep(0)
    ) as client:
        users = await client.list_project_users("7d1f0c3e-4b8a-4f6e-9a51-acme00000001", 1001)
    assert transport.answers == 2
    # Each answer's parse began before its body had all come; the cut one's was given up.
    assert ended_when_parsed == [False, False]
    assert [u.user.id for u in users] == list(range(20_000))
    for _ in range(100):  # the thread reading the cut answer stops, and is not left waiting
        if len(outcomes) == 2:
            break
        await asyncio.sleep(0.01)
    assert sorted(outcomes) == ["given up", "read"]
    gc.collect()
    await asyncio.sleep(0)
    assert "never retrieved" not in caplog.text


@pytest.mark.parametrize("size", [3, 20_000], ids=["small body", "large body"])
def test_records_read_as_sent_keep_each_object_and_leave_out_what_is_not_one(size: int) -> None:
    sent: list[Any] = [user(n) for n in range(size)]
    sent[1] = 5
    sent[2] = ["not", "an", "object"]
    body = json.dumps(sent).encode()
    records = parse_list(body, "list users", SentRecord)
    assert [r.root for r in records] == [sent[0], *sent[3:]]
    assert records.skipped_count == 2
    assert [str(s) for s in records.skipped] == [
        "record 1: it is not a JSON object",
        "record 2: it is not a JSON object",
    ]


@pytest.fixture
def no_shapes_yet(monkeypatch: pytest.MonkeyPatch) -> None:
    """The shapes of records held as sent as a new process has them: none. Those the other
    tests in this process read (a flood of them too) stay out, and these stay out of theirs."""
    monkeypatch.setattr(models, "_SENT_SHAPES", {})


def sent_with_team(n: int) -> dict[str, Any]:
    return {
        "User": {
            "Id": n,
            "UserName": f"u{n}",
            "Email": f"user{n}@acme-build.com",
            "FirstName": "Ana",
            "LastName": "Silva",
            "AvatarUrl": None,
        },
        "DefaultFilterTemplateId": None,
        "Role": "Reader",
        "Teams": [{"Id": 1, "Name": "Structural"}],
        "IsReviewer": False,
        "IsLimited": n % 2 == 0,
        "Deep": {"A": 1, "B": 2, "C": 3, "D": 4, "E": 5, "F": {"G": [1, 2]}},
    }


@pytest.mark.parametrize("size", [100, 20_000], ids=["small body", "large body"])
@pytest.mark.usefixtures("no_shapes_yet")
def test_records_held_as_sent_are_as_sent_in_less_memory(size: int) -> None:
    sent = [sent_with_team(n) for n in range(size)]
    body = json.dumps(sent).encode()
    records = parse_list(body, "list users", SentRecord)
    # As sent: the same keys in the same order, the same values, written back the same.
    assert [r.root for r in records] == sent
    assert json.dumps([r.root for r in records]).encode() == body
    last = records[-1].root
    # Each record and its user in a dict sharing its keys with the others' (120 bytes in
    # CPython 3.11, not 272), once a list's first few dozen are read.
    for held in (last, last["User"], last["Deep"]):
        assert sys.getsizeof(held) < sys.getsizeof(dict(held))
    # A short text the list repeats is held once for many records (once for each time the
    # reader's bounded store of texts lately read let it go: its slots are placed by a hash
    # seeded for each process, so another text may take a slot once), not once for each.
    for texts in (
        [r.root["User"]["FirstName"] for r in records],
        [r.root["Role"] for r in records],
        [r.root["Teams"][0]["Name"] for r in records],
    ):
        assert len({id(text) for text in texts}) <= max(2, size // 100)


@pytest.mark.usefixtures("no_shapes_yet")
def test_a_flood_of_record_shapes_is_held_as_decoded_past_a_bound() -> None:
    sent = [{f"Field{n}-{k}": k for k in range(6)} for n in range(models._SENT_SHAPES_MAX + 50)]
    records = parse_list(json.dumps(sent).encode(), "list users", SentRecord)
    assert [r.root for r in records] == sent
    assert len(models._SENT_SHAPES) <= models._SENT_SHAPES_MAX


@pytest.mark.usefixtures("no_shapes_yet")
def test_a_record_of_more_keys_than_python_shares_is_held_as_decoded_its_shape_not_kept() -> None:
    sent = [{f"Field{k}": n for k in range(10_000)} for n in range(3)]
    records = parse_list(json.dumps(sent).encode(), "list users", SentRecord)
    assert [r.root for r in records] == sent
    assert models._SENT_SHAPES == {}  # no 10,000-key shape held for the rest of the run


@pytest.mark.parametrize(
    ("body", "read"),
    [
        (b'[{"Name": "\\ud800"}]', [{"Name": "\ud800"}]),  # a lone surrogate
        (
            b'[{"Name": ' + b"[" * 300 + b"]" * 300 + b"}]",
            [{"Name": json.loads("[" * 300 + "]" * 300)}],
        ),
        (b'{"value": [{"Name": "\\ud800"}]}', [{"Name": "\ud800"}]),
    ],
    ids=["lone surrogate", "300 deep", "wrapped"],
)
def test_what_the_faster_reader_refuses_is_read_as_it_always_was(body: bytes, read: Any) -> None:
    assert [r.root for r in parse_list(body, "list users", SentRecord)] == read


class InParts(httpx.AsyncBaseTransport):
    """The demo API, but the users list: ``body``, sent in parts of 64 KB as a network would."""

    def __init__(self, body: bytes) -> None:
        self.demo = httpx.ASGITransport(app=create_app())
        self.body = body

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if not request.url.path.endswith("/users"):
            return await self.demo.handle_async_request(request)
        return httpx.Response(200, content=self._parts())

    async def _parts(self) -> AsyncIterator[bytes]:
        for start in range(0, len(self.body), 64 * 1024):
            yield self.body[start : start + 64 * 1024]
            await asyncio.sleep(0)


def long_user(n: int, name_length: int = 2000) -> dict[str, object]:
    return {**user(n), "User": {"Id": n, "UserName": "u" * name_length}}


async def read_in_parts(body: bytes, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, list[int]]:
    """The project's users read from ``body`` sent in parts, with how much of the body was
    held each time a part had come (and the download had waited for the parse, if it did)."""
    held: list[int] = []
    grew = streaming.ListReader.grew

    async def watched(self: Any, content: bytearray) -> None:
        await grew(self, content)
        held.append(len(content))

    monkeypatch.setattr(streaming.ListReader, "grew", watched)
    async with HubClient(DEMO_URL, token=DEMO_TOKEN, transport=InParts(body)) as client:
        users = await asyncio.wait_for(
            client.list_project_users("7d1f0c3e-4b8a-4f6e-9a51-acme00000001", 1001), 60
        )
        return (users, client.exchanges.last_for("list users of project 1001")), held


async def test_a_large_list_is_never_held_whole_and_its_log_says_all_that_came(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Its parse lets go of what it has read, and the download waits while it is far ahead:
    what is held of a 10 MB body stays near READ_AHEAD_BYTES; the request log still keeps the
    body's start and says how large it was."""
    body = json.dumps([long_user(n) for n in range(5000)]).encode()
    assert len(body) > 2 * streaming.READ_AHEAD_BYTES
    (users, exchange), held = await read_in_parts(body, monkeypatch)
    assert [u.user.id for u in users] == list(range(5000))
    assert max(held) <= streaming.READ_AHEAD_BYTES + streaming.LET_GO_BYTES + 128 * 1024
    assert exchange is not None
    assert exchange.response_size == len(body)
    assert exchange.response_body == body[:BODY_KEPT]


async def test_a_record_larger_than_the_read_ahead_is_read_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The parse waiting for the rest of one long record is never left waiting by a download
    that waits for the parse."""
    huge = 3 * streaming.READ_AHEAD_BYTES  # its parse asks for more than that at once
    body = json.dumps([user(1), long_user(2, huge), user(3)]).encode()
    (users, _), _ = await read_in_parts(body, monkeypatch)
    assert [u.user.id for u in users] == [1, 2, 3]
    assert users[1].user.user_name == "u" * huge


async def test_a_body_past_the_cap_is_refused_though_its_start_was_let_go_of(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("hubtui.api.transport.MAX_RESPONSE_BYTES", 6 * 1024 * 1024)
    body = json.dumps([long_user(n) for n in range(5000)]).encode()
    with pytest.raises(InvalidResponseError, match="larger than 6 MB"):
        await read_in_parts(body, monkeypatch)
