"""A ticket's fix, a key away: the add a step prepares, built once for every front end (the
account it names, what its preview says of an address nobody has)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hubtui.core.batches import Intent, Wanted
from hubtui.core.people.advice import outside_tenant

if TYPE_CHECKING:
    from hubtui.core.people.why import Answer

__all__ = ["add_of"]


def add_of(answer: Answer, role: str) -> Wanted:
    """The add of the person a ticket's answer is about to its project, with ``role``: a user
    of the hub is their account (sent only while it has this address); an address nobody has
    is said so in the preview, and outside the hub's SSO tenant where so."""
    assert answer.project_id is not None, "an add is to a project"
    note = None
    if answer.verdict_code == "not_a_user":
        outside = outside_tenant(answer.hub, answer.email)
        note = "no one has this address in the hub" + (f"; {outside}" if outside else "")
    return Wanted(
        answer.hub.id,
        answer.hub.name,
        answer.project_id,
        answer.project_name,
        answer.email,
        Intent.ADD,
        role=role,
        user_id=None if answer.hub_user is None else str(answer.hub_user.user.id),
        note=note,
    )
