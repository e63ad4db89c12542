"""What a screen reads from the app it runs in: the app's Workspace
(:mod:`hubtui.core.workspace`, the server and profile) and the app's session beside it (what was
read, to jump to; the staged changes; how many batches were sent).

Screens import this, never ``hubtui.tui.app``, so the app can import every screen without a
circle. What a screen asks the app to *do* goes up as a message (``hubtui.tui.messages``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hubtui.tui.catalog import Catalog

if TYPE_CHECKING:
    from textual.app import App

    from hubtui.core.people.why import ProjectNamed
    from hubtui.core.workflows.engine import Change, ChangeSet
    from hubtui.core.workflows.ports import Front
    from hubtui.core.workspace import Workspace


class Session:
    """What only the app keeps, for the Workspace it runs: a headless command has none."""

    def __init__(
        self,
        on_staged_changed: Callable[[], None] | None = None,
        front: Callable[..., Front] | None = None,
    ) -> None:
        self._front = front
        #: What was read in this session, to jump to (ctrl+p).
        self.catalog = Catalog()
        self._staged: ChangeSet | None = None
        self._on_staged_changed = on_staged_changed
        #: How many batches were sent in this session: a list shown before one is read again.
        self.batches_sent = 0

    @property
    def staged(self) -> ChangeSet:
        """The changes staged across screens, until applied or dropped."""
        if self._staged is None:
            from hubtui.core.workflows.engine import (
                ChangeSet,  # the batch engine: when first staged
            )

            self._staged = ChangeSet()
        return self._staged

    @property
    def staged_count(self) -> int:
        """How many changes are staged (none staged yet: the batch engine is not loaded)."""
        return 0 if self._staged is None else len(self._staged)

    def front(self, *, choose: Callable[[ProjectNamed], None]) -> Front:
        """The app's front (:class:`~hubtui.tui.front.AppRun`) for a workflow a screen runs
        itself (a ticket, whose several projects ``choose`` lists)."""
        assert self._front is not None  # the app gives it
        return self._front(choose=choose)

    def staged_changed(self) -> None:
        """The staged changes changed: the app's status line follows."""
        if self._on_staged_changed is not None:
            self._on_staged_changed()

    def changed(self, change: Change) -> None:
        """A change ended: what was read of its project (of its hub, for a change of the hub's
        users) is not reused as if it were still so."""
        if change.outcome in ("done", "unknown"):
            self.catalog.forget_users(change.hub_id, change.project_id or None)

    def elsewhere(self) -> None:
        """Another server, profile or the store offline: nothing read before is offered."""
        self.catalog = Catalog()


def workspace_of(app: App[Any]) -> Workspace:
    """The Workspace the app runs (a :class:`~hubtui.tui.app.HubTuiApp`: the one app of hubtui)."""
    workspace: Workspace = app.workspace  # type: ignore[attr-defined]
    return workspace


def session_of(app: App[Any]) -> Session:
    """The app's session beside its Workspace."""
    session: Session = app.session  # type: ignore[attr-defined]
    return session
