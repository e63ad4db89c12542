"""`hubtui hub-users` and `hubtui access` as a script reads them: every format, the exit
statuses, a server without the hub-user operations, and an answer that says it is incomplete."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest

from tests.harness.commands import run
from tests.harness.harness import running_demo_server


def test_hub_users_in_json_are_the_records_as_sent(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "--demo", "hub-users", "acme-build", "--format", "json")
    assert status == 0, err
    users = json.loads(out)
    hamid = next(u for u in users if u["User"]["Email"] == "hamid.karimi@northwind-eng.com")
    assert hamid["IsActivated"] is False
    assert hamid["LastWebLogin"] is None  # null as sent: never, not "now" and not left out
    assert {u["Role"] for u in users} == {"Guest", "Admin"}
    assert "inactive after 90 days without a sign-in, counted to" in err


def test_hub_users_csv_says_what_needs_a_look_and_the_setting_moves_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = run(capsys, "--demo", "hub-users", "acme-build", "--format", "csv")
    assert status == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    by_email = {r["email"]: r for r in rows}
    assert by_email["hamid.karimi@northwind-eng.com"]["needs a look"] == (
        "invitation not accepted; never signed in"
    )
    assert by_email["hamid.karimi@northwind-eng.com"]["last web sign-in (UTC)"] == ""
    assert by_email["eve@acme-build.com"]["needs a look"].endswith("hub admin")
    strict = run(
        capsys, "--demo", "hub-users", "acme-build", "--format", "csv", "--inactive-after", "1"
    )[1]
    stale = [r for r in csv.DictReader(io.StringIO(strict)) if "inactive" in r["needs a look"]]
    before = [r for r in rows if "inactive" in r["needs a look"]]
    assert len(stale) > len(before)


def test_a_server_without_hub_users_is_said_and_the_other_commands_still_work(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with running_demo_server("--no-hub-users") as url:
        status, out, err = run(capsys, "--base-url", url, "hub-users", "acme-build")
        assert status == 3
        assert out == ""
        assert "this server does not list a hub's users" in err
        assert "hubtui access HUB" in err
        status, out, err = run(capsys, "--base-url", url, "access", "acme-build", "--format", "csv")
        assert status == 3  # incomplete: the hub's users were not read
        assert "Incomplete: the hub's users were not read" in err
        rows = list(csv.DictReader(io.StringIO(out)))
        assert len(rows) == 13  # every person of every project, all the same
        status, _, _ = run(capsys, "--base-url", url, "users", "acme-build", "1001")
        assert status == 0


def test_the_access_matrix_in_csv_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "--demo", "access", "acme-build", "--format", "csv")
    assert status == 0, err
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == [
        "email",
        "name",
        "hub role",
        "last seen (UTC)",
        "Harbour Bridge Retrofit",
        "Québec Office Tower",
        "Depot 7 Fit-out",
    ]
    aiko = next(r for r in rows if r[0] == "aiko.tanaka@acme-build.com")
    assert aiko[4:] == ["Editor", "", "Admin"]
    grace = next(r for r in rows if r[0] == "grace.osei@northwind-eng.com")
    assert "LIMITED" in grace[4:]
    status, out, err = run(capsys, "--demo", "access", "acme-build", "--format", "json")
    records = {r["Email"]: r for r in json.loads(out)}
    assert records["aiko.tanaka@acme-build.com"]["Projects"] == {"1001": "Editor", "1003": "Admin"}
    assert "13 people × 3 projects of hub acme-build." in err


def test_an_incomplete_matrix_says_so_and_exits_3(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "--demo", "access", "nordic-rail", "--format", "csv")
    assert status == 3
    assert "Incomplete: 1 list could not be read." in err
    assert "Bergen Tunnel Survey" in err


def test_resend_invite_prints_exactly_the_request_then_sends_it_logged_first(
    capsys: pytest.CaptureFixture[str], server: str
) -> None:
    from hubtui.core.places import default_change_log_path

    base = ("--base-url", server)
    status, out, _ = run(capsys, *base, "resend-invite", "acme-build", "--dry-run")
    assert status == 0
    assert re.search(
        r"Would send: PUT http://\S+/v3/hubs/\S+/users/\d+\n"
        r"\{\"Role\": \"Guest\", \"ResendHubInvite\": true\}",
        out,
    )
    assert "hamid.karimi@northwind-eng.com" in out
    status, _, err = run(capsys, *base, "resend-invite", "acme-build")
    assert (status, "add --yes" in err) == (2, True)  # never without asking, or --yes
    status, _, err = run(capsys, *base, "resend-invite", "acme-build", "--yes")
    assert status == 0, err
    assert "hamid.karimi@northwind-eng.com: invitation sent again." in err
    lines = [json.loads(x) for x in default_change_log_path().read_text().splitlines()]
    mine = [x for x in lines if x["action"] == "resend invitation"]
    assert [x["outcome"] for x in mine] == ["pending", "done"]  # written before it left
    # Someone who accepted theirs is named, and nothing is sent to them.
    status, _, err = run(
        capsys, *base, "resend-invite", "acme-build", "chloe.moreau@acme-build.com", "--yes"
    )
    assert status == 1
    assert "no invitation of hub acme-build waits for them" in err


def test_resend_invite_is_refused_read_only(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "--demo", "--read-only", "resend-invite", "acme-build", "--yes")
    assert status == 2
    assert "no change is sent" in err


def test_a_review_file_edited_is_applied_and_untouched_changes_nothing(
    capsys: pytest.CaptureFixture[str], server: str, tmp_path: Path
) -> None:
    base = ("--base-url", server)
    status, out, err = run(
        capsys, *base, "review", "acme-build", "--stale", "90d", "--format", "csv"
    )
    assert status == 0, err
    assert "need a decision (no sign-in for 90 days or never)" in err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert {r["email"] for r in rows} >= {"dana.whitfield@acme-build.com"}
    assert "chloe.moreau@acme-build.com" not in {r["email"] for r in rows}  # seen lately
    untouched = tmp_path / "review.csv"
    untouched.write_text(out)
    status, out, err = run(capsys, *base, "apply", str(untouched), "--dry-run")
    assert status == 0, err
    assert "0 to send" in out  # kept as they are: nothing to send
    # The reviewer downgrades the inactive hub admin's project admin role to Reader.
    edited = []
    for row in rows:
        if row["email"] == "dana.whitfield@acme-build.com" and row["role"] == "Admin":
            row["role"] = "Reader"
        edited.append(row)
    decided = tmp_path / "decided.csv"
    with decided.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(edited)
    status, out, err = run(capsys, *base, "apply", str(decided), "--yes")
    assert status == 0, err
    assert re.search(r"Batch b[0-9a-f]{10}: 2 done, 0 failed, 0 unknown", err)
    status, out, _ = run(capsys, *base, "users", "acme-build", "1001", "--format", "json")
    dana = next(u for u in json.loads(out) if u["User"]["Email"] == "dana.whitfield@acme-build.com")
    assert dana["Role"] == "Reader"


def test_the_matrix_of_a_snapshot_is_read_from_the_store_and_sends_nothing(
    capsys: pytest.CaptureFixture[str], server: str
) -> None:
    from tests.harness.demo_api import demo_stats

    base = ("--base-url", server)
    assert run(capsys, *base, "snapshot", "acme-build")[0] == 0
    status, out, err = run(
        capsys,
        *base,
        "set-role",
        "acme-build",
        "1001",
        "chloe.moreau@acme-build.com",
        "Admin",
        "--yes",
    )
    assert status == 0, err
    requests = demo_stats(server)["requests"]
    status, out, err = run(capsys, *base, "access", "acme-build", "--at", "#1", "--format", "csv")
    assert status == 0, err
    assert "As snapshot #1 read it" in err
    rows = {r["email"]: r for r in csv.DictReader(io.StringIO(out))}
    assert rows["chloe.moreau@acme-build.com"]["Harbour Bridge Retrofit"] == "Reader"  # as it was
    assert rows["hamid.karimi@northwind-eng.com"]["hub role"] == "Guest"  # the hub's users kept too
    assert demo_stats(server)["requests"] == requests  # nothing was sent
    status, out, _ = run(capsys, *base, "access", "acme-build", "--format", "csv")
    now = {r["email"]: r for r in csv.DictReader(io.StringIO(out))}
    assert now["chloe.moreau@acme-build.com"]["Harbour Bridge Retrofit"] == "Admin"
    status, _, err = run(capsys, *base, "access", "acme-build", "--at", "#7")
    assert status == 1
    assert "there is no snapshot #7" in err
