"""The datacenter redirect and the request log over real loopback HTTP, between demo servers.

Loopback addresses other than 127.0.0.1 stand for other hosts: a server on 127.0.0.2 is "another
datacenter" the person trusts, one on 127.0.0.3 a host nobody listed. Each server requires the
token, so a call it answers is one the token reached; its request count says whether anything
reached it at all.
"""

from __future__ import annotations

from contextlib import ExitStack

import httpx
import pytest

from hubtui.api import ApiStatusError, HubClient, InvalidResponseError
from hubtui.demo import DEMO_TOKEN
from tests.harness.demo_api import no_wait
from tests.harness.harness import free_port, running_demo_server

pytestmark = pytest.mark.e2e


def demo_stats(url: str) -> dict[str, int]:
    """The demo server's counts: calls answered, creates made."""
    answer = httpx.get(f"{url}/_demo/stats", headers={"Authorization": f"Bearer {DEMO_TOKEN}"})
    stats: dict[str, int] = answer.json()
    return stats


def requests_seen(url: str) -> int:
    """How many API calls the server at ``url`` has answered."""
    return demo_stats(url)["requests"]


async def test_a_307_to_a_trusted_host_is_followed_once_and_the_token_reaches_it() -> None:
    port = free_port()
    there = f"http://127.0.0.2:{port}"
    with (
        running_demo_server(host="127.0.0.2", port=port),
        running_demo_server("--redirect-to", there, port=port) as here,
    ):
        async with HubClient(here, token=DEMO_TOKEN, trusted_hosts=["127.0.0.2"]) as client:
            hub = await client.get_hub_by_name("acme-build")
            projects = await client.list_projects(hub.id)
            users = await client.list_project_users(hub.id, projects[0].id)
            kept = [(e.status, httpx.URL(e.url).host) for e in client.exchanges]
        assert projects
        assert users
        assert kept == [
            (200, "127.0.0.1"),
            (307, "127.0.0.1"),
            (200, "127.0.0.2"),  # followed once, with the token
            (200, "127.0.0.2"),  # and remembered: no second 307
        ]
        assert requests_seen(there) == 2  # the token reached it: it answers nothing without


@pytest.mark.parametrize("second_redirect", [False, True])
async def test_a_307_anywhere_untrusted_or_a_second_one_is_refused_and_nothing_reaches_it(
    second_redirect: bool,
) -> None:
    port = free_port()
    elsewhere = f"http://127.0.0.3:{port}"
    trusted = f"http://127.0.0.2:{port}"
    with ExitStack() as stack:
        stack.enter_context(running_demo_server(host="127.0.0.3", port=port))
        first_hop = trusted if second_redirect else elsewhere
        if second_redirect:
            stack.enter_context(
                running_demo_server("--redirect-to", elsewhere, host="127.0.0.2", port=port)
            )
        here = stack.enter_context(running_demo_server("--redirect-to", first_hop, port=port))
        async with HubClient(here, token=DEMO_TOKEN, trusted_hosts=["127.0.0.2"]) as client:
            hub = await client.get_hub_by_name("acme-build")
            with pytest.raises(InvalidResponseError) as caught:
                await client.list_projects(hub.id)
        assert ("second time" if second_redirect else "not trusted") in str(caught.value)
        assert "127.0.0.3" in str(caught.value)
        assert requests_seen(elsewhere) == 0  # neither the call nor the token went there


async def test_the_services_datacenter_redirect_is_followed_and_remembered() -> None:
    with running_demo_server("--datacenter-redirect") as url:
        async with HubClient(url, token=DEMO_TOKEN) as client:
            hub = await client.get_hub_by_name("riverside-infra")
            projects = await client.list_projects(hub.id)
            await client.create_project_user(
                hub.id, projects[0].id, email="moved@riverside.example", role="Reader"
            )
            kept = [(e.method, e.status, httpx.URL(e.url).path) for e in client.exchanges]
        creates = demo_stats(url)["creates"]
    assert [status for _, status, _ in kept] == [200, 307, 200, 201]
    assert all(path.startswith("/regions/eu/") for _, _, path in kept[2:])
    assert creates == 1


async def test_the_log_holds_every_attempt_with_its_status_and_try() -> None:
    with running_demo_server("--failure-rate", "1", "--failure-statuses", "503") as url:
        async with HubClient(url, token=DEMO_TOKEN, max_retries=2, sleep=no_wait) as client:
            with pytest.raises(ApiStatusError):
                await client.list_hubs()
            kept = [(e.status, e.attempt, e.method) for e in client.exchanges]
    assert kept == [(503, 0, "GET"), (503, 1, "GET"), (503, 2, "GET")]
