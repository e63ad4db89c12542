"""A list the server sends in pages (OData ``@odata.nextLink``) is read whole, or said to be
incomplete: never a first page taken for the whole list."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from hubtui.api import HubClient, IncompleteListError, InvalidResponseError
from hubtui.demo import DEMO_TOKEN, DemoSize, DemoStore, Faults, create_app
from tests.harness.demo_api import DEMO_URL

ACME = "acme-build"

#: Each list read, by the client's own method.
LISTS: dict[str, Callable[[HubClient, str], Any]] = {
    "hubs": lambda client, hub: client.list_hubs(),
    "projects": lambda client, hub: client.list_projects(hub),
    "project users": lambda client, hub: client.list_project_users(hub, "1001"),
    "project users as sent": lambda client, hub: client.list_project_users_as_sent(hub, "1001"),
    "project users as sent, read once": lambda client, hub: client.list_project_users_as_sent(
        hub, "1001", held=False
    ),
    "hub users as sent, read once": lambda client, hub: client.list_hub_users_as_sent(
        hub, held=False
    ),
    "hub users": lambda client, hub: client.list_hub_users(hub),
}


def configured_client(app: Any) -> HubClient:
    return HubClient(DEMO_URL, token=DEMO_TOKEN, transport=httpx.ASGITransport(app=app))


def ids(records: Any) -> list[str]:
    out = []
    for record in records:
        sent = record.root if hasattr(record, "root") else record.as_sent()
        out.append(json.dumps(sent, sort_keys=True))
    return out


@pytest.mark.parametrize("kind", list(LISTS))
async def test_every_list_in_pages_is_read_whole(kind: str) -> None:
    store = DemoStore()
    hub = store.hub_by_name(ACME)
    assert hub is not None
    async with configured_client(create_app(store, Faults())) as whole:
        expected = ids(await LISTS[kind](whole, hub.id))
    assert len(expected) > 2
    async with configured_client(create_app(store, Faults(page_size=2))) as paged:
        got = ids(await LISTS[kind](paged, hub.id))
        assert paged.stats.requests >= (len(expected) + 1) // 2  # one request a page
    assert got == expected


class Paging:
    """A server that answers the hub list in pages of its own making: ``pages`` maps a path
    and query to a page's records and its next link (None: the last)."""

    def __init__(self, pages: dict[str, tuple[list[dict[str, Any]], Any]]) -> None:
        self.pages = pages
        self.asked: list[str] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        query = scope["query_string"].decode()
        where = scope["path"] + (f"?{query}" if query else "")
        self.asked.append(f"{scope['server'][0]}{where}")
        records, link = self.pages.get(where, ([], None))
        body: dict[str, Any] = {"value": records}
        if link is not None:
            body["@odata.nextLink"] = link
        if where.endswith("fail"):
            raw, status = b'{"title": "boom"}', 500
        else:
            raw, status = json.dumps(body).encode(), 200
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [(b"content-type", b"application/json")],
            }
        )
        await send({"type": "http.response.body", "body": raw})


def hub(n: int) -> dict[str, Any]:
    return {"Id": f"h{n}", "Name": f"hub-{n}", "DisplayName": f"Hub {n}"}


async def test_pages_linked_by_relative_and_absolute_links_are_read_in_order() -> None:
    server = Paging(
        {
            "/v3/hubs": ([hub(1)], "/v3/hubs?page=2"),
            "/v3/hubs?page=2": ([hub(2)], f"{DEMO_URL}/v3/hubs?page=3"),
            "/v3/hubs?page=3": ([hub(3)], None),
        }
    )
    async with configured_client(server) as client:
        hubs = await client.list_hubs()
    assert [h.name for h in hubs] == ["hub-1", "hub-2", "hub-3"]


@pytest.mark.parametrize(
    ("link", "said"),
    [
        (
            "https://elsewhere.example/v3/hubs?page=2",
            "at another server (https://elsewhere.example)",
        ),
        ("http://localhost:8443/v3/hubs?page=2", "at another server (http://localhost:8443)"),
        ("https://localhost/v3/hubs?page=2", "at another server (https://localhost)"),
        ("/v3/hubs", "links back to a page read already"),
        ("/v3/hubs?page=fail", "page 2 failed"),
        (42, 'its "@odata.nextLink" is not an address'),
    ],
)
async def test_a_list_whose_next_page_cannot_be_read_is_incomplete_never_short(
    link: Any, said: str
) -> None:
    server = Paging({"/v3/hubs": ([hub(1)], link)})
    async with configured_client(server) as client:
        with pytest.raises(InvalidResponseError) as raised:
            await client.list_hubs()
    assert said in str(raised.value)
    if not isinstance(link, int):
        assert isinstance(raised.value, IncompleteListError)
        assert "could not be read whole (1 records read)" in str(raised.value)
    assert all(asked.startswith("localhost") for asked in server.asked)  # nowhere else


async def test_a_loop_through_several_pages_ends_when_a_link_comes_again() -> None:
    server = Paging(
        {
            "/v3/hubs": ([hub(1)], "/v3/hubs?page=2"),
            "/v3/hubs?page=2": ([hub(2)], "/v3/hubs?page=3"),
            "/v3/hubs?page=3": ([hub(3)], "/v3/hubs?page=2"),
        }
    )
    async with configured_client(server) as client:
        with pytest.raises(IncompleteListError, match="page 4 links back"):
            await client.list_hubs()
    assert len(server.asked) == 3  # each page once


async def test_pages_are_bounded_in_count_and_in_records() -> None:
    endless = Paging(
        {f"/v3/hubs?page={n}": ([hub(n)], f"/v3/hubs?page={n + 1}") for n in range(50)}
    )
    endless.pages["/v3/hubs"] = ([hub(0)], "/v3/hubs?page=1")
    async with configured_client(endless) as client:
        client.max_pages = 5
        with pytest.raises(IncompleteListError, match="more than 5 pages"):
            await client.list_hubs()
    assert len(endless.asked) == 5
    async with configured_client(endless) as client:
        client.max_records = 3
        with pytest.raises(IncompleteListError, match="more than 3 records"):
            await client.list_hubs()


async def test_a_list_read_once_is_the_same_list_as_sent_in_parts_or_whole() -> None:
    """``held=False`` (a campaign's start reads each record once) changes how a record is held,
    never what it holds: a large list, streamed and read in batches, comes back record for
    record as when held compactly, in order."""
    store = DemoStore(DemoSize(big_project_users=3000))
    hub = store.hub_by_name("load-test")
    assert hub is not None
    project = next(iter(hub.projects))
    async with configured_client(create_app(store, Faults())) as client:
        held = await client.list_project_users_as_sent(hub.id, project)
        once = await client.list_project_users_as_sent(hub.id, project, held=False)
        hub_held = await client.list_hub_users_as_sent(hub.id)
        hub_once = await client.list_hub_users_as_sent(hub.id, held=False)
    assert len(once) == 3000
    assert [r.root for r in once] == [r.root for r in held]
    assert [list(r.root) for r in once] == [list(r.root) for r in held]  # keys in order
    assert [r.root for r in hub_once] == [r.root for r in hub_held]
