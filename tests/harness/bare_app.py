"""The start-up anchor: a bare Textual app (Header, a DataTable of three rows, Footer).

Run:  python -m tests.harness.bare_app
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import DataTable, Footer, Header


class Bare(App[None]):
    BINDINGS = [("q", "quit", "Quit")]

    def compose(self) -> ComposeResult:
        yield Header()
        yield DataTable(cursor_type="row")
        yield Footer()

    def on_mount(self) -> None:
        # Handlers run for every class in the chain: a subclass fills the table in fill().
        self.fill(self.query_one(DataTable))

    def fill(self, table: DataTable[str]) -> None:
        table.add_columns("Name", "DisplayName")
        for row in (("acme-build", "ACME"), ("nordic-rail", "Nordic"), ("skyline-dev", "Sky")):
            table.add_row(*row)


if __name__ == "__main__":
    Bare().run()
