"""A logged batch put back: the one revert rule of the app's ``R`` and ``hubtui revert``.

:func:`revert_of` builds the inverse of a logged batch from its before-values; each row carries
what the batch left, so a row whose subject changed since is not sent (said), and a row another
revert already put back is not sent again (:func:`put_back_already`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from hubtui.core.access import person_key
from hubtui.core.batches.hubs import undo_by_hub_role, undo_by_invitation, undo_by_removal
from hubtui.core.batches.wanted import Intent, ListedAccess, Wanted
from hubtui.core.changes.actions import Outcome
from hubtui.core.changes.history import changes_logged
from hubtui.core.changes.kinds import Undo, kind_of
from hubtui.core.changes.log import ChangeLog
from hubtui.core.changes.record import Change


def batches_in(log: ChangeLog) -> dict[str, list[Change]]:
    """The batches the change log's file (and the team store, where there is one) holds for its
    server and profile (the whole base URL: a batch of ``/a`` is never one of ``/b``): each
    change's last line, by batch id, oldest batch first."""
    if (log.path is None or not log.path.exists()) and log.team_lines is None:
        return {}
    return batches_of(changes_logged(log))


def batches_of(changes: Iterable[Change]) -> dict[str, list[Change]]:
    """Changes by batch id, in the order their batches first appear."""
    batches: dict[str, list[Change]] = {}
    for change in changes:
        if change.batch:
            batches.setdefault(change.batch, []).append(change)
    return batches


def revert_of(changes: Iterable[Change]) -> tuple[list[Wanted], list[Change]]:
    """The inverse of a batch's changes: each update that took effect (or may have) put back to
    its before-values, and the adds, which this API cannot undo (nobody can be removed from a
    project), listed apart. A removal from the hub is put back by an invitation (an email to
    the person), then each project's role and reviewer flag it ended. A change that failed
    took no effect and has nothing to put back."""
    wanted: list[Wanted] = []
    cannot: list[Change] = []
    for change in changes:
        undo = kind_of(change).undo
        if change.outcome == Outcome.FAILED or undo is Undo.NOTHING:
            continue  # it took no effect, or changed nothing that could be undone
        rows = _UNDOING[undo](change)
        wanted.extend(rows)
        if not rows:
            cannot.append(change)
    return wanted, cannot


def _project_role_back(change: Change) -> list[Wanted]:
    """An update put back: its before-values, while the person still holds the after-values."""
    if change.before is None or not change.email:
        return []
    role = str(change.before.get("Role", "")) or None
    reviewer = change.before.get("IsReviewer")
    after = change.after
    return [
        Wanted(
            hub_id=change.hub_id,
            hub_name=change.hub_name,
            project_id=change.project_id,
            project_name=change.project_name,
            email=change.email,
            intent=Intent.SET,
            role=role,
            reviewer=None if reviewer is None else bool(reviewer),
            seen=ListedAccess(
                True,
                False,
                str(after.get("Role")),
                bool(after.get("IsReviewer")),
            )
            if change.outcome == Outcome.DONE
            else None,
        )
    ]


#: How each way of putting a change back (its kind's :attr:`~hubtui.core.changes.kinds.Kind.undo`)
#: becomes the rows that do it; none: it cannot be put back, and is said.
_UNDOING: dict[Undo, Callable[[Change], list[Wanted]]] = {
    Undo.NEVER: lambda change: [],
    Undo.ROLE: _project_role_back,
    Undo.HUB_ROLE: undo_by_hub_role,
    Undo.REMOVAL: undo_by_removal,
    Undo.INVITATION: undo_by_invitation,
}


@dataclass
class RevertPlan:
    """What putting a batch back sends, the one rule for the app's ``R`` and ``hubtui revert``:
    each row carries what the batch left (a row whose subject changed since is not sent, said),
    and a row another revert already put back is not sent again."""

    wanted: list[Wanted]
    cannot: list[Change]
    """Its changes that cannot be put back (an add: nobody leaves a project through the API)."""
    already: list[tuple[Wanted, Change]]
    """Rows another batch already put back, with the change that did."""


def plan_revert(batches: dict[str, list[Change]], batch_id: str) -> RevertPlan | None:
    """How ``batch_id`` is put back, from the batches the change log holds (None: no such
    batch)."""
    changes = batches.get(batch_id)
    if changes is None:
        return None
    wanted, cannot = revert_of(changes)
    rest, already = put_back_already(batches, batch_id, wanted)
    return RevertPlan(rest, cannot, already)


def put_back_already(
    batches: dict[str, list[Change]], batch_id: str, wanted: Iterable[Wanted]
) -> tuple[list[Wanted], list[tuple[Wanted, Change]]]:
    """Of a revert's rows, those still to send, and those a batch reverting ``batch_id`` has
    already put back (each with the change that did): a revert run again sends nothing twice."""
    done: dict[tuple[str, str, str], Change] = {}
    for changes in batches.values():
        for change in changes:
            if change.reverts == batch_id and change.outcome == Outcome.DONE and change.email:
                done[change.hub_id, change.project_id, person_key(change.email)] = change
    rest: list[Wanted] = []
    already: list[tuple[Wanted, Change]] = []
    for row in wanted:
        found = done.get((row.hub_id, row.project_id, person_key(row.email)))
        if found is None:
            rest.append(row)
        else:
            already.append((row, found))
    return rest, already
