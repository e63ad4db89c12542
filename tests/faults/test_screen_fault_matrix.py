"""Each fault while each screen loads: a message on that screen, and the screen still works.

The count of this file's passing cells is the screen figure in docs/reliability.md.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import httpx
import pytest
from textual.widgets import Input

from hubtui.api import HubClient
from hubtui.demo import DEMO_TOKEN, create_app
from hubtui.tui.widgets.chrome import ProblemPanel
from hubtui.tui.widgets.record_table import RecordTable
from tests.faults.faults import FAULTS, HUB, PROJECT, SUCCEEDS, USER
from tests.harness.app import make_app, no_sleep, press, screen_words, settle


class FaultyTransport(httpx.AsyncBaseTransport):
    """The demo API in-process, with one fault on the requests a screen's load makes."""

    def __init__(self) -> None:
        self.inner = httpx.ASGITransport(app=create_app())
        self.fault: str | None = None
        self.target: Callable[[httpx.Request], bool] = lambda request: False
        self.good: object = None

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if self.fault is not None and self.target(request):
            return FAULTS[self.fault](request, self.good)
        return await self.inner.handle_async_request(request)


@dataclass(frozen=True)
class ScreenCase:
    keys: tuple[str, ...]
    target: Callable[[httpx.Request], bool]
    good: object
    words: str
    """What the screen's message names when its load fails."""
    recovered: str
    """What the screen shows once it loads."""


SCREENS = {
    "hub list": ScreenCase(
        (), lambda r: r.url.path == "/v3/hubs", [HUB], "List hubs failed", "acme-build"
    ),
    "hub detail": ScreenCase(
        ("enter",),
        lambda r: r.url.path.endswith("/projects"),
        [PROJECT],
        "projects of hub",
        "Harbour Bridge Retrofit",
    ),
    "project users": ScreenCase(
        ("enter", "enter"),
        lambda r: r.url.path.endswith("/users"),
        [USER],
        "List users of project '1001' failed",
        "12 users · 7 members · 5 limited readers",
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("fault", list(FAULTS))
@pytest.mark.parametrize("screen", list(SCREENS))
async def test_cell(screen: str, fault: str) -> None:
    case = SCREENS[screen]
    transport = FaultyTransport()
    app = make_app(
        connect=lambda: HubClient(
            "http://localhost", token=DEMO_TOKEN, transport=transport, sleep=no_sleep
        )
    )
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await settle(pilot)
        await press(pilot, *case.keys)
        screen_before = pilot.app.screen
        transport.fault, transport.target, transport.good = fault, case.target, case.good
        await press(pilot, "r")
        problem = pilot.app.screen.query_one(ProblemPanel)
        if fault in SUCCEEDS:
            assert not problem.display
            assert pilot.app.screen.query_one(RecordTable).total_count == 1
        else:
            assert problem.display, f"{screen} × {fault}: no message"
            words = screen_words(pilot)
            assert case.words in words, words
            assert "failed" in words
        transport.fault = None
        if isinstance(pilot.app.focused, Input):
            await press(pilot, "escape")  # a prompt took the keys; a person leaves it first
            assert isinstance(pilot.app.screen, type(screen_before))
        await press(pilot, "r")
        assert not problem.display
        assert case.recovered in screen_words(pilot)
        assert pilot.app.is_running
