"""What every list screen shares: filter, back, reload, help, problems and loading.

One idea: the one load template every list screen shares (loading, the failure panel,
filter, sort, export, help, offline), kept whole so no screen differs.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Input, ProgressBar
from textual.worker import Worker

from hubtui.api.errors import ApiStatusError, AuthenticationError, HubError
from hubtui.core.clock import now
from hubtui.text import copy_problem, inert
from hubtui.tui.messages import Reconnect
from hubtui.tui.present import amount, copy_lines_for_a_ticket, tmux_clipboard_words
from hubtui.tui.screens.recovering import RecoveringScreen
from hubtui.tui.session import session_of, workspace_of
from hubtui.tui.widgets.chrome import (
    AccessPanel,
    Breadcrumb,
    FilterBar,
    KeyFooter,
    ProblemPanel,
    StatusLine,
    Summary,
)
from hubtui.tui.widgets.record_table import Column, RecordTable

if TYPE_CHECKING:
    from hubtui.api import Hub, HubClient
    from hubtui.core.people import Progress
    from hubtui.core.presenting import Cell
    from hubtui.core.workspace import Workspace
    from hubtui.tui.session import Session


Loaded = TypeVar("Loaded")

#: `D` on the screens of a scope (all hubs, a hub, a project): what changed since a snapshot.
CHANGES_SINCE = Binding(
    "D",
    "changes_since",
    "Changes",
    show=False,
    tooltip="what changed in access since a snapshot kept in the store",
)


class ListScreen(RecoveringScreen[None], Generic[Loaded]):
    """A screen built around one :class:`RecordTable`, filled by one load.

    The load is a template (:meth:`load`): a subclass says what it reads (:meth:`fetch`) and
    shows what came (:meth:`show_loaded`); the loading state, the problem panel and the summary
    of a failed load are the same on every screen.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", key_display="esc/⌫"),
        # Keys that do not start with ESC: no wait for an escape sequence (tmux's escape-time).
        Binding("backspace,left,h", "back", "Back", show=False),
        Binding("slash", "filter", "Filter"),
        Binding("r", "reload", "Reload", tooltip="load this list again from the server"),
        Binding(
            "x",
            "export",
            "Export",
            tooltip="write the rows shown (filter and sort kept) to a CSV or JSON file",
        ),
        Binding("question_mark", "help", "Help", tooltip="this help"),
        Binding(
            "q", "app.quit", "Quit", tooltip="quit hubtui (it asks first while a change is sent)"
        ),
        Binding(
            "u",
            "copy_sign_in_url",
            "Copy sign-in URL",
            tooltip="copy the web app address the server named, to sign in once there",
        ),
        Binding(
            "t",
            "reread_token",
            "Read token again",
            show=False,
            tooltip="read the token again (token_command or token file) and reconnect",
        ),
    ]
    #: Lines for the help screen: what each badge and marker on this screen means.
    LEGEND: ClassVar[tuple[str, ...]] = ()
    #: Whether escape can go back from this screen (the first screen never quits on escape).
    CAN_GO_BACK: ClassVar[bool] = True
    #: What one row is, for "Loading hubs…" and "Reload failed: the 3 hubs below are from before".
    NOUN: ClassVar[str] = "row"
    #: The web app address a failure named for signing in once (the service's
    #: USER_PROFILE_NOT_CREATED), offered to copy until the next load.
    _sign_in_url: str | None = None
    #: Whether this screen's list is being read.
    is_loading = False
    #: The list is to take focus once loaded (enter in the filter while it loaded): keys typed
    #: ahead wait for it.
    focus_pending = False
    #: Offline: when the list shown was read (``stored 14:02``).
    read_words: str | None = None
    #: Whether rows stream in while the load runs (shown as they come, the table not covered).
    STREAMS: ClassVar[bool] = False
    AUTO_FOCUS = "#records"

    #: Whether ``D`` (changes since a snapshot) works here; the palette offers it where it does.
    shows_changes: ClassVar[bool] = False

    @property
    def workspace(self) -> Workspace:
        """The server and profile this app works with."""
        return workspace_of(self.app)

    @property
    def session(self) -> Session:
        """What the app keeps beside it: what was read, the staged changes."""
        return session_of(self.app)

    @property
    def scope_hub(self) -> Hub | None:
        """The hub this screen is about, if one (the palette offers a snapshot of it)."""
        return None

    @property
    def highlighted_email(self) -> str | None:
        """The address of the person on the highlighted row, on a list of people (the
        palette's "Why can't … get in?" starts from it)."""
        return None

    def action_changes_since(self) -> None:
        """What changed in access here since a snapshot kept (screens with ``shows_changes``)."""

    def footer_words(self, action: str) -> str | None:
        """What the footer's key of ``action`` says now, where it changes (None: its own)."""
        return None

    @property
    def table(self) -> RecordTable[Any]:
        return self.query_one("#records", RecordTable)

    def compose(self) -> ComposeResult:
        yield Breadcrumb(id="breadcrumb")
        yield Summary(id="summary")
        yield FilterBar(
            placeholder="Filter: type to narrow the list · enter keeps it · escape clears",
            id="filter",
        )
        yield ProblemPanel(id="problem")
        yield from self.compose_body()
        yield StatusLine(id="status")
        yield KeyFooter(compact=True, words=self.footer_words)

    def compose_body(self) -> ComposeResult:
        yield RecordTable(id="records")

    def on_mount(self) -> None:
        # Handlers run for every class in the MRO, so subclasses use start() instead.
        self.refresh_status()
        self.table.focus()
        self.start()

    def start(self) -> None:
        """Set the screen up once mounted: fill the breadcrumb, start the first load."""

    def on_screen_resume(self) -> None:
        # The one resume handler: Textual runs an on_* handler of every class in the chain, so a
        # subclass's own would be overwritten by this one. Subclasses override screen_api_version.
        self.refresh_status()
        self.refresh_staged()
        self.resumed()

    def refresh_staged(self) -> None:
        """Mark the rows with a change staged (lists that stage changes: see Marking)."""

    def resumed(self) -> None:
        """The screen is shown again, a screen above it closed (subclasses: read again?)."""

    @property
    def screen_api_version(self) -> str:
        """The API version this screen's calls use (the app's, unless the screen has its own)."""
        return self.workspace.api_version

    def refresh_status(self) -> None:
        workspace = self.workspace
        note = self.status_note()
        staged = self.session.staged_count
        if staged:
            note = f"{staged:,} staged (b)" + (f" · {note}" if note else "")
        self.query_one(StatusLine).show_status(
            server=workspace.server_label,
            api_version=self.screen_api_version,
            read_only=workspace.read_only,
            profile=workspace.profile,
            note=note,
        )

    def status_note(self) -> str | None:
        """What the status line says first about the rows shown (``stored 14:02, …``)."""
        if self.workspace.offline is None:
            return None
        return f"{self.read_words or 'stored'} · offline"

    # Filter and back --------------------------------------------------------------------------

    def action_filter(self) -> None:
        bar = self.query_one(FilterBar)
        bar.display = True
        bar.focus()
        self.refresh_bindings()

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.table.set_filter(event.value)  # the summary follows on ViewChanged

    @on(Input.Submitted, "#filter")
    def _filter_submitted(self) -> None:
        bar = self.query_one(FilterBar)
        if not bar.value:
            bar.display = False
        if self.table.focusable:
            self.table.focus()
            return
        # Still loading (a table that loads takes no focus): the list takes it once loaded, and
        # the keys typed behind the enter wait for it (the app's TypeAhead), never typed into
        # the filter.
        self.focus_pending = True
        self.set_focus(None)

    def action_back(self) -> None:
        bar = self.query_one(FilterBar)
        if bar.display or self.table.filter_text:
            bar.value = ""
            bar.display = False
            self.table.set_filter("")
            self.table.focus()
            self.refresh_bindings()
            return
        if self.CAN_GO_BACK:
            self.app.pop_screen()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "filter" and self.is_mounted and self.query_one(FilterBar).has_focus:
            return False  # "/" is typed into the filter there; the footer does not offer it
        if action == "copy_sign_in_url":
            return self._sign_in_url is not None  # only while a failure names one
        if action == "back" and not self.CAN_GO_BACK:
            if not self.is_mounted:
                return False
            bar = self.query_one(FilterBar)
            return bar.display or bool(self.table.filter_text)
        return True

    @on(RecordTable.ViewChanged, "#records")
    def _view_changed(self) -> None:
        self.refresh_summary()

    def refresh_summary(self) -> None:
        """Say what is shown (counts, filter, sort): once per change of the rows shown, on the
        table's ViewChanged, and when something else the summary says changes."""

    # Loading and problems ---------------------------------------------------------------------

    def action_reload(self) -> None:
        self.load()

    def load(self) -> None:
        """Start (or restart) this screen's load (a new load cancels the one running)."""
        self._load()

    @work(exclusive=True, group="load", exit_on_error=False)
    async def _load(self) -> None:
        self.show_loading()
        try:
            client = await self.client()
            loaded = await self.fetch(client)
        except HubError as error:
            self.show_failed(error)
        else:
            offline = self.workspace.offline
            self.read_words = None if offline is None else offline.last_words
            self.show_loaded(loaded)
            self.refresh_staged()
        finally:
            self.load_ended()

    def loading_words(self) -> str:
        return f"Loading {self.NOUN}s…"

    async def fetch(self, client: HubClient) -> Loaded:
        """Read this screen's list (a :class:`HubError` says why it could not). A screen that
        ``STREAMS`` shows its rows from here as they come."""
        raise NotImplementedError

    def show_loaded(self, loaded: Loaded) -> None:
        """Show what :meth:`fetch` read."""

    def show_failed(self, error: HubError) -> None:
        """A failed load: why, what to do, and whether the rows shown are from before."""
        self.show_error(error)
        shown = self.table.total_count
        self.query_one(Summary).say(
            f"Reload failed: the {amount(shown, self.NOUN)} below are from before."
            if shown
            else f"{self.NOUN.capitalize()}s not loaded."
        )

    def load_ended(self) -> None:
        """After every load, whatever its end."""
        self.end_loading()

    def export_what(self) -> str:
        """What the exported list is, for its file name and title."""
        return "list"

    def export_context(self) -> dict[str, str]:
        """Where the list came from, beyond the server, filter and sort (subclasses add)."""
        return {}

    def export_table(self) -> tuple[list[str], list[list[Cell]]]:
        """The columns and the rows shown (after filter, group and sort), each cell as the
        value it stands for (a yes/no as a boolean, a count as a number)."""
        from hubtui.core.presenting import typed_cell  # the export's module, loaded when asked

        table = self.table
        columns = table.columns
        rows = [
            [
                typed_cell(
                    row.cells[n] if n < len(row.cells) else "",
                    boolean=column.boolean,
                    numeric=column.numeric,
                )
                for n, column in enumerate(columns)
            ]
            for row in table.shown_rows
        ]
        return [column.label for column in columns], rows

    def action_export(self) -> None:
        from hubtui.tui.screens.dialogs.export import ExportScreen

        table = self.table
        columns, cells = self.export_table()
        context = {
            "exported": now(),
            "server": self.workspace.server_label,
            **self.export_context(),
            "filter": table.filter_text or "(none)",
            "sort": table.sort_label or "(as listed)",
            "rows": str(len(cells)),
        }
        self.app.push_screen(ExportScreen(self.export_what(), context, columns, cells))

    #: Keys bound elsewhere than in BINDINGS (on the list, when rows are marked) that ? names.
    MORE_KEYS: ClassVar[tuple[Binding, ...]] = ()

    def help_bindings(self) -> list[Binding]:
        """Every key this screen can take, on or off now: its BINDINGS and :attr:`MORE_KEYS`."""
        found = [b for cls in type(self).__mro__ for b in cls.__dict__.get("BINDINGS", [])]
        return [b for b in [*found, *self.MORE_KEYS] if isinstance(b, Binding)]

    def action_help(self) -> None:
        from hubtui.tui.screens.dialogs.help import HelpScreen

        self.app.push_screen(
            HelpScreen(self.LEGEND, self.app.active_bindings, self.help_bindings())
        )

    async def client(self) -> HubClient:
        return await self.workspace.client()

    def covers_while_loading(self) -> bool:
        """Whether the loading indicator covers the table (rows that stream, or rows kept from
        before that stay readable, leave it uncovered)."""
        return not self.STREAMS

    def begin_loading(self) -> None:
        self.is_loading = True
        self.table.loading = self.covers_while_loading()
        self.table.set_note("Loading…")
        self.query_one(ProblemPanel).clear()
        self._sign_in_url = None

    def show_loading(self) -> None:
        """The loading state, and the summary saying what is loading."""
        self.begin_loading()
        self.query_one(Summary).say(self.loading_words())

    def end_loading(self) -> None:
        self.is_loading = False
        self.table.loading = False
        if self.focus_pending:
            self.focus_pending = False
            if self.focused is None:
                self.table.focus()
        self.refresh_bindings()
        self.refresh_status()

    def show_problem(self, message: str, *, hint: str = "Press r to try again.") -> None:
        self.query_one(ProblemPanel).show_problem(message, hint=hint)
        self.table.set_note("Not loaded: the message above says why.")

    def show_error(self, error: HubError) -> None:
        """A failed load, with what to do about it."""
        hint = "Press r to try again."
        if isinstance(error, ApiStatusError) and error.login_url:
            self._sign_in_url = error.login_url
            hint = "Press u to copy the sign-in URL, then r to try again."
            self.refresh_bindings()
        if isinstance(error, AuthenticationError) and self.workspace.can_reconnect:
            if self.workspace.rereads_token:
                hint = (
                    "Press t to read the token again (token_command, or the token file) and "
                    "retry, without a restart."
                )
            else:  # HUBTUI_TOKEN: reading it again gives the same token
                hint = "The token comes from HUBTUI_TOKEN: start hubtui again with a new one."
        self.show_problem(str(error), hint=hint)

    def action_copy_sign_in_url(self) -> None:
        if self._sign_in_url is not None:
            self.copy_value(self._sign_in_url, "sign-in URL")

    def action_reread_token(self) -> None:
        self.post_message(Reconnect(self.workspace.profile, fresh_start=False))

    def copy_value(self, value: str, what: str) -> None:
        """Copy a server's value, if it is one a person could have typed; say what happened."""
        problem = copy_problem(value)
        if problem:
            self.notify(
                f"Not copied: the {what} {inert(value, limit=60)} {problem}, which could run "
                "or hide something when pasted.",
                severity="warning",
                markup=False,
            )
            return
        self.app.copy_to_clipboard(value)
        self.notify(
            f"Sent the {what} {inert(value)} to the terminal's clipboard (OSC 52"
            f"{tmux_clipboard_words()}).",
            markup=False,
        )

    def copy_lines(self, lines: Sequence[str], what: str) -> None:
        """Copy several lines for a ticket, each through :func:`hubtui.text.copy_lines`."""
        copy_lines_for_a_ticket(self.app, lines, what)

    def recover(self, worker: Worker[object], sentence: str) -> None:
        # A load that failed in a way no handler expected: say so, keep the app running.
        self.end_loading()
        self.show_problem(sentence)


#: The fewest seconds between two showings of a fan-out's progress.
PROGRESS_EVERY = 0.1


class FanOutScreen(ListScreen[Loaded]):
    """A list read from every project of a scope at once: a progress bar above the table while
    it reads, and the highlighted row in words below it."""

    #: The table's columns, and what it says when it has no row.
    COLUMNS: ClassVar[tuple[Column, ...]] = ()
    EMPTY: ClassVar[str] = "Nothing."

    def compose_body(self) -> ComposeResult:
        yield ProgressBar(id="fan-out-progress", show_eta=False)
        yield RecordTable(self.COLUMNS, id="records", empty_text=self.EMPTY)
        yield AccessPanel(id="access")

    def begin_loading(self) -> None:
        super().begin_loading()
        self.query_one(ProgressBar).display = True

    def load_ended(self) -> None:
        self.query_one(ProgressBar).display = False
        super().load_ended()

    #: When the progress was last shown, and what came since (shown at the next tenth).
    _progress_shown: float = -PROGRESS_EVERY
    _progress_due: tuple[int, int, str] | None = None

    def progressed(self, progress: Progress, reading: str) -> None:
        """The bar and the summary follow the fan-out: ``Reading …: 37 of 120 projects…``,
        at most every :data:`PROGRESS_EVERY` seconds (the last answer's at once): a firm's
        2,000 answers, each drawn, held up the reading they report (2.6 s of `P`'s 13.7)."""
        done, total = progress.projects_done, progress.projects_total
        since = time.monotonic() - self._progress_shown
        if done < total and since < PROGRESS_EVERY:
            if self._progress_due is None:
                self.set_timer(PROGRESS_EVERY - since, self._show_progress_due)
            self._progress_due = (done, total, reading)
            return
        self._show_progress(done, total, reading)

    def _show_progress_due(self) -> None:
        if self._progress_due is not None and self.is_loading:
            self._show_progress(*self._progress_due)
        self._progress_due = None

    def _show_progress(self, done: int, total: int, reading: str) -> None:
        self._progress_shown, self._progress_due = time.monotonic(), None
        self.query_one(ProgressBar).update(total=max(total, 1), progress=done)
        self.query_one(Summary).say(f"{reading}: {done:,} of {total:,} projects…")
