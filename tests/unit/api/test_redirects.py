"""The service's datacenter redirect: a 307/308 to a trusted address is followed once, with the
same method and body; anywhere else, or a second time, it is refused and the token stays home."""

from __future__ import annotations

import httpx
import pytest

from hubtui.api import HubClient, InvalidResponseError
from hubtui.api.models import Hub
from hubtui.api.routing import Routes
from hubtui.demo import DEMO_TOKEN, DemoStore, Faults, create_app
from tests.harness.demo_api import DEMO_URL

HUB = {"Id": "h1", "Name": "acme-build", "RegionSummary": {"ApiRegionalUrl": None}}


async def test_a_call_to_the_wrong_datacenter_is_followed_once_and_the_add_made_once() -> None:
    store = DemoStore()
    faults = Faults(datacenter_redirect=True)
    transport = httpx.ASGITransport(app=create_app(store, faults))
    async with HubClient(DEMO_URL, token=DEMO_TOKEN, transport=transport) as client:
        hub = await client.get_hub_by_name("riverside-infra")
        assert hub.api_regional_url is None  # the service names no regional API
        projects = await client.list_projects(hub.id)
        assert projects
        project = projects[0]
    async with HubClient(DEMO_URL, token=DEMO_TOKEN, transport=transport) as client:
        added = await client.create_project_user(
            hub.id, project.id, email="moved@riverside.example", role="Reader"
        )
        assert added.user.email == "moved@riverside.example"
        kept = [(e.method, e.status, e.url) for e in client.exchanges]
    assert store.creates == 1
    posts = [k for k in kept if k[0] == "POST"]
    assert [status for _, status, _ in posts] == [307, 201]
    assert "/regions/eu/" not in posts[0][2]
    assert "/regions/eu/" in posts[1][2]  # the same method and body, at the right address


async def test_a_redirected_hub_is_called_at_its_new_address_for_the_rest_of_the_session() -> None:
    faults = Faults(datacenter_redirect=True)
    transport = httpx.ASGITransport(app=create_app(DemoStore(), faults))
    async with HubClient(DEMO_URL, token=DEMO_TOKEN, transport=transport) as client:
        hub = await client.get_hub_by_name("riverside-infra")
        projects = await client.list_projects(hub.id)
        await client.list_project_users(hub.id, projects[0].id)
        await client.list_project_users(hub.id, projects[-1].id)
        await client.list_hubs()  # a new read of the hubs keeps what the redirect taught
        await client.list_projects(hub.id)
        calls = [(e.status, e.url) for e in client.exchanges]
        route = client.regional_route(hub)
    hub_calls = [c for c in calls if "/projects" in c[1]]
    assert [status for status, _ in hub_calls] == [307, 200, 200, 200, 200]  # one redirect
    assert all("/regions/eu/" in url for _, url in hub_calls[1:])
    assert route.base_url.endswith("/regions/eu")
    assert "redirected its calls" in route.reason


def recorder(
    answer: dict[str, httpx.Response | dict[str, object]],
) -> tuple[httpx.MockTransport, list[httpx.Request]]:
    seen: list[httpx.Request] = []

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.url.path == "/v3/hubs/h1":
            return httpx.Response(200, json=HUB)
        found = answer.get(request.url.host)
        if isinstance(found, httpx.Response):
            return found
        return httpx.Response(200, json=[])

    return httpx.MockTransport(handle), seen


def redirect(to: str) -> httpx.Response:
    return httpx.Response(307, headers={"Location": to})


@pytest.mark.parametrize(
    "target",
    [
        "https://evil.example.net/v3/hubs/h1/projects",  # another domain
        "http://eu.api.example.com/v3/hubs/h1/projects",  # not https
        "https://eu.api.example.com:8443/v3/hubs/h1/projects",  # another port
        "https://user:pw@eu.api.example.com/v3/hubs/h1/projects",  # credentials
    ],
)
async def test_a_redirect_anywhere_untrusted_is_refused_and_the_token_stays_home(
    target: str,
) -> None:
    transport, seen = recorder({"api.example.com": redirect(target)})
    async with HubClient("https://api.example.com", token="s3cret", transport=transport) as client:
        with pytest.raises(InvalidResponseError, match="not trusted") as caught:
            await client.list_projects("h1")
    assert httpx.URL(target).host in str(caught.value)
    assert {r.url.host for r in seen} == {"api.example.com"}  # nothing was sent there
    assert "s3cret" not in str(caught.value)


async def test_a_trusted_redirect_gets_the_token_and_a_second_is_refused() -> None:
    transport, seen = recorder(
        {
            "api.example.com": redirect("https://eu.api.example.com/v3/hubs/h1/projects"),
            "eu.api.example.com": redirect("https://ap.api.example.com/v3/hubs/h1/projects"),
        }
    )
    async with HubClient("https://api.example.com", token="s3cret", transport=transport) as client:
        with pytest.raises(InvalidResponseError, match="redirected a second time"):
            await client.list_projects("h1")
    hosts = [r.url.host for r in seen]
    assert hosts == ["api.example.com", "api.example.com", "eu.api.example.com"]
    assert seen[-1].headers["Authorization"] == "Bearer s3cret"  # trusted: the token goes
    assert "ap.api.example.com" not in hosts


async def test_301_302_and_303_stay_refused() -> None:
    for status in (301, 302, 303):
        moved = httpx.Response(status, headers={"Location": "https://api.example.com/else"})
        transport, seen = recorder({"api.example.com": moved})
        async with HubClient("https://api.example.com", token="t", transport=transport) as client:
            with pytest.raises(InvalidResponseError, match="not followed"):
                await client.list_projects("h1")
        assert [r.url.path for r in seen] == ["/v3/hubs/h1", "/v3/hubs/h1/projects"]


@pytest.mark.parametrize(
    ("sent", "answered", "base"),
    [
        # The same call at another address: the hub's calls go there from now on.
        (
            "https://api.example.com/v3/hubs/h%2F1/projects",
            "https://eu.example.com/r/v3/hubs/h%2F1/projects",
            "https://eu.example.com/r",
        ),
        # Not a call under one hub, or an address that does not end with the call's path.
        (
            "https://api.example.com/v3/hubs/name/acme",
            "https://eu.example.com/v3/hubs/name/acme",
            None,
        ),
        ("https://api.example.com/v3/hubs", "https://eu.example.com/v3/hubs", None),
        ("https://api.example.com/v3/hubs/h1/projects", "https://eu.example.com/elsewhere", None),
    ],
)
def test_a_followed_redirect_moves_only_the_hub_whose_call_it_was(
    sent: str, answered: str, base: str | None
) -> None:
    routes = Routes(httpx.URL("https://api.example.com"), ())
    moved = routes.move(httpx.URL(sent), httpx.URL(answered))
    assert (moved.base_url if moved else None) == base
    if moved is not None:
        hub = Hub.model_validate({"Id": "h/1", "Name": "h"})
        assert routes.judge(hub) == moved  # "h/1", as the server named it
