"""A decisions file's rules, for ``hubtui apply`` of an access review: its columns, whose each
row is, what each person's decision was made on (read again before anything is sent), the rows
that disagree, and the strongest of a person's decisions. Textual-free; the command reads the
file and renders, the rules are here."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from hubtui.core.access import LIMITED_CELL, person_key
from hubtui.core.batches import Evidence, Intent
from hubtui.core.people.review import Decision

if TYPE_CHECKING:
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
        clash: tuple[int, int] | None = None
        removal = next((i for i in indexes if decisions[i] is Decision.REMOVE), None)
        if removal is not None:
            other = next((i for i in indexes if decisions[i] is not Decision.REMOVE), None)
            if other is not None:
                clash = (removal, other)
        if clash is None:
            seen: dict[str, int] = {}
            for i in indexes:
                earlier = seen.setdefault(given[i].project, i)
                if earlier != i and decisions[earlier] is not decisions[i]:
                    clash = (earlier, i)
                    break
        if clash is None:
            continue
        a, b = clash
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
