"""The headless commands: the same answers without the screen, parsed back in every format."""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from hubtui.cli import main
from tests.harness.commands import run
from tests.harness.harness import running_demo_server

PRIYA = "priya.patel@northwind-eng.com"


def test_hubs_in_every_format(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    status, out, _ = run(capsys, "--demo", "hubs", "--format", "jsonl")
    assert status == 0
    hubs = [json.loads(line) for line in out.splitlines()]
    acme = next(h for h in hubs if h["Name"] == "acme-build")
    assert acme["DisplayName"] == "ACME Construction Group"  # the API's own field names
    status, out, _ = run(capsys, "--demo", "hubs", "--format", "json")
    assert [h["Name"] for h in json.loads(out)] == [h["Name"] for h in hubs]
    status, out, _ = run(capsys, "--demo", "hubs", "--format", "csv")
    rows = list(csv.reader(io.StringIO(out)))
    header = ["Name (URL name)", "DisplayName", "DisplayName sent", "DisplayName differs"]
    assert rows[0][:4] == header
    assert ["acme-build", "ACME Construction Group", "yes", "yes"] == rows[1][:4]
    riverside = next(r for r in rows if r[0] == "riverside-infra")
    assert riverside[1:4] == ["riverside-infra", "yes", "no"]  # as sent: no placeholder words
    monkeypatch.setenv("COLUMNS", "80")
    status, out, _ = run(capsys, "--demo", "hubs", "--format", "table")
    lines = out.splitlines()
    assert all(len(line) <= 80 for line in lines)
    # URL names are never cut; the marks are words.
    assert {line.split()[0] for line in lines[1:]} >= {"silverline-contractors-4", "acme-build"}
    assert "differs" in next(x for x in lines if x.startswith("acme-build "))


def test_piped_output_is_jsonl(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "--demo", "projects", "acme-build")
    assert status == 0
    names = [json.loads(line)["Name"] for line in out.splitlines()]
    assert "Harbour Bridge Retrofit" in names


def test_a_hub_by_name_or_id_and_a_display_name_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = run(capsys, "--demo", "hub", "acme-build", "--format", "json")
    assert status == 0
    hub_id = json.loads(out)[0]["Id"]
    status, out, _ = run(capsys, "--demo", "hub", hub_id, "--format", "json")
    assert (status, json.loads(out)[0]["Name"]) == (0, "acme-build")
    status, out, err = run(capsys, "--demo", "hub", "ACME Construction Group")
    assert status == 1
    assert out == ""
    assert "the hub displayed as “ACME Construction Group” has the URL name “acme-build”" in err
    status, _, err = run(capsys, "--demo", "hub", "no-such-hub")
    assert status == 1
    assert "No hub has the URL name or id “no-such-hub”" in err


def test_users_members_and_limited_readers(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "--demo", "users", "acme-build", "1001", "--limited")
    assert status == 0
    limited = [json.loads(line) for line in out.splitlines()]
    assert len(limited) == 5
    assert all(u["IsLimited"] for u in limited)
    status, out, _ = run(capsys, "--demo", "users", "acme-build", "1001", "--members")
    assert len(out.splitlines()) == 7
    status, out, _ = run(
        capsys, "--demo", "users", "acme-build", "1001", "--limited", "--format", "table"
    )
    assert "LIMITED @northwind-eng.com" in out


def test_who_prints_findings_and_the_summary(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "--demo", "who", PRIYA)
    assert status == 3  # found, but one project could not be read: the answer is incomplete
    rows = [json.loads(line) for line in out.splitlines()]
    assert len(rows) == 6
    assert sum(1 for r in rows if "Error" in r) == 1
    assert {r["User"]["IsLimited"] for r in rows if "User" in r} == {True, False}
    assert "member of 2 projects (Admin 1, Editor 1), limited reader in 3" in err
    status, out, err = run(capsys, "--demo", "who", "nobody@nowhere.example", "--hub", "acme-build")
    assert status == 1  # complete, nobody found
    assert out == ""
    status, out, err = run(capsys, "--demo", "who", "nobody@nowhere.example")
    assert status == 3  # nobody found, but not every project answered
    assert "1 project could not be read" in err
    status, out, err = run(
        capsys, "--demo", "who", "grace.osei@northwind-eng.com", "--hub", "acme-build"
    )
    assert status == 0  # complete, found


def stats(url: str) -> dict[str, int]:
    answer = httpx.get(f"{url}/_demo/stats", headers={"Authorization": "Bearer demo-token"})
    return answer.json()  # type: ignore[no-any-return]


def test_changes_need_yes_without_a_terminal_and_dry_run_sends_nothing(
    server: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    new = ("--base-url", server, "add-user", "acme-build", "1002", "new.one@acme-build.com")
    status, _, err = run(capsys, *new, "Editor")
    assert status == 2
    assert "add --yes to send the change" in err
    status, out, err = run(capsys, *new, "Editor", "--dry-run")
    assert status == 0
    # Exactly the request, as the command's answer on stdout: no IsReviewer, since none was
    # given and none is sent.
    assert "Would send: POST " + server + "/v3/hubs/" in out
    assert '\n{"Email": "new.one@acme-build.com", "Role": "Editor"}\n' in out
    assert "(dry run: nothing was sent)" in err
    assert stats(server)["creates"] == 0
    status, _, err = run(capsys, *new, "Editor", "--yes")
    assert status == 0
    assert "Done: new.one@acme-build.com is Editor." in err
    assert stats(server)["creates"] == 1
    lines = (tmp_path / "data" / "changes.jsonl").read_text().splitlines()
    logged = [json.loads(line) for line in lines]
    assert [x["outcome"] for x in logged] == ["pending", "done"]
    assert logged[-1]["server"] == server  # the whole base URL names the server
    role = ("--base-url", server, "set-role", "acme-build", "1002")
    status, out, err = run(capsys, *role, "new.one@acme-build.com", "Admin", "--yes")
    assert status == 0
    assert "Role: Editor → Admin" in out  # the preview, on stdout
    # A change on its own is a batch of one: put back the way any batch is.
    batch = re.search(r"\(hubtui revert (b[0-9a-f]+) puts it back\)", err)
    assert batch is not None, err
    status, out, err = run(capsys, "--base-url", server, "revert", batch[1], "--dry-run")
    assert status == 0, err
    assert "Role: Admin → Editor" in out
    status, _, err = run(capsys, *role, "new.one@acme-build.com", "Admin", "--yes")
    assert (status, err.strip()) == (0, "Nothing to change, so nothing was sent.")
    status, _, err = run(
        capsys, "--base-url", server, "set-role", "acme-build", "1001",
        "grace.osei@northwind-eng.com", "Editor", "--yes",
    )  # fmt: skip
    assert status == 2
    assert "is a limited reader, not a member" in err
    status, _, err = run(capsys, "--read-only", *new, "Reader", "--yes")
    assert status == 2
    assert "read-only is on" in err
    assert stats(server)["updates"] == 1


# A 5xx may have been acted on first: unknown (4), settled by reading back; a 4xx refused (3).
@pytest.mark.parametrize(("status_code", "exit_status"), [(422, 3), (500, 4), (504, 4)])
def test_a_refused_change_is_3_and_an_unknown_one_4(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    status_code: int,
    exit_status: int,
) -> None:
    with running_demo_server("--change-failure-status", str(status_code)) as url:
        status, _, err = run(
            capsys, "--base-url", url, "add-user", "acme-build", "1002", "x@acme-build.com",
            "Reader", "--yes",
        )  # fmt: skip
    assert status == exit_status
    assert f"HTTP {status_code}" in err


def test_settings_errors_stop_with_2_and_name_what_to_change(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HUBTUI_TOKEN", "t")
    status, _, err = run(capsys, "--base-url", "http://api.example.com", "hubs")
    assert status == 2
    assert "--allow-insecure-http" in err
    status, _, err = run(capsys, "--base-url", "ftp://x", "hubs")
    assert (status, "is not an http(s) URL" in err) == (2, True)
    status, _, err = run(capsys, "--profile", "nope", "hubs")
    assert status == 2
    assert "There is no profile 'nope'" in err


def test_there_is_no_token_flag_and_abbreviations_are_not_read(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["--token", "sk-secret-abc", "hubs"])
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert "there is no --token flag: use HUBTUI_TOKEN or --token-file" in err
    assert "sk-secret-abc" not in err
    with pytest.raises(SystemExit):
        main(["--token-f", "x", "hubs"])  # not taken for --token-file


def test_the_headless_path_never_imports_textual() -> None:
    code = (
        "import sys; from hubtui.cli import main; "
        "status = main(['--demo', 'hubs', '--format', 'json']); "
        "assert status == 0; "
        "assert not [m for m in sys.modules if m.split('.')[0] == 'textual'], 'textual'"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)[0]["Name"]


def test_a_dumb_terminal_is_pointed_to_the_commands(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TERM", "dumb")
    status, _, err = run(capsys, "--demo")
    assert status == 2
    assert "hubtui hubs, hub, projects, users, who" in err


def test_json_lines_and_json_give_the_same_records_with_terminal_control_escaped(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, lines, _ = run(capsys, "--demo", "users", "acme-build", "1001", "--format", "jsonl")
    status, whole, _ = run(capsys, "--demo", "users", "acme-build", "1001", "--format", "json")
    assert [json.loads(line) for line in lines.splitlines()] == json.loads(whole)
    eve = next(json.loads(x) for x in lines.splitlines() if "eve@acme-build.com" in x)
    assert eve["User"]["LastName"] == "O'Neil\x1b[2J\x1b]0;pwned\x07"  # kept exactly...
    assert "\x1b" not in lines  # ...and written as escapes
    assert "\x07" not in lines


def test_a_hub_that_matches_only_by_case_is_named_never_taken(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, err = run(capsys, "--demo", "hub", "Acme-Build")
    assert (status, out) == (1, "")
    assert "“acme-build”" in err
    assert "Type it exactly" in err
