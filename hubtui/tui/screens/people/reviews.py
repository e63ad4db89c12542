"""The access reviews kept of this server (the palette's "Reviews kept"): each review, newest
first, with who reviewed, when and its batch; ``enter`` shows one review's rows (each person, the
decision, its reason and outcome). What ``hubtui reviews`` prints, on a screen."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from hubtui.core.workflows.keeping import review_kept
from hubtui.core.workflows.kept import ReviewInfo, StoreError
from hubtui.core.workspace import StoreOff
from hubtui.text import inert
from hubtui.tui.session import workspace_of
from hubtui.tui.widgets.chrome import KeyFooter


def review_words(info: ReviewInfo) -> Content:
    counts = ", ".join(f"{n} {inert(d)}" for d, n in info.counts.items()) or "no rows"
    batch = f"batch {inert(info.batch)}" if info.batch else "nothing sent"
    return Content.assemble(
        (f"#{info.id} ", "bold"),
        f"{inert(info.hub_name)} · {inert(info.started)} · {inert(info.reviewer)} · {counts} · ",
        batch,
    )


class ReviewsScreen(ModalScreen[None]):
    """The reviews kept; ``enter`` shows the highlighted one's rows below."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q", "dismiss", "Close")]

    def __init__(self, reviews: list[ReviewInfo]) -> None:
        super().__init__()
        self.reviews = list(reversed(reviews))

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog-box"):
            yield Static(
                Content.styled(
                    "Access reviews kept of this server, newest first: enter shows one"
                    if self.reviews
                    else "No access review is kept of this server yet (d and v on a hub's "
                    "people, or hubtui review and apply).",
                    "bold",
                )
            )
            if self.reviews:
                yield OptionList(
                    *(Option(review_words(r), id=str(r.id)) for r in self.reviews), id="reviews"
                )
            yield Static("", id="review-rows")
        yield KeyFooter(compact=True)

    def on_mount(self) -> None:
        for options in self.query("#reviews").results(OptionList):
            options.focus()

    @on(OptionList.OptionSelected, "#reviews")
    async def _chosen(self, event: OptionList.OptionSelected) -> None:
        try:
            info, rows = await review_kept(workspace_of(self.app), int(event.option.id or 0))
        except (StoreOff, StoreError) as error:
            self.query_one("#review-rows", Static).update(Content(inert(str(error))))
            return
        lines = [
            Content.assemble(
                (f"Review #{info.id}", "bold"),
                f" ({inert(info.criteria)}), {inert(info.started)} to {inert(info.ended)}:",
            )
        ]
        for row in rows:
            reason = f" ({inert(row['reason'])})" if row["reason"] else ""
            lines.append(
                Content.assemble(
                    (inert(row["email"]), "bold"),
                    f": {inert(row['decision'])}{reason} → {inert(row['outcome'])}",
                )
            )
        self.query_one("#review-rows", Static).update(Content("\n").join(lines))
