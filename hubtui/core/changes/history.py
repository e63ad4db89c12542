"""The changes logged for a server, read back: this machine's file and the team's audit trail,
each change as the line that took it furthest."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from hubtui.core.access import person_key
from hubtui.core.changes.actions import PENDING, UNKNOWN, Outcome
from hubtui.core.changes.kinds import kind_of
from hubtui.core.changes.record import Change, parse_line, unfinished_as_unknown
from hubtui.core.files import open_reading

if TYPE_CHECKING:
    from collections.abc import Iterable

    from hubtui.core.changes.log import ChangeLog

__all__ = ["changes_logged", "changes_of_person", "last_invitation"]


def changes_logged(log: ChangeLog) -> list[Change]:
    """Every change the log's file holds for its server and profile (the whole base URL: a
    change of ``/a`` is never one of ``/b``), and the team's where a team store keeps them,
    each as its last line says, in the order they were begun; a change whose process ended
    before its outcome was logged is unknown."""
    path = log.path
    latest: dict[str, Change] = {}
    mine: dict[str, set[tuple[str, ...]]] = {}  # what this machine's lines say each change was
    team = [
        change
        for raw in (log.team_lines(None, None, None) if log.team_lines is not None else ())
        if (change := parse_line(raw)) is not None and log.owns(change)
    ]
    order = dict.fromkeys(change.id for change in team)  # the trail's order, then this machine's

    def keep(change: Change) -> None:
        # A line that settled the change (a check, an outcome) is never undone by one that did
        # not: a colleague's check of an add this machine left unknown holds here too.
        earlier = latest.get(change.id)
        if earlier is None or _settledness(change) >= _settledness(earlier):
            latest[change.id] = change

    if path is not None and path.exists():
        with open_reading(path) as handle:
            for read in handle:
                change = parse_line(read.decode("utf-8", "replace"))
                if change is not None and change.db_role is not None:
                    change = replace(change, db_role=None)  # only the database says a role
                if change is not None and log.owns(change):
                    order.setdefault(change.id)
                    mine.setdefault(change.id, set()).add(_what(change))
                    keep(change)
    for change in log.changes:  # this session's, whatever the file could be read for
        order.setdefault(change.id)
        mine.setdefault(change.id, set()).add(_what(change))
        keep(change)
    for change in team:
        own = mine.get(change.id)
        if own is None:
            keep(replace(change, from_trail=True))  # a colleague's, as the trail says it
        elif _what(change) in own:
            keep(_settled_by(latest[change.id], change))
        # else: a team line that says another change under this id: the local log is the guard
    in_flight = {c.id for c in log.in_flight}
    ordered = [latest[i] for i in order if i in latest]
    return [unfinished_as_unknown(c) if c.id not in in_flight else c for c in ordered]


#: What a change is: a team line may settle its outcome, never say another of these.
_WHAT = ("action", "hub_id", "project_id", "user_id", "email", "before", "after", "batch",
         "reverts", "api_version", "server", "profile")  # fmt: skip


def _what(change: Change) -> tuple[str, ...]:
    """What a line says its change is, to hold a team line against this machine's lines."""
    return tuple(repr(getattr(change, name)) for name in _WHAT)


def _settled_by(kept: Change, line: Change) -> Change:
    """The change as kept here, with how a team line settled it, when it settled it further:
    the outcome, its words, the check and when, never what the change was."""
    if _settledness(line) < _settledness(kept):
        return replace(kept, db_role=kept.db_role or line.db_role)
    return replace(
        kept,
        db_role=line.db_role,
        time=line.time,
        outcome=line.outcome,
        detail=line.detail,
        checked=line.checked,
        checked_by=line.checked_by,
    )


def _settledness(change: Change) -> int:
    """How far a line took its change: begun, unknown, ended, checked."""
    if change.checked is not None:
        return 3
    ranks: dict[str, int] = {PENDING: 0, UNKNOWN: 1}
    return ranks.get(change.outcome, 2)


def changes_of_person(log: ChangeLog, email: str) -> list[Change]:
    """What hubtui changed of this person's access on this server, in every hub, oldest first:
    for a ticket's "who changed this, when". The address matches only itself (ASCII case
    aside). Blocking: it reads the file and the team store, once for every hub asked about."""
    key = person_key(email)
    return [change for change in changes_logged(log) if person_key(change.email) == key]


def last_invitation(changes: Iterable[Change]) -> Change | None:
    """The latest invitation to a hub hubtui sent that took effect, first or again, of these
    changes (oldest first); None: none."""
    sent = [c for c in changes if kind_of(c).invitation and c.outcome == Outcome.DONE]
    return sent[-1] if sent else None
