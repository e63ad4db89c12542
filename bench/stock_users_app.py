"""The anchor for a large list: Textual's stock DataTable showing a project's users read with
plain httpx and ``json`` (no validation), filtered by clearing and re-adding the rows that match.

Run:  python -m bench.stock_users_app URL     (HUBTUI_TOKEN in the environment; l loads)
"""

from __future__ import annotations

import os
import sys
from typing import ClassVar

import httpx
from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Footer, Header, Input, Static


class StockUsers(App[None]):
    CSS = "DataTable { height: 1fr; }"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("l", "load", "Load", priority=True),
        Binding("slash", "filter", "Filter", priority=True),
        Binding("q", "quit", "Quit"),
    ]

    def __init__(self, url: str, token: str) -> None:
        super().__init__()
        self.url = url
        self.token = token
        self.rows: list[tuple[str, ...]] = []
        self.search: list[str] = []

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("l loads the users", id="summary")
        yield Input(placeholder="Filter", id="filter")
        yield DataTable(cursor_type="row")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns("Name", "Email", "Role", "Reviewer", "Limited")
        self.query_one(DataTable).focus()

    @work(exclusive=True)
    async def action_load(self) -> None:
        async with httpx.AsyncClient(timeout=120) as client:
            response = await client.get(self.url, headers={"Authorization": f"Bearer {self.token}"})
        users = response.json()
        self.rows = [
            (
                f"{u['User'].get('FirstName') or ''} {u['User'].get('LastName') or ''}",
                u["User"].get("Email") or "",
                str(u.get("Role")),
                "yes" if u.get("IsReviewer") else "no",
                "LIMITED" if u.get("IsLimited") else "",
            )
            for u in users
        ]
        self.search = [" ".join(row).lower() for row in self.rows]
        self.query_one(DataTable).add_rows(self.rows)
        self.query_one("#summary", Static).update(f"{len(self.rows):,} users · loaded")

    def action_filter(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Changed)
    def _filter(self, event: Input.Changed) -> None:
        words = event.value.lower().split()
        shown = [
            row
            for row, text in zip(self.rows, self.search, strict=True)
            if all(word in text for word in words)
        ]
        table = self.query_one(DataTable)
        table.clear()
        table.add_rows(shown)
        self.query_one("#summary", Static).update(f"{len(shown):,} matching “{event.value}”")


if __name__ == "__main__":
    StockUsers(sys.argv[1], os.environ["HUBTUI_TOKEN"]).run()
