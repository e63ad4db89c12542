"""The client against hostile servers on loopback: bounded memory and time, one bad record costs
only itself, a change never repeated, and the token only where it belongs."""

from __future__ import annotations

import asyncio
import json
import time
import zlib

import httpx
import pytest

from hubtui.api import (
    ApiStatusError,
    ApiTimeoutError,
    HubClient,
    InvalidResponseError,
)
from hubtui.api.routing import is_loopback_host, judge_regional_url
from tests.harness.hostile import HUB, USER, Answer, Handler, gzip_bomb, hostile_server, json_answer

USERS = "/v3/hubs/h1/projects/1001/users"


def hubs_then(answer: Answer) -> Handler:
    """A handler: the hub list first (so routes are known), then ``answer`` for anything else."""

    def handler(method: str, path: str, body: bytes) -> Answer:
        if path == "/v3/hubs":
            return json_answer([HUB])
        return answer

    return handler


@pytest.mark.parametrize(
    ("encoding", "body"),
    [
        ("gzip, gzip", gzip_bomb(64, layers=2)),
        ("gzip", gzip_bomb(64, layers=1)),
        ("deflate", zlib.compress(b"[" + b" " * (64 * 1024 * 1024) + b"]", 9)),
    ],
    ids=["stacked gzip", "gzip", "deflate"],
)
async def test_compression_bombs_are_refused_within_the_cap(
    encoding: str, body: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("hubtui.api.transport.MAX_RESPONSE_BYTES", 8 * 1024 * 1024)
    answer = (200, {"Content-Encoding": encoding}, [body], 0.0)
    async with hostile_server(lambda m, p, b: answer) as server:
        async with HubClient(server.url, max_retries=0) as client:
            with pytest.raises(InvalidResponseError) as caught:
                await client.list_hubs()
    message = str(caught.value)
    if "," in encoding:
        assert "encoded more than once (gzip, gzip), which hubtui refuses" in message
    else:
        assert "larger than 8 MB" in message


async def test_a_gzip_answer_within_the_cap_is_read() -> None:
    import gzip

    body = gzip.compress(json.dumps([HUB]).encode())
    answer = (200, {"Content-Encoding": "gzip"}, [body[:10], body[10:]], 0.0)
    async with hostile_server(lambda m, p, b: answer) as server:
        async with HubClient(server.url) as client:
            hubs = await client.list_hubs()
    assert [h.name for h in hubs] == ["acme-build"]


async def test_an_encoding_hubtui_did_not_ask_for_is_a_clear_error() -> None:
    answer = (200, {"Content-Encoding": "br"}, [b"\x00\x01"], 0.0)
    async with hostile_server(lambda m, p, b: answer) as server:
        async with HubClient(server.url) as client:
            with pytest.raises(InvalidResponseError, match="encoding 'br' is not one hubtui"):
                await client.list_hubs()


async def test_a_drip_ends_at_the_overall_deadline() -> None:
    body = json.dumps([HUB] * 50).encode()
    drip: Answer = (200, {}, [body[i : i + 1] for i in range(len(body))], 0.05)
    async with hostile_server(lambda m, p, b: drip) as server:
        async with HubClient(server.url, deadline=1.0, timeout=30) as client:
            started = time.monotonic()
            with pytest.raises(ApiTimeoutError) as caught:
                await client.list_hubs()
            took = time.monotonic() - started
    assert "no complete answer within 1 s, the limit for one call" in str(caught.value)
    assert caught.value.may_have_applied
    assert took < 5  # the drip alone would take over 100 s


async def test_a_flood_of_tiny_records_is_refused_by_count() -> None:
    flood = json.dumps([{"Id": str(n), "Name": "x"} for n in range(3000)]).encode()
    answer: Answer = (200, {}, [flood], 0.0)
    async with hostile_server(lambda m, p, b: answer) as server:
        async with HubClient(server.url, max_records=1000) as client:
            with pytest.raises(InvalidResponseError, match="more than 1,000 records"):
                await client.list_hubs()


async def test_a_flood_refused_while_it_arrives_is_read_no_further() -> None:
    flood = json.dumps([{"Id": str(n), "Name": "x"} for n in range(400_000)]).encode()
    parts = [flood[i : i + 65536] for i in range(0, len(flood), 65536)]
    # 3.2 MB a second: a quarter of the flood is 0.9 s of sending, however busy the machine
    # (at 12.8 MB a second, a loaded run let a 1 MB write more through before the refusal).
    answer: Answer = (200, {}, parts, 0.02)
    async with hostile_server(lambda m, p, b: answer) as server:
        async with HubClient(server.url, max_records=20_000) as client:
            with pytest.raises(InvalidResponseError, match="more than 20,000 records"):
                await client.list_hubs()
        # Refused by count on the thread parsing it, a few parts in: the rest is never read.
        assert server.sent < len(flood) // 4


async def test_one_unreadable_regional_url_costs_only_its_own_hub() -> None:
    bad = {
        **HUB,
        "Id": "h2",
        "Name": "bad",
        "RegionSummary": {"ApiRegionalUrl": "https://xn--a.example.com"},
    }
    good = {**HUB, "RegionSummary": {"ApiRegionalUrl": "https://eu.example.com"}}
    async with hostile_server(lambda m, p, b: json_answer([bad, good])) as server:
        async with HubClient(server.url) as client:
            hubs = await client.list_hubs()
            route = client.regional_route(hubs[0])
    assert [h.name for h in hubs] == ["bad", "acme-build"]
    assert not route.trusted
    assert route.why == "its host cannot be read"


async def test_one_bad_user_record_costs_only_itself() -> None:
    users = [USER, {"User": {"Id": "not a number"}, "Role": "Reader"}, {**USER, "Role": "Admin"}]
    async with hostile_server(hubs_then(json_answer(users))) as server:
        async with HubClient(server.url) as client:
            await client.list_hubs()
            listed = await client.list_project_users("h1", 1001)
    assert [u.role for u in listed] == ["Editor", "Admin"]
    assert listed.skipped_count == 1
    assert "record 1:" in str(listed.skipped[0])


@pytest.mark.parametrize(
    "answer",
    [
        (201, {}, [b"<html>created</html>"], 0.0),
        (201, {}, [b""], 0.0),
        (200, {}, [b'{"User": '], 0.0),
    ],
    ids=["html", "empty", "cut"],
)
async def test_an_add_answered_with_success_but_no_readable_body_is_read_back(
    answer: Answer,
) -> None:
    def handler(method: str, path: str, body: bytes) -> Answer:
        if path == "/v3/hubs":
            return json_answer([HUB])
        if method == "POST":
            return answer
        return json_answer([{**USER, "User": {"Id": 9, "Email": "New@B.example"}}])

    async with hostile_server(handler) as server:
        async with HubClient(server.url) as client:
            await client.list_hubs()
            added = await client.create_project_user(
                "h1", 1001, email="new@b.example", role="Reader"
            )
    assert added.user.id == 9
    assert server.count("POST") == 1


async def test_an_add_whose_answer_and_read_back_both_fail_is_applied_not_failed() -> None:
    def handler(method: str, path: str, body: bytes) -> Answer:
        if path == "/v3/hubs":
            return json_answer([HUB])
        if method == "POST":
            return (201, {}, [b"not json"], 0.0)
        return json_answer([])  # the new user is not (yet) listed

    async with hostile_server(handler) as server:
        async with HubClient(server.url) as client:
            await client.list_hubs()
            with pytest.raises(InvalidResponseError) as caught:
                await client.create_project_user("h1", 1001, email="n@b.example", role="Reader")
    assert caught.value.applied
    assert "the server accepted the change (HTTP 201)" in str(caught.value)
    assert server.count("POST") == 1


@pytest.mark.parametrize("status", [502, 504])
async def test_a_gateway_error_to_an_add_leaves_its_outcome_unknown(status: int) -> None:
    async with hostile_server(hubs_then(json_answer({"title": "Bad gateway"}, status))) as server:
        async with HubClient(server.url) as client:
            await client.list_hubs()
            with pytest.raises(ApiStatusError) as caught:
                await client.create_project_user("h1", 1001, email="n@b.example", role="Reader")
    assert caught.value.may_have_applied
    assert server.count("POST") == 1


async def test_requests_say_they_come_from_hubtui() -> None:
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=[HUB])

    async with HubClient("https://api.example.com", transport=httpx.MockTransport(answer)) as c:
        await c.list_hubs()
    assert seen[0].headers["User-Agent"].startswith("hubtui/")
    assert seen[0].headers["Accept-Encoding"] == "gzip, deflate"


@pytest.mark.parametrize(
    ("base", "regional", "trusted", "why"),
    [
        ("http://127.0.0.1:9041", "http://127.0.0.1:9042", False, "its port 9042 is not"),
        ("http://127.0.0.1:9041", "http://127.0.0.1:9041/eu", True, "configured server's"),
        ("https://api.example.com", "https://api.example.com:1", False, "its port 1 is not"),
        ("https://api.example.com:8443", "https://eu.example.com", True, "under example.com"),
        ("https://api.example.co.uk", "https://evil.co.uk", False, "nor under example.co.uk"),
        ("https://api.example.co.uk", "https://eu.example.co.uk", True, "under example.co.uk"),
        ("https://me.azurewebsites.net", "https://x.azurewebsites.net", False, "is not"),
        ("https://me.github.io", "https://y.github.io", False, "is not"),
        ("http://localhost:8000", "http://evil.localhost:8000", False, "it is not https"),
        ("https://api.example.com", "https://xn--a.example.com", False, "cannot be read"),
    ],
)
def test_which_regional_urls_are_trusted(base: str, regional: str, trusted: bool, why: str) -> None:
    route = judge_regional_url(regional, base_url=httpx.URL(base))
    assert route.trusted is trusted
    assert why in route.why


def test_only_localhost_and_loopback_addresses_are_loopback() -> None:
    assert is_loopback_host("localhost")
    assert is_loopback_host("127.0.0.5")
    assert is_loopback_host("[::1]")
    assert not is_loopback_host("demo.localhost")
    assert not is_loopback_host("localhost.example.com")


async def test_the_token_never_goes_to_another_port_of_the_same_host() -> None:
    async with hostile_server(lambda m, p, b: json_answer([])) as other:
        port = other.url.rsplit(":", 1)[1]

        def handler(method: str, path: str, body: bytes) -> Answer:
            if path != "/v3/hubs":
                return json_answer([])
            regional = f"http://127.0.0.1:{port}"
            return json_answer([{**HUB, "RegionSummary": {"ApiRegionalUrl": regional}}])

        async with hostile_server(handler) as server:
            async with HubClient(server.url, token="sk-secret") as client:
                await client.list_hubs()
                await client.list_projects("h1")
        assert other.requests == []  # the calls went to the configured server instead
        assert server.count("GET", "/v3/hubs/h1/projects") == 1


async def test_a_slow_change_can_be_abandoned_by_cancelling_it() -> None:
    async def slow(method: str, path: str, body: bytes) -> Answer:
        await asyncio.sleep(30)
        return json_answer(USER, 201)

    def handler(method: str, path: str, body: bytes) -> Answer | object:
        return json_answer([HUB]) if path == "/v3/hubs" else slow(method, path, body)

    async with hostile_server(handler) as server:  # type: ignore[arg-type]
        async with HubClient(server.url) as client:
            await client.list_hubs()
            task = asyncio.create_task(
                client.create_project_user("h1", 1001, email="n@b.example", role="Reader")
            )
            await asyncio.sleep(0.3)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
    assert server.count("POST") == 1
