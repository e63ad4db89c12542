"""The same answers without the screen: commands that print and exit, for scripts and tickets.

They share every setting, the token rules, the client, the search engine and the export rules
with the app, and never import Textual, so they start fast. Every command is held to one table
of exit statuses (:data:`EXIT_TABLE`).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import sys
import textwrap
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TextIO

from hubtui.core.changelog import (
    Action,
    Change,
    ChangeLog,
    ChangeLogError,
    Outcome,
    default_change_log_path,
    now,
)
from hubtui.core.emails import email_problem
from hubtui.core.export import Cell, render, typed_cell
from hubtui.core.layout import Column, fit_columns
from hubtui.core.names import (
    LOOKALIKE_MARK,
    lookalike_words,
    match_hub,
)
from hubtui.core.sending import EarlierAddUnknown, plan, send_change
from hubtui.core.text import inert
from hubtui.core.words import display_name_cell, hub_facts

if TYPE_CHECKING:
    import argparse

    from hubtui.api import Hub, HubClient, Project, ProjectUser
    from hubtui.config import Settings

OK, NOTHING, NOT_SENT, REFUSED, UNKNOWN_OUTCOME, INTERRUPTED = 0, 1, 2, 3, 4, 130
USAGE = NOT_SENT
#: Every command's exit statuses: the same table in --help, the README and the tests.
EXIT_TABLE = (
    (OK, "done, found, or already so (nothing to change)"),
    (NOTHING, "not found: no such hub, project or person, or nothing matched"),
    (
        NOT_SENT,
        "not sent: a wrong option or setting, read-only, a change hubtui refuses (an invalid "
        "email, a limited reader's role, someone already a member) or the question answered no",
    ),
    (REFUSED, "the server refused or failed, or part of the answer could not be read"),
    (UNKNOWN_OUTCOME, "the outcome of a change is unknown"),
    (INTERRUPTED, "stopped with Ctrl+C"),
)
EXIT_STATUSES = "exit status: " + "; ".join(f"{code} {words}" for code, words in EXIT_TABLE)
#: A reader of our output went away (``| head``): end quietly, as other Unix tools do.
BROKEN_PIPE = 141
FORMATS = ("table", "json", "jsonl", "csv")


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

    columns: tuple[Column, ...]
    items: Sequence[Any]
    row: Callable[[Any], tuple[str, ...]]
    dump: Callable[[Sequence[Any]], list[dict[str, Any]]]
    empty: str = "nothing matched"
    """Said on stderr (on a terminal, or as a table) when there is no row: stdout stays empty."""
    note: int | None = None
    """A column of prose (a reason): on a terminal, written whole under its row, wrapped to
    the width, instead of as a column; a column like any other in CSV."""
    lines: Callable[[Sequence[Any]], str] | None = None
    """JSON lines written straight from the records, when that is faster than :attr:`dump`."""
    before: str = ""
    """Lines printed above the table on a terminal (a hub's facts)."""
    csv: tuple[tuple[str, ...], Callable[[Any], tuple[Cell, ...]]] | None = None
    """CSV's own columns and cells, where the table's words (placeholders) are not values."""

    @property
    def rows(self) -> list[tuple[str, ...]]:
        return [self.row(item) for item in self.items]

    @property
    def records(self) -> list[dict[str, Any]]:
        return self.dump(self.items)

    @property
    def labels(self) -> list[str]:
        return [column.label for column in self.columns]


#: What JSON leaves raw but a terminal would obey or hide: C1 controls, bidi and invisible marks.
_UNSAFE_IN_JSON = re.compile("[\u0080-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]")


def _model_lines(items: Sequence[Any]) -> str:
    """JSON lines of records in pydantic's own serializer (API field names, unknown fields
    kept), with every character a terminal could obey written as an escape."""
    if not items:
        return ""
    from pydantic import TypeAdapter

    adapter: TypeAdapter[Any] = TypeAdapter(type(items[0]))
    text = b"\n".join(
        adapter.dump_json(item, by_alias=True, exclude_unset=True) for item in items
    ).decode()
    safe: str = _UNSAFE_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return safe + "\n"


def _dump_models(items: Sequence[Any]) -> list[dict[str, Any]]:
    """Records as the API names their fields, unknown fields kept (one pydantic call)."""
    if not items:
        return []
    from pydantic import TypeAdapter

    adapter: TypeAdapter[list[Any]] = TypeAdapter(list[type(items[0])])  # type: ignore[misc,arg-type]
    dumped = adapter.dump_python(list(items), mode="json", by_alias=True, exclude_unset=True)
    return dumped  # type: ignore[no-any-return]


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
    who = command(
        "who",
        "find a person (email, @domain or name) in every project. Exit status 0: every project "
        "read and someone found; 1: every project read and nobody found; 3: a project could "
        "not be read, whatever was found (the output lists it)",
    )
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
        print("\nhubtui: stopped.", file=sys.stderr)
        return INTERRUPTED
    except BrokenPipeError:
        # Whatever is still buffered goes nowhere, quietly, instead of a traceback at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return BROKEN_PIPE


async def _run(
    args: argparse.Namespace,
    connect: Callable[[], HubClient],
    settings: Settings,
    server_label: str,
) -> int:
    from hubtui.api import HubError, NotFoundError

    client = connect()
    async with client:
        try:
            if args.command in ("add-user", "set-role"):
                return await _change(args, client, settings, server_label)
            table, status = await _query(args, client, settings)
        except NotFoundError as error:
            raise Stop(NOTHING, inert(str(error), limit=1000)) from None
        except HubError as error:
            raise Stop(REFUSED, inert(str(error), limit=1000)) from None
    fmt = args.format or ("table" if sys.stdout.isatty() else "jsonl")
    if not table.items and (fmt == "table" or sys.stderr.isatty()):
        print(f"hubtui: {table.empty}.", file=sys.stderr)
    _print(table, fmt, sys.stdout)
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
        return await _hub_table(client, hub), OK
    if command == "projects":
        assert hub is not None
        projects = await client.list_projects(hub.id)
        table = _projects_table(projects, f"no projects in hub {inert(hub.name)}")
        return table, OK if projects else NOTHING
    if command == "users":
        assert hub is not None
        users = list(await client.list_project_users(hub.id, args.project))
        which = "users"
        if args.limited:
            users, which = [u for u in users if u.is_limited], "limited readers"
        elif args.members:
            users, which = [u for u in users if u.is_direct_member], "direct members"
        table = _users_table(users, f"no {which} in project {inert(args.project)}")
        return table, OK if users else NOTHING
    return await _who(args, client, settings, hub)


async def resolve_hub(client: HubClient, given: str) -> Hub:
    """A hub by its exact Name (URL name) or Id; anything nearer is named, never taken
    (:func:`hubtui.core.names.match_hub`, the app's rule too)."""
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


def _id_column(label: str = "Id") -> Column:
    # Never cut: its width is set to its longest value when the table is laid out.
    return Column("id", label, min_width=len(label), keep=True)


def _display_name_words(hub: Hub) -> tuple[str, str]:
    """The DisplayName cell (the app's own, :func:`display_name_cell`) and the Names note."""
    note = "differs" if hub.display_name_sent and hub.has_custom_display_name else ""
    if lookalike_words(hub):
        note = f"{note} {LOOKALIKE_MARK}lookalike".strip()
    return display_name_cell(hub), note


def _hubs_table(hubs: Sequence[Hub]) -> Table:
    def row(hub: Hub) -> tuple[str, ...]:
        shown, note = _display_name_words(hub)
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

    def cells(hub: Hub) -> tuple[Cell, ...]:
        # Values only: the DisplayName as sent (empty when not sent), and whether it was.
        return (
            hub.name,
            hub.display_name if hub.display_name_sent else "",
            hub.display_name_sent,
            hub.has_custom_display_name,
            lookalike_words(hub) or "",
            hub.region_name or "",
            hub.number_of_users,
            hub.number_of_projects,
            hub.id,
        )

    csv_columns = (
        "Name (URL name)",
        "DisplayName",
        "DisplayName sent",
        "DisplayName differs",
        "Lookalike",
        "Region",
        "Users",
        "Projects",
        "Id",
    )
    return Table(
        (
            Column("name", "Name (URL name)", min_width=18, keep=True),
            Column("display_name", "DisplayName", min_width=12),
            Column("names", "Names", min_width=7),
            Column("region", "Region", min_width=7, priority=3),
            Column("users", "Users", width=5, numeric=True, priority=4),
            Column("projects", "Projects", width=8, numeric=True, priority=4),
            _id_column(),
        ),
        hubs,
        row,
        dump,
        empty="no hubs",
        csv=(csv_columns, cells),
    )


async def _hub_table(client: HubClient, hub: Hub) -> Table:
    """One hub: the facts the hub detail screen shows, then its projects (on a terminal)."""
    from hubtui.api import HubError

    shown, note = _display_name_words(hub)
    facts = [
        ("Name", f"{inert(hub.name)}  (URL name: in links; what 'hubtui hub' matches)"),
        ("DisplayName", f"{shown}  ({note or 'as shown'}; never used to look up)"),
        *hub_facts(hub, client.regional_route(hub)),
    ]
    why = lookalike_words(hub)
    if why:
        facts.append(("Lookalike", inert(why, limit=None)))
    lines = [f"{label:<13} {words}" for label, words in facts]
    try:
        projects = await client.list_projects(hub.id)
    except HubError as error:
        lines.append(f"\nProjects: not read ({inert(str(error), limit=300)})")
    else:
        listed = _projects_table(projects, "no projects")
        width = shutil.get_terminal_size().columns
        lines.append(f"\nProjects ({len(projects)}):")
        lines.append(aligned(listed, width)[0].rstrip("\n") if projects else "(none)")
    # The hubs table, its CSV columns and JSON included, with the facts above it on a terminal.
    return replace(_hubs_table([hub]), before="\n".join(lines) + "\n")


def _projects_table(projects: Sequence[Project], empty: str) -> Table:
    return Table(
        (
            Column("name", "Name", min_width=18),
            Column("access", "Access", min_width=7),
            Column("status", "Status", min_width=6, priority=1),
            _id_column(),
            Column("number", "Number", min_width=6, priority=3),
        ),
        projects,
        lambda p: (
            inert(p.name),
            inert(p.project_access or ""),
            inert(p.project_status or ""),
            str(p.id),
            inert(p.number or ""),
        ),
        _dump_models,
        empty=empty,
    )


def _access(user: ProjectUser) -> str:
    if user.is_limited:
        return f"LIMITED @{inert(user.user.email_domain or '?')}"
    if user.is_limited is None:
        return "unknown"
    return "member"


def _users_table(users: Sequence[ProjectUser], empty: str) -> Table:
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
        (
            Column("name", "Name", min_width=12),
            Column("email", "Email", min_width=18, keep=True),
            Column("role", "Role", min_width=6),
            Column("access", "Access", min_width=8, keep=True),
            Column("reviewer", "Reviewer", width=8, priority=3, boolean=True),
            Column("teams", "Teams", min_width=6, priority=4),
            _id_column(),
        ),
        users,
        row,
        _dump_models,
        empty=empty,
        lines=_model_lines,
    )


async def _who(
    args: argparse.Namespace, client: HubClient, settings: Settings, hub: Hub | None
) -> tuple[Table, int]:
    from hubtui.core.people import Finding, PersonQuery, Progress, search_people

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
            "Project": project.model_dump(mode="json", by_alias=True, exclude_unset=True)
            if project
            else None,
        }
        if finding.error is not None:
            why = inert(str(finding.error), limit=300)
            rows.append((inert(finding.hub.name), where, "", "", "NOT READ", "", why))
            records.append({**base, "Error": str(finding.error)})
        elif finding.user is not None:
            user = finding.user
            # As the app's search says it: the role of a member, the domain of a limited reader.
            access = _access(user) if user.is_limited is not False else inert(user.role)
            rows.append(
                (
                    inert(finding.hub.name),
                    where,
                    inert(user.user.full_name or ""),
                    inert(user.user.email or ""),
                    access,
                    inert(user.role),
                    "",
                )
            )
            records.append(
                {**base, "User": user.model_dump(mode="json", by_alias=True, exclude_unset=True)}
            )
    table = Table(
        (
            Column("hub", "Hub", min_width=12, keep=True),
            Column("project", "Project", min_width=14),
            Column("name", "Name", min_width=12, priority=2),
            Column("email", "Email", min_width=18, keep=True),
            Column("access", "Access", min_width=8, keep=True),
            Column("role", "Role", min_width=6, priority=1),
            Column("reason", "not_read_reason", min_width=16),
        ),
        list(zip(rows, records, strict=True)),
        lambda pair: pair[0],
        lambda pairs: [pair[1] for pair in pairs],
        empty=f"nobody matched {inert(args.query)}",
        note=6,
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
        if table.csv is not None:
            labels, cells = table.csv
            out.write(render("csv", {}, labels, [list(cells(item)) for item in table.items]))
        else:
            kinds = [(c.boolean, c.numeric) for c in table.columns]
            rows = [
                [
                    typed_cell(cell, boolean=b, numeric=n)
                    for cell, (b, n) in zip(r, kinds, strict=True)
                ]
                for r in table.rows
            ]
            out.write(render("csv", {}, table.labels, rows))
    else:
        out.write(table.before)
        if table.before:
            return
        if table.items:
            text, left_out = aligned(table, shutil.get_terminal_size().columns)
            out.write(text)
            if left_out and sys.stderr.isatty():
                print(
                    f"hubtui: left out to fit the terminal: {', '.join(left_out)} "
                    "(a wider terminal or --format csv shows every column).",
                    file=sys.stderr,
                )


def _layout(table: Table, rows: Sequence[Sequence[str]], width: int) -> list[tuple[int, int]]:
    """The columns shown and their widths: the app's own rule (:func:`fit_columns`), with the
    identifiers (``keep``) never cut while another column can give way, and an Id never cut."""
    from dataclasses import replace

    from rich.cells import cell_len

    natural = [
        max([cell_len(c.label), *(cell_len(r[i]) for r in rows)])
        for i, c in enumerate(table.columns)
    ]
    columns = [
        # An Id is fixed at its longest value; a column needs no more than its longest text;
        # the note column is written under its row, so it takes no width.
        replace(c, width=natural[i])
        if c.key == "id"
        else replace(c, width=0, priority=99)
        if i == table.note
        else replace(c, min_width=min(c.min_width, natural[i]))
        for i, c in enumerate(table.columns)
    ]
    fitted = fit_columns(columns, natural, width, gap=2, spread=False)
    return [(i, w) for i, w in fitted if i != table.note]


def aligned(table: Table, width: int) -> tuple[str, list[str]]:
    """The table fitted to ``width`` cells, and the labels of the columns left out: columns
    chosen and sized as the app's are; a cell too long for its column is cut with ``…``; the
    note column's text is written under its row, indented and wrapped."""
    rows = table.rows
    layout = _layout(table, rows, width)

    def line(cells: Sequence[str]) -> str:
        fitted = [
            cell if len(cell) <= given else cell[: max(0, given - 1)] + "…"
            for cell, given in ((cells[i] if i < len(cells) else "", w) for i, w in layout)
        ]
        return "  ".join(c.ljust(w) for c, (_, w) in zip(fitted, layout, strict=True)).rstrip()

    out = [line(table.labels)]
    for row in rows:
        out.append(line(row))
        if table.note is not None and row[table.note]:
            out += textwrap.wrap(
                row[table.note], max(20, width - 4), initial_indent="    ", subsequent_indent="    "
            )
    shown = {index for index, _ in layout} | {table.note}
    left_out = [c.label for i, c in enumerate(table.columns) if i not in shown]
    return "\n".join(out) + "\n", left_out


async def _confirm(question: str) -> bool:
    """Ask on the terminal; True for yes. Ctrl+C ends the command at once: the answer is read
    on a thread of its own that nothing waits for at exit."""
    loop = asyncio.get_running_loop()
    answer: asyncio.Future[bytes] = loop.create_future()

    def read() -> None:
        try:
            line = os.read(sys.stdin.fileno(), 1024)
        except OSError:
            line = b""

        def give() -> None:
            if not answer.done():
                answer.set_result(line)

        loop.call_soon_threadsafe(give)

    print(question, end="", file=sys.stderr, flush=True)
    threading.Thread(target=read, daemon=True, name="hubtui-answer").start()
    reply = await answer
    return reply.decode(errors="replace").strip().lower() in ("y", "yes")


def _check_unknown_adds(
    log: ChangeLog, hub_id: str, project_id: str, users: Sequence[ProjectUser], *, dry_run: bool
) -> None:
    """Adds to this project that an earlier run left unknown are settled from the list just
    read (found: the add reached the server), and logged so, before anything is sent again:
    an add is never sent twice. A dry run says what it would log."""
    adopted = log.adopt_unknown_adds(hub_id, project_id)
    if not adopted:
        return
    members = [u.user.email or "" for u in users if u.is_direct_member]
    if dry_run:
        for change, checked in log.settling(hub_id, project_id, members):
            print(
                f"An earlier add of {inert(change.email)} (outcome unknown, {change.time}) would "
                f"be logged as checked: {checked}.",
                file=sys.stderr,
            )
        return
    for change in log.resolve_adds(hub_id, project_id, members):
        print(
            f"An earlier add of {inert(change.email)} (outcome unknown) is now checked against "
            f"the list: {change.checked}. {inert(change.detail)}",
            file=sys.stderr,
        )


async def _change(
    args: argparse.Namespace, client: HubClient, settings: Settings, server_label: str
) -> int:
    """add-user and set-role: the same reads and refusals whether sent or a dry run."""

    if settings.read_only:
        raise Stop(
            NOT_SENT,
            "read-only is on (--read-only, HUBTUI_READ_ONLY or read_only in the config file): "
            "no change is sent.",
        )
    adding = args.command == "add-user"
    email = args.email
    if adding:
        problem = email_problem(email)
        if problem:
            raise Stop(NOT_SENT, f"“{inert(email)}”: {problem} Nothing was sent.")
    hub = await resolve_hub(client, args.hub)
    users = await client.list_project_users(hub.id, args.project)

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
    _check_unknown_adds(log, hub.id, str(args.project), users, dry_run=args.dry_run)
    wanted = email.lower()
    user = next((u for u in users if (u.user.email or "").lower() == wanted), None)
    where = f"project {inert(args.project)} of hub {inert(hub.name)}"
    if adding:
        if user is not None and user.is_direct_member:
            raise Stop(
                NOT_SENT,
                f"{inert(email)} is already a member of {where} as {inert(user.role)}: there "
                "is nobody to add. Change their role with: hubtui set-role",
            )
        before: dict[str, object] | None = None
        after: dict[str, object] = {"Role": args.role}
        if args.reviewer is not None:
            after["IsReviewer"] = args.reviewer  # never a default sent
        if user is not None and user.is_limited:
            print(
                f"{inert(email)} is a limited reader of this project: the add makes them a "
                "direct member.",
                file=sys.stderr,
            )
    else:
        if user is None:
            raise Stop(NOTHING, f"{inert(email)} is not in {where}.")
        if user.is_limited:
            raise Stop(
                NOT_SENT,
                f"{inert(email)} is a limited reader, not a member: there is no role to "
                "change. Add them as a member with: hubtui add-user",
            )
        reviewer = user.is_reviewer if args.reviewer is None else bool(args.reviewer)
        before = {"Role": user.role, "IsReviewer": user.is_reviewer}
        after = {"Role": args.role, "IsReviewer": reviewer}
        if before == after:
            print("Nothing to change, so nothing was sent.", file=sys.stderr)
            return OK
    change = Change(
        time=now(),
        action=Action.ADD if adding else Action.UPDATE,
        hub_id=hub.id,
        hub_name=hub.name,
        project_id=str(args.project),
        project_name=None,
        user_id=str(user.user.id) if user and not adding else None,
        email=email,
        before=before,
        after=after,
        outcome="",
        api_version=client.api_version,
    )
    print(f"{change.action} {inert(email)} in {where}: {inert(change.summary)}", file=sys.stderr)
    if args.dry_run:
        request = await plan(client, change)
        print(
            f"Would send: {request.method} {inert(request.url, limit=None)}\n"
            f"{inert(json.dumps(request.body, ensure_ascii=False), limit=None)}\n"
            "(dry run: nothing was sent)",
            file=sys.stderr,
        )
        return OK
    if not args.yes:
        if not sys.stdin.isatty():
            raise Stop(NOT_SENT, "not asking without a terminal: add --yes to send the change.")
        if not await _confirm("Send this change? [y/N] "):
            print("Nothing was sent.", file=sys.stderr)
            return NOT_SENT
    try:
        sent = await send_change(client, log, change)
    except (ChangeLogError, EarlierAddUnknown) as error:
        raise Stop(NOT_SENT, f"{inert(str(error), limit=None)} Nothing was sent.") from None
    if sent.error is not None:
        print(inert(str(sent.error), limit=1000), file=sys.stderr)
    if sent.outcome == Outcome.DONE:
        if sent.user is not None:
            print(f"Done: {inert(email)} is {inert(sent.user.role)}.", file=sys.stderr)
        return OK
    return REFUSED if sent.outcome == Outcome.FAILED else UNKNOWN_OUTCOME
