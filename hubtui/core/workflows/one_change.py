"""One change to one person in one project: one use case for the app's form (``a``, ``e``, a
limited reader made a member) and ``hubtui add-user`` / ``set-role``.

It decides the wish against the person as the project's list shows them now (the one rule of
:func:`~hubtui.core.batches.projects.decide`), says the change or why nothing is sent, plans
exactly the request a dry run prints, and sends it as a batch of one (so ``R`` and ``hubtui
revert`` put it back as any batch), the one way. Read-only is refused here, once. The front ends
ask, confirm and render.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from hubtui.core.batches.projects import decide, on_its_own
from hubtui.core.batches.wanted import Intent, Verdict, Wanted
from hubtui.core.changes.kinds import Undo, kind_of
from hubtui.core.changes.sending import STOPPED, plan, send_change
from hubtui.core.workflows.ports import ReadOnly

if TYPE_CHECKING:
    from hubtui.api import ChangeRequest, HubClient, ProjectUser
    from hubtui.core.changes.log import ChangeLog
    from hubtui.core.changes.record import Change
    from hubtui.core.changes.sending import Sent

__all__ = ["OneChange", "ReadOnly", "one_change"]


@dataclass(frozen=True)
class OneChange:
    """A wish decided: the change to send and its difference, or (``change`` None) why nothing
    is sent (``verdict`` says whether it is so already)."""

    wish: Wanted
    change: Change | None
    words: str
    verdict: Verdict

    @property
    def so_already(self) -> bool:
        return self.verdict is Verdict.SAME

    @property
    def revertible(self) -> bool:
        """Whether a change of this kind can be put back (an add cannot: nobody leaves a
        project through the API), so that nothing promises a revert it cannot make."""
        return self.change is not None and kind_of(self.change).undo is not Undo.NEVER

    async def plan(self, client: HubClient) -> ChangeRequest:
        """Exactly the request :meth:`send` sends (a dry run prints it)."""
        assert self.change is not None, "a wish that sends nothing plans nothing"
        return await plan(client, self.change)

    async def send(self, client: HubClient, log: ChangeLog, *, stopped: str = STOPPED) -> Sent:
        """Send it once, as a batch of one, the one way (read again just before; raises
        before anything leaves when the person changed since, an earlier add is unknown, or
        the change log cannot be written)."""
        assert self.change is not None, "a wish that sends nothing sends nothing"
        return await send_change(client, log, on_its_own(self.change), stopped=stopped)


def one_change(
    wish: Wanted, user: ProjectUser | None, *, api_version: str, read_only: bool
) -> OneChange:
    """``wish`` (an add or a role set, ``Intent.ADD`` or ``Intent.SET``) decided against
    ``user``, the person as the project's list shows them now (None: not in it). Read-only
    refuses here (:class:`ReadOnly`), before anything is asked."""
    if read_only:
        raise ReadOnly("read-only: no change is sent.")
    assert wish.intent in (Intent.ADD, Intent.SET), "one change adds or sets a role"
    change, words, verdict = decide(wish, user, api_version=api_version)
    return OneChange(wish, change, words, verdict)
