"""The demo API's rules, checked with plain HTTP (no code shared with hubtui.api)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from hubtui.demo import DEMO_TOKEN, DemoSize, DemoStore, Faults, create_app

ACME_ID = "7d1f0c3e-4b8a-4f6e-9a51-acme00000001"
RIVER_ID = "3c9e8f10-2a6b-4d7c-b1e2-river0000002"
USERS = f"/v3/hubs/{ACME_ID}/projects/1001/users"


async def hubs_by_name(raw: httpx.AsyncClient) -> dict[str, dict[str, Any]]:
    response = await raw.get("/v3/hubs")
    assert response.status_code == 200
    return {hub["Name"]: hub for hub in response.json()}


async def test_showcase_hubs(raw: httpx.AsyncClient) -> None:
    hubs = await hubs_by_name(raw)
    assert hubs["acme-build"]["DisplayName"] == "ACME Construction Group"
    assert hubs["riverside-infra"]["DisplayName"] == "riverside-infra"
    assert {h["RegionSummary"]["Location"] for h in hubs.values()} == {
        "US East",
        "EU West (Ireland)",
    }
    assert any("[" in h["DisplayName"] for h in hubs.values())


async def test_by_name_matches_name_only(raw: httpx.AsyncClient) -> None:
    assert (await raw.get("/v3/hubs/name/acme-build")).json()["Id"] == ACME_ID
    missed = await raw.get("/v3/hubs/name/ACME Construction Group")
    assert missed.status_code == 404
    assert missed.headers["content-type"] == "application/problem+json"
    assert missed.json()["title"] == "Hub not found"


async def test_limited_project_lists_whitelisted_non_members_as_limited_readers(
    raw: httpx.AsyncClient,
) -> None:
    users = (await raw.get(USERS)).json()
    limited = [u for u in users if u["IsLimited"]]
    assert len(limited) == 5
    assert {u["Role"] for u in limited} == {"Reader"}
    assert {u["User"]["Email"].split("@")[1] for u in limited} == {"northwind-eng.com"}
    # A member from the whitelisted domain is a direct member, not a limited reader.
    fatima = next(u for u in users if u["User"]["FirstName"] == "Fatima")
    assert fatima["IsLimited"] is False
    assert fatima["Role"] == "Editor"
    one = await raw.get(f"{USERS}/{limited[0]['User']['Id']}")
    assert one.json()["IsLimited"] is True


async def test_a_project_without_limited_access_has_no_limited_readers(
    raw: httpx.AsyncClient,
) -> None:
    users = (await raw.get(f"/v3/hubs/{ACME_ID}/projects/1002/users")).json()
    assert users
    assert not any(u["IsLimited"] for u in users)


async def test_adding_a_limited_reader_makes_them_a_member(
    raw: httpx.AsyncClient, demo_store: DemoStore
) -> None:
    limited = [u for u in (await raw.get(USERS)).json() if u["IsLimited"]]
    email = limited[0]["User"]["Email"]
    created = await raw.post(USERS, json={"Email": email, "Role": "Editor"})
    assert created.status_code == 201
    assert created.json()["IsLimited"] is False
    again = {u["User"]["Email"]: u for u in (await raw.get(USERS)).json()}
    assert again[email]["IsLimited"] is False
    assert again[email]["Role"] == "Editor"
    assert demo_store.creates == 1
    twice = await raw.post(USERS, json={"Email": email, "Role": "Editor"})
    assert twice.status_code == 409


async def test_put_on_a_limited_reader_is_a_409_problem(raw: httpx.AsyncClient) -> None:
    limited = next(u for u in (await raw.get(USERS)).json() if u["IsLimited"])
    answer = await raw.put(f"{USERS}/{limited['User']['Id']}", json={"Role": "Editor"})
    assert answer.status_code == 409
    assert "not a direct member" in answer.json()["detail"]


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", USERS, {"Email": "not-an-email", "Role": "Reader"}),
        ("POST", USERS, {"Email": "a@b.com", "Role": "Owner"}),
        ("POST", USERS, {"Email": "a@b.com", "Role": "Reader", "IsReviewer": "yes"}),
        ("POST", USERS, ["a list"]),
        ("PUT", f"{USERS}/1", {"Role": "Superuser"}),
    ],
)
async def test_bad_bodies_are_400(
    raw: httpx.AsyncClient, method: str, path: str, body: object
) -> None:
    answer = await raw.request(method, path, json=body)
    assert answer.status_code == 400
    assert answer.json()["status"] == 400


@pytest.mark.parametrize(
    "path",
    [
        "/v3/hubs/no-such-hub",
        f"/v3/hubs/{ACME_ID}/projects/9999/users",
        f"{USERS}/99999",
        f"/v4/hubs/{ACME_ID}/projects/1001/users",
    ],
)
async def test_unknown_ids_are_404(raw: httpx.AsyncClient, path: str) -> None:
    assert (await raw.get(path)).status_code == 404


@pytest.mark.parametrize("header", [None, "Bearer wrong", f"Basic {DEMO_TOKEN}"])
async def test_missing_or_wrong_token_is_401(raw: httpx.AsyncClient, header: str | None) -> None:
    headers = {"Authorization": header} if header else {}
    raw.headers.pop("Authorization")
    answer = await raw.get("/v3/hubs", headers=headers)
    assert answer.status_code == 401
    assert answer.headers["WWW-Authenticate"].startswith("Bearer")


async def test_regional_hubs_answer_only_under_their_regional_base(raw: httpx.AsyncClient) -> None:
    hub = (await raw.get(f"/v3/hubs/{RIVER_ID}")).json()
    regional = hub["RegionSummary"]["ApiRegionalUrl"]
    assert regional == "http://localhost/regions/eu"
    assert (await raw.get(f"/v3/hubs/{RIVER_ID}/projects")).status_code == 421
    assert (await raw.get(f"/regions/eu/v3/hubs/{RIVER_ID}/projects")).status_code == 200
    assert (await raw.get(f"/regions/eu{USERS}")).status_code == 421


def app_client(faults: Faults, store: DemoStore | None = None) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=create_app(store or DemoStore(), faults)),
        base_url="http://localhost",
        headers={"Authorization": f"Bearer {DEMO_TOKEN}"},
    )


async def test_injected_failures_carry_retry_after() -> None:
    async with app_client(Faults(failure_rate=1.0, failure_statuses=(429,), retry_after=4)) as c:
        answer = await c.get("/v3/hubs")
        stats = (await c.get("/_demo/stats")).json()
    assert answer.status_code == 429
    assert answer.headers["Retry-After"] == "4"
    assert stats["injected_failures"] == 1


async def test_malformed_and_truncated_bodies() -> None:
    async with app_client(Faults(malformed_rate=1.0)) as c:
        with pytest.raises(ValueError, match="Expecting|Unterminated|Invalid|delimiter"):
            (await c.get("/v3/hubs")).json()
    async with app_client(Faults(truncated_rate=1.0)) as c:
        answer = await c.get("/v3/hubs")
        full = int(answer.headers["content-length"])
        assert 0 < len(answer.content) < full


async def test_an_older_server_omits_the_new_fields() -> None:
    async with app_client(Faults(omit_new_fields=True)) as c:
        hub = (await c.get(f"/v3/hubs/{ACME_ID}")).json()
        users = (await c.get(USERS)).json()
    assert "DisplayName" not in hub
    assert all("IsLimited" not in u for u in users)


async def test_project_listing_can_be_switched_off() -> None:
    async with app_client(Faults(projects_listing_status=405)) as c:
        assert (await c.get(f"/v3/hubs/{ACME_ID}/projects")).status_code == 405
        assert (await c.get(USERS)).status_code == 200


def test_data_is_deterministic_and_scales() -> None:
    first, second = DemoStore(DemoSize(seed=3)), DemoStore(DemoSize(seed=3))
    assert [h.name for h in first.hubs.values()] == [h.name for h in second.hubs.values()]
    other = DemoStore(DemoSize(seed=4))
    assert [h.name for h in first.hubs.values()] != [h.name for h in other.hubs.values()]
    big = DemoStore(
        DemoSize(hubs=200, projects_per_hub=1, users_per_project=2, big_project_users=2000)
    )
    assert len(big.hubs) == 205
    hub = big.hub_by_name("load-test")
    assert hub is not None
    project = next(iter(hub.projects.values()))
    rows = big.project_users(hub, project)
    assert len(rows) == 2000
    assert sum(1 for _, membership in rows if membership is None) == 200


async def test_a_deeply_nested_body_is_a_400_not_a_crash(raw: httpx.AsyncClient) -> None:
    body = b"[" * 5000 + b"]" * 5000
    answer = await raw.post(USERS, content=body, headers={"Content-Type": "application/json"})
    assert answer.status_code == 400


async def test_every_hub_lists_its_projects_and_their_users(
    raw: httpx.AsyncClient, demo_store: DemoStore
) -> None:
    for hub in demo_store.hubs.values():
        prefix = "/regions/eu" if hub.region == "eu" else ""
        projects = await raw.get(f"{prefix}/v3/hubs/{hub.id}/projects")
        assert projects.status_code == 200, hub.name
        assert {p["Id"] for p in projects.json()} == set(hub.projects)
        for project in projects.json():
            assert project["Author"]["Id"] == hub.author_id
            users = await raw.get(f"{prefix}/v3/hubs/{hub.id}/projects/{project['Id']}/users")
            expired = hub.projects[project["Id"]].subscription_expired
            assert users.status_code == (409 if expired else 200), (hub.name, project["Name"])


async def test_the_triage_showcase(raw: httpx.AsyncClient, demo_store: DemoStore) -> None:
    """Priya Patel: Admin in one project, Editor in one, limited reader in three, else absent."""
    seen: dict[str, list[str]] = {"Admin": [], "Editor": [], "limited": []}
    refused = []
    for hub in demo_store.hubs.values():
        prefix = "/regions/eu" if hub.region == "eu" else ""
        for project in hub.projects.values():
            users = await raw.get(f"{prefix}/v3/hubs/{hub.id}/projects/{project.id}/users")
            if users.status_code == 409:
                assert users.json()["Code"] == "EXPIRED_SUBSCRIPTION"
                refused.append(project.name)
                continue
            for user in users.json():
                if user["User"]["Email"] == "priya.patel@northwind-eng.com":
                    kind = "limited" if user["IsLimited"] else user["Role"]
                    seen[kind].append(project.name)
    assert {kind: len(names) for kind, names in seen.items()} == {
        "Admin": 1,
        "Editor": 1,
        "limited": 3,
    }
    assert refused == ["Bergen Tunnel Survey"]


async def test_a_large_list_is_sent_as_it_is_written_and_arrives_whole() -> None:
    store = DemoStore(DemoSize(hubs=1, users_per_project=2, big_project_users=3000))
    hub = store.hub_by_name("load-test")
    assert hub is not None
    project = next(iter(hub.projects.values()))
    path = f"/v3/hubs/{hub.id}/projects/{project.id}/users"
    async with app_client(Faults(), store=store) as c:
        large, small = await c.get(path), await c.get(USERS)
    # Sent in parts: no length announced before the body is written.
    assert "content-length" not in large.headers
    assert "content-length" in small.headers
    users = large.json()
    assert [u["User"]["Id"] for u in users] == [u.id for u, _ in store.project_users(hub, project)]
    assert sum(1 for u in users if u["IsLimited"]) == 300


async def test_every_connection_the_demo_server_accepts_sends_at_once() -> None:
    """Nagle's algorithm off on each accepted connection: with it on, a body waited for the
    client's delayed ACK of the headers, 40 ms on every answer of a kept-alive connection."""
    import asyncio
    import socket

    from hubtui.cli import listening_socket

    sock = listening_socket("127.0.0.1", 0)
    accepted: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conn = writer.get_extra_info("socket")
        accepted.set_result(conn.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
        writer.close()

    server = await asyncio.start_server(handle, sock=sock)
    async with server:
        _, writer = await asyncio.open_connection(*sock.getsockname())
        assert await asyncio.wait_for(accepted, 5) != 0
        writer.close()
        await writer.wait_closed()


def test_the_latency_pauses_serve_one_loop_after_another_and_all_end_when_the_server_stops() -> (
    None
):
    """An in-process demo serves one test's event loop, then another's; a server asked to stop
    ends a pause already waiting and every later one."""
    import asyncio

    from hubtui.demo.faults import Pauses

    pauses = Pauses()

    async def paused_then_ended() -> None:
        waiting = asyncio.create_task(pauses.pause(30))
        await asyncio.sleep(0.01)
        assert not waiting.done()
        pauses.end()
        await asyncio.wait_for(waiting, timeout=5)  # ended, not after its 30 seconds

    asyncio.run(pauses.pause(0.01))  # a first loop
    asyncio.run(paused_then_ended())  # a second one
    asyncio.run(asyncio.wait_for(pauses.pause(30), timeout=5))  # ended before it began


async def test_kept_answers_are_sent_again_until_a_change_and_only_to_the_same_token() -> None:
    store = DemoStore()
    async with app_client(Faults(keep_answers=True), store) as c:
        first = await c.get(USERS)
        store.users.clear()  # what the server holds moved, behind its API's back
        kept = await c.get(USERS)
        assert kept.content == first.content  # the read's first answer, not built again
        stranger = await c.get(USERS, headers={"Authorization": "Bearer someone-else"})
        assert stranger.status_code == 401
    store = DemoStore()
    async with app_client(Faults(keep_answers=True), store) as c:
        before = (await c.get(USERS)).json()
        created = await c.post(USERS, json={"Email": "kept@acme-build.com", "Role": "Reader"})
        assert created.status_code == 201
        after = (await c.get(USERS)).json()
    assert len(after) == len(before) + 1
    assert "kept@acme-build.com" in {u["User"]["Email"] for u in after}


def test_a_hubs_people_are_made_once_and_each_project_draws_from_them() -> None:
    """``--people-per-hub``: a hub's people are made once and each project's users drawn from
    them, so that 2,000 projects of 100,000 people build in seconds (they were made again for
    each project: 200 million people, gigabytes, never done)."""
    showcase = len(DemoStore().users)
    store = DemoStore(
        DemoSize(hubs=1, projects_per_hub=200, users_per_project=5, people_per_hub=300)
    )
    hub = next(h for h in store.hubs.values() if h.name.endswith("-1"))
    drawn = {user for project in hub.projects.values() for user in project.members}
    assert len(drawn) <= 300
    assert len(drawn) > 200  # 1,000 memberships drawn from 300 people: most are drawn
    assert len(store.users) - showcase <= 300 + 2  # the hub's people and two partners
