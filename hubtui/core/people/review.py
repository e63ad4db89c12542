"""An access review: each person who needs a decision, the decision, its reason and its outcome.

A reviewer walks a hub's people (the app's people screen, or ``hubtui review``'s file) and
decides for each: **keep**, **set Reader** (in every project they are a direct member of),
or **remove from the hub** (and so from every project of it). Removing a person from one
project is not in the API, so it is not offered: Reader is.

The decisions become one batch (:func:`rows_of`), sent the one way and previewed against a
fresh read like any other; the review itself (who, when, each decision, its reason, its
outcome) is kept in the store, as the evidence an auditor asks for (:func:`outcomes`,
:meth:`~hubtui.core.store.Store.save_review`).

An offboarding is a review of one person in every hub they are in (:func:`offboarding`).

Textual-free: the app's review and ``hubtui review`` / ``apply`` / ``reviews`` / ``offboard``
share it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import TYPE_CHECKING

from hubtui.api import HubError
from hubtui.api.errors import not_offered
from hubtui.core.access import access_cell, accounts_of, accounts_words, person_key
from hubtui.core.batches import Evidence, Intent, Outcome, Result, Verdict, Wanted
from hubtui.core.batches.hubs import read_hub_users
from hubtui.core.clock import now
from hubtui.core.people.hub import HubPerson
from hubtui.core.people.search import Finding, PersonQuery, search_people
from hubtui.core.presenting.words import seen_stamp

if TYPE_CHECKING:
    from hubtui.api import Hub, HubClient, Project, ProjectUser
    from hubtui.api.models import HubUser
    from hubtui.core.batches import Preview
    from hubtui.core.people.hub import HubPerson
    from hubtui.core.people.search import Progress

__all__ = [
    "Decision",
    "Offboarding",
    "Review",
    "ReviewRow",
    "decision_named",
    "offboarding",
    "offboarding_reviews",
    "outcome_of",
    "outcomes",
    "rows_of",
]


class Decision(StrEnum):
    """What a reviewer decides of one person."""

    KEEP = "keep"
    READER = "set Reader"
    """Reader in every project they are a direct member of (their reviewer flag kept)."""
    REMOVE = "remove from hub"
    """Out of the hub, and so out of every project of it."""


#: How a decision may be written in a decisions file (any case).
_SPELLINGS = {
    "keep": Decision.KEEP,
    "reader": Decision.READER,
    "set reader": Decision.READER,
    "remove": Decision.REMOVE,
    "remove from hub": Decision.REMOVE,
}


def decision_named(text: str) -> Decision | None:
    """The decision a file's cell names (``keep``, ``reader``, ``remove``), else None."""
    return _SPELLINGS.get(" ".join(text.split()).casefold())


def disagreeing(decided: Sequence[tuple[object, Decision]]) -> tuple[int, int] | None:
    """The one conflict rule: of one person's decisions (each with the membership it is of),
    the first two that disagree: a removal from the hub beside any other decision (the API
    removes no one from one project alone), or one membership decided twice, differently.
    None: they agree."""
    removal = next((i for i, (_, d) in enumerate(decided) if d is Decision.REMOVE), None)
    if removal is not None:
        other = next((i for i, (_, d) in enumerate(decided) if d is not Decision.REMOVE), None)
        if other is not None:
            return removal, other
    seen: dict[object, int] = {}
    for i, (where, decision) in enumerate(decided):
        earlier = seen.setdefault(where, i)
        if earlier != i and decided[earlier][1] is not decision:
            return earlier, i
    return None


def wanted_of_decision(
    decision: Decision,
    hub_id: str,
    hub_name: str,
    email: str,
    *,
    reader_in: Sequence[tuple[str, str | None]] = (),
    memberships: Sequence[tuple[str, str | None]] = (),
    user_id: str | None = None,
    evidence: Evidence | None = None,
    line: int | None = None,
) -> list[Wanted]:
    """The one translation of a decision into a batch's rows: keep sends nothing; reader sets
    Reader in each project of ``reader_in`` (their reviewer flag kept); remove takes the
    account out of the hub, saying the ``memberships`` it ends."""
    if decision is Decision.READER:
        return [
            Wanted(
                hub_id=hub_id,
                hub_name=hub_name,
                project_id=project_id,
                project_name=name,
                email=email,
                intent=Intent.SET,
                role="Reader",
                user_id=user_id,
            )
            for project_id, name in reader_in
        ]
    if decision is Decision.REMOVE:
        removal = Wanted.hub_removal(
            hub_id,
            hub_name,
            email,
            tuple(memberships),
            line=line,
            user_id=user_id,
            evidence=evidence,
        )
        return [removal]
    return []


@dataclass(frozen=True)
class ReviewRow:
    """One person's decision, and, once sent, its outcome in words."""

    email: str
    name: str
    decision: Decision
    reason: str = ""
    seen: str = ""
    """When last seen, in words, as the reviewer saw it (``5 months ago``, ``never``)."""
    marks: str = ""
    """What needed a look (``inactive 150 days; hub admin``)."""
    access: str = ""
    """What they had: hub role and projects (``Guest; 3 (Editor 2, Reader 1)``)."""
    outcome: str = ""
    """What came of it: ``kept``, ``done``, ``failed: 409: Conflict``, ``no change``…"""
    memberships: tuple[tuple[str, str | None], ...] = field(default=(), compare=False)
    """The projects (id, name) they are in, limited readers' included: what a removal from the
    hub ends, read again in its preview."""
    direct: tuple[tuple[str, str | None], ...] = field(default=(), compare=False)
    """The projects (id, name) they are a direct member of: where a Reader decision sets it."""
    user_id: str = field(default="", compare=False)
    """The account decided on, by its user Id ("": none read, the address alone)."""
    evidence: Evidence | None = field(default=None, compare=False)
    """What the decision was made on: checked again before anything is sent."""


@dataclass(frozen=True)
class Review:
    """A review of one hub (or an offboarding, of one person everywhere)."""

    hub_id: str
    hub_name: str
    reviewer: str
    started: str
    rows: tuple[ReviewRow, ...]
    criteria: str = ""
    """What was reviewed (``inactive 90 days or never signed in``, ``offboarding ann@…``)."""
    ended: str = ""
    batch: str = ""
    """The batch its changes were sent in ("" when nothing was sent)."""
    id: int | None = None
    """Its number in the store, once kept."""

    def head(self) -> dict[str, str]:
        """What the store keeps of the review itself (:data:`~hubtui.core.store.REVIEW_HEAD`)."""
        return {
            "hub": self.hub_id,
            "hub_name": self.hub_name,
            "reviewer": self.reviewer,
            "started": self.started,
            "ended": self.ended,
            "batch": self.batch,
            "criteria": self.criteria,
        }

    def kept_rows(self) -> list[dict[str, str]]:
        """What the store keeps of each row (:data:`~hubtui.core.store.REVIEW_COLUMNS`)."""
        return [
            {
                "email": row.email,
                "name": row.name,
                "decision": row.decision.value,
                "reason": row.reason,
                "seen": row.seen,
                "marks": row.marks,
                "access": row.access,
                "outcome": row.outcome,
            }
            for row in self.rows
        ]


def rows_of(hub: Hub, rows: Iterable[ReviewRow]) -> list[Wanted]:
    """The batch's rows of the decisions (:func:`wanted_of_decision`): Reader in each
    project they are a direct member of, or a removal from the hub by their account."""
    wanted: list[Wanted] = []
    for row in rows:
        wanted += wanted_of_decision(
            row.decision,
            hub.id,
            hub.name,
            row.email,
            reader_in=row.direct,
            memberships=row.memberships,
            user_id=(row.user_id or None) if row.decision is Decision.REMOVE else None,
            evidence=row.evidence,
        )
    return wanted


def evidence_of_person(person: HubPerson) -> Evidence:
    """What a decision about ``person`` is made on, as read: their hub role, whether they
    accepted the invitation, when last seen, and their access in each project."""
    hub_user, seen = person.hub_user, person.seen
    return Evidence(
        hub_role=None if hub_user is None else hub_user.role,
        activated=None if hub_user is None else hub_user.is_activated,
        last_seen=None if seen is None else seen_stamp(seen),
        projects=tuple(
            (str(project.id), access_cell(user)) for project, user in person.memberships
        ),
    )


def row_of(
    person: HubPerson, decision: Decision, reason: str, *, seen: str, marks: str
) -> ReviewRow:
    """A person's decision, with what they had when it was made."""
    every = tuple((str(project.id), project.name) for project, _ in person.memberships)
    direct = tuple(
        (str(project.id), project.name)
        for project, user in person.memberships
        if not user.is_limited
    )
    role = person.hub_role or "not a hub user"
    return ReviewRow(
        email=person.email,
        name=person.name,
        decision=decision,
        reason=reason,
        seen=seen,
        marks=marks,
        access=f"{role}; projects {person.projects_words()}",
        memberships=every,
        direct=direct,
        user_id="" if person.hub_user is None else str(person.person.id),
        evidence=evidence_of_person(person),
    )


def outcome_of(decision: Decision, ended: Sequence[tuple[str | None, str]]) -> str:
    """A decision's outcome in words, from how each of its rows ended (a batch row's outcome or
    verdict, and its message): ``kept``, ``done``, ``no change``, ``failed: …``, or several of
    these (``done ×2; failed: 409: Conflict``) for a decision over many projects."""
    said = []
    for verdict, message in ended:
        if verdict in ("done", "no change"):
            said.append(verdict)
        elif verdict == Outcome.ALREADY.value and message:
            said.append(" ".join(message.split(":")[0].split()))
        elif verdict:
            said.append(f"{verdict}: {' '.join(message.split())}" if message else verdict)
    if decision is Decision.KEEP and all(words == "no change" for words in said):
        return "kept"
    if not said:
        return "nothing to send"
    counts: dict[str, int] = {}
    for words in said:
        counts[words] = counts.get(words, 0) + 1
    return "; ".join(f"{w} ×{n}" if n > 1 else w for w, n in counts.items())


def outcomes(review: Review, steps: Preview | None, results: Sequence[Result] = ()) -> Review:
    """The review with each decision's outcome, from its rows' preview and their results (of
    its own hub, when it is a review of one)."""
    by_person: dict[str, list[tuple[str, str]]] = {}
    sent = {id(r.step): r for r in results}
    for step in [] if steps is None else steps.steps:
        if review.hub_id and step.wanted.hub_id != review.hub_id:
            continue
        result = sent.get(id(step))
        if step.verdict is not Verdict.SEND:
            ended = (step.verdict.value, step.words)
        elif result is None:
            ended = (Outcome.NOT_SENT.value, "")
        else:
            ended = (result.ended.value, "" if result.ended is Outcome.DONE else result.short)
        by_person.setdefault(person_key(step.wanted.email), []).append(ended)
    rows = tuple(
        replace(row, outcome=outcome_of(row.decision, by_person.get(person_key(row.email), [])))
        for row in review.rows
    )
    return replace(review, rows=rows, ended=now())


def offboarding_reviews(
    answer: Offboarding, reason: str, started: str, reviewer: str
) -> list[Review]:
    """An offboarding kept as one review per hub the person was in (a review is of one hub),
    a row for each of their accounts there."""
    by_hub: dict[str, tuple[Hub, list[ReviewRow]]] = {}
    for hub, person in answer.places:
        row = row_of(person, Decision.REMOVE, reason, seen="", marks="offboarding")
        by_hub.setdefault(hub.id, (hub, []))[1].append(row)
    return [
        Review(
            hub_id=hub.id,
            hub_name=hub.name,
            reviewer=reviewer,
            started=started,
            rows=tuple(rows),
            criteria=f"offboarding {answer.email}",
        )
        for hub, rows in by_hub.values()
    ]


@dataclass
class Offboarding:
    """A person taken out of every hub they are in: the batch's rows, and what was not read."""

    email: str
    rows: list[Wanted]
    places: list[tuple[Hub, HubPerson]]
    """Each hub they are in, with what they have there (hub role, direct memberships)."""
    not_read: list[str] = field(default_factory=list)
    """What could not be read, in words: they may have access there too."""


async def offboarding(
    client: HubClient,
    email: str,
    hubs: Sequence[Hub],
    *,
    concurrency: int = 8,
    deadline: float | None = None,
    on_progress: Callable[[Progress], None] = lambda progress: None,
) -> Offboarding:
    """Where ``email`` has access in ``hubs`` (the person search's answer, and each hub's
    users), as one batch: removed from each hub they are a user of (which ends its projects'
    memberships, kept for the revert); where a server does not offer a hub's users, Reader in
    each project instead (a removal from one project is not in the API)."""
    findings: list[Finding] = []
    await search_people(
        client,
        PersonQuery(email),
        hubs,
        on_finding=findings.append,
        on_progress=on_progress,
        concurrency=concurrency,
        deadline=deadline,
    )
    answer = Offboarding(email, [], [])
    answer.not_read = [
        f"{f.hub.name}{'' if f.project is None else ' · ' + f.project.name}: {f.error}"
        for f in findings
        if f.error is not None
    ]
    found = [f for f in findings if f.user is not None and f.project is not None]
    hub_users = await read_hub_users(client, (h.id for h in hubs))
    for hub in hubs:
        held = [
            (f.project, f.user)
            for f in found
            if f.hub.id == hub.id and f.project is not None and f.user is not None
        ]
        _offboard_in(answer, hub, hub_users[hub.id], held)
    return answer


def _offboard_in(
    answer: Offboarding,
    hub: Hub,
    users: Sequence[HubUser] | HubError,
    held: list[tuple[Project, ProjectUser]],
) -> None:
    """``answer``'s rows in ``hub``: each account of the address removed from the hub, by its
    Id; where the hub's users are not offered, Reader in each project held instead."""
    email, key = answer.email, person_key(answer.email)
    found_accounts: list[HubUser] = []
    if isinstance(users, HubError):
        if not not_offered(users):
            answer.not_read.append(f"{hub.name}: the hub's users ({users})")
    else:
        found_accounts = accounts_of(users, email)
    for account in found_accounts:
        # Each account of the address, on its own: its projects by its Id.
        mine = [(p, u) for p, u in held if u.user.id == account.user.id]
        person = HubPerson(key, account.user, account, mine)
        answer.places.append((hub, person))
        answer.rows.append(
            Wanted.hub_removal(
                hub.id,
                hub.name,
                account.user.email or email,
                tuple((str(p.id), p.name) for p, _ in mine),
                user_id=str(account.user.id),
                evidence=evidence_of_person(person),
            )
        )
    ids = {a.user.id for a in found_accounts}
    held = [(p, u) for p, u in held if u.user.id not in ids]
    if not held:
        return
    if found_accounts:
        answer.not_read.append(
            f"{hub.name}: {len(held)} project memberships of this address belong to no "
            f"account of the hub's users ({accounts_words([u for _, u in held])})"
        )
        return
    person = HubPerson(key, held[0][1].user, None, list(held))
    answer.places.append((hub, person))
    answer.rows.extend(
        Wanted(
            hub_id=hub.id,
            hub_name=hub.name,
            project_id=str(p.id),
            project_name=p.name,
            email=email,
            intent=Intent.SET,
            role="Reader",
            reviewer=False,
        )
        for p, u in held
        if not u.is_limited
    )
