"""Screens whose workers' unexpected errors are handled in one place, the app.

A worker that ends in an error nobody expected (a bug) must not leave a screen stuck saying
"Loading…" or "Sending…". Its screen reports it to the app (:class:`WorkerFailed`), which words
it once, logs it and calls the screen's :meth:`RecoveringScreen.recover`: the screen puts
itself back in a usable state. A screen already closed is left alone.
"""

from __future__ import annotations

from typing import Any, TypeVar

from textual.screen import Screen
from textual.worker import Worker, WorkerState

from hubtui.text import inert
from hubtui.tui.messages import WorkerFailed

Result = TypeVar("Result")


class RecoveringScreen(Screen[Result]):
    """A screen that reports its workers' unexpected errors to the app, and recovers.

    A modal screen names ``ModalScreen`` first, ``class Form(ModalScreen[R],
    RecoveringScreen[R])``: Textual takes a screen's default CSS along its first base only.
    """

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR:
            self.post_message(WorkerFailed(self, event.worker))

    def recover(self, worker: Worker[Any], sentence: str) -> None:
        """Be usable again after ``worker`` failed; ``sentence`` says what happened."""
        self.notify(sentence, severity="error", markup=False)


def bug_sentence(error: BaseException | None) -> str:
    """What a person reads when hubtui itself failed."""
    name = type(error).__name__
    return (
        f"Something unexpected went wrong ({name}: {inert(str(error), limit=300)}). "
        "This is a bug in hubtui; please report it."
    )
