"""The one port every workflow drives: :class:`Front`. The command implements it once
(:mod:`hubtui.headless.front`), the app once (:mod:`hubtui.tui.front`). A workflow owns its whole
run (:mod:`hubtui.core.workflows.run`): it reads, decides, previews, asks, sends, reads back,
keeps and ends; the front shows what it is handed, answers what a person must answer, says
progress and how each row ended. Read-only is refused by the front before it starts one (a dry
run still previews).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from hubtui.api import ChangeRequest, Hub
    from hubtui.core.batches import Batch, Result
    from hubtui.core.batches.applying import Applied
    from hubtui.core.batches.file_rows import RowOfFile
    from hubtui.core.batches.projects import Preview
    from hubtui.core.people.review import Offboarding, Review
    from hubtui.core.people.search import Progress
    from hubtui.core.people.why import ProjectNamed
    from hubtui.core.workflows.reviewed import Kept

__all__ = ["Front", "Keep", "NotSent", "Question", "ReadOnly"]

#: How a review is kept in the store (its number; StoreOff or StoreError where it cannot be).
Keep = Callable[["Review"], Awaitable[int]]


class ReadOnly(Exception):
    """Read-only (or offline): a workflow that would send refuses before anything is asked
    (its words say what is not sent)."""


class NotSent(Exception):
    """The front's question was answered no, or its preview left: nothing was sent and nothing
    is kept; the workflow ends there."""


@dataclass(frozen=True)
class Question:
    """What a front asks before a batch leaves, in the workflow's words."""

    act: str = "Send"
    """What the question asks (``Close campaign 3 and send``)."""
    title: str | None = None
    """What the app's breadcrumb calls the preview (None: the staged changes, a revert…)."""
    incomplete: str = ""
    """What could not be read, said on the preview and in the question."""
    without_terminal: str = "add --yes to send the batch."
    """The command's words where nobody can be asked."""
    not_sent: str = "nothing was sent."
    """What is said when the answer is no."""
    notes: tuple[str, ...] = ()
    """Lines said before the preview (why each decided row is not sent, an interrupted close)."""


class Front(Protocol):
    """What every workflow asks of the front end that runs it: find a hub by what was typed,
    show a preview, ask, say progress, say the outcome."""

    async def find_hub(self, given: str) -> Hub:
        """A hub by its exact Name or Id (the command also takes an exact DisplayName, and
        says so); ``LookupError`` says why none was taken."""
        ...

    def several_projects(self, named: ProjectNamed) -> None:
        """A ticket names several projects: the app lists them to choose from; the command
        says them (the ticket's refused words)."""

    def searching(self, progress: Progress) -> None:
        """How far a search across the hubs has come."""

    def found(self, answer: Offboarding) -> None:
        """Where the person is, and what could not be read; ``LookupError`` ends the workflow
        when they have no access to remove."""

    def reading(self, done: int, total: int) -> None:
        """How far reading each project's users again has come."""

    def previewed(self, preview: Preview, refused: Sequence[RowOfFile], question: Question) -> None:
        """Show the preview, the rows not read as changes, and the question's notes."""

    async def ask(self, preview: Preview, question: Question) -> Preview:
        """Ask before anything leaves; the preview to send (the app's may have been read
        again meanwhile). :class:`NotSent`: answered no, or the preview was left."""
        ...

    def would_send(self, requests: Sequence[ChangeRequest]) -> None:
        """A dry run's answer: exactly the requests, nothing sent."""

    def nothing_to_send(self, preview: Preview) -> None:
        """No row of the preview differs from the server."""

    def sending(self, batch: Batch, stop: asyncio.Event) -> None:
        """The batch is about to leave; setting ``stop`` sends no more of it."""

    def came(self, batch: Batch, result: Result) -> None:
        """A row's outcome."""

    def settling(self) -> None:
        """The unknown outcomes are being read back."""

    def interrupted(self, batch: Batch, error: BaseException) -> None:
        """Sending ended by ``error``: cancelled (the rows in flight are logged unknown, the
        rest not sent), or a failure the run raises on."""

    def sent(self, applied: Applied, kept: Kept | None) -> None:
        """How the batch ended, and how the reviews it carries were kept."""

    async def ended(
        self, rows: Sequence[RowOfFile], batch: Batch | None, kept: Kept | None
    ) -> None:
        """The workflow's end: how each row ended, and how the reviews nothing sent were kept
        (``kept`` None: there were none, or this was a dry run)."""
