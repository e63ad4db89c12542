"""Running the app against the in-process demo API, and reading the screen as a person would."""

from __future__ import annotations

import asyncio
import contextlib
import html
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
from rich.cells import cell_len
from starlette.types import ASGIApp
from textual.app import ScreenStackError
from textual.message import Message
from textual.pilot import Pilot
from textual.screen import Screen
from textual.worker import Worker

from hubtui.api import HubClient
from hubtui.config import Settings
from hubtui.core.places import default_change_log_path, default_store_path
from hubtui.core.workspace import DataPlaces, Workspace, open_workspace
from hubtui.core.workspace.offline import StoredAnswers
from hubtui.demo import DEMO_TOKEN, DemoStore, Faults, create_app
from hubtui.demo import last_week as last_weeks_data
from hubtui.tui import app as app_module
from hubtui.tui.app import HubTuiApp
from hubtui.tui.widgets.record_table import RecordTable

DEMO_URL = "http://localhost"


async def no_sleep(seconds: float) -> None:
    return None


def demo_connector(
    store: DemoStore | None = None,
    faults: Faults | None = None,
    server: ASGIApp | None = None,
) -> Callable[[], HubClient]:
    app = server or create_app(store or DemoStore(), faults or Faults())

    def connect() -> HubClient:
        return HubClient(
            DEMO_URL, token=DEMO_TOKEN, transport=httpx.ASGITransport(app=app), sleep=no_sleep
        )

    return connect


#: Builds the one screen a test starts on, from a client of the same demo API.
StartScreen = Callable[[HubClient], Awaitable[Screen[None]]]


class OneScreenApp(HubTuiApp):
    """The app, started on one given screen instead of the hub list: a test of a project's
    users mounts that screen, instead of walking to it through two loads."""

    CSS_PATH = str(Path(app_module.__file__).with_name("hubtui.tcss"))  # beside the app, not here

    def __init__(self, first: Screen[None], workspace: Workspace) -> None:
        super().__init__(workspace)
        self._first = first

    def get_default_screen(self) -> Screen[None]:
        return self._first


def demo_workspace(
    store: DemoStore | None = None,
    faults: Faults | None = None,
    server: ASGIApp | None = None,
    *,
    week_old: DemoStore | None = None,
    keeps: str = "off",
    read_only: bool = False,
    concurrency: int = 8,
    change_log: Path | None = None,
    store_path: Path | None = None,
    connect: Callable[[], HubClient] | None = None,
    operator: str | None = None,
    **options: Any,
) -> Workspace:
    """The Workspace of the demo API in-process, built as ``hubtui --demo`` builds it
    (:func:`open_workspace`): ``store`` (or ``server``) answers, ``week_old`` is its data a
    week ago; ``keeps`` is the store setting (by default, nothing is kept); ``change_log`` and
    ``store_path`` name its files (by default, the test's data folder's); ``connect`` reaches
    it another way (a transport of the test's); ``options`` go to :func:`open_workspace`."""
    connect = connect or demo_connector(store, faults, server)

    def demo(settings: Settings, *, last_week: bool = False) -> Callable[[], HubClient]:
        return demo_connector(week_old or last_weeks_data()) if last_week else connect

    settings = Settings(
        store=keeps, read_only=read_only, concurrency=concurrency, operator=operator
    )
    places = DataPlaces(
        change_log or default_change_log_path(demo=True),
        store_path or default_store_path(demo=True),
    )
    return open_workspace(settings, demo=demo, data=places, **options)


def server_workspace(
    settings: Settings,
    folder: Path,
    stores: dict[str, DemoStore] | None = None,
    faults: dict[str, Faults] | None = None,
    **options: Any,
) -> Workspace:
    """The Workspace of a configured server (``settings.base_url``, not the demo), built as
    ``hubtui`` builds it (:func:`open_workspace`), each server reached in-process with the
    settings' token: the demo data of ``stores`` under its base URL (a fresh demo's when none),
    misbehaving as ``faults`` under that URL says. Its change log and store are in
    ``folder``; ``options`` go to :func:`open_workspace`."""
    data = stores if stores is not None else {}

    def server_clients(fresh: Settings) -> Callable[[], HubClient]:
        assert fresh.base_url is not None
        base_url, token = fresh.base_url, fresh.token
        server = create_app(data.setdefault(base_url, DemoStore()), (faults or {}).get(base_url))

        def connect() -> HubClient:
            transport = httpx.ASGITransport(app=server)
            return HubClient(base_url, token=token, transport=transport, sleep=no_sleep)

        return connect

    places = DataPlaces(folder / "changes.jsonl", folder / "store.sqlite3")
    return open_workspace(settings, server_clients=server_clients, data=places, **options)


def make_app(
    store: DemoStore | None = None,
    faults: Faults | None = None,
    server: ASGIApp | None = None,
    first: Screen[None] | None = None,
    workspace: Workspace | None = None,
    **options: Any,
) -> HubTuiApp:
    """The app on ``workspace`` (by default :func:`demo_workspace`, ``options`` being its),
    started on ``first`` when given."""
    workspace = workspace or demo_workspace(store, faults, server, **options)
    return HubTuiApp(workspace) if first is None else OneScreenApp(first, workspace)


def project_users(
    hub_name: str = "acme-build", project_id: int = 1001, **options: Any
) -> StartScreen:
    """Start on a project's users (by default Harbour Bridge Retrofit of acme-build)."""

    async def build(client: HubClient) -> Screen[None]:
        from hubtui.tui.screens.browsing.project_users import ProjectUsersScreen

        hub = await client.get_hub_by_name(hub_name)
        project = next(p for p in await client.list_projects(hub.id) if p.id == project_id)
        return ProjectUsersScreen(hub, project, **options)

    return build


def _working(pilot: Pilot[None]) -> list[Worker[Any]]:
    """The workers not finished, but for a workflow's that waits for the person on its preview
    (``AppFront.waiting``): it goes on only once a key is pressed there."""
    front = getattr(pilot.app, "front", None)
    waiting = set() if front is None else front.waiting
    return [w for w in pilot.app.workers if not w.is_finished and w not in waiting]


async def settle(pilot: Pilot[None]) -> None:
    """Wait until every load has finished and the screen is painted. A worker cancelled on the
    way (replaced by a newer one of its exclusive group) has finished too; a failed one raises,
    unless the app tells its failure (``exit_on_error=False``: the test reads what it said).

    Painted means painted: after the loads, the screen's next refresh is awaited when a layout
    or a callback waits for it. Textual's ``pause`` alone judges the app idle by the CPU it
    burns, which under the other test workers' load it can judge wrong."""
    from textual.worker import WorkerCancelled

    await pilot.pause()
    while pilot.app.is_running:  # an app that ended (an error in it) has nothing left to wait for
        while running := _working(pilot):
            ended = await asyncio.gather(*(w.wait() for w in running), return_exceptions=True)
            for worker, end in zip(running, ended, strict=True):
                if isinstance(end, WorkerCancelled) or not worker.exit_on_error:
                    continue  # replaced by a newer one, or its failure told by the app
                if isinstance(end, BaseException):
                    raise end
            await pilot.pause()
        await _painted(pilot)
        if _working(pilot):
            continue  # the refresh started one (rows indexed after the first paint)
        # Keys typed ahead wait for what the key before them set going (tui.typeahead).
        typing = getattr(pilot.app, "type_ahead", None)
        if typing is None or not typing.holding:
            break
        await pilot.pause(0.005)


async def _painted(pilot: Pilot[None]) -> None:
    """Until the screen has refreshed, if a new layout or a callback waits for its refresh: a
    screenshot taken before it would show the old layout (a widget's own lines are drawn anew
    in a screenshot; where it stands is not). A screen closing on the way never refreshes: a
    second bounds the wait."""
    try:
        screen = pilot.app.screen
    except ScreenStackError:  # the app is ending
        return
    waiting = (
        screen._compositor.root is None,  # never laid out: a screen just pushed
        screen._layout_required,
        screen._scroll_required,
        screen._recompose_required,
        screen._callbacks,
    )
    if any(waiting):
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(screen.wait_for_refresh(), timeout=1.0)


def hand_key(pilot: Pilot[None], key: str) -> None:
    """One key handed to the app as the terminal's driver hands it (Textual's own
    ``Pilot.press`` path, without its idle waits); nothing is awaited."""
    import unicodedata

    from textual import events
    from textual.keys import REPLACED_KEYS, _character_to_key, _get_unicode_name_from_key

    if len(key) == 1 and not key.isalnum():
        key = _character_to_key(key)
    try:
        char: str | None = unicodedata.lookup(
            _get_unicode_name_from_key(REPLACED_KEYS.get(key, key))
        )
    except KeyError:
        char = key if len(key) == 1 else None
    event = events.Key(key, char)
    app = pilot.app
    event.set_sender(app)
    assert app._driver is not None
    app._driver.send_message(event)


async def send_key(pilot: Pilot[None], key: str) -> None:
    """One key, as the terminal's driver hands it to the app, then every message it caused
    handled."""
    hand_key(pilot, key)
    await pilot.pause(0)


async def burst(pilot: Pilot[None], keys: list[str]) -> None:
    """Every key handed to the app at once, as SSH delivers a fast typist's keys; then settled."""
    for key in keys:
        hand_key(pilot, key)
    await settle(pilot)


async def press(pilot: Pilot[None], *keys: str) -> None:
    """Press each key as a person would, waiting after each for what it started to end."""
    for key in keys:
        await send_key(pilot, key)
        await settle(pilot)


async def type_text(pilot: Pilot[None], text: str) -> None:
    for character in text:
        await send_key(pilot, character)
    await settle(pilot)


_SVG_TEXT = re.compile(
    r'<text class="terminal-(?:\d+-)?(r\d+)" x="([\d.]+)" y="[\d.]+" textLength="([\d.]+)" '
    r'clip-path="url\(#terminal-(?:\d+-)?line-(\d+)\)">([^<]*)</text>'
)


_SVG_FILL = re.compile(r"\.terminal-(?:\d+-)?(r\d+) \{ fill: (#[0-9a-f]{6})")


_SVG_BACKGROUND = re.compile(
    r'<rect fill="(#[0-9a-f]{6})" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height'
)


#: The width of one cell in Textual's SVG screenshots.
_CELL = 12.2


def _plain(svg_text: str) -> str:
    """A run of text as the screenshot wrote it (entities, non-breaking spaces), as shown."""
    return html.unescape(svg_text).replace("\xa0", " ")


def screen_text(pilot: Pilot[None]) -> str:
    """What the terminal shows for the active screen, as plain text, one line per row.

    Read from Textual's public screenshot (the SVG a snapshot test compares), never from the
    compositor: each run of text is placed at its column, so the lines read as on screen.
    """
    lines: dict[int, list[str]] = {}
    for _, x, _, line, text in _SVG_TEXT.findall(pilot.app.export_screenshot()):
        cells = lines.setdefault(int(line), [])
        column = round(float(x) / _CELL)
        cells.extend(" " * max(0, column - cell_len("".join(cells))))
        cells.append(_plain(text))
    height = pilot.app.size.height
    return "\n".join("".join(lines.get(row, [])).rstrip() for row in range(height))


def screen_colours(pilot: Pilot[None]) -> list[tuple[str, str, str]]:
    """Each run of text on screen with its colours as drawn: (text, foreground, background),
    from the same public screenshot (reverse video and themes already applied)."""
    svg = pilot.app.export_screenshot()
    fills = dict(_SVG_FILL.findall(svg))
    rows: dict[float, list[tuple[float, float, str]]] = {}
    for fill, x, y, width in _SVG_BACKGROUND.findall(svg):
        rows.setdefault(float(y), []).append((float(x), float(width), fill))
    by_line = [rows[y] for y in sorted(rows)]
    found = []
    for style, x, _, line, text in _SVG_TEXT.findall(svg):
        if not text.strip():
            continue  # spaces and line ends: no text to read
        left = float(x)
        background = next(
            (fill for start, width, fill in by_line[int(line)] if start <= left < start + width),
            None,
        )
        assert background is not None, f"no background drawn under {text!r}"
        found.append((_plain(text), fills[style], background))
    return found


@asynccontextmanager
async def running(
    size: tuple[int, int] = (120, 40),
    store: DemoStore | None = None,
    faults: Faults | None = None,
    server: ASGIApp | None = None,
    messages: list[Message] | None = None,
    start: StartScreen | None = None,
    settled: bool = True,
    **options: Any,
) -> AsyncIterator[Pilot[None]]:
    """The app on the demo API; every message any part of it handles is added to ``messages``.
    ``start``: the one screen it starts on (the hub list if None), read from the same server
    before the app starts, with faults off. ``settled`` False: handed over at the first paint,
    its loads still running."""
    store = store or DemoStore()
    first = None
    if start is not None:
        clean = demo_connector(store) if server is None else demo_connector(server=server)
        async with clean() as client:
            first = await start(client)
    app = make_app(store, faults, server, first, **options)
    hook = None if messages is None else messages.append
    async with app.run_test(size=size, notifications=True, message_hook=hook) as pilot:
        if settled:
            await settle(pilot)
        else:
            await pilot.pause()
        yield pilot


_FRAME = str.maketrans("", "", "█▀▄▊▌▎▔▁│─╭╮╰╯┃━▏▕")


def screen_words(pilot: Pilot[None]) -> str:
    """The screen's words in reading order, frames removed and wrapped lines joined; then each
    notification shown, whole (on screen it lies over the list, its lines between the rows)."""
    words = " ".join(screen_text(pilot).translate(_FRAME).split())
    notices = [str(toast.render()) for toast in pilot.app.screen.query("Toast")]
    return " ".join([words, *(" ".join(notice.split()) for notice in notices)])


CHLOE = "chloe.moreau@acme-build.com"


DIEGO = "diego.garcia@acme-build.com"


async def paste(pilot, text: str) -> None:  # type: ignore[no-untyped-def]
    """Paste ``text`` as a terminal does: to the app, which hands it to the focused widget."""
    from textual import events

    pilot.app.post_message(events.Paste(text))
    await settle(pilot)


async def mark(pilot, *emails: str) -> None:  # type: ignore[no-untyped-def]
    """Mark the rows of these people (the filter finds each, space marks it)."""
    for email in emails:
        await press(pilot, "slash")
        await type_text(pilot, email)
        await press(pilot, "enter", "space")
    await press(pilot, "escape")  # the filter cleared; the marks stay


#: Server text that would be markup or terminal control, and what must never reach the terminal.
MARKUP = "[bold red]boom[/] [link=https://x.example]x[/link]"


CSI = "\x1b[2J\x1b[31m"


OSC_TITLE = "\x1b]0;owned\x07"


OSC_CLIPBOARD = "\x1b]52;c;cm0gLXJmIH4=\x07"


BIDI = "\u202eevil\u202c\u2066x\u2069"


ZERO_WIDTH = "zero\u200bwidth\u200d\ufeff"


LONG = "L" * 10_000


HOSTILE = f"{MARKUP} {CSI}{OSC_TITLE}{OSC_CLIPBOARD} {BIDI} {ZERO_WIDTH} {LONG}"


FORBIDDEN = ["\x1b", "\x07", "\u202e", "\u202c", "\u2066", "\u2069", "\u200b", "\u200d", "\ufeff"]


#: One value holding an OSC 52 clipboard write, a screen clear, a bidi override and a C1 CSI.
EVIL = "\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\u202eevil\x9b31m"


#: The demo's acme-build hub.
ACME_ID = "7d1f0c3e-4b8a-4f6e-9a51-acme00000001"


def assert_inert(pilot: Pilot[None]) -> str:
    text = screen_text(pilot)
    for character in FORBIDDEN:
        assert character not in text, f"{character!r} reached the terminal"
    assert pilot.app.is_running
    return text


def offline_app(path: Path) -> tuple[HubTuiApp, StoredAnswers]:
    """The app started as ``hubtui --demo --offline``, on what the store at ``path`` kept."""
    workspace = demo_workspace(store_path=path, offline=True)
    assert workspace.offline is not None
    return HubTuiApp(workspace), workspace.offline


def shown_keys(table: RecordTable[Any]) -> list[str]:
    """The keys of the records shown, in the order shown."""
    return [table.view.key(i) for i in table.view.shown]


def table_lines(text: str, header: str) -> list[str]:
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip("≠ ").startswith(header))
    return lines[start:]


async def ask_why(pilot: Pilot[None], email: str, project: str) -> None:
    """The palette's "Why can't … get in?" for ``email`` in ``project``, the email and the
    project typed in one burst as SSH delivers a fast typist's keys; settled."""
    await press(pilot, "ctrl+p")
    await burst(pilot, [*"Why can", "enter"])
    await burst(pilot, [*email, "enter", *project, "enter"])
    await settle(pilot)
