"""Why this person can, or cannot, get into this project: a support ticket answered in one step.

From the few records the service gives (the hub, its users, the project's users and the hub's
projects), a verdict, the chain of facts behind it (each from the record that said it, and "not
sent" where the server sent no such field) and the next step, only where the facts support it.
Textual-free: ``hubtui why`` renders it; nothing here is sent to the server.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypeVar

from hubtui.api import HubError, NotFoundError
from hubtui.api.errors import not_offered
from hubtui.api.identity import email_domain
from hubtui.api.models import as_sent_value
from hubtui.core.access import find_person, person_key
from hubtui.core.changes.history import last_invitation
from hubtui.core.changes.kinds import kind_of
from hubtui.core.clock import minute
from hubtui.core.people.advice import Facts, Former, Kept, NextStep, ReviewNote, next_steps
from hubtui.core.people.hub import INACTIVE_AFTER_DAYS
from hubtui.core.people.search import DEFAULT_CONCURRENCY, Finding, PersonQuery, search_people
from hubtui.core.presenting.words import seen_words
from hubtui.core.signins import last_seen
from hubtui.text import fold, inert, lookalike

if TYPE_CHECKING:
    from collections.abc import Awaitable, Mapping, Sequence

    from hubtui.api import Hub, HubClient, Project, ProjectUser
    from hubtui.api.models import HubUser
    from hubtui.core.changes.record import Change

_T = TypeVar("_T")

#: The verdicts, from the most access to none.
ADMIN = "admin"
CAN_EDIT = "can edit"
CAN_READ = "can read (a direct Reader)"
LIMITED = "can only read, as a limited reader"
NO_ACCESS = "no access"
NO_PROJECT = "a user of the hub, in none of its projects"
UNKNOWN = "unknown"
NOT_IN_YET = "cannot get in until they accept the invitation to the hub"

#: The verdicts as stable codes, for a script (``--format json``'s ``verdict_code``).
VERDICT_CODES = (
    "admin",
    "can_edit",
    "can_read",
    "limited_reader",
    "no_access",
    "not_a_user",
    "unknown",
)
_CODE_OF = {ADMIN: "admin", CAN_EDIT: "can_edit", CAN_READ: "can_read", NO_PROJECT: "no_access"}


#: A field the server did not send: its fact carries no value.
NOT_SENT: Any = object()


@dataclass(frozen=True)
class Fact:
    """One fact of the chain: what it is, what it says, and the record that said it; where the
    fact is one field of a record, the field's API name, its value as the server sent it (left
    out when it was not sent: a default is never shown as a fact) and which record."""

    what: str
    says: str
    source: str
    field: str | None = None
    value: Any = NOT_SENT
    record: str | None = None

    def as_record(self) -> dict[str, Any]:
        found: dict[str, Any] = {"fact": self.what, "says": self.says, "from": self.source}
        if self.field is not None:
            found["field"] = self.field
            if self.value is not NOT_SENT:
                found["value"] = self.value
            found["record"] = self.record
        return found


def _field_fact(what: str, says: str, source: str, model: Any, name: str, record: str) -> Fact:
    """A fact that is one field of ``model``: its API name and its value as the server sent it
    (the record's JSON as sent, never a default the model fills in)."""
    info = type(model).model_fields[name]
    wire = info.alias or name
    return Fact(what, says, source, wire, model.as_sent().get(wire, NOT_SENT), record)


@dataclass
class Answer:
    """The answer for one person and one project."""

    email: str
    hub: Hub
    project_id: str | None
    """``None``: the answer is for the hub, where they have no project."""
    project_name: str | None
    verdict: str
    facts: list[Fact] = field(default_factory=list)
    steps: list[NextStep] = field(default_factory=list)
    """The next steps, decided by one table (:mod:`hubtui.core.people.advice`)."""
    not_read: list[str] = field(default_factory=list)
    """What could not be read, and why: the answer is then incomplete, and says so."""
    user_id: str | None = None
    """The account answered for, when several accounts have this address (None: one, or none)."""
    account: str | None = None
    """That account's address, as the server sent it."""
    verdict_code: str = "unknown"
    """The verdict as a stable code (:data:`VERDICT_CODES`), for a script."""
    limited_through: str | None = None
    """The domain a limited reader reads through (None: not a limited reader)."""
    hub_user: HubUser | None = None
    """Their record in the hub's users, as read (for a fix that acts on it)."""
    account_id: str | None = None
    """The account answered for, by its Id as read (the project's users, else the hub's; None:
    no account has this address in what was read). History is matched by it."""

    @property
    def next_steps(self) -> list[str]:
        """Each next step in words, its command after it."""
        return [step.text() for step in self.steps]

    @property
    def who(self) -> str:
        """The address asked about, and the account when several have it."""
        if self.user_id is None:
            return self.email
        return f"{self.email} (account Id {self.user_id}, {self.account or 'no email'})"

    @property
    def where(self) -> str:
        if self.project_id is None:
            return "the hub"
        return self.project_name or f"project {self.project_id}"

    def as_record(self) -> dict[str, Any]:
        return {
            "email": self.email,
            "hub": self.hub.name,
            "hub_id": self.hub.id,
            "project_id": self.project_id,
            "project": self.project_name,
            "user_id": self.account_id,
            "verdict_code": self.verdict_code,
            "verdict": self.verdict,
            "limited_through": self.limited_through,
            "facts": [fact.as_record() for fact in self.facts],
            "next_steps": [step.as_record() for step in self.steps],
            "not_read": list(self.not_read),
        }

    def text(self) -> str:
        """One text a ticket can hold (``y`` copies it whole): a line each, every value made
        inert before the lines are joined, so that nothing a server, a file or the store holds
        (a line break, U+2028) can start a line of its own."""
        lines = [f"{_one(self.who)} in {_one(self.where)} ({_one(self.hub.name)}): "
                 f"{_one(self.verdict)}."]  # fmt: skip
        lines += [
            f"- {_one(fact.what)}: {_one(fact.says)} ({_one(fact.source)})" for fact in self.facts
        ]
        lines += [f"Not read: {_one(why)}" for why in self.not_read]
        lines += [f"Next: {_one(step)}" for step in self.next_steps]
        return "\n".join(lines)


def _one(value: object) -> str:
    """A value of an answer's line, whole and inert: never more than that one line."""
    return inert(value, limit=None)


def answers_text(answers: Sequence[Answer]) -> str:
    """The answers as one text a ticket can hold, a block each (``y`` copies it whole), after
    the line that says nobody has the address anywhere, where that is the answer."""
    nowhere, said = shown(answers)
    blocks = [answer.text() for answer in said]
    return "\n\n".join(blocks if nowhere is None else [nowhere, *blocks])


def shown(answers: Sequence[Answer]) -> tuple[str | None, list[Answer]]:
    """The line that says nobody has the address anywhere (None: that is not the answer), and
    the answers shown after it: a hub that says no more than that line is folded into it; one
    with an address near this one, or a project not read, follows it."""
    nowhere = nowhere_line(answers)
    if nowhere is None:
        return None, list(answers)
    return nowhere, [a for a in answers if [s.code for s in a.steps] != ["unknown_address"]]


def nowhere_line(answers: Sequence[Answer]) -> str | None:
    """``No one with this address is a user of any of the 8 hubs read``, first, when that is
    what the answers say across several hubs (each project that could not be read named), else
    None."""
    hubs = {a.hub.id for a in answers if a.verdict_code == "not_a_user"}
    if len(hubs) < 2 or any(a.verdict_code not in ("not_a_user", "unknown") for a in answers):
        return None
    if any(a.account_id is not None for a in answers):
        return None
    line = f"No one with this address is a user of any of the {len(hubs)} hubs read (by Name: "
    line += ", ".join(_one(name) for name in sorted({a.hub.name for a in answers})) + ")"
    unread = [a for a in answers if a.verdict_code == "unknown"]
    if unread:
        named = "; ".join(f"{_one(a.where)} ({_one(a.hub.name)})" for a in unread)
        line += f"; not read, so not known there: {named}"
    return line + "."


def offline_note(kept: str | None) -> str:
    """Said beside answers read offline (``kept``: when the lists were read), so that they are
    never taken for what the server holds now."""
    when = f" ({inert(kept)})" if kept else ""
    return f"(offline: from what the store kept{when}, not the server now)"


def _sent(model: Any, name: str) -> bool:
    return name in model.model_fields_set


@dataclass(frozen=True)
class Sources:
    """Where an answer's history is read, beside the server's lists: each read off the event
    loop, and one that cannot be read is said with the answer, never taken as nothing."""

    history: History | None = None
    """What hubtui changed of a person's access (the change log, the team's trail)."""
    formerly: Formerly | None = None
    """The accounts the snapshots kept with an address: an address nobody has now that an
    account had is said to be that account's, and that account is answered for too."""
    reviewed: Reviewed | None = None
    """The access reviews kept, by the batch each was sent in."""
    inactive_after: int = INACTIVE_AFTER_DAYS


async def explain(
    client: HubClient,
    email: str,
    hub: Hub,
    project_id: str,
    *,
    now: datetime | None = None,
    sources: Sources | None = None,
) -> list[Answer]:
    """Read the project's users, the hub's users and the hub's projects (at once), and answer
    for ``email`` in ``project_id``: one answer, or one for each account when several have this
    address. A list that cannot be read is said, never taken as empty; ``sources``: what hubtui
    keeps of the person beside them."""
    sources = sources or Sources()
    users, hub_users, projects, changed = await asyncio.gather(
        _read(client.list_project_users(hub.id, project_id)),
        _read(client.list_hub_users(hub.id)),
        _read(client.list_projects(hub.id)),
        _history(sources.history, email),
    )
    known = _here(changed, hub.id, project_id)
    nobody = not _accounts(email, users, hub_users)
    kept, unread = await _kept(sources, hub, email, _here(changed, hub.id), hub_users, nobody)
    answers = answers_of(
        email, hub, project_id, users, hub_users, projects, now=now, history=known, kept=kept
    )  # fmt: skip
    for account in kept.former if _nobody(answers) else ():
        if account.now is None:
            continue
        theirs = [c for c in known if c.user_id == account.user_id]
        answer = answer_of(
            account.now, hub, project_id, users, hub_users, projects, now=now, history=theirs,
            kept=replace(kept, former=()),
        )  # fmt: skip
        answer.facts.insert(0, Fact("address before", f"{email} until {account.until}", _KEPT))
        answers.append(answer)
    for answer in answers:
        answer.not_read += unread
    return _said(answers, changed)


#: Where a fact of what hubtui keeps comes from.
_KEPT = "the snapshots kept and hubtui's changes"


def _nobody(answers: Sequence[Answer]) -> bool:
    return any(a.verdict_code == "not_a_user" for a in answers)


#: The accounts the snapshots kept with an address, in a hub (hub Id, address).
Formerly = Callable[[str, str], "Awaitable[Sequence[Former]]"]
#: The access reviews some batches were sent for, with the reason given for an address.
Reviewed = Callable[["Sequence[str]", str], "Awaitable[Mapping[str, ReviewNote]]"]


async def _kept(
    sources: Sources,
    hub: Hub,
    email: str,
    changed: Sequence[Change],
    hub_users: Sequence[HubUser] | HubError,
    nobody: bool,
) -> tuple[Kept, list[str]]:
    """What hubtui keeps of ``email`` in this hub: the accounts that had the address (the
    changes hubtui made to them under it, the snapshots kept), each with its address now, and
    the reviews their changes were sent for; and what of it could not be read. ``nobody``:
    no account has the address in the lists read (only then are the snapshots asked)."""
    unread: list[str] = []
    until: dict[str, tuple[str, str | None]] = {}
    key = person_key(email)
    for change in changed:
        if change.user_id and person_key(change.email) == key:
            role = (change.before or {}).get("Role") if change.project_id == "" else None
            until[change.user_id] = (
                f"hubtui's change of {minute(change.time)} UTC (in {change.where})",
                role if isinstance(role, str) else None,
            )
    if sources.formerly is not None and nobody:
        try:
            for held in await sources.formerly(hub.id, email):
                until[held.user_id] = (held.until, held.had)
        except Exception as error:  # noqa: BLE001 - a file or a store: said, never a crash
            unread.append(f"the snapshots kept could not be read for who had it: {error}")
    now = {} if isinstance(hub_users, HubError) else {str(u.user.id): u for u in hub_users}
    former = []
    for user_id, (when, had) in until.items():
        user = now.get(user_id)
        if user is not None and person_key(user.user.email) == key:
            continue  # it has the address still: not a former holder
        address = None if user is None else user.user.email or ""
        former.append(Former(user_id, when, address, had))
    reviews: Mapping[str, ReviewNote] = {}
    batches = sorted({c.batch for c in changed if c.batch})
    if batches and sources.reviewed is not None:
        try:
            reviews = await sources.reviewed(batches, email)
        except Exception as error:  # noqa: BLE001 - a file or a store: said, never a crash
            unread.append(f"the reviews kept could not be read: {error}")
    return Kept(sources.inactive_after, tuple(former), reviews), unread


#: What hubtui changed of a person's access on this server (by their address), in every hub:
#: the change log's and the team's lines, oldest first. Blocking: called on a thread, once.
History = Callable[[str], "Sequence[Change]"]


class HistoryUnread(Exception):
    """What hubtui changed could not be read (the change log's file, the team store)."""


async def _history(history: History | None, email: str) -> Sequence[Change] | HistoryUnread:
    """The history, or why it could not be read (said with the answer, never taken as none)."""
    if history is None:
        return ()
    try:
        return await asyncio.to_thread(history, email)
    except Exception as error:  # noqa: BLE001 - a file or a store, whatever failed is said
        return HistoryUnread(f"what hubtui changed of them could not be read: {error}")


def _here(
    history: Sequence[Change] | HistoryUnread, hub_id: str, project_id: str | None = None
) -> list[Change]:
    """Of the history read, what changed in this hub (of the hub itself, and of ``project_id``
    when given: of every project otherwise)."""
    if isinstance(history, HistoryUnread):
        return []
    return [
        c
        for c in history
        if c.hub_id == hub_id and (project_id is None or c.project_id in ("", project_id))
    ]


def _said(answers: list[Answer], history: Sequence[Change] | HistoryUnread) -> list[Answer]:
    if isinstance(history, HistoryUnread):
        for answer in answers:
            answer.not_read.append(str(history))
    return answers


async def _read(call: Awaitable[_T]) -> _T | HubError:
    try:
        return await call
    except HubError as error:
        return error


Listed = TypeVar("Listed", "ProjectUser", "HubUser")


def _accounts(email: str, *lists: Sequence[ProjectUser] | Sequence[HubUser] | HubError) -> Accounts:
    """Every account with this address in the lists read (by Id, in the order listed): usually
    one; a server may hold two (``Ann@`` and ``ann@``), each a person of their own."""
    key = person_key(email)
    found: dict[str, str | None] = {}
    for records in lists:
        if isinstance(records, HubError):
            continue
        for record in records:
            if person_key(record.user.email) == key:
                found.setdefault(str(record.user.id), record.user.email)
    return list(found.items())


#: The accounts of one address: each its Id and its address as sent.
Accounts = list[tuple[str, "str | None"]]


def answers_of(
    email: str,
    hub: Hub,
    project_id: str | None,
    users: Sequence[ProjectUser] | HubError,
    hub_users: Sequence[HubUser] | HubError,
    projects: Sequence[Project] | HubError,
    *,
    now: datetime | None = None,
    history: Sequence[Change] = (),
    kept: Kept | None = None,
) -> list[Answer]:
    """The answer for ``email`` in ``project_id`` from the lists read, or, when several
    accounts have this address, an answer for each (each says so and names its account)."""
    accounts = _accounts(email, users, hub_users)

    def for_account(account: tuple[str, str | None] | None) -> Answer:
        theirs = (
            history if account is None else [c for c in history if c.user_id in (None, account[0])]
        )
        return answer_of(
            email, hub, project_id, users, hub_users, projects, now=now, account=account,
            of=None if account is None else accounts, history=theirs, kept=kept,
        )  # fmt: skip

    if len(accounts) < 2:
        return [for_account(None)]
    return [for_account(a) for a in accounts]


def answer_of(
    email: str,
    hub: Hub,
    project_id: str | None,
    users: Sequence[ProjectUser] | HubError,
    hub_users: Sequence[HubUser] | HubError,
    projects: Sequence[Project] | HubError,
    *,
    now: datetime | None = None,
    account: tuple[str, str | None] | None = None,
    of: Accounts | None = None,
    history: Sequence[Change] = (),
    kept: Kept | None = None,
) -> Answer:
    """The answer for ``email`` in ``project_id`` (``None``: the hub itself, where they have
    no project) from the lists already read; each list may be the error that stopped it.
    ``account``: the one account (Id, address) to answer for, of the several (``of``) that
    have this address."""
    now = now or datetime.now(UTC)
    project = (
        None
        if isinstance(projects, HubError) or project_id is None
        else next((p for p in projects if str(p.id) == str(project_id)), None)
    )
    answer = Answer(email, hub, project_id, project.name if project else None, UNKNOWN)
    if account is not None:
        _for_account(answer, account, of or [account])
    member = None
    if project_id is None:
        answer.verdict = NO_PROJECT
    else:
        _project_facts(answer, project, projects)
        member = _membership(answer, users)
    person = _hub_facts(answer, hub_users, now)
    if project_id is None and person is None:
        # Not a user of the hub (or its users not read): never "a user in none of its projects".
        answer.verdict = UNKNOWN if isinstance(hub_users, HubError) else NO_ACCESS
    _sign_in_facts(answer, hub)
    why_alike = lookalike(email)
    if why_alike:
        answer.facts.insert(0, Fact("address", f"a lookalike: {why_alike}", "the address asked"))
    facts = Facts(
        email=email,
        hub=hub,
        now=now,
        project_id=project_id,
        project=project,
        project_users=None if isinstance(users, HubError) or project_id is None else users,
        member=member,
        hub_users=None if isinstance(hub_users, HubError) else hub_users,
        person=person,
        history=history,
        kept=kept or Kept(),
    )
    _former_accounts(answer, facts)
    answer.steps = next_steps(facts)
    answer.hub_user = person
    found = member or person
    answer.account_id = answer.user_id if found is None else str(found.user.id)
    answer.verdict_code = _verdict_code(answer, facts)
    answer.verdict = _verdict_words(answer, facts)
    return answer


def _verdict_code(answer: Answer, facts: Facts) -> str:
    """The verdict as one of :data:`VERDICT_CODES`."""
    if answer.limited_through is not None:
        return "limited_reader"
    if answer.verdict == NO_ACCESS:
        return "not_a_user" if facts.unknown_to_the_hub else "no_access"
    return _CODE_OF.get(answer.verdict, "unknown")


def _verdict_words(answer: Answer, facts: Facts) -> str:
    """The verdict's words, saying first what decides the ticket: nobody has this address in
    the hub, or an invitation never accepted (whatever the project would give them once in)."""
    if answer.verdict_code == "not_a_user":
        return f"not a user of {answer.hub.name}"
    person = facts.person
    if person is not None and _sent(person, "is_activated") and person.is_activated is False:
        return f"{NOT_IN_YET} ({_invited(facts)})"
    return answer.verdict


def _invited(facts: Facts) -> str:
    """When their invitation went out, as far as hubtui knows it (the server does not say)."""
    last = last_invitation(facts.history)
    if last is None:
        return "the hub's users do not say when it was sent"
    sent = kind_of(last).invitation
    return f"{sent} by hubtui on {minute(last.time)} UTC by {last.operator or 'someone'}"


def _find(records: Sequence[Listed], answer: Answer) -> Listed | None:
    """The record of the person answered for: the account named (its Id with this address),
    else the one with this address."""
    if answer.user_id is None:
        return find_person(records, answer.email)
    key = person_key(answer.email)
    return next(
        (
            r
            for r in records
            if str(r.user.id) == answer.user_id and person_key(r.user.email) == key
        ),
        None,
    )


#: Typed before a project's Id, it names the project by its Id only (``id:1002``), never by a
#: name: the way to one project when its Id is another project's name.
BY_ID = "id:"


def projects_named(projects: Sequence[Project], typed: str) -> list[Project]:
    """The projects ``typed`` names: the one whose Id it is, else each whose name holds it
    (accents and case ignored, as ``/`` filters). A project the server lists twice is one
    project. A value that is one project's Id and another's whole name names both (ambiguous:
    ``id:`` before the Id names the first alone)."""
    typed = typed.strip()
    unique: dict[str, Project] = {}
    for project in projects:
        unique.setdefault(str(project.id), project)
    if typed.startswith(BY_ID):
        wanted_id = typed[len(BY_ID) :].strip()
        return [p for p in unique.values() if str(p.id) == wanted_id]
    by_id = [p for p in unique.values() if str(p.id) == typed]
    if not typed:
        return by_id
    wanted = fold(typed)
    if by_id:
        return by_id + [
            p for p in unique.values() if str(p.id) != typed and fold(p.name or "") == wanted
        ]
    return [p for p in unique.values() if wanted in fold(p.name or "")]


@dataclass(frozen=True)
class ProjectNamed:
    """The projects a typed Id or name names among some hubs' projects: one is the answer's."""

    typed: str
    found: list[tuple[Hub, str, str | None]]
    """Each (hub, project Id, project name) it names."""

    @property
    def by_name(self) -> bool:
        """Whether every project found is named by the text typed, none by its Id (a value that
        is one project's Id and another's name is said, not chosen from)."""
        typed = self.typed.strip()
        return not any(pid == typed for _, pid, _ in self.found)

    @property
    def one(self) -> tuple[Hub, str] | None:
        """The hub and project Id, when it names exactly one."""
        if len(self.found) != 1:
            return None
        hub, project_id, _ = self.found[0]
        return hub, project_id

    def words(self) -> str:
        """Why there is no one project: none named, or each of several (give one by its Id);
        each value made inert, the lines kept."""
        if not self.found:
            return (
                f"no project named {inert(self.typed)!r} or with that Id in the projects the "
                "hub lists"
            )
        typed = self.typed.strip()
        if any(pid == typed for _, pid, _ in self.found):
            head = (
                f"{inert(typed)!r} is one project's Id and another's name, so it names neither; "
                f"give the other by its Id, or this one as {BY_ID}{inert(typed)}:"
            )
        else:
            head = f"{inert(typed)!r} names {len(self.found)} projects; give one by its Id:"
        lines = [head]
        lines += [
            f"  {inert(pid)}  {inert(name or '')} (hub {inert(hub.name)})"
            for hub, pid, name in self.found
        ]
        return "\n".join(lines)


async def project_named(client: HubClient, hubs: Sequence[Hub], typed: str) -> ProjectNamed:
    """What ``typed`` names among the hubs' projects (:func:`projects_named`). A number in one
    hub whose project list is not offered is taken as that project's Id (the answer then says
    what could be read of it); a hub that lists its projects and not this one names none."""
    typed = typed.strip()
    found: list[tuple[Hub, str, str | None]] = []
    unlisted = 0
    for hub in hubs:
        try:
            projects = await client.list_projects(hub.id)
        except NotFoundError:
            unlisted += 1
            continue
        found += [(hub, str(p.id), p.name) for p in projects_named(projects, typed)]
    digits = typed[len(BY_ID) :].strip() if typed.startswith(BY_ID) else typed
    if not found and digits.isdigit() and len(hubs) == 1 and unlisted:
        found = [(hubs[0], digits, None)]
    return ProjectNamed(typed, found)


async def explain_everywhere(
    client: HubClient,
    email: str,
    hubs: Sequence[Hub],
    *,
    concurrency: int = DEFAULT_CONCURRENCY,
    now: datetime | None = None,
    sources: Sources | None = None,
) -> list[Answer]:
    """An answer for each project of ``hubs`` where ``email`` has any access, each project that
    could not be read (unknown), and each hub where they are a user without a project. The
    hubs' projects are searched as ``w`` searches them; the address matches only itself."""
    findings: list[Finding] = []
    listed: dict[str, Sequence[Project]] = {}
    hub_users = await asyncio.gather(*(_read(client.list_hub_users(hub.id)) for hub in hubs))
    await search_people(
        client,
        PersonQuery(email),
        hubs,
        on_finding=findings.append,
        on_listed=lambda hub, projects: listed.__setitem__(hub.id, projects),
        concurrency=concurrency,
    )
    sources = sources or Sources()
    changed = await _history(sources.history, email)
    answers: list[Answer] = []
    # Whether any account has the address in each hub read; nowhere, each hub read says so,
    # with its near addresses.
    nobody = [
        not _accounts(
            email, [f.user for f in findings if f.hub.id == h.id and f.user is not None], people
        )
        for h, people in zip(hubs, hub_users, strict=True)
    ]
    nowhere = all(nobody)
    for hub, people, none_here in zip(hubs, hub_users, nobody, strict=True):
        known = _here(changed, hub.id)
        kept, unread = await _kept(sources, hub, email, known, people, none_here)
        in_hub = _answers_in_hub(
            email, hub, people, listed.get(hub.id, ()), findings, now, known,
            alone=len(hubs) == 1 or nowhere, kept=kept,
        )  # fmt: skip
        for answer in in_hub:
            answer.not_read += unread
        answers += _said(in_hub, changed)
    return answers


def _for_account(answer: Answer, account: tuple[str, str | None], of: Accounts) -> None:
    """The answer is for ``account`` of the several (``of``) that have its address: said."""
    answer.user_id, answer.account = account
    named = ", ".join(f"Id {i} {inert(e or '(no email)')}" for i, e in of)
    answer.facts.append(
        Fact(
            "accounts",
            f"{len(of)} accounts have this address ({named}); this answer is for Id {account[0]}",
            "the project's users and the hub's users",
        )
    )


def _former_accounts(answer: Answer, facts: Facts) -> None:
    """Each account of the address no longer a user of the hub: what it had, until when."""
    for held in facts.former:
        if held.now is None:
            had = f" ({inert(held.had)})" if held.had else ""
            answer.facts.append(
                Fact(
                    "hub user before",
                    f"account Id {held.user_id} was a user of the hub{had} until {held.until}; "
                    "it is not one now",
                    _KEPT,
                )
            )


def _not_read(email: str, hub: Hub, finding: Finding) -> Answer:
    """A project (or the hub's projects) not read: unknown, and why."""
    project = finding.project
    what = "its projects" if project is None else "the project's users"
    return Answer(
        email,
        hub,
        None if project is None else str(project.id),
        None if project is None else project.name,
        UNKNOWN,
        not_read=[f"{what}: {finding.error}"],
    )


def _answers_in_hub(
    email: str,
    hub: Hub,
    people: Sequence[HubUser] | HubError,
    projects: Sequence[Project] | HubError,
    findings: Sequence[Finding],
    now: datetime | None,
    history: Sequence[Change] = (),
    *,
    alone: bool = False,
    kept: Kept | None = None,
) -> list[Answer]:
    """The answers of one hub: each project the person is in (each account of theirs), each
    project not read, and the hub itself for an account in none of its projects. A hub whose
    users could not be read is unknown for the hub, never "not a user"."""
    key = person_key(email)
    answers: list[Answer] = []
    # In the hub's own order of its projects, whichever answered first.
    order = {} if isinstance(projects, HubError) else {str(p.id): n for n, p in enumerate(projects)}

    def place(finding: Finding) -> tuple[int, str]:
        project_id = "" if finding.project is None else str(finding.project.id)
        return (order.get(project_id, len(order)), project_id)

    mine = sorted((f for f in findings if f.hub.id == hub.id), key=place)
    users = [f.user for f in mine if f.user is not None and person_key(f.user.user.email) == key]
    accounts = _accounts(email, users, people)
    several = accounts if len(accounts) > 1 else None
    for finding in mine:
        if finding.error is not None:
            answers.append(_not_read(email, hub, finding))
        elif finding.user is not None and person_key(finding.user.user.email) == key:
            assert finding.project is not None
            user = finding.user.user
            answers.append(
                answer_of(
                    email,
                    hub,
                    str(finding.project.id),
                    [finding.user],
                    people,
                    projects,
                    now=now,
                    account=None if several is None else (str(user.id), user.email),
                    of=several,
                    history=_here(history, hub.id, str(finding.project.id)),
                    kept=kept,
                )
            )
    if isinstance(people, HubError):
        if not not_offered(people) and not answers:
            answers.append(
                Answer(email, hub, None, None, UNKNOWN, not_read=[f"the hub's users: {people}"])
            )
        return answers

    def for_the_hub(account: tuple[str, str | None] | None = None) -> Answer:
        return answer_of(
            email, hub, None, (), people, projects, now=now, account=account, of=several,
            history=history, kept=kept,
        )  # fmt: skip

    in_project = {a.user_id for a in answers if a.project_id is not None}
    for account in accounts:
        in_hub = any(str(u.user.id) == account[0] for u in people)
        if not in_hub or (account[0] if several else None) in in_project:
            continue
        answers.append(for_the_hub(None if several is None else account))
    found = any(a.verdict != UNKNOWN for a in answers)
    if not found and not accounts and (alone or history):
        # Nowhere in this hub: said for the hub (what hubtui changed of them here, the hub's
        # addresses near theirs), never left at "not read" or silence.
        answers.append(for_the_hub())
    return answers


def _project_facts(answer: Answer, project: Project | None, projects: Any) -> None:
    source = "the hub's projects"
    if isinstance(projects, HubError):
        why = "not offered by this server" if not_offered(projects) else str(projects)
        answer.facts.append(Fact("project access", f"not read ({why})", source))
        if not not_offered(projects):
            answer.not_read.append(f"the hub's projects: {projects}")
    elif project is None:
        answer.facts.append(Fact("project access", "not in the hub's project list", source))
    else:
        limited = " (whitelisted email domains read it as limited readers)"
        access = project.project_access
        says = "not sent" if access is None else access + (limited if access == "Limited" else "")
        record = f"project {project.id}"
        answer.facts.append(
            _field_fact("project access", says, source, project, "project_access", record)
        )


def _membership(answer: Answer, users: Sequence[ProjectUser] | HubError) -> ProjectUser | None:
    source = "the project's users"
    if isinstance(users, HubError):
        answer.not_read.append(f"the project's users: {users}")
        answer.facts.append(Fact("in the project", "not read", source))
        return None
    member = _find(users, answer)
    if member is None:
        answer.verdict = NO_ACCESS
        answer.facts.append(Fact("in the project", "not listed: no access", source))
        return None
    record = f"project {answer.project_id}, user Id {member.user.id}"
    answer.facts.append(_field_fact("project role", member.role, source, member, "role", record))
    if _sent(member, "is_limited"):
        limited = "true (read-only through a whitelisted email domain, not a member)"
        says = limited if member.is_limited else "false (a direct member)"
    else:
        says = "not sent (an older server)"
    answer.facts.append(_field_fact("IsLimited", says, source, member, "is_limited", record))
    if member.is_limited:
        answer.limited_through = email_domain(member.user.email or answer.email) or ""
        answer.verdict = f"{LIMITED} through @{answer.limited_through}"
    elif member.role == "Admin":
        answer.verdict = ADMIN
    elif member.role == "Editor":
        answer.verdict = CAN_EDIT
    elif member.role == "Reader":
        answer.verdict = CAN_READ
    else:
        answer.verdict = f"role {member.role}"
    return member


def _hub_facts(
    answer: Answer, hub_users: Sequence[HubUser] | HubError, now: datetime
) -> HubUser | None:
    source = "the hub's users"
    if isinstance(hub_users, HubError):
        why = "not offered by this server" if not_offered(hub_users) else str(hub_users)
        answer.facts.append(Fact("hub role", f"not read ({why})", source))
        if not not_offered(hub_users):
            answer.not_read.append(f"the hub's users: {hub_users}")
        return None
    person = _find(hub_users, answer)
    if person is None:
        answer.facts.append(Fact("hub user", "not a user of the hub", source))
        return None
    record = f"hub {answer.hub.id}, user Id {person.user.id}"
    answer.facts.append(
        _field_fact("hub role", person.role or "not sent", source, person, "role", record)
    )
    if _sent(person, "is_activated"):
        accepted = "accepted" if person.is_activated else "not accepted"
    else:
        accepted = "not sent"
    answer.facts.append(
        _field_fact("invitation to the hub", accepted, source, person, "is_activated", record)
    )
    seen = last_seen(person)
    for name, what in (
        ("last_web_login", "last web sign-in"),
        ("last_addin_login", "last add-in sign-in"),
        ("last_hub_project_activity", "last activity"),
    ):
        if not _sent(person, name):
            says = "not sent"
        else:
            value = getattr(person, name)
            says = "never" if value is None else str(as_sent_value(value))
        answer.facts.append(_field_fact(what, says, source, person, name, record))
    answer.facts.append(Fact("last seen", seen_words(seen, now), source))
    return person


def _sign_in_facts(answer: Answer, hub: Hub) -> None:
    source = "the hub"
    restricted = hub.is_user_entra_id_sso_restricted
    record = f"hub {hub.id}"
    what, name = "Entra ID SSO restriction", "is_user_entra_id_sso_restricted"
    if restricted is None:
        answer.facts.append(_field_fact(what, "not sent", source, hub, name, record))
        return
    if not restricted:
        answer.facts.append(_field_fact(what, "none", source, hub, name, record))
        return
    tenant = hub.restricted_tenant_domain or "a tenant it does not name"
    theirs = email_domain(answer.email) or ""
    says = f"sign-in restricted to {tenant}; their address is at {theirs}"
    answer.facts.append(_field_fact(what, says, source, hub, name, record))
