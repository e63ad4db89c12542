"""`ctrl+l`: every request of the session, newest first; enter shows one, `y` copies it as curl."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType

from hubtui.api.exchanges import Exchange, as_curl
from hubtui.text import inert
from hubtui.tui.present import amount
from hubtui.tui.screens.base import ListScreen
from hubtui.tui.widgets.chrome import Breadcrumb, Summary
from hubtui.tui.widgets.record_table import Column, RecordTable, Row, cell_indexes

if TYPE_CHECKING:
    from hubtui.api import HubClient
    from hubtui.api.exchanges import ExchangeLog

REQUEST_COLUMNS = (
    Column("time", "Time", width=8, priority=2),
    Column("method", "Method", width=6, priority=0),
    Column("status", "Status", width=6, priority=0),
    Column("path", "Path", min_width=20, priority=0, meaning=True),
    Column("ms", "ms", width=6, numeric=True, priority=3),
    Column("bytes", "Bytes", width=9, numeric=True, priority=4),
    Column("try", "Try", width=3, numeric=True, priority=4),
    Column("operation", "Operation", min_width=16, priority=1),
)


def exchange_row(exchange: Exchange, server: str) -> Row:
    url = exchange.url
    # The path alone on the configured server; the host too anywhere else (a regional API).
    path = url[len(server) :] if url.startswith(server) else url
    status = "—" if exchange.status is None else str(exchange.status)
    failed = exchange.status is None or exchange.status >= 400
    return Row(
        cells=(
            exchange.started.astimezone().strftime("%H:%M:%S"),
            exchange.method,
            status,
            inert(path),
            f"{exchange.seconds * 1000:,.0f}",
            f"{exchange.response_size:,}",
            str(exchange.attempt + 1),
            inert(exchange.operation),
        ),
        tone="failed" if failed else None,
        badges=cell_indexes(2) if failed else cell_indexes(),
    )


class RequestsScreen(ListScreen["list[Exchange]"]):
    """The request log: what hubtui sent and what came back, updating as requests end."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "copy", "Copy as curl", tooltip="copy the request as a curl command"),
    ]
    NOUN = "request"
    LEGEND = (
        "Every request hubtui sent in this session, newest first (the last 1,000).",
        "Status — : no answer (a connection error or a timeout); enter says why.",
        "Try: 1 for the first attempt, 2 for the first retry, and so on.",
        "enter shows the request and its answer; y copies the request as a curl command that "
        'reads the token from "$HUBTUI_TOKEN" (the token itself is never shown or copied).',
    )

    def __init__(self) -> None:
        super().__init__()
        self._log: ExchangeLog | None = None
        self._server = ""
        self._loaded: list[Exchange] = []
        self._pending = False

    def compose_body(self) -> ComposeResult:
        yield RecordTable(REQUEST_COLUMNS, id="records", empty_text="No requests yet.")

    def start(self) -> None:
        self.query_one(Breadcrumb).show_path("Requests")
        self.load()

    async def fetch(self, client: HubClient) -> list[Exchange]:
        self._server = client.base_url
        if self._log is not client.exchanges:
            self._forget()
            self._log = client.exchanges
            self._log.listeners.append(self._arrived)
        return list(reversed(list(self._log)))

    def _arrived(self, exchange: Exchange) -> None:
        # Many requests end within a frame (a search): shown together.
        if not self._pending and self.is_attached:
            self._pending = True
            self.call_after_refresh(self._refresh_rows)

    def _refresh_rows(self) -> None:
        self._pending = False
        if self._log is not None and self.is_attached:
            self.show_loaded(list(reversed(list(self._log))))

    def on_unmount(self) -> None:
        self._forget()

    def _forget(self) -> None:
        """Stop listening: a closed screen is not kept alive by the client's log."""
        if self._log is not None and self._arrived in self._log.listeners:
            self._log.listeners.remove(self._arrived)
        self._log = None

    def show_loaded(self, loaded: list[Exchange]) -> None:
        self._loaded = loaded
        server = self._server
        self.table.set_records(loaded, lambda e: exchange_row(e, server), key=lambda e: e.id)
        self.refresh_summary()

    def refresh_summary(self) -> None:
        table = self.table
        loaded = self._loaded
        failed = sum(1 for e in loaded if e.status is None or e.status >= 400)
        text = f"{amount(len(loaded), 'request')} · {failed:,} without a 2xx answer"
        if table.filter_text:
            text += f" · {table.visible_count:,} shown matching “{table.filter_text}”"
        self.query_one(Summary).say(text)

    def export_what(self) -> str:
        return "requests"

    @on(RecordTable.Selected, "#records")
    def _open(self, event: RecordTable.Selected) -> None:
        from hubtui.tui.screens.dialogs.exchange import ExchangeScreen

        self.app.push_screen(ExchangeScreen(event.record))

    def action_copy(self) -> None:
        exchange = self.table.highlighted_record
        if exchange is None:
            self.notify("No request is highlighted.", severity="warning", markup=False)
            return
        self.copy_lines([as_curl(exchange)], "request as curl")
