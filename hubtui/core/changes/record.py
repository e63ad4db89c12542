"""A change as the log holds it: the record of one attempt (what, where, to whom, the values
before and after, how it ended), written as one JSON line and read back from one, whoever wrote it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING

from hubtui.api.errors import InvalidResponseError
from hubtui.core.access import person_key
from hubtui.core.changes.actions import DONE, FAILED, PENDING, UNKNOWN, Outcome
from hubtui.core.changes.kinds import kind_of

if TYPE_CHECKING:
    from hubtui.api import HubError

__all__ = ["Change", "change_outcome", "line_of", "owns", "parse_line", "unfinished_as_unknown"]


@dataclass(frozen=True)
class Change:
    time: str
    action: str
    """An :class:`Action`: ``add`` or ``update``."""
    hub_id: str
    hub_name: str
    project_id: str
    project_name: str | None
    user_id: str | None
    email: str | None
    before: dict[str, object] | None
    after: dict[str, object]
    outcome: str
    """An :class:`Outcome`: ``pending``, ``done``, ``failed`` or ``unknown``."""
    detail: str = ""
    api_version: str = "v3"
    server: str = ""
    """The server the change was sent to."""
    profile: str | None = None
    """The settings profile in use, if any."""
    id: str = ""
    """The same on every line written for this change."""
    checked: str | None = None
    """For an unknown add, what reading the list back found (:class:`Checked`)."""
    request_id: str | None = None
    """The exchange that carried it (the request log's id, ``r17``), once it has ended."""
    sent_to: str | None = None
    """The address that answered, when a redirect took the change away from the one planned."""
    batch: str | None = None
    """The batch it was sent in (the same on every change of one batch), if any."""
    reverts: str | None = None
    """For a change of a batch that reverts another, that batch's id."""
    operator: str = ""
    """Who made it (the ``operator`` setting, else the OS user at the host)."""
    checked_by: str | None = None
    """Who read the list back and settled its unknown outcome (a colleague, for a change of
    theirs), at the line's ``time``."""
    db_role: str | None = None
    """Read back from the team's trail: the database role its line was written under, as the
    database attributed it (None: not read from a trail that says). Never written in a line."""
    from_trail: bool = False
    """Known from the team's trail alone: this machine's change log does not hold it (shown as
    the trail's, never as this machine's). Never written in a line."""

    @property
    def where(self) -> str:
        """``the hub`` (a change of the hub's users), else the project's name or number."""
        if not self.project_id:
            return "the hub"
        return self.project_name or f"project {self.project_id}"

    @property
    def summary(self) -> str:
        """``Role: Reader → Editor`` style, one line (in its kind's words)."""
        return kind_of(self).summary(self)

    def is_unknown_add(self, hub_id: str, project_id: str, email: str | None = None) -> bool:
        """An add to this project (of this email) that may have reached the server, unchecked."""
        return (
            kind_of(self).held_until_checked
            and self.outcome == UNKNOWN
            and self.checked is None
            and (self.hub_id, self.project_id) == (hub_id, project_id)
            and (email is None or person_key(self.email) == person_key(email))
        )


#: What each field of a change line must be, read back (a team store is written by many: a
#: line whose fields are of another kind is not a change, and never ends a reader).
_FIELD_KINDS: dict[str, tuple[type, ...]] = {
    "time": (str,), "action": (str,), "hub_id": (str,), "hub_name": (str,),
    "project_id": (str,), "project_name": (str, type(None)), "user_id": (str, type(None)),
    "email": (str, type(None)), "before": (dict, type(None)), "after": (dict,),
    "outcome": (str,), "detail": (str,), "api_version": (str,), "server": (str,),
    "profile": (str, type(None)), "id": (str,), "checked": (str, type(None)),
    "request_id": (str, type(None)), "sent_to": (str, type(None)),
    "batch": (str, type(None)), "reverts": (str, type(None)), "operator": (str,),
    "checked_by": (str, type(None)), "db_role": (str, type(None)),
}  # fmt: skip


def parse_line(line: str) -> Change | None:
    """The change a line of the log holds, or None for a line that is not a change of this
    version (not ours to judge), or whose fields are not of their kinds."""
    try:
        fields = json.loads(line)
    except (ValueError, RecursionError):
        return None
    if not isinstance(fields, dict) or any(
        not isinstance(value, _FIELD_KINDS.get(name, ())) for name, value in fields.items()
    ):
        return None
    try:
        return Change(**fields)
    except TypeError:
        return None


def unfinished_as_unknown(change: Change) -> Change:
    """A change whose last line in the file is ``pending`` (its process ended before the answer:
    a kill, a hang-up, a power cut) is unknown: it may have reached the server."""
    if change.outcome != PENDING:
        return change
    why = "No outcome was logged: hubtui ended before the answer came."
    return replace(change, outcome=UNKNOWN, detail=why)


#: What a line holds: what the trail says of it when read back is not written.
_FIELDS = tuple(f.name for f in fields(Change) if f.name not in ("db_role", "from_trail"))


def line_of(change: Change) -> str:
    """A change as its line of the log (JSON, ASCII only), without the newline."""
    # Shallow: its values are JSON already (``before`` and ``after`` plain dicts of them), and
    # ``asdict``'s deep copy of each was a sixth of a batch's time in the client.
    return json.dumps({name: getattr(change, name) for name in _FIELDS}, ensure_ascii=True)


def owns(change: Change, server: str, profile: str | None, aliases: Sequence[str] = ()) -> bool:
    """Whether ``change`` was made on ``server`` (or one of its older names) under ``profile``."""
    return (change.server == server or change.server in aliases) and (
        (change.profile or None) == (profile or None)
    )


def change_outcome(error: HubError) -> Outcome:
    """What a failed change's log line says: done, unknown or failed."""
    if isinstance(error, InvalidResponseError) and error.applied:
        return DONE
    return UNKNOWN if error.may_have_applied else FAILED
