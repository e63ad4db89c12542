"""Taking a snapshot (hubs → projects → users, with the search's fan-out) and carrying one in a
file: JSON lines, a manifest first (schema, server, time, the sha256 of the lines after it)."""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hubtui.core.changes.log import stamp
from hubtui.core.files import read_bounded, refusal_words, write_new
from hubtui.core.people import EVERYONE, Finding, Progress, search_people
from hubtui.core.store import ListKey, Snapshot, Store, now
from hubtui.text import inert, nesting

if TYPE_CHECKING:
    from hubtui.api import Hub, HubClient, Project

__all__ = [
    "FILE_SCHEMA",
    "seed_last_week",
    "SnapshotFileError",
    "read_snapshot_file",
    "take_snapshot",
    "write_snapshot_file",
]

#: The version of the snapshot file format.
FILE_SCHEMA = 1


class SnapshotFileError(Exception):
    """A snapshot file that cannot be read, or whose content does not match its manifest."""


#: The largest snapshot file read (a 50,000-user snapshot takes 8 MB).
SNAPSHOT_FILE_BYTES = 256 * 1024 * 1024
#: The most lists and records one snapshot file may hold.
SNAPSHOT_FILE_LISTS = 200_000
SNAPSHOT_FILE_RECORDS = 5_000_000
#: How deep a snapshot file's line may nest (a record of the API nests four deep).
SNAPSHOT_FILE_DEPTH = 64


def _json_line(path: Path, line: bytes, where: str) -> Any:
    """One JSON line of a snapshot file, refused when it nests deeper than records do."""
    if nesting(line) > SNAPSHOT_FILE_DEPTH:
        raise SnapshotFileError(
            f"{path}, {where}: nests deeper than {SNAPSHOT_FILE_DEPTH} levels, which no "
            "snapshot does."
        )
    try:
        return json.loads(line)
    except ValueError as error:
        raise SnapshotFileError(f"{path}, {where}: not JSON ({error}).") from None


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

    progress = await search_people(
        client,
        EVERYONE,
        hubs,
        on_finding=collect,
        on_progress=on_progress,
        concurrency=concurrency,
        deadline=deadline,
        on_sent=keep,
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
    lists.update(await _hub_users(client, hubs, concurrency))
    scope = ALL_HUBS if every_hub else ", ".join(hub.name for hub in hubs)
    return Snapshot(origin, profile or "", scope, taken, lists)


async def _hub_users(
    client: HubClient, hubs: Sequence[Hub], concurrency: int
) -> dict[ListKey, tuple[bool, str, Sequence[dict[str, Any]]]]:
    """Each hub's users as sent (their hub role and last sign-in: the access matrix of a date),
    or why not. A server that answers every hub's list as not offered (404, 405, 501) does not
    offer it: the snapshot is without it, and nothing is missing (one hub's 404 among lists
    that answer stays not read)."""
    import asyncio

    from hubtui.api import HubError
    from hubtui.core.hub_people import not_offered

    limiter = asyncio.Semaphore(max(1, concurrency))
    found: dict[ListKey, tuple[bool, str, Sequence[dict[str, Any]]]] = {}
    errors: dict[str, HubError] = {}

    async def one(hub: Hub) -> None:
        async with limiter:
            try:
                users = await client.list_hub_users(hub.id)
            except HubError as error:
                errors[hub.id] = error
                found[ListKey("hub_users", hub.id)] = (False, str(error), [])
                return
        found[ListKey("hub_users", hub.id)] = (True, "", [u.as_sent() for u in users])

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


def write_snapshot_file(snapshot: Snapshot, path: Path) -> tuple[str, Path]:
    """Write ``snapshot`` to a new file at ``path`` as evidence (0600; the next free name when
    ``path`` is taken, never a file or link there): the sha256 in its manifest, and the name."""
    lines = [
        json.dumps(
            {
                "kind": k.kind,
                "hub": k.hub,
                "project": k.project,
                "ok": ok,
                "why": why,
                "records": list(r),
            },
            ensure_ascii=True,
            sort_keys=True,
        )
        for k, (ok, why, r) in sorted(snapshot.lists.items())
    ]
    body = "".join(line + "\n" for line in lines).encode("ascii")
    digest = hashlib.sha256(body).hexdigest()
    manifest = {
        "hubtui_snapshot": FILE_SCHEMA,
        "server": snapshot.origin,
        "profile": snapshot.profile,
        "scope": snapshot.scope,
        "taken": snapshot.taken,
        "counts": snapshot.counts(),
        "sha256": digest,
    }
    head = json.dumps(manifest, ensure_ascii=True).encode("ascii") + b"\n"
    return digest, write_new(path, head + body)


def read_snapshot_file(path: Path) -> Snapshot:
    """A snapshot file read back, its content checked against its manifest, and bounded: its
    size, how deep a line nests, how many lists and records it holds; a record must be an
    object and a list appear once. Which bound was broken is said."""
    try:
        whole = read_bounded(path, limit=SNAPSHOT_FILE_BYTES, what="snapshot file")
    except OSError as error:
        raise SnapshotFileError(f"{refusal_words(path, error)}.") from None
    head, _, body = whole.partition(b"\n")
    manifest = _json_line(path, head, "its manifest line")
    if not isinstance(manifest, dict) or "hubtui_snapshot" not in manifest:
        raise SnapshotFileError(f"{path} is not a hubtui snapshot file (no manifest line).")
    if manifest["hubtui_snapshot"] != FILE_SCHEMA:
        raise SnapshotFileError(
            f"{path} is a snapshot file of format {inert(manifest['hubtui_snapshot'])}; this "
            f"hubtui reads format {FILE_SCHEMA}."
        )
    if hashlib.sha256(body).hexdigest() != manifest.get("sha256"):
        raise SnapshotFileError(
            f"{path}: its content does not match the sha256 of its manifest: it was changed "
            "or cut after it was written."
        )
    lists: dict[ListKey, tuple[bool, str, Sequence[dict[str, Any]]]] = {}
    records = 0
    for number, line in enumerate(body.split(b"\n"), start=2):
        if not line.strip():
            continue
        item = _json_line(path, line, f"line {number}")
        try:
            key = ListKey(str(item["kind"]), str(item["hub"]), str(item["project"]))
            kept = item["records"]
            if not isinstance(kept, list):
                raise TypeError("its records are not a list")
            entry = (bool(item["ok"]), str(item["why"]), kept)
        except (KeyError, TypeError) as error:
            raise SnapshotFileError(
                f"{path}, line {number}: a list that cannot be read ({inert(error)})."
            ) from None
        if any(not isinstance(record, dict) for record in kept):
            raise SnapshotFileError(f"{path}, line {number}: a record that is not an object.")
        if key in lists:
            raise SnapshotFileError(
                f"{path}, line {number}: the {key.kind} list of hub {inert(key.hub)}"
                f"{f' project {inert(key.project)}' if key.project else ''} appears twice."
            )
        records += len(kept)
        if len(lists) >= SNAPSHOT_FILE_LISTS or records > SNAPSHOT_FILE_RECORDS:
            raise SnapshotFileError(
                f"{path} holds more than {SNAPSHOT_FILE_LISTS:,} lists or "
                f"{SNAPSHOT_FILE_RECORDS:,} records, the most hubtui reads from a snapshot file."
            )
        lists[key] = entry
    return Snapshot(
        str(manifest.get("server", "")),
        str(manifest.get("profile", "")),
        str(manifest.get("scope", "")),
        str(manifest.get("taken", "")),
        lists,
    )
