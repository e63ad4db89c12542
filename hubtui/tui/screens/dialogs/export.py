"""`x`: write the list as shown (after filter, group and sort) to a CSV or JSON file."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Checkbox, Input, RadioSet, Static

from hubtui.core.files import refusal_words
from hubtui.core.presenting import FORMATS, Cell, default_file_name, render, write_export
from hubtui.text import inert
from hubtui.tui.widgets.choices import Choice, Tick
from hubtui.tui.widgets.chrome import KeyFooter


class ExportScreen(ModalScreen[None]):
    """Asks for a format and a path, then writes the rows it was given."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Write", priority=True),
        Binding("escape", "cancel", "Cancel"),
    ]

    def __init__(
        self,
        what: str,
        context: dict[str, str],
        columns: list[str],
        rows: list[list[Cell]],
        *,
        directory: Path | None = None,
    ) -> None:
        super().__init__()
        self.what = what
        self.context = context
        self.columns = columns
        self.rows = rows
        self.directory = directory or Path.cwd()
        self._default = default_file_name(what, FORMATS[0])

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box"):
            yield Static(
                Content.assemble(
                    ("Export ", "bold"),
                    (inert(self.what), "bold"),
                    f"\n{len(self.rows):,} rows as shown (filter and sort kept), with where they "
                    "came from. ctrl+s writes (enter too, in the path); tab moves to the "
                    "format, where enter chooses one; escape cancels.",
                )
            )
            yield Input(
                value=str(self.directory / self._default), id="export-path", select_on_focus=False
            )
            with RadioSet(id="export-format"):
                for n, fmt in enumerate(FORMATS):
                    yield Choice(fmt.upper(), value=n == 0)
            yield Tick(
                "Byte-order mark first (spreadsheets read Malmö right)",
                value=True,
                id="export-bom",
            )
            yield Static(id="export-message")
        yield KeyFooter(compact=True)

    def on_mount(self) -> None:
        # The cursor at the end, nothing selected: a key typed edits the path, never replaces it.
        path = self.query_one("#export-path", Input)
        path.focus()
        path.cursor_position = len(path.value)

    @property
    def fmt(self) -> str:
        pressed = self.query_one(RadioSet).pressed_index
        return FORMATS[max(0, pressed)]

    @on(RadioSet.Changed, "#export-format")
    def _format_changed(self) -> None:
        path = self.query_one("#export-path", Input)
        current = Path(path.value)
        if current.name == self._default:  # still the default name: follow the format
            self._default = default_file_name(self.what, self.fmt)
            path.value = str(current.with_name(self._default))

    @on(Input.Submitted, "#export-path")
    def action_save(self) -> None:
        typed = self.query_one("#export-path", Input).value.strip()
        message = self.query_one("#export-message", Static)
        if not typed:
            message.update("Type a file path.")
            return
        path = Path(typed).expanduser()
        try:
            bom = self.query_one("#export-bom", Checkbox).value
            text = render(self.fmt, self.context, self.columns, self.rows, bom=bom)
            written = write_export(path, text)
        except OSError as exc:
            message.update(Content(f"Could not write: {inert(refusal_words(path, exc))}."))
            return
        taken = "" if written == path else f" ({inert(path)} exists already)"
        self.notify(
            f"Wrote {len(self.rows):,} rows to {inert(written)}{taken} ({self.fmt.upper()}).",
            markup=False,
        )
        self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)
