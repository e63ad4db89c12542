"""Running the app against the in-process demo API, and reading the screen as a person would."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import pytest
from starlette.applications import Starlette
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


def screen_text(pilot: Pilot[None]) -> str:
    """What the terminal shows for the active screen, as plain text."""
    strips = pilot.app.screen._compositor.render_strips()
    return "\n".join(strip.text for strip in strips)


@asynccontextmanager
async def running(
    size: tuple[int, int] = (120, 40),
    store: DemoStore | None = None,
    faults: Faults | None = None,
    server: Starlette | None = None,
    **options: object,
) -> AsyncIterator[Pilot[None]]:
    app = make_app(store, faults, server, **options)
    async with app.run_test(size=size, notifications=True) as pilot:
        await settle(pilot)
        yield pilot


_FRAME = str.maketrans("", "", "█▀▄▊▌▎▔▁│─╭╮╰╯┃━▏▕")


def screen_words(pilot: Pilot[None]) -> str:
    """The screen's words in reading order, frames removed and wrapped lines joined; then each
    notification shown, whole (on screen it lies over the list, its lines between the rows)."""
    words = " ".join(screen_text(pilot).translate(_FRAME).split())
    notices = [str(toast.render()) for toast in pilot.app.screen.query("Toast")]
    return " ".join([words, *(" ".join(notice.split()) for notice in notices)])
