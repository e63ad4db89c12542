"""Sending the hub's invitation again: one use case for the app's ``i`` on the hub's people and
``hubtui resend-invite``.

It takes the people chosen, keeps those whose invitation waits, and sends each again the one way
(:func:`~hubtui.core.changes.sending.send_change`: their account read again just before, and
nothing sent to a person who accepted it since, or whose account has another address now). The
front ends ask first and say what came back; the rules are here, once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from hubtui.api.errors import HubError
from hubtui.core.changes.actions import Outcome
from hubtui.core.changes.kinds import ChangedSinceRead
from hubtui.core.changes.log import ChangeLogError
from hubtui.core.changes.sending import plan, send_change
from hubtui.core.people.hub import pending_invitations, resend_change
from hubtui.core.presenting import amount
from hubtui.core.workflows.ports import ReadOnly
from hubtui.text import inert

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    from hubtui.api import ChangeRequest, Hub, HubClient
    from hubtui.core.changes.log import ChangeLog
    from hubtui.core.changes.record import Change
    from hubtui.core.people.hub import HubPerson
    from hubtui.core.workspace import Workspace

__all__ = [
    "ReadOnly",
    "Resend",
    "Resending",
    "Resent",
    "prepare_resend",
    "resend_all",
    "resent_words",
]


@dataclass(frozen=True)
class Resent:
    """How one person's invitation ended: ``outcome`` None when nothing was sent (``why``)."""

    person: HubPerson
    outcome: Outcome | None
    why: str = ""

    @property
    def done(self) -> bool:
        return self.outcome == Outcome.DONE


@dataclass(frozen=True)
class Resending:
    """The invitations to send again, prepared: each person whose invitation waits, with the
    change that sends it. Nothing is sent until :meth:`send`."""

    hub: Hub
    changes: list[Change]
    people: list[HubPerson]

    async def plans(self, client: HubClient) -> list[ChangeRequest]:
        """Exactly the requests :meth:`send` would send (a dry run prints them)."""
        return [await plan(client, change) for change in self.changes]

    async def send(
        self,
        client: HubClient,
        log: ChangeLog,
        *,
        on_each: Callable[[Resent], None] | None = None,
    ) -> list[Resent]:
        """Send each again, one after another (each gets an email; never retried), and say
        how each ended (``on_each`` as it comes)."""
        results: list[Resent] = []
        for person, change in zip(self.people, self.changes, strict=True):
            try:
                sent = await send_change(client, log, change)
            except (ChangeLogError, ChangedSinceRead) as error:
                result = Resent(person, None, str(error))
            else:
                why = "" if sent.outcome == Outcome.DONE else str(sent.error)
                result = Resent(person, sent.outcome, why)
            results.append(result)
            if on_each is not None:
                on_each(result)
        return results


def resent_words(results: Sequence[Resent]) -> str:
    """How invitations sent again ended, in one line for a notification: how many were sent,
    then each that was not and why (values made inert)."""
    done = sum(1 for r in results if r.done)
    not_sent = [
        f"{inert(r.person.email)}: "
        + (
            inert(r.why, limit=200)
            if r.outcome is None
            else f"{r.outcome} ({inert(r.why, limit=200)})"
        )
        for r in results
        if not r.done
    ]
    words = f"{amount(done, 'invitation')} sent again."
    return f"{words} Not sent: {'; '.join(not_sent)}" if not_sent else words


def prepare_resend(
    hub: Hub, people: Iterable[HubPerson], *, read_only: bool, dry_run: bool = False
) -> Resending:
    """The invitations of ``people`` that still wait (an accepted one, or a person who is no
    hub user, left out), ready to send. Read-only refuses here, once, before anyone is asked
    (:class:`ReadOnly`), unless it is only a dry run."""
    if read_only and not dry_run:
        raise ReadOnly("read-only: no invitation is sent again.")
    waiting = pending_invitations(people)
    return Resending(hub, [resend_change(hub, person) for person in waiting], waiting)


@dataclass(frozen=True)
class Resend:
    """How sending invitations again ended, for a notification."""

    words: str
    done: bool
    """Every one was sent."""
    tried: bool
    """They were tried (False: nothing could be sent, the words say why)."""


async def resend_all(workspace: Workspace, resending: Resending) -> Resend:
    """Send every invitation of ``resending`` (each read again just before), and say how they
    ended in one line. A client that cannot be had sends nothing, said so."""
    try:
        client = await workspace.client()
    except HubError as error:
        return Resend(f"Nothing was sent: {inert(str(error))}", done=False, tried=False)
    results = await resending.send(client, workspace.change_log)
    return Resend(resent_words(results), all(r.done for r in results), tried=True)
