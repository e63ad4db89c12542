"""`snapshot`, `diff` and `store` as a script uses them: exit statuses like diff's, the demo's
week of changes, evidence files compared without a store, and a store that is off or unreadable
said so by name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.harness.commands import run


def test_the_demo_shows_last_weeks_changes_and_a_new_snapshot_has_none(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, out, err = run(capsys, "--demo", "diff", "--format", "json")
    assert status == 1  # differences, as diff says it
    rows = json.loads(out)
    assert {"change": "changed", "person": "aiko.tanaka@acme-build.com"}.items() <= next(
        r for r in rows if r["person"] == "aiko.tanaka@acme-build.com"
    ).items()
    assert "10 differences" in err  # ulla.berg left the hub: her project and the hub's list
    assert (tmp_path / "data" / "demo" / "store.sqlite3").exists()  # apart from the person's own
    assert not (tmp_path / "data" / "store.sqlite3").exists()
    status, _, err = run(capsys, "--demo", "snapshot")
    assert status == 3  # one project's users are refused: the snapshot says it is incomplete
    assert "Incomplete: 1 not read" in err
    assert "project 1012" in err
    status, out, err = run(capsys, "--demo", "diff", "--format", "jsonl")
    assert status == 3  # nothing differs, but a project was not compared
    assert [json.loads(line)["change"] for line in out.splitlines()] == ["not compared"]
    status, out, _ = run(
        capsys, "--demo", "diff", "--since", "#1", "--until", "#2", "--format", "csv"
    )
    assert status == 1
    assert out.splitlines()[0].startswith("change,level,hub,hub_id,project")
    status, out, _ = run(capsys, "--demo", "store", "info")
    assert status == 0
    assert "Snapshots: 2" in out
    # Since when: the person's access in each snapshot, oldest first.
    status, out, _ = run(
        capsys, "--demo", "who", "aiko.tanaka@acme-build.com", "--history", "--format", "json"
    )
    assert status == 0
    bridge = [r for r in json.loads(out) if r["project"] == "Harbour Bridge Retrofit"]
    assert [(r["snapshot"][:2], r["role"]) for r in bridge] == [("#1", "Reader"), ("#2", "Editor")]
    status, _, _ = run(capsys, "--demo", "who", "nobody@nowhere.example", "--history")
    assert status == 1


def test_the_demo_answers_since_when_from_its_first_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = run(
        capsys, "--demo", "who", "ulla.berg@acme-build.com", "--history", "--format", "jsonl"
    )
    assert status == 0  # last week's snapshot is there from the start
    assert [json.loads(line)["role"] for line in out.splitlines()] == ["Editor"]


def test_evidence_files_are_compared_without_a_store(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    assert run(capsys, "--demo", "--no-store", "snapshot", "--export", str(first))[0] == 3
    assert run(capsys, "--demo", "--no-store", "snapshot", "--export", str(second))[0] == 3
    assert not (tmp_path / "data").exists()  # nothing kept: the store is off
    status, out, err = run(capsys, "diff", str(first), str(second), "--format", "jsonl")
    assert status == 3
    assert "0 differences" in err
    second.write_text(second.read_text().replace('"Role": "Admin"', '"Role": "Reader"', 1))
    status, out, err = run(capsys, "diff", str(first), str(second))
    assert status == 2
    assert "b.json: its content does not match the sha256" in err


def test_a_store_that_is_off_or_unreadable_is_said_by_name(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, _, err = run(capsys, "--demo", "--no-store", "snapshot")
    assert status == 2
    assert "the store is off" in err
    data = tmp_path / "data"
    (data / "demo").mkdir(mode=0o700, parents=True)
    (data / "demo" / "store.sqlite3").write_bytes(b"garbage" * 1000)
    status, _, err = run(capsys, "--demo", "diff")
    assert status == 2
    assert "demo/store.sqlite3 cannot be used" in err
    status, _, err = run(capsys, "--demo", "store", "prune", "--keep", "soon")
    assert status == 2


def test_offline_commands_read_the_newest_snapshot_and_send_nothing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, _, err = run(capsys, "--demo", "--offline", "hubs")
    assert status == 2
    assert "--offline: There is no store" in err  # nothing kept yet: said, not an empty list
    run(capsys, "--demo", "diff")  # seeds last week's snapshot
    status, out, _ = run(capsys, "--demo", "snapshot")
    status, out, err = run(
        capsys, "--demo", "--offline", "users", "acme-build", "1001", "--format", "json"
    )
    assert status == 0
    emails = {row["User"]["Email"] for row in json.loads(out)}
    assert "aiko.tanaka@acme-build.com" in emails
    # Offline prints what the online command printed, byte for byte, every run.
    for argv in (("users", "acme-build", "1001"), ("hubs",), ("projects", "acme-build")):
        online = run(capsys, "--demo", *argv, "--format", "json")[1]
        for _ in range(2):
            assert run(capsys, "--demo", "--offline", *argv, "--format", "json")[1] == online
    status, _, err = run(
        capsys,
        "--demo",
        "--offline",
        "add-user",
        "acme-build",
        "1001",
        "x@acme-build.com",
        "Reader",
    )
    assert status == 2
    assert "offline: the store answers every read, and nothing is sent" in err
    assert "--read-only" not in err  # the reason is offline, not a setting
    status, _, err = run(capsys, "--demo", "--offline", "snapshot")
    assert status == 2
    assert "which --offline never does" in err
    status, out, _ = run(
        capsys, "--demo", "--offline", "diff", "--since", "#1", "--until", "#2", "--format", "json"
    )
    assert status == 1  # two snapshots kept are compared offline


def test_a_cron_job_hears_of_a_new_admin_within_the_hour_and_of_nothing_else(
    capsys: pytest.CaptureFixture[str], server: str
) -> None:
    import httpx

    from tests.harness.demo_api import DEMO_HEADERS

    base = ("--base-url", server)
    hourly = ("diff", "acme-build", "--since", "previous", "--only", "admin", "--format", "json")
    assert run(capsys, *base, "snapshot", "acme-build")[0] == 0
    status, _, err = run(capsys, *base, *hourly)
    assert status == 1
    assert "needs two snapshots of hub acme-build; there is 1" in err
    assert run(capsys, *base, "snapshot", "acme-build")[0] == 0
    status, out, _ = run(capsys, *base, *hourly)
    assert (status, json.loads(out)) == (0, [])  # nothing happened: nothing to mail
    # Within the hour: an Editor made Reader (not asked for), a project Admin and a hub Admin made.
    args = ("acme-build", "1001")
    assert (
        run(capsys, *base, "set-role", *args, "aiko.tanaka@acme-build.com", "Reader", "--yes")[0]
        == 0
    )
    assert (
        run(capsys, *base, "set-role", *args, "chloe.moreau@acme-build.com", "Admin", "--yes")[0]
        == 0
    )
    hub = "7d1f0c3e-4b8a-4f6e-9a51-acme00000001"
    users = httpx.get(f"{server}/v3/hubs/{hub}/users", headers=DEMO_HEADERS).json()
    diego = next(u for u in users if u["User"]["Email"] == "diego.garcia@acme-build.com")
    answer = httpx.put(
        f"{server}/v3/hubs/{hub}/users/{diego['User']['Id']}",
        json={"Role": "Admin"},
        headers=DEMO_HEADERS,
    )
    assert answer.status_code == 200
    assert run(capsys, *base, "snapshot", "acme-build")[0] == 0
    status, out, _ = run(capsys, *base, *hourly)
    assert status == 1  # something to mail
    found = {(d["person"], d["level"], d["project"]) for d in json.loads(out)}
    assert found == {
        ("chloe.moreau@acme-build.com", "user", "Harbour Bridge Retrofit"),
        ("diego.garcia@acme-build.com", "hub user", "the hub"),
    }
    status, out, _ = run(
        capsys, *base, "diff", "acme-build", "--since", "previous", "--format", "json"
    )
    assert "aiko.tanaka@acme-build.com" in {d["person"] for d in json.loads(out)}  # without --only
    status, _, err = run(capsys, *base, "diff", "--only", "admins")
    assert status == 2
    assert "admins: choose from added, removed, changed, admin, limited" in err


def test_store_migrate_applies_each_step_once_and_refuses_a_newer_store(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    import os
    import sqlite3

    from hubtui.core.store import MIGRATIONS

    path = tmp_path / "data" / "demo" / "store.sqlite3"
    path.parent.mkdir(mode=0o700, parents=True)
    db = sqlite3.connect(path, isolation_level=None)
    for statement in MIGRATIONS[0].each():
        db.execute(statement)
    db.execute("PRAGMA user_version = 1")
    db.close()
    os.chmod(path, 0o600)
    status, out, err = run(capsys, "--demo", "store", "migrate")
    assert status == 0, err
    assert "Applied schema step 2: access reviews" in err
    assert "Applied schema step 3: the audit trail" in err
    assert "Applied schema step 4: the trail and the reviews attributed by the database" in err
    assert "Applied schema step 5: review campaigns" in err
    assert "Applied schema step 6: each list's latest state named by its records" in err
    assert "Applied schema step 7: each list's latest state says which snapshot read it" in err
    assert "Applied schema step 8: a snapshot's new records compressed many together" in err
    assert "Applied schema step 9: the team roster" in err
    assert "Applied schema step 10: each campaign row's facts as read at the start" in err
    assert "(schema 10)" in out
    status, _, err = run(capsys, "--demo", "store", "migrate")
    assert "Schema 10: up to date, nothing to apply." in err
    with sqlite3.connect(path) as newer:
        newer.execute("PRAGMA user_version = 11")
    status, _, err = run(capsys, "--demo", "store", "migrate")
    assert status == 2
    assert "schema 11; this one reads 10" in err
