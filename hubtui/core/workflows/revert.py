"""A batch put back: one use case for the app's ``R`` and ``hubtui revert``. It finds the batch
in this server's change log (and the team's trail), plans its inverse by the one revert rule
(:func:`~hubtui.core.batches.reverting.plan_revert`) and says, once for both front ends, what
cannot be put back and what another revert already did; the rest is previewed, asked and sent
by the one run (:func:`revert_batch`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hubtui.core.batches import batches_in, batches_of, plan_revert, prepare
from hubtui.core.changes.kinds import kind_of
from hubtui.core.workflows.ports import Question
from hubtui.core.workflows.run import Ran, Sending, run_preview
from hubtui.text import inert

if TYPE_CHECKING:
    from hubtui.api import HubClient
    from hubtui.core.batches import RevertPlan, Wanted
    from hubtui.core.workflows.ports import Front
    from hubtui.core.workspace import Workspace

__all__ = ["Revert", "find_revert", "revert_batch"]


@dataclass
class Revert:
    """A batch's revert as planned: the rows to preview, and what to say of the others."""

    batch: str
    plan: RevertPlan | None
    """None: this server's change log holds no such batch."""
    latest: list[str] = field(default_factory=list)
    """The latest batches it does hold (said when the one asked is not there)."""

    @property
    def wanted(self) -> list[Wanted]:
        return [] if self.plan is None else self.plan.wanted

    def cannot(self) -> list[str]:
        """``eve@… was added to Harbour …; nobody can be removed …``: each change that cannot be
        put back, in words that follow ``Cannot be put back:``."""
        if self.plan is None:
            return []
        return [
            f"{inert(c.email or c.user_id or '?', limit=80)} "
            f"{inert(kind_of(c).cannot_undo(c), limit=None)}"
            for c in self.plan.cannot
        ]

    def already(self) -> tuple[str, list[str]]:
        """The batches that already put rows of it back, and each such row in words (nothing
        is sent for them)."""
        if self.plan is None or not self.plan.already:
            return "", []
        by = ", ".join(sorted({inert(c.batch or "?") for _, c in self.plan.already}))
        rows = [
            f"{inert(row.email)} in {inert(row.where)}: {inert(change.summary)}"
            for row, change in self.plan.already
        ]
        return by, rows

    def notes(self) -> list[str]:
        """What is said before its preview: what cannot be put back, what already was."""
        notes = [f"Cannot be put back: {words}." for words in self.cannot()]
        by, already = self.already()
        if already:
            notes.append(f"Already put back by batch {by} (nothing is sent for these):")
            notes.extend(f"  {words}" for words in already)
        return notes

    def nothing_words(self) -> str:
        """What is said when nothing is left to send."""
        if self.plan is not None and self.plan.already:
            return f"Batch {inert(self.batch)} is reverted."
        return "Nothing of this batch to put back."


def find_revert(workspace: Workspace, batch_id: str) -> Revert:
    """How ``batch_id`` of this server is put back: from the change log's file and the team's
    trail, else this session's own lines (a log with no file). Blocking: it reads the file."""
    log = workspace.change_log
    batches = batches_in(log)
    if batch_id not in batches:
        batches = batches_of(log.changes) | batches
    return Revert(batch_id, plan_revert(batches, batch_id), list(batches)[-5:])


async def revert_batch(
    workspace: Workspace, client: HubClient, front: Front, revert: Revert, *, dry_run: bool
) -> Ran:
    """``revert``'s rows (some, :attr:`Revert.wanted`) read again, previewed, asked and sent as
    a batch that reverts it, by the one run."""
    log = workspace.change_log
    preview = await prepare(
        client,
        revert.wanted,
        log,
        concurrency=workspace.concurrency,
        settle=not dry_run,
        on_read=front.reading,
    )
    sending = Sending(log, workspace.concurrency, dry_run=dry_run, reverts=revert.batch)
    question = Question(title=f"Revert of batch {revert.batch}", notes=tuple(revert.notes()))
    return await run_preview(front, client, preview, sending, question=question)
