"""The changes logged for a server, read back: this machine's file and the team's audit trail,
each change as the line that took it furthest."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hubtui.core.access import person_key
from hubtui.core.changes.actions import PENDING, UNKNOWN
from hubtui.core.changes.record import Change, parse_line, unfinished_as_unknown
from hubtui.core.files import open_reading

if TYPE_CHECKING:
    from hubtui.core.changes.log import ChangeLog

__all__ = ["changes_logged", "changes_of_person"]


def changes_logged(log: ChangeLog) -> list[Change]:
    """Every change the log's file holds for its server and profile (the whole base URL: a
    change of ``/a`` is never one of ``/b``), and the team's where a team store keeps them,
    each as its last line says, in the order they were begun; a change whose process ended
    before its outcome was logged is unknown."""
    path = log.path
    latest: dict[str, Change] = {}

    def keep(change: Change) -> None:
        # A line that settled the change (a check, an outcome) is never undone by one that did
        # not: a colleague's check of an add this machine left unknown holds here too.
        earlier = latest.get(change.id)
        if earlier is None or _settledness(change) >= _settledness(earlier):
            latest[change.id] = change

    for raw in log.team_lines(None, None, None) if log.team_lines is not None else ():
        change = parse_line(raw)
        if change is not None and log.owns(change):
            keep(change)
    if path is not None and path.exists():
        with open_reading(path) as handle:
            for read in handle:
                change = parse_line(read.decode("utf-8", "replace"))
                if change is not None and log.owns(change):
                    keep(change)
    for change in log.changes:  # this session's, whatever the file could be read for
        keep(change)
    in_flight = {c.id for c in log.in_flight}
    return [unfinished_as_unknown(c) if c.id not in in_flight else c for c in latest.values()]


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
