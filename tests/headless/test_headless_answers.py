"""Headless answers a script or a ticket can trust: one exit-status table, dry runs that are
the real request and refuse what it would refuse, JSON that invents nothing, tables that fit."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from hubtui.cli import build_parser, main
from hubtui.headless import EXIT_TABLE
from tests.harness.commands import run
from tests.harness.demo_api import DEMO_HEADERS
from tests.harness.harness import hubtui_command

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def server(shared_server: str) -> str:
    """The module's one server: its tests change nothing, or count what they change."""
    return shared_server


def requests_made(url: str) -> tuple[int, int, int]:
    stats = httpx.get(f"{url}/_demo/stats", headers=DEMO_HEADERS).json()
    return stats["requests"], stats["creates"], stats["updates"]


def calls_made(url: str) -> dict[str, int]:
    """The demo server's count of calls per kind (``GET v3/hubs/{hubId}/projects``…)."""
    by_route: dict[str, int] = httpx.get(f"{url}/_demo/stats", headers=DEMO_HEADERS).json()[
        "by_route"
    ]
    return by_route


def test_help_and_readme_give_one_exit_status_table() -> None:
    help_text = " ".join(build_parser().format_help().split())
    readme = (ROOT / "README.md").read_text()
    for code, words in EXIT_TABLE:
        assert f"{code} {words}" in help_text
        assert f"| {code} | {words} |" in readme


@pytest.mark.parametrize(
    ("argv", "status", "says"),
    [
        (("hub", "no-such-hub"), 1, "No hub has the URL name or id"),
        (("projects", "no-such-hub"), 1, "No hub has the URL name or id"),
        (("users", "acme-build", "9999"), 1, "not found"),
        (("users", "acme-build", "1002", "--limited"), 1, "no limited readers in project 1002"),
        (("who", "nobody.at.all@nowhere.example", "--hub", "acme-build"), 1, "absent from"),
        (("who", "priya.patel@northwind-eng.com", "--hub", "nordic-rail"), 3, "not be read"),
    ],
    ids=["hub", "projects", "users-404", "users-empty", "who-nobody", "who-incomplete"],
)
def test_not_found_is_1_and_incomplete_is_3_for_every_reading_command(
    server: str,
    capsys: pytest.CaptureFixture[str],
    argv: tuple[str, ...],
    status: int,
    says: str,
) -> None:
    got, out, err = run(capsys, "--base-url", server, *argv, "--format", "table")
    assert got == status, err
    assert says in err
    if status == 1:
        assert out == ""  # for pipes: nothing on stdout, the words on stderr


ADD = ("add-user", "acme-build", "1001")


@pytest.mark.parametrize(
    ("argv", "status", "says"),
    [
        ((*ADD, "notanemail", "Reader"), 2, "not an email address"),
        ((*ADD, " jane@acme.com", "Reader"), 2, "spaces around"),
        ((*ADD, "dana.whitfield@acme-build.com", "Reader"), 2, "already a member"),
        (("add-user", "acme-build", "9999", "new@acme-build.com", "Reader"), 1, "not found"),
        (("add-user", "no-such-hub", "1001", "new@acme-build.com", "Reader"), 1, "No hub"),
        (
            ("set-role", "acme-build", "1001", "grace.osei@northwind-eng.com", "Editor"),
            2,
            "is a limited reader, not a member",
        ),
        (("set-role", "acme-build", "1001", "nobody@acme-build.com", "Editor"), 1, "is not in"),
        (("set-role", "acme-build", "1001", "dana.whitfield@acme-build.com", "Admin"), 0, ""),
    ],
    ids=[
        "invalid-email",
        "spaces",
        "already-member",
        "no-project",
        "no-hub",
        "limited-role",
        "not-in-project",
        "already-so",
    ],
)
def test_a_dry_run_refuses_what_the_real_run_refuses_with_the_same_status(
    server: str,
    capsys: pytest.CaptureFixture[str],
    argv: tuple[str, ...],
    status: int,
    says: str,
) -> None:
    before = requests_made(server)
    dry, _, dry_err = run(capsys, "--base-url", server, *argv, "--dry-run")
    real, _, real_err = run(capsys, "--base-url", server, *argv, "--yes")
    assert (dry, real) == (status, status), (dry_err, real_err)
    assert says in dry_err
    assert says in real_err
    after = requests_made(server)
    assert after[1:] == before[1:]  # no create, no update
    if "email" in says or "spaces" in says:
        assert after[0] == before[0]  # checked before anything reached the server


def test_the_dry_run_prints_exactly_the_request_that_goes_out(
    server: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    for extra, reviewer in (((), None), (("--reviewer",), True)):
        email = f"exact{len(extra)}@acme-build.com"
        argv = ("--base-url", server, *ADD, email, "Editor", *extra)
        status, out, err = run(capsys, *argv, "--dry-run")
        assert status == 0
        match = re.search(r"Would send: (POST \S+)\n(\{.*\})\n", out)
        assert match is not None, out + err
        shown = json.loads(match.group(2))
        expected: dict[str, object] = {"Email": email, "Role": "Editor"}
        if reviewer is not None:
            expected["IsReviewer"] = reviewer
        assert shown == expected  # no IsReviewer invented when none was given
        log = tmp_path / f"requests{len(extra)}.log"
        status, _, _ = run(capsys, "--log-file", str(log), *argv, "--yes")
        assert status == 0
        sent = next(line for line in log.read_text().splitlines() if " POST " in line)
        assert match.group(1) in sent  # the same method and URL
        assert json.dumps(shown, separators=(",", ":")) in sent  # the same body


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


def test_a_closed_pipe_ends_quietly() -> None:
    process = subprocess.Popen(
        [*hubtui_command(), "--demo", "who", "@northwind-eng.com", "--format", "jsonl"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "HUBTUI_CONFIG": "/nonexistent.toml"},
    )
    assert process.stdout is not None
    process.stdout.close()  # the reader is gone before anything is written (`| head -0`)
    _, errors = process.communicate(timeout=60)
    err = errors.decode()
    assert process.returncode == 141
    assert "Traceback" not in err
    assert "BrokenPipeError" not in err


@pytest.mark.parametrize("not_a_terminal", ["stdin", "stdout"])
def test_the_app_refuses_at_once_without_a_terminal(not_a_terminal: str) -> None:
    """Input from /dev/null, or output into a pipe: no escape codes into it, no spin, exit 2."""
    master, terminal = os.openpty()
    try:
        started = time.monotonic()
        finished = subprocess.run(
            [*hubtui_command(), "--demo"],
            stdin=subprocess.DEVNULL if not_a_terminal == "stdin" else terminal,
            stdout=subprocess.PIPE if not_a_terminal == "stdout" else terminal,
            stderr=subprocess.PIPE,
            timeout=30,
            env={**os.environ, "TERM": "xterm-256color", "HUBTUI_CONFIG": "/nonexistent.toml"},
        )
        os.set_blocking(master, False)
        try:
            on_terminal = os.read(master, 65536)
        except BlockingIOError:
            on_terminal = b""
    finally:
        os.close(master)
        os.close(terminal)
    assert finished.returncode == 2
    assert time.monotonic() - started < 20
    assert b"\x1b" not in (finished.stdout or b"") + on_terminal  # no escape codes anywhere
    said = " ".join(finished.stderr.decode().split())
    assert f"standard {'input' if not_a_terminal == 'stdin' else 'output'} is not one" in said
    assert "hubtui hubs, hub, projects, users, who" in said


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


def test_an_add_an_earlier_run_left_unknown_is_checked_before_anything_is_sent_again(
    server: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A command is a new process: the unknown add of a run that was cut off is read from the
    change log and settled from the list just read, so an add is never sent twice."""
    hub_id = json.loads(
        run(capsys, "--base-url", server, "hub", "acme-build", "--format", "json")[1]
    )
    log = tmp_path / "data" / "changes.jsonl"
    log.parent.mkdir(parents=True, exist_ok=True)
    host = server.removeprefix("http://")
    earlier = [
        {
            "time": "2026-11-24T05:00:00Z",
            "action": "add",
            "hub_id": hub_id[0]["Id"],
            "hub_name": "acme-build",
            "project_id": "1003",
            "project_name": None,
            "user_id": None,
            "email": email,
            "before": None,
            "after": {"Role": "Reader"},
            "outcome": "unknown",
            "detail": "cut off",
            "server": host,
            "id": f"earlier{n}",
        }  # fmt: skip
        for n, email in enumerate(("aiko.tanaka@acme-build.com", "cut.off@acme-build.com"))
    ]
    log.write_text("".join(json.dumps(line) + "\n" for line in earlier))
    before = requests_made(server)
    status, _, err = run(capsys, "--base-url", server, "add-user", "acme-build", "1003",
                         "aiko.tanaka@acme-build.com", "Reader", "--yes")  # fmt: skip
    assert status == 2  # the earlier add had reached the server: not sent again
    assert "checked against the list: found" in err
    assert "already a member" in err
    assert (
        "cut.off@acme-build.com (outcome unknown) is now checked against the list: not found"
        in (
            err  # every unknown add of the project is settled by the one read
        )
    )
    status, _, err = run(capsys, "--base-url", server, "add-user", "acme-build", "1003",
                         "cut.off@acme-build.com", "Reader", "--yes")  # fmt: skip
    assert status == 0  # it had not reached the server: sent now, once
    assert "checked" not in err  # settled already: nothing left to check
    assert requests_made(server)[1] == before[1] + 1
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    checked = {line["email"]: line["checked"] for line in lines if line.get("checked")}
    assert checked == {
        "aiko.tanaka@acme-build.com": "found",
        "cut.off@acme-build.com": "not found",
    }


def test_curl_prints_the_change_as_a_command_that_makes_it(
    server: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    email = "curl.made@acme-build.com"
    before = requests_made(server)
    status, out, err = run(capsys, "--base-url", server, *ADD, email, "Editor", "--curl")
    assert status == 0
    assert "nothing was sent" in err
    assert requests_made(server)[1] == before[1]  # no create
    assert "demo-token" not in out + err
    command = out.strip()
    assert command.startswith("curl ")
    assert '"Authorization: Bearer $HUBTUI_TOKEN"' in command
    made = subprocess.run(
        ["sh", "-c", command],
        env={"HUBTUI_TOKEN": "demo-token", "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    assert json.loads(made.stdout)["User"]["Email"] == email
    assert requests_made(server)[1] == before[1] + 1
    # What the real run would refuse, --curl refuses too.
    status, out, err = run(capsys, "--base-url", server, *ADD, email, "Editor", "--curl")
    assert status == 2
    assert "already a member" in err
    assert out == ""


def test_verbose_prints_each_exchange_to_stderr_and_leaves_stdout_alone(
    server: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    quiet_status, quiet, _ = run(capsys, "--base-url", server, "users", "acme-build", "1001")
    status, out, err = run(capsys, "--base-url", server, "users", "acme-build", "1001", "--verbose")
    assert (status, out) == (quiet_status, quiet)
    lines = err.splitlines()
    assert lines[0] == f"> GET {server}/v3/hubs/name/acme-build"
    assert re.fullmatch(r"< 200 OK \d+ ms [\d.]+ K?B \[r\d+\]", lines[1])
    assert any(line.endswith("/projects/1001/users") for line in lines if line.startswith(">"))
    assert "demo-token" not in err


def test_curl_prints_a_lists_request_which_runs_and_is_not_sent(
    server: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    users = ["users", "acme-build", "1001"]
    status, listed, _ = run(capsys, "--base-url", server, *users, "--format", "json")
    assert status == 0
    for args in (["hubs"], users):
        before = calls_made(server)
        status, out, err = run(capsys, "--base-url", server, *args, "--curl")
        assert status == 0
        assert "the list was not read" in err
        assert "demo-token" not in out + err
        route = "GET /v3/hubs" if args[0] == "hubs" else "GET /v3/hubs/{hubId}/projects/{id}/users"
        assert calls_made(server).get(route, 0) == before.get(route, 0)  # not sent
        got = subprocess.run(
            ["sh", "-c", out.strip()],
            env={"HUBTUI_TOKEN": "demo-token", "PATH": "/usr/bin:/bin"},
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        )
        assert calls_made(server)[route] == before.get(route, 0) + 1  # sent by the command
        answer = json.loads(got.stdout)
        if args[0] == "users":
            assert answer == json.loads(listed)  # the same users the command shows
        else:
            assert {hub["Name"] for hub in answer} >= {"acme-build", "riverside-infra"}
