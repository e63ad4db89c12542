"""Taking a snapshot: hubs → projects → users, with the search's fan-out, and each hub's users;
the demo's week-old snapshot."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from hubtui.api import HubError
from hubtui.api.errors import not_offered
from hubtui.core.clock import stamp
from hubtui.core.people.search import EVERY_USER, Finding, Progress, search_people
from hubtui.core.store import ListKey, Snapshot, Store, now

if TYPE_CHECKING:
    from hubtui.api import Hub, HubClient, Project

#: The scope a snapshot of every hub says it is of.
ALL_HUBS = "all hubs"


async def take_snapshot(
    client: HubClient,
    hubs: Sequence[Hub],
    *,
    every_hub: bool,
    origin: str,
    profile: str | None,
    concurrency: int,
    deadline: float | None,
    on_progress: Callable[[Progress], None] = lambda progress: None,
) -> Snapshot:
    """Read every project's users of ``hubs``. ``every_hub``: ``hubs`` is the server's whole hub
    list (so a hub missing next time was removed); otherwise only these hubs were chosen.
    A project or hub that cannot be read is kept as such, with why."""
    taken = now()
    users: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    failed: dict[tuple[str, str | None], str] = {}

    def collect(finding: Finding) -> None:
        if finding.error is not None:
            project = None if finding.project is None else str(finding.project.id)
            failed[finding.hub.id, project] = str(finding.error)

    def keep(hub: Hub, project: Project, sent: list[dict[str, Any]]) -> None:
        users[hub.id, str(project.id)] = sent

    # The hubs' users are read beside the projects' (as the hub's people are): a hub's list is
    # one large answer that the server makes while the projects' are read.
    hub_users, progress = await asyncio.gather(
        _read_hub_users(client, hubs, concurrency),
        search_people(
            client,
            EVERY_USER,
            hubs,
            on_finding=collect,
            on_progress=on_progress,
            concurrency=concurrency,
            deadline=deadline,
            on_sent=keep,
        ),
    )
    lists: dict[ListKey, tuple[bool, str, Sequence[dict[str, Any]]]] = {}
    if every_hub:
        lists[ListKey("hubs")] = (True, "", [hub.as_sent() for hub in hubs])
    else:
        for hub in hubs:
            lists[ListKey("hub", hub.id)] = (True, "", [hub.as_sent()])
    for hub in hubs:
        projects = progress.listed.get(hub.id)
        if projects is None:
            why = failed.get((hub.id, None), "its projects were not listed")
            lists[ListKey("projects", hub.id)] = (False, why, [])
            continue
        lists[ListKey("projects", hub.id)] = (True, "", [p.as_sent() for p in projects.values()])
        for project_id in projects:
            key = ListKey("users", hub.id, str(project_id))
            if (hub.id, project_id) in progress.answered:
                lists[key] = (True, "", users.pop((hub.id, str(project_id)), []))
            else:
                why = failed.get((hub.id, str(project_id)), "no answer before the search ended")
                lists[key] = (False, why, [])
    lists.update(hub_users)
    scope = ALL_HUBS if every_hub else ", ".join(hub.name for hub in hubs)
    return Snapshot(origin, profile or "", scope, taken, lists)


async def _read_hub_users(
    client: HubClient, hubs: Sequence[Hub], concurrency: int
) -> dict[ListKey, tuple[bool, str, Sequence[dict[str, Any]]]]:
    """Each hub's users as sent (their hub role and last sign-in: the access matrix of a date),
    or why not. A server that answers every hub's list as not offered (404, 405, 501) does not
    offer it: the snapshot is without it, and nothing is missing (one hub's 404 among lists
    that answer stays not read)."""
    limiter = asyncio.Semaphore(max(1, concurrency))
    found: dict[ListKey, tuple[bool, str, Sequence[dict[str, Any]]]] = {}
    errors: dict[str, HubError] = {}

    async def one(hub: Hub) -> None:
        async with limiter:
            try:
                users = await client.list_hub_users_as_sent(hub.id)
            except HubError as error:
                errors[hub.id] = error
                found[ListKey("hub_users", hub.id)] = (False, str(error), [])
                return
        found[ListKey("hub_users", hub.id)] = (True, "", [u.root for u in users])

    async with asyncio.TaskGroup() as group:
        for hub in hubs:
            group.create_task(one(hub))
    if hubs and len(errors) == len(hubs) and all(not_offered(e) for e in errors.values()):
        return {}  # the server does not offer hub users: nothing to read, nothing missing
    return found


async def seed_last_week(
    store: Store, last_week: Callable[[], HubClient], profile: str | None, concurrency: int
) -> None:
    """The demo's store starts with a snapshot of "last week" (the demo API's data as it was a
    week ago), so that "what changed" has a past."""
    if store.snapshots("demo", profile):
        return
    async with last_week() as client:
        snapshot = await take_snapshot(
            client,
            list(await client.list_hubs()),
            every_hub=True,
            origin="demo",
            profile=profile,
            concurrency=concurrency,
            deadline=None,
        )
    taken = stamp(datetime.now(UTC) - timedelta(days=7))
    store.write_snapshot(
        Snapshot(snapshot.origin, snapshot.profile, snapshot.scope, taken, snapshot.lists)
    )
