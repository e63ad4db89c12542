"""The headless commands' arguments, and which module runs each command.

Light on purpose: ``hubtui --help`` and every command parse their arguments from here, and only
the module of the command chosen is imported (as ``git`` and ``gh`` dispatch), so ``hubtui hubs``
never loads the batch engine, the snapshot code or the store.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from datetime import date
from pathlib import Path

from hubtui.core.access import ROLES, role_named
from hubtui.headless.output import EXIT_STATUSES, FORMATS

#: Each headless command, and the module whose ``main(args, workspace)`` runs it.
COMMANDS: dict[str, str] = {
    "hubs": "hubtui.headless.commands",
    "hub": "hubtui.headless.commands",
    "projects": "hubtui.headless.commands",
    "users": "hubtui.headless.commands",
    "who": "hubtui.headless.commands",
    "add-user": "hubtui.headless.one_change",
    "set-role": "hubtui.headless.one_change",
    "apply": "hubtui.headless.apply",
    "revert": "hubtui.headless.batch",
    "snapshot": "hubtui.headless.history",
    "diff": "hubtui.headless.history",
    "store": "hubtui.headless.history",
    "hub-users": "hubtui.headless.people",
    "access": "hubtui.headless.people",
    "resend-invite": "hubtui.headless.people",
    "review": "hubtui.headless.review",
    "reviews": "hubtui.headless.review",
    "offboard": "hubtui.headless.review",
    "log": "hubtui.headless.log",
    "why": "hubtui.headless.why",
    "campaign": "hubtui.headless.campaign",
    "team": "hubtui.headless.team",
}
HEADLESS = frozenset(COMMANDS)


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
        verbose(parser)
        return parser

    def verbose(parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--verbose",
            action="store_true",
            help="print each request and its answer to stderr (the token never), stdout unchanged",
        )

    def curl(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
        parser.add_argument(
            "--curl",
            action="store_true",
            help="print the list's request as a curl command (token from $HUBTUI_TOKEN) and do "
            "not send it (a hub given by Name is looked up first, for its address)",
        )
        return parser

    why = commands.add_parser(
        "why",
        help="why this person can, or cannot, get into this project: the verdict, the facts "
        "behind it and the next step",
        description="why this person can, or cannot, get into this project: a verdict (admin, "
        "can edit, can read, can only read as a limited reader, no access, unknown), the facts "
        "behind it, each from the record that said it, and the next step where the facts "
        "support one",
        epilog=EXIT_STATUSES,
        allow_abbrev=False,
    )
    why.add_argument("email", metavar="EMAIL")
    why.add_argument(
        "project",
        metavar="PROJECT",
        nargs="?",
        help="the project's Id or part of its name (accents and case ignored); without it, "
        "every project where the person has any access",
    )
    why.add_argument(
        "--hub", metavar="HUB", help="the hub (Name or Id); without it, every hub the token sees"
    )
    why.add_argument("--format", choices=("text", "json"), help="text (the default) or json")
    verbose(why)
    curl(command("hubs", "list every hub: Name (URL name) and DisplayName"))
    command("hub", "one hub by its Name or Id").add_argument("hub", metavar="HUB")
    curl(command("projects", "a hub's projects")).add_argument("hub", metavar="HUB")
    users = curl(command("users", "a project's users: members and limited readers"))
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
    who.add_argument(
        "--history",
        action="store_true",
        help="the person's access in each snapshot kept (hubtui snapshot), oldest first",
    )
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
        change.add_argument("role", metavar="ROLE", type=_role, help="Reader, Editor or Admin")
        change.add_argument(
            "--reviewer",
            action=argparse.BooleanOptionalAction,
            default=None,
            help="as a reviewer, or not (--no-reviewer); not given: kept on set-role, and the "
            "server's default on add-user",
        )
        change.add_argument("--yes", action="store_true", help="send without asking")
        change.add_argument(
            "--dry-run", action="store_true", help="print what would be sent; send nothing"
        )
        change.add_argument(
            "--curl",
            action="store_true",
            help="print the change as a curl command (token from $HUBTUI_TOKEN); send nothing",
        )
        verbose(change)

    add_history_commands(commands, command)
    add_people_commands(command)
    add_batch_commands(commands)
    add_campaign_commands(commands)
    add_team_commands(commands)


def _role(text: str) -> str:
    """A role typed in any case, as the server spells it (the rule of batch files too)."""
    role = role_named(text)
    if role is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not one of {', '.join(ROLES)}")
    return role


def add_history_commands(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
    command: Callable[[str, str], argparse.ArgumentParser],
) -> None:
    snapshot = command(
        "snapshot",
        "read every project's users of all hubs (or of HUB ...) and keep them as one snapshot. "
        "Exit status 3 when a project could not be read (the snapshot says which)",
    )
    snapshot.add_argument("hubs", metavar="HUB", nargs="*", help="only these hubs (Name or Id)")
    snapshot.add_argument(
        "--export", metavar="FILE", help="also write it to FILE (JSON lines with a sha256)"
    )
    diff = command(
        "diff",
        "what changed in access between two snapshots (or a snapshot and now). Exit status 0: "
        "no difference; 1: differences; 3: nothing differs but something was not compared. "
        "With two snapshot files (A B), compares them without a store",
    )
    diff.add_argument("items", metavar="HUB | A B", nargs="*")
    diff.add_argument(
        "--since",
        help="a snapshot (#3 or 3), a date (2026-11-17): the latest before, or previous: the "
        "latest snapshot (of HUB, when given) against the one before it, for a cron job",
    )
    diff.add_argument(
        "--only",
        type=_only,
        metavar="WHAT",
        help="only these, comma-separated: added, removed, changed, admin (an admin appeared: "
        "added as one or made one, in a project or the hub), limited (a limited reader came, "
        "went or changed); lists not compared are always said",
    )
    diff.add_argument(
        "--until", default="now", help="a snapshot, a date, or now (default: read now)"
    )
    store = commands.add_parser(
        "store",
        help="the store of what was read: info, prune --keep 30d, migrate, copy --to URL",
        description="The store of what was read (hub lists, snapshots, reviews): the local "
        "file, or the team store on PostgreSQL (--store-url).",
        allow_abbrev=False,
    )
    store.add_argument("action", choices=("info", "prune", "migrate", "copy"))
    store.add_argument("--keep", default="30d", help="prune: keep this much (30d, 12w, 6m)")
    store.add_argument(
        "--to",
        metavar="URL",
        help="copy: the team store (libpq address) to copy this machine's history into",
    )


def add_batch_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    def command(name: str, help_text: str) -> argparse.ArgumentParser:
        parser = commands.add_parser(
            name, help=help_text, description=help_text, epilog=EXIT_STATUSES, allow_abbrev=False
        )
        parser.add_argument("--yes", action="store_true", help="send without asking")
        parser.add_argument(
            "--dry-run",
            action="store_true",
            help="print the preview and exactly the requests; send nothing",
        )
        parser.add_argument("--verbose", action="store_true", help="print each request")
        return parser

    apply = command(
        "apply",
        "apply a CSV of hub, project, email, role, reviewer (a users export, edited): each row "
        "a direct member with that role. Previewed, asked, sent; the outcome of each row is "
        "written to a results CSV beside it, which can be corrected and applied again",
    )
    apply.add_argument("file", metavar="FILE.csv")
    revert = command(
        "revert",
        "put back what a batch changed (roles and reviewer flags, from the change log); the "
        "people it added are listed, since nobody can be removed through this API",
    )
    revert.add_argument("batch", metavar="BATCH", help="the batch id (hubtui apply prints it)")


def file_pair(args: argparse.Namespace) -> bool:
    """``diff A B`` names two snapshot files (compared without a store or a server)."""
    return (
        args.command == "diff"
        and len(args.items) == 2
        and all(Path(item).is_file() for item in args.items)
    )


def add_people_commands(command: Callable[[str, str], argparse.ArgumentParser]) -> None:
    """``hub-users`` and ``access``: a hub's people, with when each was last seen."""
    users = command(
        "hub-users",
        "a hub's users: hub role, invitation accepted, last sign-in and project activity, "
        "and what needs a look (never signed in, invitation not accepted, inactive N days). "
        "Exit status 3 when the server does not list a hub's users",
    )
    users.add_argument("hub", metavar="HUB")
    users.add_argument(
        "--inactive-after",
        type=int,
        metavar="DAYS",
        help="inactive after this many days without a sign-in (default: the setting, 90)",
    )
    access = command(
        "access",
        "the access matrix of a hub: every person × every project, each cell the role, LIMITED "
        "or empty, with the person's hub role and last sign-in. Exit status 3 when a list could "
        "not be read (the answer is then incomplete, and says so)",
    )
    access.add_argument("hub", metavar="HUB")
    access.add_argument(
        "--at",
        metavar="SNAPSHOT",
        help="the matrix as a snapshot kept read it (#3, or a date: the latest taken by then), "
        "from the store: nothing is sent; hubtui diff compares two",
    )
    review = command(
        "review",
        "the decisions file of an access review: every project membership of each person who "
        "needs a look (inactive, never signed in, invitation not accepted, limited reader, hub "
        "admin), with their role now. Write keep, reader or remove (from the hub) in the "
        "decision column, and a reason, and give it to hubtui apply: it previews the decisions "
        "against a fresh read before anything is sent, and keeps the review (hubtui reviews)",
    )
    review.add_argument("hub", metavar="HUB")
    review.add_argument(
        "--stale",
        metavar="DAYS",
        type=_days,
        help="only people who have not signed in for DAYS (90 or 90d) or never",
    )
    log = command(
        "log",
        "the changes sent to this server, from the change log: when, by whom (the operator "
        "setting, else the OS user at the host), what each changed, its outcome and batch",
    )
    log.add_argument("--since", metavar="DATE", help="only changes from this date (2026-11-01)")
    log.add_argument("--operator", metavar="NAME", help="only changes by this operator")
    log.add_argument("--person", metavar="EMAIL", help="only changes of this person")
    reviews = command(
        "reviews",
        "the access reviews kept of this server (who reviewed, when, how many of each "
        "decision), or one review's rows: each person, the decision, its reason and outcome",
    )
    reviews.add_argument("number", metavar="NUMBER", nargs="?", type=int, help="one review")
    offboard = command(
        "offboard",
        "take a person out of every hub they are in (and so out of each hub's projects): "
        "found by the person search and each hub's users, previewed with what each removal "
        "ends, asked, sent as one batch, kept as a review. hubtui revert BATCH puts it back "
        "(an invitation, which sends the person an email, then each project's role)",
    )
    offboard.add_argument("email", metavar="EMAIL")
    offboard.add_argument("--hub", metavar="HUB", help="only this hub (Name or Id)")
    offboard.add_argument("--reason", default="", help="why, kept with the review")
    offboard.add_argument("--yes", action="store_true", help="send without asking")
    offboard.add_argument(
        "--dry-run", action="store_true", help="print the preview and exactly the requests"
    )
    resend = command(
        "resend-invite",
        "send the hub's invitation again to people who never accepted it (each gets an email): "
        "those named, or every one of them. Each is read again first, and nothing is sent to "
        "a person who accepted it since",
    )
    resend.add_argument("hub", metavar="HUB")
    resend.add_argument("emails", metavar="EMAIL", nargs="*", help="only these people")
    resend.add_argument("--yes", action="store_true", help="send without asking")
    resend.add_argument(
        "--dry-run", action="store_true", help="print exactly the requests; send nothing"
    )


#: What ``diff --only`` chooses by.
ONLY = ("added", "removed", "changed", "admin", "limited")


def add_campaign_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``campaign start | status | export | decide | remind | close | report``."""
    words = (
        "a review campaign a team runs together: the hub's population frozen, a packet per "
        "project for its Admins, decisions recorded (who, when, bulk or not), one verified "
        "close, a report for the auditor"
    )
    campaign = commands.add_parser(
        "campaign", help=words, description=words, epilog=EXIT_STATUSES, allow_abbrev=False
    )
    actions = campaign.add_subparsers(dest="campaign_command", required=True, metavar="ACTION")

    def action(name: str, text: str, *, number: bool = True) -> argparse.ArgumentParser:
        parser = actions.add_parser(name, help=text, description=text, allow_abbrev=False)
        if number:
            parser.add_argument("number", metavar="ID", type=int, help="the campaign's number")
        parser.add_argument("--verbose", action="store_true", help="print each request")
        return parser

    start = action(
        "start",
        "read the hub whole (its users and every project's users) and freeze that population",
        number=False,
    )
    start.add_argument("hub", metavar="HUB")
    scope = start.add_mutually_exclusive_group()
    scope.add_argument("--stale", metavar="DAYS", type=_days, help="only people not seen in DAYS")
    scope.add_argument("--all", action="store_true", help="every membership (the default)")
    start.add_argument("--due", metavar="YYYY-MM-DD", type=_date, help="when decisions are due")
    start.add_argument(
        "--if-no-answer",
        choices=("keep", "reader"),
        default="keep",
        help="what an undecided row becomes at the close (keep unless chosen; never a removal)",
    )
    start.add_argument(
        "--reviewers",
        metavar="project-admins|EMAIL,…",
        help="who decides: each project's Admins (else the hub's), or those named",
    )
    start.add_argument("--name", metavar="TEXT", help="what the campaign is called")
    start.add_argument(
        "--inactive-after",
        metavar="DAYS",
        type=_days,
        help="recommend removing who has not signed in for DAYS (default: inactive_after)",
    )
    start.add_argument(
        "--since-last",
        action="store_true",
        help="mark memberships kept in the hub's last closed campaign and unchanged since",
    )
    start.add_argument(
        "--allow-empty",
        action="store_true",
        help="make the campaign even when nobody is in its population (kept for good)",
    )
    start.add_argument(
        "--allow-incomplete",
        action="store_true",
        help="make the campaign of what could be read (recorded as such)",
    )
    status = action("status", "per packet and per reviewer: assigned, decided, left; conflicts")
    status.add_argument("--format", choices=("text", "json"), default="text")
    export = action("export", "the decisions file of the campaign, or of one packet")
    export.add_argument("--packet", metavar="PROJECT", help="one packet: the project's Id or name")
    export.add_argument("--format", choices=("csv",), default="csv")
    decide = action("decide", "record the decisions of a file (nothing is sent)")
    decide.add_argument("file", metavar="FILE", help="the decisions file (-: standard input)")
    decide.add_argument(
        "--resolve", action="store_true", help="the owner's word, which settles a conflict"
    )
    action("remind", "a message ready to send to each reviewer still behind")
    mine = action(
        "mine",
        "the packets and rows waiting on you (the database role's account on the team store, "
        "else the operator), across the open campaigns",
        number=False,
    )
    mine.add_argument("--format", choices=("text", "json"), default="text")
    close = action(
        "close",
        "undecided rows take the default; the removals and Reader changes previewed against a "
        "fresh read, asked, sent as one batch, then read back and verified",
    )
    close.add_argument("--yes", action="store_true", help="close and send without asking")
    close.add_argument("--dry-run", action="store_true", help="print exactly the requests")
    close.add_argument(
        "--allow-no-admin",
        action="store_true",
        help="send too what leaves a project or the hub without an Admin (said and recorded)",
    )
    delegate = action(
        "delegate", "the owner gives a packet to a database role of the team to decide"
    )
    delegate.add_argument("--packet", metavar="PROJECT", required=True, help="Id or name")
    delegate.add_argument("--to", metavar="ROLE", required=True, help="a role of the roster")
    reassign = action("reassign", "the owner gives a packet another reviewer of record")
    reassign.add_argument("--packet", metavar="PROJECT", required=True, help="Id or name")
    reassign.add_argument("--to", metavar="EMAIL", required=True, help="a user of the hub")
    reassign.add_argument("--note", metavar="TEXT", required=True, help="why (kept with it)")
    report = action("report", "the record for an auditor: the population and every decision")
    report.add_argument("--format", choices=("csv", "json"), default="csv")


def add_team_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``team add | list | remove``: the team roster, on the team store."""
    words = (
        "the team roster: each database role of the team store and the hub account it acts "
        "for, who may decide in a campaign (kept by the store's owner)"
    )
    team = commands.add_parser(
        "team", help=words, description=words, epilog=EXIT_STATUSES, allow_abbrev=False
    )
    actions = team.add_subparsers(dest="team_command", required=True, metavar="ACTION")
    add = actions.add_parser(
        "add", help="the role acts for the account at EMAIL", allow_abbrev=False
    )
    add.add_argument("role", metavar="ROLE", help="the database role, as it signs in")
    add.add_argument("--account", metavar="EMAIL", required=True, help="its hub account")
    add.add_argument("--name", metavar="TEXT", default="", help="shown beside it")
    listed = actions.add_parser("list", help="the roster of this server", allow_abbrev=False)
    listed.add_argument("--format", choices=("text", "json"), default="text")
    remove = actions.add_parser("remove", help="the role decides no more", allow_abbrev=False)
    remove.add_argument("role", metavar="ROLE")
    for parser in (add, listed, remove):
        parser.add_argument("--verbose", action="store_true", help="print each request")


def _date(text: str) -> str:
    try:
        return date.fromisoformat(text).isoformat()
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date (YYYY-MM-DD)") from None


def _only(text: str) -> frozenset[str]:
    chosen = frozenset(w.strip() for w in text.split(",") if w.strip())
    unknown = sorted(chosen - set(ONLY))
    if unknown or not chosen:
        raise argparse.ArgumentTypeError(
            f"{', '.join(unknown) or 'nothing'}: choose from {', '.join(ONLY)}"
        )
    return chosen


def _days(text: str) -> int:
    """``90`` or ``90d``: a whole number of days, 1 or more."""
    value = text.strip().removesuffix("d")
    if not value.isdigit() or int(value) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of days such as 90 or 90d")
    return int(value)
