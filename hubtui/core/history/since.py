"""Since when a person's access to a project is what it is now, from the snapshots kept: ``a
limited reader since snapshot #3 (2026-11-17 14:02); Editor before``. Told with ``why``'s
answer, beside the facts it read now."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from hubtui.core.access import person_key
from hubtui.core.people.advice import Former
from hubtui.core.store import ListKey

if TYPE_CHECKING:
    from hubtui.core.store import SnapshotInfo, Store

__all__ = ["STATE_OF_VERDICT", "Former", "former_accounts", "since_words", "state_in"]

#: A verdict's code, as the access a snapshot's list shows (the same words both ways).
STATE_OF_VERDICT = {
    "admin": "Admin",
    "can_edit": "Editor",
    "can_read": "Reader",
    "limited_reader": "a limited reader",
    "no_access": "not in the project",
}
#: How many of the latest snapshots are read back.
AT_MOST = 50


def state_in(records: Iterable[dict[str, Any]], email: str, user_id: str | None = None) -> str:
    """A person's access in a project's users as a snapshot kept them (records as sent): the
    account ``user_id`` when given (whatever its address was then: another account of the same
    address, or an account that had it before, is another person), else whoever had the
    address."""
    wanted = person_key(email)
    for record in records:
        user = record.get("User")
        if not isinstance(user, dict):
            continue
        if user_id is not None:
            mine = str(user.get("Id")) == user_id
        else:
            mine = person_key(str(user.get("Email") or "")) == wanted
        if mine:
            if record.get("IsLimited") is True:
                return STATE_OF_VERDICT["limited_reader"]
            return str(record.get("Role") or "in the project, role not sent")
    return STATE_OF_VERDICT["no_access"]


def since_words(
    store: Store,
    origin: str,
    profile: str | None,
    hub_id: str,
    project_id: str,
    email: str,
    now: str,
    *,
    user_id: str | None = None,
) -> str | None:
    """Since which snapshot ``email``'s access to the project has been ``now``, and what it was
    before (None: no snapshot kept read this project's users); of the account ``user_id`` when
    given, by its Id in each snapshot."""
    # A snapshot that did not read the project's users says nothing, either way.
    key = ListKey("users", hub_id, project_id)
    kept = [
        (info, state_in(store.records(hashes), email, user_id))
        for info, hashes in store.snapshots_of_list(origin, profile, key, at_most=AT_MOST)
    ]
    if not kept:
        return None
    since: SnapshotInfo | None = None
    for info, state in reversed(kept):
        if state != now:
            if since is None:
                return f"{now} now; {state} at {_at(info)}, the latest kept: changed since"
            return f"{now} since {_at(since)}; {state} before"
        since = info
    assert since is not None
    return f"{now} in every snapshot kept of it, since {_at(since)}"


def _at(info: SnapshotInfo) -> str:
    """``snapshot #3 (2026-11-17 14:02)``."""
    return f"snapshot {info.short}"


def former_accounts(
    store: Store, origin: str, profile: str | None, hub_id: str, email: str
) -> list[Former]:
    """The accounts the hub's users listed with ``email`` in the snapshots kept, each with the
    latest snapshot that showed it so (a renamed account keeps its Id: the address it had is
    recognised as its own, never as nobody's)."""
    wanted = person_key(email)
    latest: dict[str, tuple[SnapshotInfo, str | None]] = {}
    key = ListKey("hub_users", hub_id)
    for info, hashes in store.snapshots_of_list(origin, profile, key, at_most=AT_MOST):
        for record in store.records(hashes):
            user = record.get("User")
            if not isinstance(user, dict) or user.get("Id") is None:
                continue
            if person_key(str(user.get("Email") or "")) == wanted:
                role = record.get("Role")
                latest[str(user["Id"])] = (info, role if isinstance(role, str) else None)
    return [
        Former(user_id, f"snapshot {info.short}", had=had)
        for user_id, (info, had) in latest.items()
    ]
