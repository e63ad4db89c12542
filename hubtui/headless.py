"""The same answers without the screen: commands that print and exit, for scripts and tickets.

They share every setting, the token rules, the client, the search engine and the export rules
with the app, and never import Textual, so they start fast. Exit statuses: 0 done or found,
1 nothing matched or not found, 2 usage or settings, 3 the server refused or failed, 4 the outcome
of a change is unknown.
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

from hubtui.changelog import (
    DONE,
    FAILED,
    Change,
    ChangeLog,
    ChangeLogError,
    change_outcome,
    default_change_log_path,
    now,
)
from hubtui.export import render
from hubtui.names import (
    DISPLAY_NAME_NOT_SENT,
    LOOKALIKE_MARK,
    NO_DISPLAY_NAME,
    lookalike_words,
    match_hub,
)
from hubtui.text import inert

if TYPE_CHECKING:
    import argparse

    from hubtui.api import Hub, HubClient, ProjectUser
    from hubtui.config import Settings

OK, NOTHING, USAGE, REFUSED, UNKNOWN_OUTCOME = 0, 1, 2, 3, 4
FORMATS = ("table", "json", "jsonl", "csv")
EXIT_STATUSES = (
    "exit status: 0 done or found, 1 nothing matched or not found, 2 usage or settings, "
    "3 the server refused or failed, 4 the outcome of a change is unknown"
)


class Stop(Exception):
    """End the command with this status and message (the message is already safe to print)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class Table:
    """What a command prints: records for JSON, and the same as rows of words for people.

    Each is built only when the format asks for it: 50,000 users as JSON lines need no table.
    """

    columns: tuple[str, ...]
    items: Sequence[Any]
    row: Callable[[Any], tuple[str, ...]]
    dump: Callable[[Sequence[Any]], list[dict[str, Any]]]
    keep: frozenset[int] = frozenset({0})
    """Columns never cut to fit the terminal: the identifiers a person must read exactly."""
    lines: Callable[[Sequence[Any]], str] | None = None
    """JSON lines written straight from the records, when that is faster than :attr:`dump`."""

    @property
    def rows(self) -> list[tuple[str, ...]]:
        return [self.row(item) for item in self.items]

    @property
    def records(self) -> list[dict[str, Any]]:
        return self.dump(self.items)


#: What JSON leaves raw but a terminal would obey or hide: C1 controls, bidi and invisible marks.
_UNSAFE_IN_JSON = re.compile("[\u0080-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]")


def _model_lines(items: Sequence[Any]) -> str:
    """JSON lines of records in pydantic's own serializer (API field names, unknown fields
    kept), with every character a terminal could obey written as an escape."""
    if not items:
        return ""
    from pydantic import TypeAdapter

    adapter: TypeAdapter[Any] = TypeAdapter(type(items[0]))
    text = b"\n".join(adapter.dump_json(item, by_alias=True) for item in items).decode()
    safe: str = _UNSAFE_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return safe + "\n"


def _dump_models(items: Sequence[Any]) -> list[dict[str, Any]]:
    """Records as the API names their fields, unknown fields kept (one pydantic call)."""
    if not items:
        return []
    from pydantic import TypeAdapter

    adapter: TypeAdapter[list[Any]] = TypeAdapter(list[type(items[0])])  # type: ignore[misc,arg-type]
    return adapter.dump_python(list(items), mode="json", by_alias=True)  # type: ignore[no-any-return]


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The headless sub-commands, beside the app's own."""

    def command(name: str, help_text: str) -> argparse.ArgumentParser:
        parser = commands.add_parser(
            name, help=help_text, description=help_text, epilog=EXIT_STATUSES, allow_abbrev=False
        )
        parser.add_argument(
            "--format",
            choices=FORMATS,
            help="table on a terminal, jsonl when piped (JSON keeps the API's field names)",
        )
        return parser

    command("hubs", "list every hub: Name (URL name) and DisplayName")
    command("hub", "one hub by its Name or Id").add_argument("hub", metavar="HUB")
    command("projects", "a hub's projects").add_argument("hub", metavar="HUB")
    users = command("users", "a project's users: members and limited readers")
    users.add_argument("hub", metavar="HUB")
    users.add_argument("project", metavar="PROJECT", help="the project's id")
    only = users.add_mutually_exclusive_group()
    only.add_argument("--limited", action="store_true", help="only limited readers")
    only.add_argument("--members", action="store_true", help="only direct members")
    who = command("who", "find a person (email, @domain or name) in every project")
    who.add_argument("query", metavar="QUERY")
    who.add_argument("--hub", help="search only this hub (Name or Id)")
    for name, help_text in (
        ("add-user", "add a user to a project as a direct member"),
        ("set-role", "change a direct member's role"),
    ):
        change = commands.add_parser(
            name, help=help_text, description=help_text, epilog=EXIT_STATUSES, allow_abbrev=False
        )
        change.add_argument("hub", metavar="HUB")
        change.add_argument("project", metavar="PROJECT")
        change.add_argument("email", metavar="EMAIL")
        change.add_argument("role", metavar="ROLE", choices=("Reader", "Editor", "Admin"))
        change.add_argument("--reviewer", action="store_true", default=None, help="as a reviewer")
        change.add_argument("--yes", action="store_true", help="send without asking")
        change.add_argument(
            "--dry-run", action="store_true", help="print what would be sent; send nothing"
        )


HEADLESS = frozenset({"hubs", "hub", "projects", "users", "who", "add-user", "set-role"})


def run(
    args: argparse.Namespace,
    connect: Callable[[], HubClient],
    settings: Settings,
    server_label: str,
) -> int:
    """Run one headless command; its exit status."""
    try:
        return asyncio.run(_run(args, connect, settings, server_label))
    except Stop as stop:
        print(f"hubtui: {stop.message}", file=sys.stderr)
        return stop.status
    except KeyboardInterrupt:
        print("hubtui: stopped.", file=sys.stderr)
        return 130


async def _run(
    args: argparse.Namespace,
    connect: Callable[[], HubClient],
    settings: Settings,
    server_label: str,
) -> int:
    from hubtui.api import HubError

    client = connect()
    async with client:
        try:
            if args.command in ("add-user", "set-role"):
                return await _change(args, client, settings, server_label)
            table, status = await _query(args, client, settings)
        except HubError as error:
            raise Stop(REFUSED, inert(str(error), limit=1000)) from None
    _print(table, args.format or ("table" if sys.stdout.isatty() else "jsonl"), sys.stdout)
    return status


async def _query(
    args: argparse.Namespace, client: HubClient, settings: Settings
) -> tuple[Table, int]:
    command = args.command
    if command == "hubs":
        hubs = await client.list_hubs()
        return _hubs_table(hubs), OK if hubs else NOTHING
    hub = await resolve_hub(client, args.hub) if command != "who" or args.hub else None
    if command == "hub":
        assert hub is not None
        return _hubs_table([hub]), OK
    if command == "projects":
        assert hub is not None
        projects = await client.list_projects(hub.id)
        table = Table(
            ("Id", "Name", "Access", "Status", "Number"),
            projects,
            lambda p: (
                str(p.id),
                inert(p.name),
                inert(p.project_access or ""),
                inert(p.project_status or ""),
                inert(p.number or ""),
            ),
            _dump_models,
        )
        return table, OK if projects else NOTHING
    if command == "users":
        assert hub is not None
        users = list(await client.list_project_users(hub.id, args.project))
        if args.limited:
            users = [u for u in users if u.is_limited]
        elif args.members:
            users = [u for u in users if u.is_limited is False]
        return _users_table(users), OK if users else NOTHING
    return await _who(args, client, settings, hub)


async def resolve_hub(client: HubClient, given: str) -> Hub:
    """A hub by its exact Name (URL name) or Id; anything nearer is named, never taken
    (:func:`hubtui.names.match_hub`, the app's rule too)."""
    from hubtui.api import NotFoundError

    for look_up in (client.get_hub_by_name, client.get_hub):
        try:
            hub = await look_up(given)
        except NotFoundError:
            continue
        if given in (hub.name, hub.id):  # a server that matched loosely is not taken at its word
            return hub
    found = match_hub(await client.list_hubs(), given)
    if found.hub is not None:
        return found.hub
    raise Stop(NOTHING, found.words())


def _hubs_table(hubs: Sequence[Hub]) -> Table:
    def row(hub: Hub) -> tuple[str, ...]:
        if not hub.display_name_sent:
            shown, note = DISPLAY_NAME_NOT_SENT, ""
        elif hub.has_custom_display_name:
            shown, note = inert(hub.display_name), "differs"
        else:
            shown, note = NO_DISPLAY_NAME, ""
        if lookalike_words(hub):
            note = f"{note} {LOOKALIKE_MARK}lookalike".strip()
        return (
            inert(hub.name),
            shown,
            note,
            inert(hub.region_name or ""),
            "" if hub.number_of_users is None else str(hub.number_of_users),
            "" if hub.number_of_projects is None else str(hub.number_of_projects),
            inert(hub.id),
        )

    def dump(items: Sequence[Hub]) -> list[dict[str, Any]]:
        records = _dump_models(items)
        for hub, record in zip(items, records, strict=True):
            why = lookalike_words(hub)
            if why:  # hubtui's own word, named as such beside the fields the server sent
                record["hubtui_lookalike"] = why
        return records

    return Table(
        ("Name (URL name)", "DisplayName", "Names", "Region", "Users", "Projects", "Id"),
        hubs,
        row,
        dump,
    )


def _access(user: ProjectUser) -> str:
    if user.is_limited:
        return f"LIMITED reader via {inert(user.user.email_domain or '?')}"
    if user.is_limited is None:
        return "unknown"
    return "member"


def _users_table(users: Sequence[ProjectUser]) -> Table:
    def row(u: ProjectUser) -> tuple[str, ...]:
        return (
            inert(u.user.full_name or u.user.user_name or ""),
            inert(u.user.email or ""),
            inert(u.role),
            _access(u),
            "yes" if u.is_reviewer else "",
            ", ".join(inert(t.name or "") for t in u.teams or []),
            str(u.user.id),
        )

    return Table(
        ("Name", "Email", "Role", "Access", "Reviewer", "Teams", "Id"),
        users,
        row,
        _dump_models,
        keep=frozenset({1, 3}),
        lines=_model_lines,
    )


async def _who(
    args: argparse.Namespace, client: HubClient, settings: Settings, hub: Hub | None
) -> tuple[Table, int]:
    from hubtui.triage import Finding, PersonQuery, Progress, search_people

    hubs = [hub] if hub is not None else list(await client.list_hubs())
    findings: list[Finding] = []
    query = PersonQuery(args.query)
    show_progress = sys.stderr.isatty()

    def progressed(progress: Progress) -> None:
        if show_progress:
            print(f"\r\x1b[K{progress.line()}", end="", file=sys.stderr, flush=True)

    progress = await search_people(
        client,
        query,
        hubs,
        on_finding=findings.append,
        on_progress=progressed,
        concurrency=settings.concurrency,
        deadline=settings.search_deadline,
    )
    if show_progress:
        print("\r\x1b[K", end="", file=sys.stderr)
    print(inert(progress.summary(query, findings), limit=None), file=sys.stderr)
    rows, records = [], []
    for finding in findings:
        project = finding.project
        where = inert(project.name) if project else "(its projects)"
        base = {
            "Hub": finding.hub.name,
            "HubDisplayName": finding.hub.display_name,
            "Project": project.model_dump(mode="json", by_alias=True) if project else None,
        }
        if finding.error is not None:
            why = inert(str(finding.error), limit=300)
            rows.append((inert(finding.hub.name), where, "", "", "NOT READ", why))
            records.append({**base, "Error": str(finding.error)})
        elif finding.user is not None:
            user = finding.user
            rows.append(
                (
                    inert(finding.hub.name),
                    where,
                    inert(user.user.full_name or ""),
                    inert(user.user.email or ""),
                    _access(user),
                    inert(user.role),
                )
            )
            records.append({**base, "User": user.model_dump(mode="json", by_alias=True)})
    table = Table(
        ("Hub", "Project", "Name", "Email", "Access", "Role or why"),
        list(zip(rows, records, strict=True)),
        lambda pair: pair[0],
        lambda pairs: [pair[1] for pair in pairs],
        keep=frozenset({0, 3, 4}),
    )
    # Completeness first: an answer with a project not read is not the whole answer.
    if any(finding.failed for finding in findings):
        return table, REFUSED
    return table, OK if progress.matches else NOTHING


def _print(table: Table, fmt: str, out: TextIO) -> None:
    if fmt == "jsonl" and table.lines is not None:
        out.write(table.lines(table.items))
    elif fmt == "jsonl":
        for record in table.records:
            out.write(json.dumps(record, ensure_ascii=True) + "\n")
    elif fmt == "json":
        out.write(json.dumps(table.records, ensure_ascii=True, indent=2) + "\n")
    elif fmt == "csv":
        out.write(render("csv", {}, list(table.columns), [list(r) for r in table.rows]))
    else:
        width = shutil.get_terminal_size().columns
        out.write(aligned(table.columns, table.rows, width, keep=table.keep))


def aligned(
    columns: Sequence[str],
    rows: Sequence[Sequence[str]],
    width: int,
    *,
    keep: frozenset[int] = frozenset(),
) -> str:
    """Columns padded to their widest cell; to fit ``width``, the widest of the columns not in
    ``keep`` are cut first (never below 6 characters)."""
    widths = [max([len(c), *(len(r[i]) for r in rows)]) for i, c in enumerate(columns)]
    cuttable = [i for i in range(len(widths)) if i not in keep]
    while cuttable and sum(widths) + 2 * (len(widths) - 1) > width:
        widest = max(cuttable, key=lambda i: widths[i])
        if widths[widest] <= 6:
            break
        widths[widest] -= 1

    def line(cells: Sequence[str]) -> str:
        fitted = [
            cell if len(cell) <= w else cell[: max(0, w - 1)] + "…"
            for cell, w in zip(cells, widths, strict=False)
        ]
        return "  ".join(c.ljust(w) for c, w in zip(fitted, widths, strict=False)).rstrip()

    return "\n".join([line(columns), *(line(r) for r in rows)]) + "\n"


async def _change(
    args: argparse.Namespace, client: HubClient, settings: Settings, server_label: str
) -> int:
    from hubtui.api import HubError

    if settings.read_only:
        raise Stop(
            USAGE,
            "read-only is on (--read-only, HUBTUI_READ_ONLY or read_only in the config file): "
            "no change is sent.",
        )
    hub = await resolve_hub(client, args.hub)
    adding = args.command == "add-user"
    user: ProjectUser | None = None
    if adding:
        before = None
        after: dict[str, object] = {"Role": args.role, "IsReviewer": bool(args.reviewer)}
        method, body = "POST", {"Email": args.email, **after}
    else:
        users = await client.list_project_users(hub.id, args.project)
        user = next((u for u in users if (u.user.email or "").lower() == args.email.lower()), None)
        if user is None:
            raise Stop(NOTHING, f"{inert(args.email)} is not in project {inert(args.project)}.")
        if user.is_limited:
            raise Stop(
                USAGE,
                f"{inert(args.email)} is a limited reader, not a member: there is no role to "
                "change. Add them as a member with: hubtui add-user",
            )
        reviewer = user.is_reviewer if args.reviewer is None else bool(args.reviewer)
        before = {"Role": user.role, "IsReviewer": user.is_reviewer}
        after = {"Role": args.role, "IsReviewer": reviewer}
        method, body = "PUT", dict(after)
        if before == after:
            print("Nothing changed, so nothing was sent.", file=sys.stderr)
            return OK
    change = Change(
        time=now(),
        action="add" if adding else "update",
        hub_id=hub.id,
        hub_name=hub.name,
        project_id=str(args.project),
        project_name=None,
        user_id=str(user.user.id) if user else None,
        email=args.email,
        before=before,
        after=after,
        outcome="",
        api_version=client.api_version,
    )
    print(
        f"{change.action} {inert(args.email)} in project {inert(args.project)} of hub "
        f"{inert(hub.name)}: {inert(change.summary)}",
        file=sys.stderr,
    )
    if args.dry_run:
        print(f"Would send: {method} {json.dumps(body)} (nothing was sent)", file=sys.stderr)
        return OK
    if not args.yes:
        if not sys.stdin.isatty():
            raise Stop(USAGE, "not asking without a terminal: add --yes to send the change.")
        answer = (await asyncio.to_thread(input, "Send this change? [y/N] ")).strip().lower()
        if answer not in ("y", "yes"):
            print("Nothing was sent.", file=sys.stderr)
            return NOTHING

    def unlogged(message: str) -> None:
        print(
            f"hubtui: WARNING: an outcome is not in the change log. {inert(message, limit=None)}",
            file=sys.stderr,
        )

    log = ChangeLog(
        default_change_log_path(),
        server=server_label,
        profile=settings.profile,
        on_write_error=unlogged,
    )
    try:
        pending = log.begin(change)
    except ChangeLogError as error:
        raise Stop(USAGE, f"{inert(str(error), limit=None)} Nothing was sent.") from None
    try:
        if adding:
            result = await client.create_project_user(
                hub.id, args.project, email=args.email, role=args.role, is_reviewer=args.reviewer
            )
        else:
            assert user is not None
            result = await client.update_project_user(
                hub.id, args.project, user.user.id, role=args.role, is_reviewer=body["IsReviewer"]
            )
    except HubError as error:
        outcome = change_outcome(error)
        log.finish(pending, outcome, str(error))
        print(inert(str(error), limit=1000), file=sys.stderr)
        if outcome == DONE:
            return OK
        return REFUSED if outcome == FAILED else UNKNOWN_OUTCOME
    except BaseException:
        log.finish(pending, "unknown", "hubtui stopped before the answer came.")
        raise
    log.finish(pending, DONE, user_id=str(result.user.id))
    print(f"Done: {inert(args.email)} is {inert(result.role)}.", file=sys.stderr)
    return OK
