"""`hubtui demo-server` over real loopback HTTP, as curl and the client see it."""

from __future__ import annotations

import httpx
import pytest

from hubtui.api import ApiConnectionError, HubClient, InvalidResponseError
from hubtui.demo import DEMO_TOKEN
from tests.harness.demo_api import no_wait
from tests.harness.harness import running_demo_server

pytestmark = pytest.mark.e2e

SEED = "2"


def test_curl_like_request_lists_the_showcase_hubs(server: str) -> None:
    answer = httpx.get(f"{server}/v3/hubs", headers={"Authorization": f"Bearer {DEMO_TOKEN}"})
    assert answer.status_code == 200
    names = {hub["Name"] for hub in answer.json()}
    assert {"acme-build", "riverside-infra", "nordic-rail"} <= names
    assert httpx.get(f"{server}/v3/hubs").status_code == 401


async def test_every_operation_over_http(server: str) -> None:
    async with HubClient(server, token=DEMO_TOKEN) as client:
        hubs = await client.list_hubs()
        river = next(h for h in hubs if h.name == "riverside-infra")
        assert client.regional_route(river).base_url == f"{server}/regions/eu"
        projects = await client.list_projects(river.id)
        users = await client.list_project_users(river.id, projects[0].id, api_version="v2")
        user = await client.get_project_user(river.id, projects[0].id, users[0].user.id)
        assert user == users[0]
        created = await client.create_project_user(
            river.id, projects[0].id, email="night.shift@riverside-infra.eu", role="Reader"
        )
        updated = await client.update_project_user(
            river.id, projects[0].id, created.user.id, role="Admin", is_reviewer=True
        )
        assert (updated.role, updated.is_reviewer) == ("Admin", True)
        assert (await client.get_hub_by_name("riverside-infra")).id == river.id
    async with httpx.AsyncClient() as plain:
        answer = await plain.get(
            f"{server}/_demo/stats", headers={"Authorization": f"Bearer {DEMO_TOKEN}"}
        )
        stats = answer.json()
    assert stats["creates"] == 1
    assert stats["updates"] == 1


async def test_a_body_cut_off_mid_way_is_a_typed_error() -> None:
    with running_demo_server("--truncated-rate", "1") as url:
        async with HubClient(url, token=DEMO_TOKEN, max_retries=0) as client:
            with pytest.raises((ApiConnectionError, InvalidResponseError)) as caught:
                await client.list_hubs()
    assert "List hubs failed" in str(caught.value)


async def test_a_refused_connection_is_a_typed_error_saying_nothing_was_sent() -> None:
    from tests.harness.harness import free_port

    port = free_port()
    async with HubClient(f"http://127.0.0.1:{port}", max_retries=0) as client:
        with pytest.raises(ApiConnectionError) as caught:
            await client.list_hubs()
    assert caught.value.sent is False
    assert f"127.0.0.1:{port} refused the connection" in str(caught.value)


def test_demo_server_names_its_real_port_and_refuses_a_busy_one() -> None:
    import socket
    import subprocess

    from tests.harness.harness import hubtui_command

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run(
            [*hubtui_command(), "demo-server", "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"hubtui: cannot listen on 127.0.0.1:{port}: Address already in use. Choose another "
        "with --port (--port 0 picks a free one)."
    ]
    server = subprocess.Popen(
        [*hubtui_command(), "demo-server", "--port", "0"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        banner = server.stdout.readline()
        assert banner.startswith("hubtui demo API on http://127.0.0.1:")
        assert ":0 " not in banner
        named = int(banner.split(" on ", 1)[1].split(" ", 1)[0].rsplit(":", 1)[1])
        # Listening once it is named: a connection made at once is not refused.
        socket.create_connection(("127.0.0.1", named), timeout=10).close()
    finally:
        server.terminate()
        server.wait(timeout=10)
        if server.stdout:
            server.stdout.close()


async def test_a_large_list_cut_off_while_it_is_parsed_is_read_whole_on_a_retry() -> None:
    # Half of the answers are cut off midway; this seed cuts the users list's first two answers
    # after far more than the 256 KB from which a list is parsed while it arrives.
    flags = ["--big-project-users", "5000", "--truncated-rate", "0.5", "--seed", SEED]
    with running_demo_server(*flags) as url:
        async with HubClient(url, token=DEMO_TOKEN, sleep=no_wait) as client:
            hub = await client.get_hub_by_name("load-test")
            project = (await client.list_projects(hub.id))[0]
            before = client.stats.retries
            users = await client.list_project_users(hub.id, project.id)
            retried = client.stats.retries - before
    assert retried >= 1
    assert len(users) == 5000
    assert len({u.user.id for u in users}) == 5000
    assert sum(1 for u in users if u.is_limited) == 500


async def test_ctrl_c_stops_a_demo_server_at_once_and_answers_the_change_it_held() -> None:
    """A change held back by --change-latency 30 when the person presses Ctrl+C: the server
    answers it (the change was made) and stops, rather than wait out the 30 seconds."""
    import asyncio
    import signal

    from tests.harness.harness import hubtui_command, wait_in_flight

    command = [*hubtui_command(), "demo-server", "--port", "0", "--change-latency", "30"]
    pipe = asyncio.subprocess.PIPE
    server = await asyncio.create_subprocess_exec(*command, stdout=pipe, stderr=pipe)
    assert server.stdout is not None
    assert server.stderr is not None
    try:
        url = (await server.stdout.readline()).decode().split()[4]
        async with HubClient(url, token=DEMO_TOKEN, max_retries=0) as client:
            hub = (await client.list_hubs())[0]
            project = (await client.list_projects(hub.id))[0]
            member = (await client.list_project_users(hub.id, project.id))[0]
            change = asyncio.create_task(
                client.update_project_user(hub.id, project.id, member.user.id, role="Reader")
            )
            await asyncio.to_thread(wait_in_flight, url, 1)  # the change made, its answer held
            server.send_signal(signal.SIGINT)
            answered = await asyncio.wait_for(change, timeout=10)
        assert answered.role == "Reader"
        assert await asyncio.wait_for(server.wait(), timeout=10) == 0
        assert (await server.stderr.read()).decode().strip() == "hubtui demo API stopped."
    finally:
        if server.returncode is None:
            server.kill()
            await server.wait()
