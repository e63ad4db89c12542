"""Every mark readable in every theme hubtui offers: WCAG AA contrast (4.5:1) for the text of
LIMITED rows and badges, placeholders, the cursor row, the counts and the status line."""

from __future__ import annotations

import pytest
from rich.color import Color
from textual.pilot import Pilot

from hubtui.tui.app import THEMES
from tests.harness.app import press, running, screen_colours


def luminance(hex_colour: str) -> float:
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = Color.parse(hex_colour).get_truecolor()
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(run: tuple[str, str, str]) -> float:
    _, fg, bg = run
    light, dark = sorted((luminance(fg), luminance(bg)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def segments_with(pilot: Pilot[None], word: str) -> list[tuple[str, str, str]]:
    return [run for run in screen_colours(pilot) if word in run[0] and run[0].strip()]


def test_hubtui_offers_only_the_themes_it_checks() -> None:
    assert set(THEMES) == {"hubtui-dark", "hubtui-light"}


@pytest.mark.parametrize("theme", THEMES)
async def test_every_mark_passes_wcag_aa(theme: str) -> None:
    async with running(size=(120, 40)) as pilot:
        pilot.app.theme = theme
        await press(pilot)
        await pilot.pause(0.3)  # the new theme's CSS is applied on a later refresh
        assert set(pilot.app.available_themes) == set(THEMES)
        checks = {
            "placeholder (none set = Name)": segments_with(pilot, "(none set = Name)"),
            "hub counts line": segments_with(pilot, "8 hubs"),
            "status line": segments_with(pilot, "changes allowed"),
            "cursor row": segments_with(pilot, "acme-build"),
        }
        await press(pilot, "enter", "enter", "end")
        checks["LIMITED rows"] = segments_with(pilot, "LIMITED")
        checks["limited reader's email"] = segments_with(pilot, "jonas.berg@")
        checks["access panel badge"] = segments_with(pilot, "READER")
        for what, segments in checks.items():
            assert segments, f"{what}: not on screen"
            worst = min(contrast(s) for s in segments)
            assert worst >= 4.5, f"{theme}: {what} has contrast {worst:.2f}:1"
