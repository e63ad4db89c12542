"""Access over time: `snapshot`, `diff` and `store`, on the store of what was read.

One idea: the store's commands (snapshot, diff of the store or of two files, store, who
--history) share how a snapshot is picked and said.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from hubtui.core.access import access_words
from hubtui.core.clock import stamp
from hubtui.core.files import refusal_words
from hubtui.core.history import (
    ALL_HUBS,
    SnapshotFileError,
    snapshot_file_lists,
    take_snapshot,
    write_snapshot_file,
)
from hubtui.core.history.diff import Kind, Side, compare
from hubtui.core.people import PersonQuery
from hubtui.core.places import default_change_log_path
from hubtui.core.presenting import Column, amount, size_words
from hubtui.core.workflows.kept import (
    MIGRATIONS,
    SCHEMA,
    ListKey,
    StoreError,
    copy_history,
    schema_of,
)
from hubtui.core.workflows.kept import open_store as opened
from hubtui.headless.arguments import file_pair
from hubtui.headless.output import (
    NOT_SENT,
    NOTHING,
    OK,
    REFUSED,
    StatusLine,
    Stop,
    Table,
    print_answer,
    with_client,
)
from hubtui.headless.tables import resolve_hub
from hubtui.store_address import store_url_problem
from hubtui.text import inert

if TYPE_CHECKING:
    from hubtui.api import Hub, HubClient
    from hubtui.core.history.diff import Difference, Side
    from hubtui.core.people import Progress
    from hubtui.core.workflows.kept import Snapshot, SnapshotInfo, Store
    from hubtui.core.workspace import Workspace

# The store, the diff and the snapshot reader are imported when a command of theirs runs: the
# app and the other commands start without them.

__all__ = [
    "diff_command",
    "diff_files",
    "snapshot_command",
    "store_command",
    "who_history",
]


def open_store(workspace: Workspace, *, read_only: bool = False) -> Store:
    """Where this server's snapshots and reviews are kept: the team store (``store_url``), or
    the local file; a store that cannot be used ends the command naming it."""
    if workspace.settings.store == "off":
        raise Stop(
            NOT_SENT,
            'the store is off (store = "off" or --no-store): nothing read is kept. Use '
            "--export FILE to write a snapshot to a file instead.",
        )
    try:
        assert workspace.store_path is not None, "a headless Workspace names its store"
        return opened(workspace.team or workspace.store_path, read_only=read_only)
    except StoreError as error:
        raise Stop(NOT_SENT, inert(str(error), limit=None)) from None


def _bar(progress: Progress) -> str:
    """``████░░░░ 37 / 120 projects``."""
    done, total = progress.projects_done, max(progress.projects_total, 1)
    filled = 20 * done // total
    return f"{'█' * filled}{'░' * (20 - filled)} {done:,} / {progress.projects_total:,} projects"


async def _read_now(client: HubClient, workspace: Workspace, given: list[str]) -> Snapshot:
    status = StatusLine()
    hubs: list[Hub] = (
        [await resolve_hub(client, name) for name in given]
        if given
        else list(await client.list_hubs())
    )
    snapshot = await take_snapshot(
        client,
        hubs,
        every_hub=not given,
        origin=workspace.identity.server,
        profile=workspace.identity.profile,
        concurrency=workspace.concurrency,
        deadline=workspace.search_deadline,
        on_progress=lambda progress: status.say(_bar(progress)),
    )
    status.clear()
    return snapshot


def _not_read(snapshot: Snapshot) -> list[str]:
    """Each list a snapshot could not read, its hub by the URL name a person reads (the Id
    where the hub list did not name it) and its project by name where known, and why."""
    hubs: dict[str, str] = {}
    projects: dict[tuple[str, str], str] = {}
    for key, (ok, _, records) in snapshot.lists.items():
        if not ok:
            continue
        for record in records:
            if key.kind == "hubs" and isinstance(record.get("Id"), str):
                hubs[record["Id"]] = str(record.get("Name") or record["Id"])
            elif key.kind == "projects" and record.get("Id") is not None:
                projects[key.hub, str(record["Id"])] = str(record.get("Name") or "")
    lines = []
    for key, (ok, why, _) in sorted(snapshot.lists.items()):
        if ok:
            continue
        hub = inert(hubs.get(key.hub, key.hub)) if key.hub else "the server"
        named = projects.get((key.hub, key.project), "")
        project = f" project {inert(named)} ({key.project})" if named else f" project {key.project}"
        lines.append(f"{key.kind} of {hub}{project if key.project else ''}: {inert(why)}")
    return lines


async def snapshot_command(
    args: argparse.Namespace,
    client: HubClient,
    workspace: Workspace,
) -> int:
    off = workspace.settings.store == "off"
    store = None if args.export and off else open_store(workspace)
    try:
        if store is not None:
            await workspace.seed(store)
        snapshot = await _read_now(client, workspace, args.hubs)
        where = []
        if store is not None:
            info = store.write_snapshot(snapshot)
            where.append(f"kept as snapshot #{info.id} in {store.where}")
            if workspace.server_store is not None and workspace.team is not None:
                try:  # the lists read, as their latest state on this machine too
                    workspace.server_store.keep_read(snapshot)
                except StoreError as error:
                    where.append(f"not kept on this machine ({inert(str(error), limit=None)})")
        if args.export:
            try:
                digest, written = write_snapshot_file(snapshot, Path(args.export))
            except OSError as error:
                kept = f" ({where[0]})" if where else ""
                why = refusal_words(Path(args.export), error)
                raise Stop(REFUSED, f"The snapshot was not written{kept}: {inert(why)}.") from None
            where.append(f"written to {inert(str(written))} (sha256 {digest[:16]}…)")
    except StoreError as error:
        raise Stop(REFUSED, inert(str(error), limit=None)) from None
    finally:
        if store is not None:
            store.close()
    counts = snapshot.counts()
    missing = _not_read(snapshot)
    print(
        f"Snapshot of {inert(snapshot.scope)}: {counts['hubs']:,} hubs, {counts['projects']:,} "
        f"projects, {counts['users']:,} users; {'; '.join(where)}.",
        file=sys.stderr,
    )
    if counts["hubs"] and not any(key.kind == "hub_users" for key in snapshot.lists):
        print(
            "This server does not list a hub's users: the snapshot holds its projects' users "
            "(hub roles and sign-ins are not kept).",
            file=sys.stderr,
        )
    if missing:
        print(f"Incomplete: {len(missing)} not read:", file=sys.stderr)
        for line in missing:
            print(f"  {inert(line, limit=300)}", file=sys.stderr)
        return REFUSED
    return OK


_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}([T ][\d:]+)?Z?$")


def pick_snapshot(
    store: Store, origin: str, profile: str | None, given: str, *, before: int | None = None
) -> int:
    """A snapshot by id (``3``, ``#3``) or the latest taken by a date."""
    kept = store.snapshots(origin, profile)
    text = given.strip().lstrip("#")
    if text.isdigit():  # as given, whoever took it and in whichever order: a team's too
        if not any(s.id == int(text) for s in kept):
            other = next((s for s in store.snapshots() if s.id == int(text)), None)
            if other is not None:  # a server is its whole base URL and the profile
                raise Stop(NOT_SENT, _not_this_server(int(text), other, origin, profile))
            raise Stop(NOTHING, f"there is no snapshot #{text} (hubtui store info lists them)")
        return int(text)
    if before is not None:
        kept = [s for s in kept if s.id < before]
    if text == "latest" or not text:
        if not kept:
            raise Stop(
                NOTHING, "there is no snapshot of this server yet: take one with hubtui snapshot"
            )
        return kept[-1].id
    if not _DATE.match(text):
        raise Stop(NOT_SENT, f"{inert(given)} is neither a snapshot (#3) nor a date (2026-11-17)")
    day = text.replace(" ", "T")
    by = day + ("T23:59:59Z" if "T" not in day else "")
    earlier = [s for s in kept if s.taken <= by]
    if not earlier:
        raise Stop(NOTHING, f"there is no snapshot of this server taken by {inert(given)}")
    return earlier[-1].id


def _not_this_server(number: int, other: SnapshotInfo, origin: str, profile: str | None) -> str:
    """Why a snapshot of the store is not one of this server, naming what differs."""
    differs = []
    if other.origin != origin:
        differs.append(f"its server is {inert(other.origin)!r}, this run's {inert(origin)!r}")
    if (other.profile or "") != (profile or ""):
        theirs = f"profile {inert(other.profile)!r}" if other.profile else "no profile"
        ours = f"profile {inert(profile)!r}" if profile else "none"
        differs.append(f"it was taken with {theirs}, this run with {ours}")
    return (
        f"snapshot #{number} is not of this server: {'; '.join(differs)}. hubtui compares a "
        "server only with itself (its whole base URL and the profile's name)"
    )


def _latest_two(
    store: Store, origin: str, profile: str | None, hub: Hub | None, until: str
) -> tuple[int, int]:
    """``--since previous``: the latest two of one scope, in the order they were taken: of all
    hubs (no ``hub``), or of the scope of the latest that read ``hub`` (that hub alone, or all)."""
    if until != "now":
        raise Stop(NOT_SENT, "--since previous compares the two latest snapshots: no --until")
    kept = sorted(store.snapshots(origin, profile), key=lambda s: (s.taken, s.id))

    def scope(info: SnapshotInfo) -> frozenset[str] | None:
        """None: all hubs; else the hubs whose projects the snapshot read."""
        if info.scope == ALL_HUBS:
            return None
        return frozenset(k.hub for k in store.reads(info.id) if k.kind == "projects")

    if hub is None:  # every hub compared: all hubs with all hubs
        kept = [s for s in kept if s.scope == ALL_HUBS]
    else:  # the latest that read the hub, and the one before it of the same scope
        key = ListKey("projects", hub.id)
        kept = [s for s in kept if key in store.reads(s.id)]
        if kept:
            latest = scope(kept[-1])
            kept = [s for s in kept if scope(s) == latest]
    if len(kept) < 2:
        where = f" of hub {inert(hub.name)}" if hub is not None else " of all hubs"
        raise Stop(
            NOTHING,
            f"--since previous needs two snapshots{where}; there is {len(kept)}: take another "
            "with hubtui snapshot",
        )
    return kept[-2].id, kept[-1].id


def _diff_table(found: list[Difference]) -> Table:
    return Table(
        (
            Column("mark", " ", width=1, keep=True),
            Column("level", "Of", width=7, priority=2),
            Column("hub", "Hub", min_width=12, keep=True),
            Column("project", "Project", min_width=12),
            Column("person", "Person", min_width=18, keep=True),
            Column("what", "What", min_width=16, meaning=True),
        ),
        found,
        lambda d: (
            d.kind.mark,
            d.level,
            inert(d.hub_name),
            inert(d.project_name or d.project_id),
            inert(d.who),
            inert(f"{d.kind.value}: {d.what}" if d.what else d.kind.value),
        ),
        lambda items: [d.as_record() for d in items],
        empty="no differences",
        csv=(
            (
                "change",
                "level",
                "hub",
                "hub_id",
                "project",
                "project_id",
                "person",
                "user_id",
                "what",
            ),
            lambda d: (
                d.kind.value,
                d.level,
                d.hub_name,
                d.hub_id,
                d.project_name,
                d.project_id,
                d.who,
                d.user_id,
                d.what,
            ),
        ),
    )


def diff_files(args: argparse.Namespace) -> tuple[Table, int]:
    """Two snapshot files compared, each read a list at a time and kept compact."""
    first, second = args.items
    try:
        sides = []
        servers = []
        bodies: dict[bytes, bytes] = {}  # a record both files hold, kept once
        for name in (first, second):
            manifest, lists = snapshot_file_lists(Path(name), compact=True)
            sides.append(Side.from_lists(name, lists, bodies))
            servers.append((str(manifest.get("server", "")), str(manifest.get("profile", ""))))
    except SnapshotFileError as error:
        raise Stop(NOT_SENT, inert(str(error), limit=None)) from None
    if servers[0] != servers[1]:
        named = [f"{inert(o)}{f' (profile {inert(p)})' if p else ''}" for o, p in servers]
        print(
            f"hubtui: NOTE: the two files are of different servers ({named[0]}; {named[1]}): "
            "what differs below includes what differs between the servers.",
            file=sys.stderr,
        )
    old, new = sides
    return _answer(compare(old, new), old, new)


async def diff_command(
    args: argparse.Namespace,
    client: HubClient,
    workspace: Workspace,
) -> tuple[Table, int]:
    items = list(args.items)
    if len(items) > 1:
        raise Stop(NOT_SENT, "diff takes one HUB, or two snapshot files")
    hub = await resolve_hub(client, items[0]) if items else None
    origin, profile = workspace.identity.server, workspace.identity.profile
    with open_store(workspace) as store:
        await workspace.seed(store)
        until_id = None
        if args.since == "previous":
            since_id, until_id = _latest_two(store, origin, profile, hub, args.until)
        else:
            if args.until != "now":
                until_id = pick_snapshot(store, origin, profile, args.until)
            since_id = pick_snapshot(
                store, origin, profile, args.since or "latest", before=until_id
            )
        old = Side.from_store(store, since_id)
        if until_id is None:
            now = await _read_now(client, workspace, [hub.id] if hub else [])
            new = Side.from_snapshot(now, "now")
        else:
            new = Side.from_store(store, until_id)
        found = compare(old, new, hub=None if hub is None else hub.id)
    if args.only:
        found = [d for d in found if d.chosen(args.only)]
    print(f"From {inert(old.label)} to {inert(new.label)}:", file=sys.stderr)
    return _answer(found, old, new)


def _answer(found: list[Difference], old: Side, new: Side) -> tuple[Table, int]:
    changed = [d for d in found if d.kind is not Kind.NOT_COMPARED]
    unsure = len(found) - len(changed)
    words = f"{len(changed):,} differences"
    if unsure:
        words += (
            f"; {amount(unsure, 'list')} not compared (not read in one of them: see the rows "
            "with ?)"
        )
    print(words, file=sys.stderr)
    if changed:
        return _diff_table(found), NOTHING
    return _diff_table(found), REFUSED if unsure else OK


async def who_history(
    args: argparse.Namespace,
    workspace: Workspace,
) -> tuple[Table, int]:
    """``who QUERY --history``: the person's access in each snapshot kept, oldest first, so
    that "since when" is read down the rows."""
    query = PersonQuery(args.query)
    rows: list[tuple[str, ...]] = []
    records: list[dict[str, str]] = []
    with open_store(workspace) as store:
        await workspace.seed(store)
        kept = store.snapshots(workspace.identity.server, workspace.identity.profile)
        seen: dict[bytes, bool] = {}
        for info in kept:
            side = Side.from_store(store, info.id)
            projects = side.project_names()
            hubs = {hub_id: str(hub.get("Name", "")) for hub_id, hub in side.hub_records().items()}
            for key, read in sorted(side.reads.items()):
                if key.kind != "users" or not read.ok:
                    continue
                for digest in read.hashes:
                    if seen.get(digest) is False:
                        continue  # decoded once already, and not the person
                    user = side.decode(digest)
                    seen[digest] = query.matches_sent(user)
                    if not seen[digest]:
                        continue
                    person = user.get("User") or {}
                    access = access_words(user.get("IsLimited"))
                    record = {
                        "snapshot": info.short,
                        "hub": hubs.get(key.hub, key.hub),
                        "project": projects.get((key.hub, key.project), key.project),
                        "person": str(person.get("Email") or person.get("Id") or "?"),
                        "role": str(user.get("Role", "")),
                        "access": access,
                    }
                    records.append(record)
                    rows.append(tuple(inert(value) for value in record.values()))
    print(
        f"{inert(args.query)} in {len(kept)} snapshot{'s' if len(kept) != 1 else ''} "
        f"of this server: {len(rows)} rows",
        file=sys.stderr,
    )
    table = Table(
        (
            Column("snapshot", "Snapshot", min_width=22, keep=True),
            Column("hub", "Hub", min_width=12),
            Column("project", "Project", min_width=16),
            Column("person", "Person", min_width=18, keep=True),
            Column("role", "Role", min_width=6),
            Column("access", "Access", min_width=14, keep=True),
        ),
        list(zip(rows, records, strict=True)),
        lambda pair: pair[0],
        lambda pairs: [pair[1] for pair in pairs],
        empty=f"{inert(args.query)} is in no snapshot kept",
    )
    return table, OK if rows else NOTHING


_KEEP = re.compile(r"^(\d+)([dwm])$")


def store_command(args: argparse.Namespace, workspace: Workspace) -> int:
    if args.action == "copy":
        return copy_command(args, workspace)
    was = None
    team = workspace.team
    if args.action == "migrate" and workspace.store_path is not None:
        try:
            was = schema_of(team or workspace.store_path)
        except StoreError as error:
            raise Stop(NOT_SENT, inert(str(error), limit=None)) from None
    with open_store(workspace) as store:  # opening applies each step not applied yet
        store.check()  # a damaged file is said, never counted as if whole
        if was is not None:
            applied = [m for m in MIGRATIONS if m.version > was]
            if not applied:
                print(f"Schema {SCHEMA}: up to date, nothing to apply.", file=sys.stderr)
            for step in applied:
                print(f"Applied schema step {step.version}: {step.what}.", file=sys.stderr)
            if team is not None:
                try:
                    store.seal_trail()
                except StoreError as error:
                    refused = ("must be owner", "permission denied")
                    if applied or not any(words in str(error) for words in refused):
                        raise Stop(REFUSED, inert(str(error), limit=None)) from None
                    # Up to date, and this role is not the owner's: nothing to do here.
                    role = inert(store.engine.role())
                    print(
                        f"The database's rules are the store owner's to set again (hubtui store "
                        f"migrate with the owner's role); this role ({role}) has nothing to apply.",
                        file=sys.stderr,
                    )
                else:
                    print(
                        "The trail, the reviews and the campaigns: every role but the owner's "
                        "may add and read them, never change or delete them; the database names "
                        "each row's role and holds a campaign's rules (who may decide, resolve "
                        "and close; a sealed population; the team roster the owner's alone).",
                        file=sys.stderr,
                    )
        if args.action == "prune":
            found = _KEEP.match(args.keep.strip())
            if not found:
                raise Stop(
                    NOT_SENT,
                    f"--keep takes days, weeks or months (30d, 12w, 6m), not {inert(args.keep)}",
                )
            days = int(found[1]) * {"d": 1, "w": 7, "m": 30}[found[2]]
            before = stamp(datetime.now(UTC) - timedelta(days=days))
            try:
                gone = store.prune(before)
                store.vacuum()
            except StoreError as error:
                raise Stop(REFUSED, inert(str(error), limit=None)) from None
            print(
                f"Forgot {gone} snapshot{'s' if gone != 1 else ''} taken before {before[:10]}.",
                file=sys.stderr,
            )
        info = store.info()
        print(f"Store: {info.where} (schema {SCHEMA})")
        print(
            f"Size: {size_words(info.size)}; {info.records:,} distinct records; "
            f"{info.lists:,} lists; {info.reviews:,} reviews; {info.audit:,} change lines shared"
        )
        kept = store.snapshots()
        print(f"Snapshots: {len(kept)}")
        for snapshot in kept:
            print(f"  {inert(snapshot.label)} on {inert(snapshot.origin)}")
    return OK


def copy_command(args: argparse.Namespace, workspace: Workspace) -> int:
    """``store copy --to URL``: this machine's snapshots, reviews and change lines moved into a
    team store; run again, nothing doubles."""
    if not args.to:
        raise Stop(NOT_SENT, "store copy takes --to URL: the team store to copy into")
    if problem := store_url_problem(args.to):
        raise Stop(NOT_SENT, problem)
    assert workspace.store_path is not None
    try:
        with (
            opened(workspace.store_path, read_only=True) as local,
            opened(args.to) as team,
        ):
            copied = copy_history(local, team, default_change_log_path())
    except StoreError as error:
        raise Stop(REFUSED, inert(str(error), limit=None)) from None
    print(
        f"Copied to {inert(args.to)}: {amount(copied.snapshots, 'snapshot')} "
        f"({copied.snapshots_there:,} there already), {amount(copied.reviews, 'review')} "
        f"({copied.reviews_there:,} there already), "
        f"{amount(copied.lines.new, 'change line')} ({copied.lines.read - copied.lines.new:,} "
        "there already).",
        file=sys.stderr,
    )
    return OK


def main(args: argparse.Namespace, workspace: Workspace) -> int:
    """snapshot, diff (of the store, or of two files), store, and who --history."""
    if args.command == "store":
        return store_command(args, workspace)
    if file_pair(args):
        return print_answer(args, *diff_files(args))
    if args.command == "who":
        return print_answer(args, *asyncio.run(who_history(args, workspace)))

    async def run(client: HubClient) -> int:
        if args.command == "snapshot":
            return await snapshot_command(args, client, workspace)
        return print_answer(args, *await diff_command(args, client, workspace))

    return asyncio.run(with_client(args, workspace, run))
