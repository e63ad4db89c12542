"""What the README promises holds, as a person at the command line meets it: an export of the
app applies, the users CSV names its project, an empty answer says so however the output goes,
the demo server stops cleanly, a role typed in any case is taken, a limited reader has one word
for a role everywhere."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import signal
import subprocess
from pathlib import Path

import httpx
import pytest

from tests.harness.app import press, running, settle, type_text
from tests.harness.commands import run_main
from tests.harness.harness import hubtui_command

CHLOE = "chloe.moreau@acme-build.com"


@pytest.fixture(autouse=True)
def settings_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HUBTUI_CONFIG", str(tmp_path / "none.toml"))
    monkeypatch.setenv("HUBTUI_TOKEN", "demo-token")
    monkeypatch.delenv("HUBTUI_PROFILE", raising=False)


def rows_of(text: str) -> list[list[str]]:
    return [r for r in csv.reader(io.StringIO(text)) if r and not r[0].lstrip("'").startswith("#")]


async def test_an_export_of_a_projects_users_applies_once_edited(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    exported = tmp_path / "users.csv"
    async with running() as pilot:
        await press(pilot, "enter", "enter", "x", "ctrl+u")
        await type_text(pilot, str(exported))
        await press(pilot, "enter")
        await settle(pilot)
    text = exported.read_text(encoding="utf-8-sig")
    rows = rows_of(text)
    assert rows[0][:5] == ["hub", "project", "email", "role", "reviewer"]
    edited = [[*row[:3], "Editor", *row[4:]] if row[2] == CHLOE else row for row in rows]
    batch = tmp_path / "edited.csv"
    with batch.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(edited)
    # Applied where it was made: the demo the app read it from (elsewhere it is refused).
    argv = ("--demo", "apply", str(batch), "--dry-run")
    status, out, err = await asyncio.to_thread(run_main, capsys, *argv)
    assert status == 0, err
    assert "1 to send (0 adds, 1 updates)" in out
    assert f"{CHLOE}" in out
    assert "Role: Reader → Editor" in out


@pytest.mark.reads_only
def test_the_users_csv_names_the_project_on_every_row(
    server: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ("--base-url", server, "users", "acme-build", "1001", "--format", "csv")
    status, out, _ = run_main(capsys, *argv)
    assert status == 0
    table = list(csv.DictReader(io.StringIO(out)))
    assert {row["project name"] for row in table} == {"Harbour Bridge Retrofit"}


@pytest.mark.parametrize("fmt", ["json", "jsonl", "csv", "table"])
@pytest.mark.reads_only
def test_an_empty_answer_says_so_on_stderr_however_the_output_goes(
    server: str, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    query = ("who", "nobody-at-all@nowhere.example", "--hub", "acme-build", "--format", fmt)
    argv = ("--base-url", server, *query)
    status, out, err = run_main(capsys, *argv)
    assert status == 1
    assert "hubtui: nobody matched nobody-at-all@nowhere.example." in err
    assert "nobody matched" not in out


def test_the_demo_server_stops_with_ctrl_c_without_a_traceback() -> None:
    server = subprocess.Popen(
        [*hubtui_command(), "demo-server", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        banner = server.stdout.readline()
        assert "Stop with Ctrl+C" in banner
        url = banner.split(" on ", 1)[1].split(" ", 1)[0]
        # Serving as soon as a person reads the banner: the first request is answered.
        hubs = httpx.get(f"{url}/v3/hubs", headers={"Authorization": "Bearer demo-token"})
        assert hubs.status_code == 200
        server.send_signal(signal.SIGINT)
        _, err = server.communicate(timeout=20)
    finally:
        server.kill()
    assert server.returncode == 0
    assert "Traceback" not in err
    assert "hubtui demo API stopped." in err


@pytest.mark.parametrize("typed", ["editor", "EDITOR", "Editor"])
def test_a_role_is_taken_in_any_case_and_sent_as_the_server_spells_it(
    server: str, capsys: pytest.CaptureFixture[str], typed: str
) -> None:
    argv = ("--base-url", server, "set-role", "acme-build", "1001", CHLOE, typed)
    status, out, err = run_main(capsys, *argv, "--dry-run")
    assert status == 0, err
    assert '"Role": "Editor"' in out
    status, _, err = run_main(capsys, *argv[:-1], "writer", "--dry-run")
    assert status == 2
    assert "is not one of Reader, Editor, Admin" in err


@pytest.mark.reads_only
def test_a_limited_reader_has_no_role_of_their_own_in_the_table_as_in_the_app(
    server: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "160")
    argv = ("--base-url", server, "users", "acme-build", "1001", "--format", "table")
    status, out, _ = run_main(capsys, *argv)
    assert status == 0
    grace = next(line for line in out.splitlines() if "grace.osei@" in line)
    assert " — " in grace
    assert "Reader" not in grace


@pytest.mark.reads_only
def test_who_rows_come_in_one_order_every_run(
    server: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ("--base-url", server, "who", "@northwind-eng.com", "--format", "jsonl")
    orders = []
    for _ in range(3):
        _, out, _ = run_main(capsys, *argv)
        rows = [json.loads(line) for line in out.splitlines()]
        orders.append([(r["Hub"], (r.get("Project") or {}).get("Name", "")) for r in rows])
    assert orders[0] == orders[1] == orders[2]
    assert orders[0] == sorted(orders[0], key=lambda k: (k[0].casefold(), k[1].casefold()))
