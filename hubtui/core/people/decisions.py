"""A decisions file's rules, for ``hubtui apply`` of an access review: its columns, whose each
row is, what each person's decision was made on (read again before anything is sent), the rows
that disagree, and the strongest of a person's decisions. Textual-free; the command reads the
file and renders, the rules are here."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from hubtui.core.access import LIMITED_CELL, person_key
from hubtui.core.batches import Evidence, Intent, ListedAccess, Verdict
from hubtui.core.batches.file_rows import FindHub, RowOfFile, wanted_of_file
from hubtui.core.clock import now
from hubtui.core.people.review import (
    Decision,
    Review,
    ReviewRow,
    decision_named,
    disagreeing,
    outcome_of,
    wanted_of_decision,
)
from hubtui.text import inert

if TYPE_CHECKING:
    from hubtui.api import HubClient
    from hubtui.core.batches import Batch
    from hubtui.core.batches.file import FileRow
    from hubtui.core.people.hub import HubPerson

__all__ = [
    "DECISION_COLUMNS",
    "EVIDENCE_COLUMNS",
    "NEVER",
    "access_given",
    "account_of_row",
    "conflicts",
    "evidence_in_file",
    "invitation_cell",
    "review_of_file",
    "rows_of_decisions",
    "strongest",
]


#: The decisions file's own columns, after the users export's and what needs a look.
DECISION_COLUMNS = ("decision", "reason")
#: What a decision is made on, beside each project's role: read again by ``apply``, and a row
#: whose evidence no longer holds is refused, naming what changed.
EVIDENCE_COLUMNS = ("hub role", "invitation", "last seen (UTC)")
#: The last-seen cell of a person who never signed in ("": not read).
NEVER = "never"
_INVITATION = {"accepted": True, "not accepted": False}


def invitation_cell(person: HubPerson) -> str:
    """Whether they accepted the hub's invitation, for the file ("": not read, not sent)."""
    activated = None if person.hub_user is None else person.hub_user.is_activated
    if activated is None:
        return ""
    return "accepted" if activated else "not accepted"


def evidence_in_file(rows: Sequence[FileRow]) -> Evidence:
    """What a person's decision was made on, from their rows of the file (a column absent or
    empty: not known, not held against them)."""
    first = rows[0].cells
    role = first.get("hub role") or None
    seen = first.get("last seen (utc)")
    projects = tuple(
        (row.project, access) for row in rows if row.project and (access := access_given(row))
    )
    return Evidence(
        hub_role=role,
        activated=_INVITATION.get(first.get("invitation", "").strip().casefold()),
        last_seen=None if not seen else "" if seen.strip().casefold() == NEVER else seen.strip(),
        projects=projects,
    )


def access_given(row: FileRow) -> str:
    """A row's access in its project as the file says it, read as the batch file reads it:
    ``LIMITED``, the role, or ``""`` where the row gives neither."""
    return LIMITED_CELL if row.intent is Intent.LIMITED else row.role or ""


def account_of_row(row: FileRow) -> tuple[str, str, str]:
    """Whose row it is: the hub, the address and the account's Id as the file gives them."""
    return (row.hub, person_key(row.email), row.cells.get("id", "").strip())


def conflicts(given: Sequence[FileRow], decisions: dict[int, Decision]) -> dict[int, str]:
    """The rows of each person whose decisions disagree (a removal beside any other decision,
    or one membership decided twice, differently), each with the words naming both lines:
    nothing of that person's is sent until the file agrees with itself."""
    people: dict[tuple[str, str, str], list[int]] = {}
    for index in decisions:
        people.setdefault(account_of_row(given[index]), []).append(index)
    refused: dict[int, str] = {}
    for indexes in people.values():
        found = disagreeing([(given[i].project, decisions[i]) for i in indexes])
        if found is None:
            continue
        a, b = indexes[found[0]], indexes[found[1]]
        words = (
            f"conflicting decisions: line {given[a].line} says {decisions[a].value}, line "
            f"{given[b].line} says {decisions[b].value}; nothing of theirs is sent until the "
            "file agrees with itself"
        )
        refused.update(dict.fromkeys(indexes, words))
    return refused


#: The decisions from the strongest to the weakest: a person's rows that say several end as the
#: strongest (a removal covers a role set to Reader, which covers keeping).
_STRENGTH = (Decision.REMOVE, Decision.READER, Decision.KEEP)


def strongest(decisions: Iterable[Decision]) -> Decision:
    """The strongest of a person's decisions (``keep`` when there are none)."""
    said = set(decisions)
    return next((d for d in _STRENGTH if d in said), Decision.KEEP)


async def rows_of_decisions(
    client: HubClient, given: Sequence[FileRow], find_hub: FindHub
) -> tuple[list[RowOfFile], dict[int, Decision]]:
    """A decisions file's rows as the rows of one batch, and each row's decision: a decision
    that is not keep, reader or remove and rows that disagree are refused; a removal from the
    hub covers every row of the person in that hub (with the evidence its rows were decided
    on); reader sets Reader where they were what the file says they were, and nowhere else."""
    found, decisions = _decided(given)
    # A removal from the hub covers every row of the person in that hub.
    removals: dict[tuple[str, str, str], list[tuple[int, FileRow]]] = {}
    for index, decision in decisions.items():
        if decision is Decision.REMOVE:
            removals.setdefault(account_of_row(given[index]), [])
    to_read: list[tuple[int, FileRow]] = []
    for index, decision in decisions.items():
        row = given[index]
        person = account_of_row(row)
        if person in removals:
            removals[person].append((index, row))
        elif not row.project:
            words = "kept" if decision is Decision.KEEP else "in no project: nothing to set Reader"
            found[index] = RowOfFile(row, None, None, words)
        elif decision is Decision.READER:
            empty = next((c for c in ("hub", "email") if not row.cells.get(c)), None)
            problem = f"the {empty} cell is empty" if empty else None
            reader = replace(row, intent=Intent.SET, role="Reader", reviewer=None, problem=problem)
            to_read.append((index, reader))
        else:
            to_read.append((index, row))
    read = await wanted_of_file(client, [row for _, row in to_read], find_hub)
    for (index, _), done in zip(to_read, read, strict=True):
        if done.wanted is not None and decisions[index] is Decision.READER:
            # Set Reader where they were what the file says they were, and nowhere else.
            was, reviewer = access_given(given[index]), given[index].reviewer
            if was == LIMITED_CELL:
                done.wanted = replace(done.wanted, seen=ListedAccess(True, True))
            elif was and reviewer is not None:
                done.wanted = replace(done.wanted, seen=ListedAccess(True, False, was, reviewer))
        found[index] = done
    for person, held in removals.items():
        await _removal(found, person, held, find_hub)
    return [found[index] for index in range(len(given))], decisions


def _decided(given: Sequence[FileRow]) -> tuple[dict[int, RowOfFile], dict[int, Decision]]:
    """Each row's decision; a row whose decision is not keep, reader or remove, and the rows
    of a person that disagree, ended as skipped with why."""
    found: dict[int, RowOfFile] = {}
    decisions: dict[int, Decision] = {}
    for index, row in enumerate(given):
        written = row.cells.get("decision", "")
        decision = decision_named(written or Decision.KEEP.value)
        if decision is None:
            why = f"the decision “{inert(written)}” is not keep, reader or remove"
            found[index] = RowOfFile(row, None, Verdict.SKIP, why)
        else:
            decisions[index] = decision
    for index, why in conflicts(given, decisions).items():
        found[index] = RowOfFile(given[index], None, Verdict.SKIP, why)
        del decisions[index]
    return found, decisions


async def _removal(
    found: dict[int, RowOfFile],
    person: tuple[str, str, str],
    held: list[tuple[int, FileRow]],
    find_hub: FindHub,
) -> None:
    """A person's removal from the hub, on the first of their rows; the others covered by it
    (with the evidence every row was decided on)."""
    hub_cell, _, user_id = person
    first_index, first = held[0]
    covered = f"with the removal from the hub (line {first.line})"
    for index, row in held[1:]:
        found[index] = RowOfFile(row, None, None, covered)
    try:
        hub = await find_hub(hub_cell)
    except LookupError as why:
        found[first_index] = RowOfFile(first, None, Verdict.SKIP, str(why))
        return
    projects = tuple(
        (row.project, row.cells.get("project name") or None) for _, row in held if row.project
    )
    [wanted] = wanted_of_decision(
        Decision.REMOVE,
        hub.id,
        hub.name,
        first.email,
        memberships=projects,
        line=first.line,
        user_id=user_id or None,
        evidence=evidence_in_file([row for _, row in held]),
    )
    found[first_index] = RowOfFile(first, wanted, None, "")


def review_of_file(
    rows: Sequence[RowOfFile],
    decisions: dict[int, Decision],
    given: Sequence[FileRow],
    started: str,
    sent: Batch | None,
    criteria: str,
    reviewer: str,
) -> Review:
    """The review of a decisions file: one row per person (the strongest decision of their
    rows: remove, then reader, then keep), with their reasons, what they had and the outcome."""
    people: dict[tuple[str, str], list[int]] = {}
    for index, row in enumerate(given):
        people.setdefault((row.hub, person_key(row.email)), []).append(index)
    kept: list[ReviewRow] = []
    hubs: dict[str, None] = {}
    for (hub_cell, _), indexes in people.items():
        hubs[hub_cell] = None
        decision = strongest(decisions[i] for i in indexes if i in decisions)
        first = given[indexes[0]].cells
        reasons = dict.fromkeys(given[i].cells.get("reason", "") for i in indexes)
        access = "; ".join(
            f"{given[i].cells.get('role') or '?'} in "
            f"{given[i].cells.get('project name') or given[i].project}"
            for i in indexes
            if given[i].project
        )
        ended = [
            (rows[i].verdict, rows[i].message)
            for i in indexes
            if rows[i].wanted is not None or rows[i].verdict is Verdict.SKIP
        ]
        kept.append(
            ReviewRow(
                email=first.get("email", ""),
                name=first.get("name", ""),
                decision=decision,
                reason="; ".join(r for r in reasons if r),
                seen=first.get("last seen (utc)", ""),
                marks=first.get("needs a look", ""),
                access=access or "the hub only",
                outcome=outcome_of(decision, ended),
            )
        )
    return Review(
        hub_id="",
        hub_name=", ".join(hubs),
        reviewer=reviewer,
        started=started,
        rows=tuple(kept),
        criteria=criteria,
        ended=now(),
        batch="" if sent is None else sent.id,
    )
