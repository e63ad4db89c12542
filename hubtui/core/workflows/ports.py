"""The port every workflow asks of its front end, one module: :class:`Port` (a hub found by
what was typed), :class:`TicketFront` (a ticket: several projects to choose from),
:class:`Front` (a workflow of batches) and :class:`OffboardFront`. The command and the app each
implement it, once per workflow. A workflow reads, decides and previews; the front shows, asks,
sends through the one engine (:func:`~hubtui.core.workflows.reviewed.apply_reviewed`) and says how
each row ended. Read-only is refused by the front before it starts one (a dry run still
previews).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Protocol

from hubtui.core.people.review import Offboarding, Review
from hubtui.core.workflows.reviewed import Kept

if TYPE_CHECKING:
    from hubtui.api import Hub
    from hubtui.core.batches import Batch
    from hubtui.core.batches.file_rows import RowOfFile
    from hubtui.core.batches.projects import Preview
    from hubtui.core.people.search import Progress
    from hubtui.core.people.why import ProjectNamed

__all__ = ["Front", "Keep", "NotSent", "OffboardFront", "Port", "ReadOnly", "TicketFront"]

#: How a review is kept in the store (its number; StoreOff or StoreError where it cannot be).
Keep = Callable[[Review], Awaitable[int]]


class ReadOnly(Exception):
    """Read-only (or offline): a workflow that would send refuses before anything is asked
    (its words say what is not sent)."""


class NotSent(Exception):
    """The front's question was answered no, or its preview left: nothing was sent and nothing
    is kept; the workflow ends there."""


class Port(Protocol):
    """What every workflow asks of the front end that runs it."""

    async def find_hub(self, given: str) -> Hub:
        """A hub by its exact Name or Id (the command also takes an exact DisplayName, and
        says so); ``LookupError`` says why none was taken."""
        ...


class TicketFront(Port, Protocol):
    """What a ticket (:func:`~hubtui.core.workflows.why.answer_ticket`) also asks."""

    def several_projects(self, named: ProjectNamed) -> None:
        """The text names several projects: the app lists them to choose from; the command
        says them (the ticket's :attr:`~hubtui.core.workflows.why.Ticket.refused` words)."""


class Front(Port, Protocol):
    """What a workflow of batches also asks: progress, a preview, a question, what was sent,
    how it ended."""

    def reading(self, done: int, total: int) -> None:
        """How far reading each project's users again has come."""

    def previewed(self, preview: Preview, refused: Sequence[RowOfFile]) -> None:
        """Show the preview, and the rows not read as changes."""

    async def send(self, preview: Preview, reviews: Sequence[Review]) -> Batch | None:
        """Ask, then send the preview as one batch with the reviews it carries kept after it
        (None: nothing sent: a dry run, nothing to send; :class:`NotSent`: asked, and not
        sent)."""
        ...

    async def ended(
        self, rows: Sequence[RowOfFile], batch: Batch | None, kept: Kept | None
    ) -> None:
        """Say how each row ended, and how the reviews nothing sent were kept (``kept`` None:
        there were none, or this was a dry run)."""


class OffboardFront(Front, Protocol):
    """An offboarding's front end also follows the search and says where the person was."""

    def searching(self, progress: Progress) -> None:
        """How far the search across the hubs has come."""

    def found(self, answer: Offboarding) -> None:
        """Where the person is, and what could not be read; ``LookupError`` ends the workflow
        when they have no access to remove."""
