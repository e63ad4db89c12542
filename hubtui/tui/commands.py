"""The command palette's provider: jump to any loaded hub, project or user."""

from __future__ import annotations

from typing import cast

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content

from hubtui.text import inert
from hubtui.tui.catalog import Entry


class LoadedRecords(Provider):
    """Hubs (by Name and DisplayName), projects and users loaded so far."""

    def _open(self, entry: Entry) -> None:
        from hubtui.tui.app import HubTuiApp

        app = cast(HubTuiApp, self.app)
        if entry.kind == "hub":
            app.open_hub(entry.hub)
        else:
            app.open_project(
                entry.hub, entry.project, project_id=entry.project_id, select_user=entry.user_id
            )

    def _catalog(self) -> list[Entry]:
        from hubtui.tui.app import HubTuiApp

        app = self.app
        return app.catalog.entries() if isinstance(app, HubTuiApp) else []

    async def discover(self) -> Hits:
        for entry in self._catalog()[:30]:
            # Content, not a str: a str would be read as markup, and this text is server data.
            yield DiscoveryHit(Content(inert(entry.text)), lambda e=entry: self._open(e))

    async def search(self, query: str) -> Hits:
        from hubtui.tui.app import HubTuiApp

        app = self.app
        if not isinstance(app, HubTuiApp):
            return
        found = app.catalog.search(query)
        for score, entry in found:
            shown = inert(entry.text)
            yield Hit(score, Content(shown), lambda e=entry: self._open(e), text=shown)
        typed = query.strip()
        if not typed:
            return
        hubs = [entry.hub for entry in app.catalog.hubs.values()]
        # Below the loaded matches; when there are none it says why, and offers the search.
        note = (
            "" if found else " (nothing loaded matches: the palette searches only what is loaded)"
        )
        offer = f"Find {inert(typed, limit=60)} in all hubs{note}"
        yield Hit(
            0.01,
            Content(offer),
            lambda: app.find_person(typed, hubs, "all hubs"),
            text=offer,
        )
