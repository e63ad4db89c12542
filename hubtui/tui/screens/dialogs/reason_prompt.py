"""Why: a person offboarded (``O``), asked before the preview and kept with its review; a
removal decided in a campaign's packet (``x``), kept with the decision."""

from __future__ import annotations

from collections.abc import Iterable

from textual import on
from textual.widgets import Input

from hubtui.tui.screens.dialogs.prompt import PromptScreen


class ReasonPromptScreen(PromptScreen[str]):
    """Asks why (enter with nothing typed: no reason given, unless one is ``required``, when
    the dialog stays open and says so); escape goes back, nothing read."""

    MESSAGE_ID = "reason-message"

    def __init__(
        self,
        email: str,
        title: str = "Offboard ",
        explained: str = (
            "Why? Kept with the review (hubtui reviews shows it). Their access in every hub is "
            "read next and previewed: nothing is sent before you confirm."
        ),
        *,
        required: str = "",
    ) -> None:
        super().__init__(title, email, explained)
        #: What is said when enter is pressed with no reason typed (empty: none is needed).
        self.required = required

    def fields(self) -> Iterable[Input]:
        yield Input(placeholder="the reason, then enter", id="reason-input")

    @on(Input.Submitted, "#reason-input")
    def _submitted(self, event: Input.Submitted) -> None:
        reason = " ".join(event.value.split())
        if not reason and self.required:
            self.say(self.required)
            return
        self.dismiss(reason)
