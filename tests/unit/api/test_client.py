"""Every operation against the demo API, path encoding, list shapes and regional routing."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable

import httpx
import pytest

from hubtui.api import (
    ConflictError,
    HubClient,
    InvalidResponseError,
    NotFoundError,
    UnsafeUrlError,
)
from hubtui.demo import DemoStore

ACME = "acme-build"


async def test_list_hubs_has_the_showcase(client: HubClient) -> None:
    hubs = {hub.name: hub for hub in await client.list_hubs()}
    assert hubs[ACME].display_name == "ACME Construction Group"
    assert hubs["riverside-infra"].display_name == "riverside-infra"
    assert {hub.region_name for hub in hubs.values()} >= {"US East", "EU West (Ireland)"}


async def test_get_hub_and_by_name_agree(client: HubClient) -> None:
    by_name = await client.get_hub_by_name(ACME)
    by_id = await client.get_hub(by_name.id)
    # By Id, the published document adds the asking user's permissions; the hub is the same.
    sent = by_id.as_sent()
    assert sent.pop("RequestingUserPermissions") == {"Role": "Admin"}
    assert sent == by_name.as_sent()


async def test_by_name_never_matches_the_display_name(client: HubClient) -> None:
    with pytest.raises(NotFoundError) as caught:
        await client.get_hub_by_name("ACME Construction Group")
    assert "URL name 'ACME Construction Group'" in str(caught.value)


async def test_users_of_a_limited_project_include_limited_readers(client: HubClient) -> None:
    hub = await client.get_hub_by_name(ACME)
    projects = {p.name: p for p in await client.list_projects(hub.id)}
    bridge = projects["Harbour Bridge Retrofit"]
    assert bridge.is_access_limited
    users = await client.list_project_users(hub.id, bridge.id)
    limited = [u for u in users if u.is_limited]
    members = [u for u in users if u.is_limited is False]
    assert len(limited) == 5
    assert all(u.role == "Reader" for u in limited)
    assert {u.role for u in members} == {"Admin", "Editor", "Reader"}
    one = await client.get_project_user(hub.id, bridge.id, limited[0].user.id)
    assert one.is_limited is True


@pytest.mark.parametrize("version", ["v2", "v3"])
async def test_both_api_versions_give_the_same_users(client: HubClient, version: str) -> None:
    hub = await client.get_hub_by_name(ACME)
    v3 = await client.list_project_users(hub.id, 1001)
    other = await client.list_project_users(hub.id, 1001, api_version=version)  # type: ignore[arg-type]
    assert other == v3


async def test_create_then_update_a_member(client: HubClient, demo_store: DemoStore) -> None:
    hub = await client.get_hub_by_name(ACME)
    created = await client.create_project_user(
        hub.id, 1002, email="new.person@acme-build.com", role="Reader", is_reviewer=True
    )
    assert (created.role, created.is_reviewer, created.is_limited) == ("Reader", True, False)
    updated = await client.update_project_user(hub.id, 1002, created.user.id, role="Editor")
    assert updated.role == "Editor"
    fetched = await client.get_project_user(hub.id, 1002, created.user.id, api_version="v2")
    assert fetched.role == "Editor"
    assert demo_store.creates == 1


async def test_updating_a_limited_reader_is_a_conflict(client: HubClient) -> None:
    hub = await client.get_hub_by_name(ACME)
    limited = [u for u in await client.list_project_users(hub.id, 1001) if u.is_limited]
    with pytest.raises(ConflictError) as caught:
        await client.update_project_user(hub.id, 1001, limited[0].user.id, role="Editor")
    assert "not a direct member" in str(caught.value)


async def test_regional_hub_calls_go_to_its_regional_api(client: HubClient) -> None:
    hub = await client.get_hub_by_name("riverside-infra")
    route = client.regional_route(hub)
    assert route.trusted
    assert route.base_url == "http://localhost/regions/eu"
    # The demo answers 421 to a regional hub's calls anywhere but its regional base.
    projects = await client.list_projects(hub.id)
    assert projects


async def test_a_fresh_client_learns_the_region_from_the_hub_once(
    client: HubClient, demo_store: DemoStore
) -> None:
    hub_id = next(h.id for h in demo_store.hubs.values() if h.name == "nordic-rail")
    users = await client.list_project_users(hub_id, next(iter(demo_store.hubs[hub_id].projects)))
    assert users
    await client.list_projects(hub_id)
    assert client.stats.requests == 3  # get hub once, then the two calls


def recorder(
    seen: list[httpx.Request], answer: Callable[[httpx.Request], httpx.Response]
) -> httpx.MockTransport:
    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return answer(request)

    return httpx.MockTransport(handler)


@pytest.mark.parametrize(
    ("name", "raw_path"),
    [
        ("a/b", b"/v3/hubs/name/a%2Fb"),
        ("..", b"/v3/hubs/name/%2E%2E"),
        ("a b?c#d", b"/v3/hubs/name/a%20b%3Fc%23d"),
        ("québec", b"/v3/hubs/name/qu%C3%A9bec"),
    ],
)
async def test_path_parameters_are_one_encoded_segment(name: str, raw_path: bytes) -> None:
    seen: list[httpx.Request] = []
    transport = recorder(seen, lambda r: httpx.Response(404))
    async with HubClient("https://api.example.com", transport=transport, max_retries=0) as c:
        with pytest.raises(NotFoundError):
            await c.get_hub_by_name(name)
    assert seen[0].url.raw_path == raw_path


async def test_an_empty_id_is_refused_before_sending() -> None:
    async with HubClient("https://api.example.com") as c:
        with pytest.raises(ValueError, match="empty"):
            await c.get_hub("")


@pytest.mark.parametrize(
    "body",
    [b'[{"Id": 1, "Name": "P"}]', b'{"value": [{"Id": 1, "Name": "P"}], "@odata.count": 1}'],
)
async def test_lists_come_bare_or_wrapped(body: bytes) -> None:
    hub = b'{"Id": "h", "Name": "h"}'

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=body if request.url.path.endswith("projects") else hub)

    async with HubClient("https://api.example.com", transport=recorder([], answer)) as c:
        projects = await c.list_projects("h")
    assert [p.name for p in projects] == ["P"]


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (b'{"items": []}', 'expected a JSON array or an object with a "value" array'),
        (b"", "the body is empty"),
        (b"<html>oops</html>", "HTML"),
        (b'[{"Id": "h", "Name": 5}]', "at [0].Name"),
        (b'[{"Id": "h", "Name": "x"', "not valid JSON"),
    ],
)
async def test_a_body_that_breaks_the_contract_names_operation_and_field(
    body: bytes, words: str
) -> None:
    transport = recorder([], lambda r: httpx.Response(200, content=body))
    async with HubClient("https://api.example.com", transport=transport) as c:
        with pytest.raises(InvalidResponseError) as caught:
            await c.list_hubs()
    message = str(caught.value)
    assert message.startswith("List hubs failed: the server's answer was not understood")
    assert words in message


def hub_with_region(url: str) -> bytes:
    return json.dumps(
        [{"Id": "h1", "Name": "acme", "RegionSummary": {"ApiRegionalUrl": url}}]
    ).encode()


@pytest.mark.parametrize(
    "regional_url",
    [
        "https://evil.example.net",
        "http://eu.api.example.com",
        "https://user:pw@eu.api.example.com",
        "https://example.com.evil.net",
    ],
)
async def test_an_untrusted_regional_api_never_receives_a_request(regional_url: str) -> None:
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v3/hubs":
            return httpx.Response(200, content=hub_with_region(regional_url))
        return httpx.Response(200, content=b"[]")

    async with HubClient(
        "https://api.example.com", token="secret", transport=recorder(seen, answer)
    ) as c:
        hubs = await c.list_hubs()
        route = c.regional_route(hubs[0])
        await c.list_projects("h1")
    assert not route.trusted
    assert "not trusted" in route.reason
    assert {r.url.host for r in seen} == {"api.example.com"}


async def test_a_trusted_regional_subdomain_gets_the_calls_and_the_token() -> None:
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v3/hubs":
            return httpx.Response(200, content=hub_with_region("https://eu.example.com/api"))
        return httpx.Response(200, content=b"[]")

    async with HubClient(
        "https://api.example.com", token="secret", transport=recorder(seen, answer)
    ) as c:
        await c.list_hubs()
        await c.list_projects("h1")
    regional = seen[-1]
    assert str(regional.url) == "https://eu.example.com/api/v3/hubs/h1/projects"
    assert regional.headers["Authorization"] == "Bearer secret"


async def test_a_listed_host_is_trusted() -> None:
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v3/hubs":
            return httpx.Response(200, content=hub_with_region("https://eu.other-cloud.net"))
        return httpx.Response(200, content=b"[]")

    async with HubClient(
        "https://api.example.com",
        transport=recorder(seen, answer),
        trusted_hosts=["eu.other-cloud.net"],
    ) as c:
        await c.list_hubs()
        await c.list_projects("h1")
    assert seen[-1].url.host == "eu.other-cloud.net"


def test_plain_http_to_another_machine_is_refused() -> None:
    with pytest.raises(UnsafeUrlError, match="unencrypted"):
        HubClient("http://api.example.com", token="secret")
    HubClient("http://127.0.0.1:8765")
    HubClient("http://api.example.com", allow_insecure_http=True)


def test_the_client_and_demo_never_import_textual_and_demo_never_imports_the_client() -> None:
    code = (
        "import sys, hubtui.demo; assert 'hubtui.api.client' not in sys.modules, 'demo->api'; "
        "import hubtui.api; hubtui.api.HubClient; "
        "import hubtui.core.people.search, hubtui.core.presenting.export, hubtui.text; "
        "assert not [m for m in sys.modules if m.split('.')[0] == 'textual'], 'textual'"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
