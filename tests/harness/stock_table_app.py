"""The anchor for terminal costs: Textual's stock DataTable with a row cursor, Header and Footer,
showing the demo's hubs (``hubs``) or a project's users (``users``).

Run:  python -m tests.harness.stock_table_app hubs|users
"""

from __future__ import annotations

import sys

from textual.widgets import DataTable

from hubtui.demo import DemoStore
from tests.harness.bare_app import Bare


class StockTable(Bare):
    """The bare app's layout, filled with the demo's data."""

    def __init__(self, what: str) -> None:
        super().__init__()
        self.what = what

    def fill(self, table: DataTable[str]) -> None:
        store = DemoStore()
        if self.what == "hubs":
            table.add_columns("Name", "DisplayName", "Region", "Id", "Created")
            for hub in store.hubs.values():
                table.add_row(
                    hub.name, hub.display_name or "", hub.region, hub.id, f"{hub.created:%Y-%m-%d}"
                )
        else:
            hub = next(iter(store.hubs.values()))
            project = max(hub.projects.values(), key=lambda p: len(p.members))
            table.add_columns("Name", "Email", "Role", "Reviewer", "Teams")
            for user, membership in store.project_users(hub, project):
                role = membership.role if membership else "—"
                teams = ", ".join(t for _, t in (membership.teams or [])) if membership else ""
                table.add_row(f"{user.first_name} {user.last_name}", user.email, role, "", teams)


if __name__ == "__main__":
    StockTable(sys.argv[1] if len(sys.argv) > 1 else "hubs").run()
