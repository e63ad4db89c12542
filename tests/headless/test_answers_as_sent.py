"""Answers a script can read: options after the command, JSON that invents nothing, tables that
fit 80 columns, the hub's facts, no Textual, the demo with no profile or token to read again."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from hubtui.cli import main
from tests.harness.commands import run


@pytest.fixture
def server(shared_server: str) -> str:
    """The module's one server: its tests change nothing, or count what they change."""
    return shared_server


def test_options_are_read_after_the_command_too(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "hubs", "--demo", "--format", "json")
    assert status == 0
    assert "acme-build" in {hub["Name"] for hub in json.loads(out)}
    status, _, err = run(capsys, "--demo", "hubs", "--profile", "missing")
    assert status == 2
    assert "There is no profile 'missing'" in err


def test_json_keeps_absent_fields_absent(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    legacy = {"Id": "h-1", "Name": "legacy-hub", "NumberOfProjects": 0}

    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path.startswith("/v3/hubs/name/") or request.url.path == "/v3/hubs/h-1":
            return httpx.Response(200, json=legacy)
        return httpx.Response(200, json=[legacy])

    from hubtui.api import HubClient
    from hubtui.core.workspace import connection as connect

    def server_client_factory(settings: object) -> object:
        return lambda: HubClient(
            "https://api.example.com", token="t", transport=httpx.MockTransport(answer)
        )

    monkeypatch.setattr(connect, "server_client_factory", server_client_factory)
    server = ("--base-url", "https://api.example.com")
    for fmt in ("json", "jsonl"):
        status, out, _ = run(capsys, *server, "hubs", "--format", fmt)
        assert status == 0
        record = json.loads(out)[0] if fmt == "json" else json.loads(out.splitlines()[0])
        assert record == legacy  # no DisplayName, Author or SSO flag that was never sent
    status, out, _ = run(capsys, *server, "hubs", "--format", "csv")
    row = next(csv.DictReader(io.StringIO(out)))
    assert (row["DisplayName"], row["DisplayName sent"]) == ("", "no")
    assert "(not sent" not in out
    status, out, _ = run(capsys, *server, "hub", "legacy-hub")
    assert json.loads(out) == legacy
    status, out, _ = run(capsys, *server, "hub", "legacy-hub", "--format", "csv")
    row = next(csv.DictReader(io.StringIO(out)))  # one hub: the same CSV columns as hubs
    assert (row["DisplayName"], row["DisplayName sent"]) == ("", "no")


def test_tables_fit_80_columns_without_cutting_an_identifier(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = run(capsys, "--demo", "hubs", "--format", "table")
    lines = out.splitlines()
    assert all(len(line) <= 80 for line in lines)
    # The Id is left out at 80 (never cut) rather than cut the DisplayName: both names whole.
    assert "7d1f0c3e-4b8a" not in out
    assert "ACME Construction Group" in out
    assert "silverline-contractors-4" in out
    status, out, _ = run(capsys, "--demo", "users", "acme-build", "1001", "--format", "table")
    assert all(len(line) <= 80 for line in out.splitlines())
    assert "bjorn.lindqvist@acme-build.com" in out
    assert "LIMITED @northwind-eng.com" in out
    status, out, err = run(capsys, "--demo", "who", "@northwind-eng.com", "--format", "table")
    assert status == 3
    assert all(len(line) <= 80 for line in out.splitlines())
    assert "fatima.rahman@northwind-eng.com" in out
    # The reason a project was not read, whole, under its row.
    reason = " ".join(line.strip() for line in out.splitlines() if line.startswith("    "))
    assert "The subscription of project Bergen Tunnel Survey has expired" in reason


def test_hub_gives_the_facts_of_the_hub_detail_screen(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "--demo", "hub", "acme-build", "--format", "table")
    assert status == 0
    head = out.split("\nProjects (")[0]
    facts = {line[:13].strip(): line[13:].strip() for line in head.splitlines()}
    assert facts["Name"].startswith("acme-build  (URL name")
    assert facts["DisplayName"].startswith("ACME Construction Group  (differs")
    assert "API http://localhost · trusted" in facts["Region"]
    assert facts["Author"] == "Dana Whitfield <dana.whitfield@acme-build.com>"
    assert facts["Entra ID SSO"].startswith("restricted: yes · tenant acme-build.com")
    assert "Projects (3):" in out
    assert "Harbour Bridge Retrofit" in out


def test_the_headless_commands_still_never_import_textual() -> None:
    code = (
        "import sys; from hubtui.cli import main; "
        "main(['--demo', 'hub', 'acme-build', '--format', 'table']); "
        "assert 'textual' not in sys.modules, 'textual imported'"
    )
    finished = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
    assert finished.returncode == 0, finished.stderr.decode()


def test_the_demo_is_no_profiles_server_and_has_no_token_to_read_again(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    config = tmp_path / "config.toml"
    config.write_text('default_profile = "prod"\n[profiles.prod]\nbase_url = "https://a.example"\n')
    monkeypatch.setenv("HUBTUI_CONFIG", str(config))
    from hubtui.tui.app import HubTuiApp

    started: list[HubTuiApp] = []
    monkeypatch.setattr(HubTuiApp, "run", lambda self, **_: started.append(self))
    monkeypatch.setattr(HubTuiApp, "watch_terminal", lambda self: None)
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert main(["--demo"]) == 0
    (app,) = started
    assert app.workspace.profile is None  # the status line says no "profile prod" over the demo API
    assert app.workspace.rereads_token is False
