"""A team's history: one server is one identity on every machine, so a colleague's snapshot is
compared with one's own in whichever order they were kept, and ``--since previous`` compares the
two latest of one scope."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.harness.app import CHLOE
from tests.harness.commands import be, run

KEPT = "kept as snapshot #"


def taken(err: str) -> int:
    """The number a snapshot was kept as, from what ``snapshot`` said."""
    return int(err.split(KEPT, 1)[1].split()[0])


def snapshot(capsys: pytest.CaptureFixture[str], server: str, *hub: str) -> int:
    status, _, err = run(capsys, "--base-url", server, "snapshot", *hub)
    assert status in (0, 3), err  # 3: the demo has a hub whose users are not read
    return taken(err)


def promote(capsys: pytest.CaptureFixture[str], server: str) -> None:
    argv = ("--base-url", server, "set-role", "acme-build", "1001", CHLOE, "Admin", "--yes")
    assert run(capsys, *argv)[0] == 0


def test_a_colleague_s_later_snapshot_is_compared_with_one_s_own_earlier(
    capsys: pytest.CaptureFixture[str],
    server: str,
    team: str,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    be(monkeypatch, tmp_path, "Ben")
    ben = snapshot(capsys, server)
    promote(capsys, server)
    be(monkeypatch, tmp_path, "Ann")
    ann = snapshot(capsys, server)
    assert ann > ben
    be(monkeypatch, tmp_path, "Ben")  # on Ben's machine: Ann's (kept later) until Ben's
    status, out, err = run(
        capsys, "--base-url", server, "diff", "--since", f"#{ann}", "--until", f"#{ben}",
        "--format", "json",
    )  # fmt: skip
    assert status == 1, err
    rows = {row["person"]: row["what"] for row in json.loads(out)}
    assert rows[CHLOE] == "Role: Admin → Reader"  # as asked: from Ann's to Ben's


def test_since_previous_compares_the_latest_two_of_all_hubs_not_a_one_hub_snapshot(
    capsys: pytest.CaptureFixture[str], server: str
) -> None:
    first = snapshot(capsys, server)
    promote(capsys, server)
    second = snapshot(capsys, server)
    snapshot(capsys, server, "acme-build")  # the latest, of one hub
    status, out, err = run(
        capsys, "--base-url", server, "diff", "--since", "previous", "--format", "json"
    )
    assert status == 1, err
    assert f"From #{first} " in err
    assert f"to #{second} " in err
    rows = json.loads(out)
    assert [row["person"] for row in rows if row["change"] != "not compared"] == [CHLOE]
    # Only the list neither read (before: every list of the other hubs "not compared").
    assert len([row for row in rows if row["change"] == "not compared"]) <= 1


def test_since_previous_of_a_hub_compares_snapshots_of_that_hub(
    capsys: pytest.CaptureFixture[str], server: str
) -> None:
    snapshot(capsys, server)  # of all hubs, between the two of the hub
    first = snapshot(capsys, server, "acme-build")
    promote(capsys, server)
    snapshot(capsys, server)
    second = snapshot(capsys, server, "acme-build")
    status, out, err = run(
        capsys, "--base-url", server, "diff", "acme-build", "--since", "previous",
        "--format", "json",
    )  # fmt: skip
    assert status == 1, err
    assert f"From #{first} " in err
    assert f"to #{second} " in err
    rows = json.loads(out)
    assert [row["person"] for row in rows if row["change"] != "not compared"] == [CHLOE]


def test_a_snapshot_of_another_server_is_refused_naming_what_differs() -> None:
    from hubtui.core.store import SnapshotInfo
    from hubtui.headless.history import _not_this_server

    other = SnapshotInfo(3, "2026-11-26T10:00:00Z", "http://127.0.0.1:8001", "", "all hubs", {})
    words = _not_this_server(3, other, "http://127.0.0.1:8001", "work")
    assert "it was taken with no profile, this run with profile 'work'" in words
    assert "its server" not in words  # the same server: only what differs is named
    words = _not_this_server(3, other, "http://127.0.0.1:8002", None)
    assert "its server is 'http://127.0.0.1:8001', this run's 'http://127.0.0.1:8002'" in words


def test_the_demo_s_changes_stay_in_its_own_folder_and_never_reach_the_team(
    capsys: pytest.CaptureFixture[str],
    server: str,
    team: str,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    data = be(monkeypatch, tmp_path, "Ann")
    argv = ("--demo", "set-role", "acme-build", "1001", CHLOE, "Admin", "--yes")
    status, _, err = run(capsys, *argv)
    assert status == 0, err
    assert "Admin" in (data / "demo" / "changes.jsonl").read_text()
    assert not (data / "changes.jsonl").exists()  # the person's own change log: untouched
    promote(capsys, server)  # a change to a real server: the team's
    status, out, err = run(capsys, "--base-url", server, "log", "--format", "json")
    assert status == 0, err
    assert len(json.loads(out)) == 1
    with __import__("psycopg").connect(team) as db:
        servers = [row[0] for row in db.execute("SELECT server FROM audit")]
    real = json.loads((data / "changes.jsonl").read_text().splitlines()[0])["server"]
    assert set(servers) == {real}  # its pending and outcome lines; nothing of the demo
