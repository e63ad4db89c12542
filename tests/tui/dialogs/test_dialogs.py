"""Every dialog shows each of its fields with its current value, at 80×24 and at 160×45: a control
with no room to draw (the Role choice of ``A`` once took no cell at all) fails here, whatever a
snapshot approved."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widget import Widget
from textual.widgets import Checkbox, Input, RadioButton, Select

from tests.harness.app import press, running, screen_text

#: Each dialog, by the keys that open it from the hub list.
DIALOGS: dict[str, tuple[str, ...]] = {
    "add form (a)": ("enter", "enter", "a"),
    "edit form (e)": ("enter", "enter", "down", "e"),
    "add people (A)": ("enter", "enter", "A"),
    "marked rows (m)": ("enter", "enter", "space", "m"),
    "export (x)": ("enter", "enter", "x"),
    "who (w)": ("w",),
    "go to (g)": ("g",),
    "copy (y)": ("y",),
    "confirm a change": ("enter", "enter", "down", "e", "down", "enter", "ctrl+s"),
    "palette (ctrl+p)": ("ctrl+p",),
}


def shown_value(widget: Widget) -> str | None:
    """The words a control must show for its value (None: only that it is drawn)."""
    if isinstance(widget, Select):
        return str(widget.value)
    if isinstance(widget, Input):
        return widget.value[:8] or None
    if isinstance(widget, RadioButton | Checkbox):
        return str(widget.label)[:8]
    return None


@pytest.mark.parametrize("size", [(80, 24), (160, 45)], ids=["80x24", "160x45"])
@pytest.mark.parametrize("dialog", list(DIALOGS))
async def test_every_control_of_a_dialog_is_drawn_with_its_value(
    dialog: str, size: tuple[int, int]
) -> None:
    async with running(size=size) as pilot:
        await press(pilot, *DIALOGS[dialog])
        screen = pilot.app.screen
        assert screen.is_modal, f"{dialog} opened no dialog"
        lines = screen_text(pilot).splitlines()
        for widget in [w for w in screen.query("*") if w.focusable and w.display]:
            region = widget.region
            where = f"{dialog}: {type(widget).__name__}#{widget.id}"
            assert region.width > 0, f"{where} is given no column"
            assert region.height > 0, f"{where} is given no line"
            drawn = "\n".join(
                line[region.x : region.right]
                for line in lines[region.y : region.bottom]
                if len(line) > region.x
            )
            value = shown_value(widget)
            if value is not None:
                assert value in drawn, f"{where} does not show {value!r}: {drawn!r}"


async def test_the_export_dialog_says_what_enter_does_where(tmp_path: Path) -> None:
    """On the format, enter chooses one (it does not write), as the dialog says; ctrl+s writes."""
    from hubtui.tui.screens.dialogs.export import ExportScreen
    from tests.harness.app import project_users

    async with running(start=project_users()) as pilot:
        await press(pilot, "x")
        dialog = pilot.app.screen
        assert isinstance(dialog, ExportScreen)
        from textual.widgets import Static

        said = " ".join(str(dialog.query(Static).first().render()).split())
        assert "tab moves to the format, where enter chooses one" in said
        path = tmp_path / "users.json"
        dialog.query_one("#export-path", Input).value = str(path)
        await press(pilot, "tab", "down", "enter")  # JSON chosen, nothing written yet
        assert pilot.app.screen is dialog
        assert not path.exists()
        await press(pilot, "ctrl+s")
        assert pilot.app.screen is not dialog
    assert path.exists()


@pytest.mark.parametrize(("setting", "said"), [("on", ""), ("external", ""), ("off", "is off")])
def test_the_copy_notice_speaks_of_tmux_s_set_clipboard_only_when_it_is_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, setting: str, said: str
) -> None:
    """Inside tmux, the notice asks for set-clipboard only where tmux says it is off (before:
    "in tmux it needs set-clipboard on" even when it was on); outside tmux, nothing."""
    from hubtui.tui.present import tmux_clipboard_words

    fake = tmp_path / "tmux"
    fake.write_text(f"#!/bin/sh\necho {setting}\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:/usr/bin:/bin")
    monkeypatch.setenv("TMUX", "/tmp/tmux-0/default,1,0")
    tmux_clipboard_words.cache_clear()
    try:
        words = tmux_clipboard_words()
        assert (said in words) if said else words == ""
        monkeypatch.delenv("TMUX")
        tmux_clipboard_words.cache_clear()
        assert tmux_clipboard_words() == ""
    finally:
        tmux_clipboard_words.cache_clear()
