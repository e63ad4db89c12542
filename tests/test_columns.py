"""One column rule for every table, in the app and headless: identifiers (URL name, email, Id)
whole; the column that says what the row means next; descriptive text gives way first; a
headless row is one line of the terminal's width; nothing is cut while there is room."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hubtui.core.presenting.layout import Column, fit_columns
from hubtui.tui.widgets.record_table import RecordTable
from tests.harness.app import press, running, screen_text
from tests.harness.commands import run_main
from tests.harness.harness import hubtui_command
from tests.harness.tmux import Terminal


@pytest.fixture(autouse=True)
def settings_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HUBTUI_CONFIG", str(tmp_path / "none.toml"))
    monkeypatch.delenv("HUBTUI_PROFILE", raising=False)


def headless(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, width: int, *argv: str
) -> list[str]:
    monkeypatch.setenv("COLUMNS", str(width))
    status, out, err = run_main(capsys, "--demo", *argv, "--format", "table")
    assert status in (0, 1, 3), err
    lines = out.splitlines()
    assert all(len(line) <= width for line in lines), "a row is longer than the terminal"
    return lines


EMAIL = re.compile(r"[\w.]+@[\w-]+\.\w+")


@pytest.mark.parametrize("width", [80, 160])
def test_headless_diff_rows_are_one_line_with_emails_whole(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, width: int
) -> None:
    lines = headless(capsys, monkeypatch, width, "diff")
    rows = [line for line in lines if line[:1] in "+−→?"]
    assert rows
    people = [m.group() for line in rows for m in [EMAIL.search(line)] if m]
    assert "aiko.tanaka@acme-build.com" in people  # whole, never "aiko.tanaka@acme-…"
    if width == 160:  # room enough: what changed is whole (a reason of 200 characters aside)
        text = "\n".join(rows)
        assert "changed: DisplayName: Nordic Rail Consortium → Nordic Rail Alliance" in text
        assert "changed: Role: Reader → Editor" in text
        assert "Harbour Bridge Retrofit" in text


def test_headless_hubs_keep_both_names_whole_at_80_and_the_id_at_160(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    narrow = "\n".join(headless(capsys, monkeypatch, 80, "hubs"))
    assert "ACME Construction Group" in narrow
    assert "7d1f0c3e" not in narrow  # left out, never cut
    wide = "\n".join(headless(capsys, monkeypatch, 160, "hubs"))
    assert "7d1f0c3e-4b8a-4f6e-9a51-acme00000001" in wide


def test_the_meaning_of_a_row_is_widened_before_its_description() -> None:
    columns = [
        Column("project", "Project", min_width=10),
        Column("email", "Email", min_width=18, keep=True),
        Column("change", "Change", min_width=12, meaning=True),
    ]
    # Room for all: each whole.
    layout = dict(fit_columns(columns, [20, 30, 60], 120, gap=1, spread=False))
    assert layout == {0: 20, 1: 30, 2: 60}
    # 100 cells: the email whole, the change to 40 before the project is widened, the project
    # whole, the rest of the change with what is left.
    layout = dict(fit_columns(columns, [20, 30, 60], 100, gap=1, spread=False))
    assert layout == {0: 20, 1: 30, 2: 100 - 20 - 30 - 2}
    # 80 cells: the project gives way first.
    layout = dict(fit_columns(columns, [20, 30, 60], 80, gap=1, spread=False))
    assert layout[1] == 30
    assert layout[2] == 40
    assert layout[0] == 80 - 30 - 40 - 2


def test_a_number_wider_than_its_column_is_whole_while_a_description_has_room() -> None:
    """A firm's hub: 100,002 users in a Users column made for six characters. The number is
    whole (not ``100,0…``) while the DisplayName beside it can give way."""
    columns = [
        Column("name", "Name (URL name)", min_width=18, keep=True),
        Column("display_name", "DisplayName", min_width=12),
        Column("users", "Users", width=6, numeric=True, priority=4),
    ]
    layout = dict(fit_columns(columns, [20, 30, len("100,002")], 120, gap=1, spread=False))
    assert layout[2] == len("100,002")
    layout = dict(fit_columns(columns, [20, 30, len("100,002")], 50, gap=1, spread=False))
    assert layout[2] == len("100,002")  # the DisplayName gives way first
    assert layout[1] == 50 - 20 - 7 - 2


async def test_the_staged_preview_gives_the_change_its_room_and_keeps_the_project() -> None:
    keys = ("enter", "enter", "asterisk", "m", "down", "enter", "b")
    async with running(size=(160, 45)) as pilot:
        await press(pilot, *keys)
        text = screen_text(pilot)
        assert "set their rol…" not in text
        assert "Role: Admin → Editor" in text
    async with running(size=(80, 24)) as pilot:
        await press(pilot, *keys)
        table = pilot.app.screen.query_one(RecordTable)
        shown = [table.columns[i].key for i, _ in table.column_widths(78)]
        assert "project" in shown  # two rows of one person in two projects stay apart


@pytest.mark.e2e
def test_the_app_takes_its_width_from_the_terminal_not_a_stale_columns() -> None:
    terminal = Terminal(
        ["env", "COLUMNS=200", "LINES=60", *hubtui_command(), "--demo"], width=120, height=30
    )
    try:
        screen = terminal.wait_for("acme-build", "8 hubs")
        lines = screen.splitlines()
        assert len(lines) == 30
        row = next(line for line in lines if "acme-build" in line)
        assert row.rstrip().endswith("2023-03-14")  # the last column, inside 120 cells
    finally:
        terminal.close()
