"""`g`: go to a hub by its URL name, the way the by-name operation matches."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Static
from textual.worker import Worker

from hubtui.api.errors import HubError, NotFoundError
from hubtui.core.presenting import match_hub
from hubtui.text import inert
from hubtui.tui.screens.recovering import RecoveringScreen
from hubtui.tui.session import workspace_of
from hubtui.tui.widgets.chrome import KeyFooter

if TYPE_CHECKING:
    from hubtui.api import Hub


class GoToHubScreen(ModalScreen["Hub | None"], RecoveringScreen["Hub | None"]):
    """Asks for a URL name; offers a loaded hub whose DisplayName matches when none does."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, loaded_hubs: list[Hub]) -> None:
        super().__init__()
        self.loaded_hubs = loaded_hubs
        self.offer: Hub | None = None
        self._offered_for = ""

    def compose(self) -> ComposeResult:
        with Vertical(id="go-to-box"):
            yield Static(
                Content.assemble(
                    ("Go to a hub by its URL name", "bold"),
                    "\nThis matches the hub's Name (the URL identifier, e.g. acme-build), "
                    "not its DisplayName.",
                )
            )
            yield Input(placeholder="URL name, then enter", id="hub-name-input")
            yield Static(id="go-to-message")
        yield KeyFooter(compact=True)

    @on(Input.Submitted, "#hub-name-input")
    def _submitted(self, event: Input.Submitted) -> None:
        typed = event.value.strip()
        if self.offer is not None and typed == self._offered_for:
            self.dismiss(self.offer)
            return
        if not typed:
            self._say("Type a URL name first.")
            return
        self._look_up(typed)

    @work(exclusive=True, exit_on_error=False)
    async def _look_up(self, typed: str) -> None:
        self._say(f"Looking up the URL name {inert(typed)}…")
        self.offer = None
        try:
            client = await workspace_of(self.app).client()
            hub = await client.get_hub_by_name(typed)
        except NotFoundError:
            self._not_found(typed)
        except HubError as error:
            self._say(f"{error} Press enter to try again.")
        else:
            if hub.name == typed:
                self.dismiss(hub)
            else:  # a server that matched loosely is not taken at its word
                self._not_found(typed)

    def _not_found(self, typed: str) -> None:
        found = match_hub(self.loaded_hubs, typed, partial=True)
        if found.hub is not None:
            self.dismiss(found.hub)
        elif found.offer is not None:
            self.offer, self._offered_for = found.offer, typed
            self._say(f"{found.words()} Press enter to open it, or escape.")
        elif found.candidates:
            self._say(found.words())
        else:
            self._say(
                f"{found.words()} The lookup matches the URL name (Name), not the display "
                "name, and no loaded hub's display name matches either."
            )

    def _say(self, text: str) -> None:
        """Show a message; it may hold a server's words, so it is made inert."""
        self.query_one("#go-to-message", Static).update(Content(inert(text, limit=800)))

    def recover(self, worker: Worker[object], sentence: str) -> None:
        # Not "Looking up…" for ever.
        self._say(f"{sentence} Press enter to try again, or escape.")

    def action_cancel(self) -> None:
        self.dismiss(None)
