"""An app left open all day: what a repeated operation leaves behind stays the same in number.

Live widgets, their style caches, screens, workers and record lists are counted after a warm-up
and again after more of the same operation; they must not grow. (The MB figures per 100
operations are measured by ``python -m bench.bench_soak``.)
"""

from __future__ import annotations

import collections
import gc
from collections.abc import Awaitable, Callable

import pytest
from textual._context import visible_screen_stack
from textual._styles_cache import StylesCache
from textual.dom import DOMNode
from textual.pilot import Pilot
from textual.worker import Worker

from hubtui.api import Hub, ProjectUser
from hubtui.tui.catalog import USER_LISTS_KEPT, Catalog
from hubtui.tui.record_view import RecordView
from tests.harness.app import press, running, type_text

pytestmark = pytest.mark.slow


def live() -> collections.Counter[str]:
    gc.collect()
    counts: collections.Counter[str] = collections.Counter()
    for thing in gc.get_objects():
        if isinstance(thing, DOMNode):
            counts[type(thing).__name__] += 1
        elif isinstance(thing, StylesCache | Worker | RecordView):
            counts[type(thing).__name__] += 1
    return counts


async def live_when_idle(pilot: Pilot[None]) -> collections.Counter[str]:
    """:func:`live`, once what the last key started has ended and the frame after it is drawn: a
    screen still referenced by a paint or a message under way is not one kept for good.

    The test's own task is cleared of the screens Textual's compositor last noted in it (its
    ``visible_screen_stack`` context variable, set when a key pressed from the test paints):
    what the test holds is not what the app keeps."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause(0.1)
    visible_screen_stack.set([])
    return live()


async def reload(pilot: Pilot[None]) -> None:
    await press(pilot, "r")


async def open_hub_and_project(pilot: Pilot[None]) -> None:
    await press(pilot, "enter", "enter", "escape", "escape")


async def find_a_person(pilot: Pilot[None]) -> None:
    await press(pilot, "w")
    await type_text(pilot, "@northwind-eng.com")
    await press(pilot, "enter", "escape", "escape")


@pytest.mark.parametrize(
    "operation",
    [reload, open_hub_and_project, find_a_person],
    ids=["reload", "open-and-back", "search"],
)
async def test_repeating_an_operation_keeps_nothing_more(
    operation: Callable[[Pilot[None]], Awaitable[None]],
) -> None:
    async with running(size=(100, 30)) as pilot:
        for _ in range(3):
            await operation(pilot)
        before = await live_when_idle(pilot)
        for _ in range(8):
            await operation(pilot)
        after = await live_when_idle(pilot)
        assert len(pilot.app.screen_stack) == 1
    grown = {name: after[name] - before[name] for name in after if after[name] > before[name]}
    assert grown == {}


def test_the_palette_keeps_the_user_lists_of_the_last_projects_only() -> None:
    hub = Hub.model_validate({"Id": "h", "Name": "hub"})
    user = ProjectUser.model_validate(
        {"User": {"Id": 1, "Email": "a@b.example"}, "Role": "Reader", "IsLimited": False}
    )
    catalog = Catalog()
    for project in range(USER_LISTS_KEPT + 10):
        catalog.add_users(hub, None, str(project), [user])
    assert catalog.loaded_users("h", "0") is None  # the oldest let go
    assert catalog.loaded_users("h", str(USER_LISTS_KEPT + 9)) is not None
    catalog.add_users(hub, None, "10", [user])  # opened again: the newest now
    catalog.add_users(hub, None, "new", [user])
    assert catalog.loaded_users("h", "10") is not None
    assert len([e for e in catalog.entries() if e.kind == "user"]) == USER_LISTS_KEPT
