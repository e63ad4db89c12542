"""Dry runs that are the real request and refuse what it would refuse; curl and verbose that
print exactly what goes out, and an unknown add checked before anything is sent again."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.harness.commands import run
from tests.harness.demo_api import calls_made, requests_made


@pytest.fixture
def server(shared_server: str) -> str:
    """The module's one server: its tests change nothing, or count what they change."""
    return shared_server


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
