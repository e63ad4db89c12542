"""Running the app against the in-process demo API, and reading the screen as a person would."""

from __future__ import annotations

import html
import re
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import pytest
from rich.cells import cell_len
from starlette.applications import Starlette
from textual.message import Message
from textual.pilot import Pilot

from hubtui.api import HubClient
from hubtui.demo import DEMO_TOKEN, DemoStore, Faults, create_app
from hubtui.tui.app import HubTuiApp

DEMO_URL = "http://localhost"


@pytest.fixture(autouse=True)
def _work_in_a_temporary_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Exports and files typed as relative paths land in the test's own folder, never the repo."""
    monkeypatch.chdir(tmp_path)


async def no_sleep(seconds: float) -> None:
    return None


def demo_connector(
    store: DemoStore | None = None,
    faults: Faults | None = None,
    server: Starlette | None = None,
) -> Callable[[], HubClient]:
    app = server or create_app(store or DemoStore(), faults or Faults())

    def connect() -> HubClient:
        return HubClient(
            DEMO_URL, token=DEMO_TOKEN, transport=httpx.ASGITransport(app=app), sleep=no_sleep
        )

    return connect


def make_app(
    store: DemoStore | None = None,
    faults: Faults | None = None,
    server: Starlette | None = None,
    **options: object,
) -> HubTuiApp:
    return HubTuiApp(
        connect=demo_connector(store, faults, server),
        server_label="demo API (in-process)",
        **options,  # type: ignore[arg-type]
    )


async def settle(pilot: Pilot[None]) -> None:
    """Wait until every load has finished and the screen is painted."""
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def press(pilot: Pilot[None], *keys: str) -> None:
    for key in keys:
        await pilot.press(key)
        await settle(pilot)


async def type_text(pilot: Pilot[None], text: str) -> None:
    await pilot.press(*text)
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
    server: Starlette | None = None,
    messages: list[Message] | None = None,
    **options: object,
) -> AsyncIterator[Pilot[None]]:
    """The app on the demo API; every message any part of it handles is added to ``messages``."""
    app = make_app(store, faults, server, **options)
    hook = None if messages is None else messages.append
    async with app.run_test(size=size, notifications=True, message_hook=hook) as pilot:
        await settle(pilot)
        yield pilot


_FRAME = str.maketrans("", "", "█▀▄▊▌▎▔▁│─╭╮╰╯┃━▏▕")


def screen_words(pilot: Pilot[None]) -> str:
    """The screen's words in reading order, frames removed and wrapped lines joined; then each
    notification shown, whole (on screen it lies over the list, its lines between the rows)."""
    words = " ".join(screen_text(pilot).translate(_FRAME).split())
    notices = [str(toast.render()) for toast in pilot.app.screen.query("Toast")]
    return " ".join([words, *(" ".join(notice.split()) for notice in notices)])
