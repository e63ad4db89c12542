"""Which calls are tried again, how long they wait, and that a create is never repeated."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import httpx
import pytest

from hubtui.api import ApiConnectionError, HubClient, RateLimitError, ServerError
from hubtui.api.retries import MAX_DELAY, RETRY_AFTER_CEILING, backoff_delay, parse_retry_after
from tests.harness.demo_api import SleepRecorder

NOW = datetime(2026, 11, 23, 12, 0, 0, tzinfo=UTC)
HUB = (
    b'{"Id": "h1", "Name": "acme-build", "RegionSummary": '
    b'{"ApiRegionalUrl": "https://api.example.com"}}'
)
USER = b'{"User": {"Id": 5}, "Role": "Editor", "IsLimited": false}'


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("3", 3.0),
        ("0", 0.0),
        ("1.5", 1.5),
        ("-2", None),
        ("soon", None),
        ("Mon, 23 Nov 2026 12:00:20 GMT", 20.0),
        ("Mon, 23 Nov 2026 11:59:00 GMT", 0.0),
        (None, None),
    ],
)
def test_parse_retry_after(header: str | None, expected: float | None) -> None:
    assert parse_retry_after(header, now=NOW) == expected


def test_backoff_grows_and_is_capped() -> None:
    assert 0.375 <= backoff_delay(0) <= 0.5
    assert 0.75 <= backoff_delay(1) <= 1.0
    assert backoff_delay(30) <= MAX_DELAY


Script = list[httpx.Response | Exception]


def scripted(
    script: Script, seen: list[httpx.Request]
) -> Callable[[httpx.Request], httpx.Response]:
    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        step = script.pop(0)
        if isinstance(step, Exception):
            raise step
        return step

    return handler


def client_for(
    script: Script, seen: list[httpx.Request], sleeps: SleepRecorder, **kw: int
) -> HubClient:
    return HubClient(
        "https://api.example.com",
        token="t",
        transport=httpx.MockTransport(scripted(script, seen)),
        sleep=sleeps,
        clock=lambda: NOW,
        **kw,  # type: ignore[arg-type]
    )


def status(code: int, retry_after: str | None = None) -> httpx.Response:
    headers = {"Retry-After": retry_after} if retry_after is not None else {}
    return httpx.Response(code, json={"title": "busy"}, headers=headers)


@pytest.mark.parametrize(
    ("first", "expected_wait"),
    [
        (status(503, "2"), 2.0),
        (status(429, "Mon, 23 Nov 2026 12:00:07 GMT"), 7.0),
        (status(429, str(int(RETRY_AFTER_CEILING))), RETRY_AFTER_CEILING),
    ],
)
async def test_get_waits_as_the_server_asks_then_succeeds(
    sleeps: SleepRecorder, first: httpx.Response, expected_wait: float
) -> None:
    seen: list[httpx.Request] = []
    async with client_for([first, httpx.Response(200, content=HUB)], seen, sleeps) as client:
        hub = await client.get_hub("h1")
    assert hub.name == "acme-build"
    assert sleeps.waits == [expected_wait]
    assert len(seen) == 2
    assert client.stats.retries == 1


async def test_retry_after_beyond_the_ceiling_ends_the_call_at_once(sleeps: SleepRecorder) -> None:
    seen: list[httpx.Request] = []
    wait = str(int(RETRY_AFTER_CEILING) + 1)
    async with client_for([status(429, wait)], seen, sleeps) as client:
        with pytest.raises(RateLimitError) as caught:
            await client.list_hubs()
    assert caught.value.retry_after == RETRY_AFTER_CEILING + 1
    assert sleeps.waits == []
    assert len(seen) == 1


@pytest.mark.parametrize("code", [502, 503, 504])
async def test_gateway_errors_back_off_and_give_up_after_max_retries(
    sleeps: SleepRecorder, code: int
) -> None:
    seen: list[httpx.Request] = []
    async with client_for([status(code)] * 3, seen, sleeps, max_retries=2) as client:
        with pytest.raises(ServerError):
            await client.list_hubs()
    assert len(seen) == 3
    assert len(sleeps.waits) == 2
    assert sleeps.waits[1] > sleeps.waits[0] * 0.9


async def test_500_is_not_retried(sleeps: SleepRecorder) -> None:
    seen: list[httpx.Request] = []
    async with client_for([status(500)], seen, sleeps) as client:
        with pytest.raises(ServerError):
            await client.list_hubs()
    assert len(seen) == 1


async def test_post_is_never_retried(sleeps: SleepRecorder) -> None:
    seen: list[httpx.Request] = []
    script: Script = [httpx.Response(200, content=HUB), status(503, "1"), httpx.Response(201)]
    async with client_for(script, seen, sleeps) as client:
        with pytest.raises(ServerError):
            await client.create_project_user("h1", 1, email="a@b.com", role="Editor")
    posts = [r for r in seen if r.method == "POST"]
    assert len(posts) == 1
    assert sleeps.waits == []


async def test_post_timeout_is_not_retried_and_says_the_outcome_is_unknown(
    sleeps: SleepRecorder,
) -> None:
    seen: list[httpx.Request] = []
    script: Script = [
        httpx.Response(200, content=HUB),
        httpx.ReadTimeout("slow"),
        httpx.Response(201, content=USER),
    ]
    async with client_for(script, seen, sleeps) as client:
        with pytest.raises(ApiConnectionError) as caught:
            await client.create_project_user("h1", 1, email="a@b.com", role="Editor")
    assert caught.value.sent is True
    assert [r.method for r in seen] == ["GET", "POST"]


async def test_put_and_get_are_retried_after_a_broken_connection(sleeps: SleepRecorder) -> None:
    seen: list[httpx.Request] = []
    script: Script = [
        httpx.ConnectError("refused"),
        httpx.Response(200, content=HUB),
        httpx.RemoteProtocolError("reset"),
        httpx.Response(200, content=USER),
    ]
    async with client_for(script, seen, sleeps) as client:
        user = await client.update_project_user("h1", 1, 5, role="Editor")
    assert user.role == "Editor"
    assert [r.method for r in seen] == ["GET", "GET", "PUT", "PUT"]
    assert len(sleeps.waits) == 2


async def test_max_retries_zero_turns_retries_off(sleeps: SleepRecorder) -> None:
    seen: list[httpx.Request] = []
    async with client_for([status(503, "1")], seen, sleeps, max_retries=0) as client:
        with pytest.raises(ServerError):
            await client.list_hubs()
    assert len(seen) == 1
    assert sleeps.waits == []
