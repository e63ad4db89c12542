"""Each status and both error body shapes map to the right class and a sentence a person reads."""

from __future__ import annotations

import json

import httpx
import pytest

from hubtui.api import (
    ApiStatusError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    HubClient,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ServerError,
)

TOKEN = "sk-secret-token-123"


def answering(status: int, body: bytes | str, content_type: str = "application/json") -> HubClient:
    payload = body.encode() if isinstance(body, str) else body

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, content=payload, headers={"Content-Type": content_type})

    return HubClient(
        "https://api.example.com",
        token=TOKEN,
        transport=httpx.MockTransport(handler),
        max_retries=0,
    )


PROBLEM = json.dumps(
    {"type": "about:blank", "title": "Hub not found", "status": 404, "detail": "No hub x."}
)


@pytest.mark.parametrize(
    ("status", "cls"),
    [
        (400, BadRequestError),
        (401, AuthenticationError),
        (403, PermissionDeniedError),
        (404, NotFoundError),
        (409, ConflictError),
        (429, RateLimitError),
        (500, ServerError),
        (502, ServerError),
        (503, ServerError),
        (504, ServerError),
        (418, ApiStatusError),
    ],
)
async def test_status_maps_to_class(status: int, cls: type[ApiStatusError]) -> None:
    async with answering(status, "{}") as client:
        with pytest.raises(cls) as caught:
            await client.get_hub("x")
    assert type(caught.value) is cls
    assert caught.value.status_code == status
    assert f"HTTP {status}" in str(caught.value)
    assert str(caught.value).startswith("Get hub 'x' failed")


async def test_problem_details_words_are_in_the_message() -> None:
    async with answering(404, PROBLEM, "application/problem+json") as client:
        with pytest.raises(NotFoundError) as caught:
            await client.get_hub("x")
    error = caught.value
    assert error.title == "Hub not found"
    assert error.detail == "No hub x."
    assert str(error) == (
        "Get hub 'x' failed: it was not found (HTTP 404). "
        "The server said: Hub not found — No hub x."
    )


async def test_code_and_message_body_of_409() -> None:
    body = json.dumps(
        {
            "Code": "EXPIRED_SUBSCRIPTION",
            "Message": "The subscription has expired.",
            "WebsiteLoginUrl": "https://example.com/login",
        }
    )
    async with answering(409, body) as client:
        with pytest.raises(ConflictError) as caught:
            await client.update_project_user("h", 1, 2, role="Editor")
    error = caught.value
    assert error.code == "EXPIRED_SUBSCRIPTION"
    assert error.server_message == "The subscription has expired."
    assert "EXPIRED_SUBSCRIPTION — The subscription has expired." in str(error)


async def test_html_error_page_gives_plain_words() -> None:
    async with answering(502, "<html><body>Bad gateway</body></html>", "text/html") as client:
        with pytest.raises(ServerError) as caught:
            await client.list_hubs()
    assert str(caught.value) == (
        "List hubs failed: a gateway in front of the server failed (HTTP 502)."
    )


async def test_no_error_or_repr_holds_the_token() -> None:
    async with answering(401, PROBLEM) as client:
        assert TOKEN not in repr(client)
        with pytest.raises(AuthenticationError) as caught:
            await client.list_hubs()
    assert TOKEN not in str(caught.value)
    assert TOKEN not in repr(caught.value)


async def test_a_refused_connection_names_host_and_port_and_is_not_retried() -> None:
    from hubtui.api import ApiConnectionError, HubClient
    from tests.harness.harness import free_port

    port = free_port()  # nothing listens there
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    async with HubClient(f"http://127.0.0.1:{port}", token="t", sleep=sleep) as client:
        with pytest.raises(ApiConnectionError) as raised:
            await client.list_hubs()
    assert raised.value.refused
    assert f"127.0.0.1:{port} refused the connection" in str(raised.value)
    assert waits == []  # said at once: a retry would be refused the same


@pytest.mark.parametrize(
    ("code", "says"),
    [
        (
            "USER_PROFILE_NOT_CREATED",
            "Sign in to the web app once (https://app.example.com/login) to create your profile",
        ),
        ("FUNCTIONALITY_NOT_AVAILABLE", "The hub's plan does not include this"),
    ],
)
async def test_the_services_codes_come_with_what_to_do(code: str, says: str) -> None:
    import httpx

    from hubtui.api import ConflictError, HubClient
    from hubtui.demo import DEMO_TOKEN, DemoStore, Faults, create_app

    transport = httpx.ASGITransport(app=create_app(DemoStore(), Faults(refuse_with_code=code)))
    async with HubClient("http://localhost", token=DEMO_TOKEN, transport=transport) as client:
        with pytest.raises(ConflictError) as caught:
            await client.list_hubs()
    assert code in str(caught.value)
    assert says in str(caught.value)
