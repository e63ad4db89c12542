"""What a screen reads from the app it runs in: the connection and the settings of the session.

A description (a Protocol), not the app: screens import this, never ``hubtui.tui.app``, so the
app can import every screen without a circle. What a screen asks the app to *do* goes up as a
message (``hubtui.tui.messages``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, cast

if TYPE_CHECKING:
    from textual.app import App

    from hubtui.api import ApiVersion, HubClient
    from hubtui.core.batch import ChangeSet
    from hubtui.core.changelog import ChangeLog
    from hubtui.core.offline import StoredAnswers
    from hubtui.core.stored import Keeper
    from hubtui.tui.catalog import Catalog


class Session(Protocol):
    """The app as its screens see it."""

    server_label: str
    api_version: ApiVersion
    read_only: bool
    profile: str | None
    concurrency: int
    search_deadline: float | None
    """Seconds a whole search across projects may take (None: no bound)."""
    catalog: Catalog
    #: Handed down, not messaged up: a change is logged before its request leaves, so the log
    #: is written where the change is made, at once, never a message later.
    change_log: ChangeLog

    keeper: Keeper | None
    """The store of what is read, for this server and profile (None: none this run)."""
    offline: StoredAnswers | None
    """Offline: the store answers every read (None: the server does)."""

    staged: ChangeSet
    """The changes staged in this session, across screens, until applied or dropped."""
    batches_sent: int
    """How many batches were sent in this session: a list shown before one is read again."""

    rereads_token: bool
    """Whether there is a token to read again (not on the demo API, whose token is fixed)."""

    @property
    def can_reconnect(self) -> bool: ...

    async def client(self) -> HubClient: ...

    def staged_changed(self) -> None:
        """The staged changes changed: the status line's count follows."""


def session_of(app: App[Any]) -> Session:
    """The session ``app`` runs (a :class:`~hubtui.tui.app.HubTuiApp`: the one app of hubtui)."""
    return cast("Session", app)
