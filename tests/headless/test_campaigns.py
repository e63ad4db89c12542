"""A review campaign from the command line, against the demo server over HTTP: started with its
population frozen, decided by two reviewers from their decisions files (a disagreement a
conflict the owner resolves, a file of another campaign refused whole, bad lines listed), the
reminders, one verified close that is never sent twice, and the auditor's report."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
from pathlib import Path

import pytest

from hubtui.core.store import Store, StoreError
from tests.harness.campaigns import decided, exported
from tests.harness.commands import run
from tests.harness.harness import hubtui_command
from tests.harness.postgres import MEMBER, PostgresServer
from tests.harness.postgres import OWNER as DB_OWNER

BJORN = "bjorn.lindqvist@acme-build.com"  # Editor, reviewer in 1001
CHLOE = "chloe.moreau@acme-build.com"  # Reader in 1001
DANA = "dana.whitfield@acme-build.com"  # Admin of 1001 and 1002: their packets' reviewer
OWNER = "olive.owner"


def be(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """The same store, another person at it (the operator a decision is recorded under)."""
    monkeypatch.setenv("HUBTUI_OPERATOR", name)


def export(
    capsys: pytest.CaptureFixture[str], base: tuple[str, ...], *more: str
) -> list[dict[str, str]]:
    return exported(capsys, base, *more)


def hub_emails(capsys: pytest.CaptureFixture[str], base: tuple[str, ...]) -> set[str]:
    status, out, err = run(capsys, *base, "hub-users", "acme-build", "--format", "json")
    assert status == 0, err
    return {u["User"]["Email"] for u in json.loads(out)}


def test_a_campaign_is_frozen_decided_resolved_closed_once_and_reported(
    capsys: pytest.CaptureFixture[str],
    server: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    base = ("--base-url", server)
    be(monkeypatch, OWNER)
    status, out, err = run(capsys, *base, "campaign", "start", "acme-build", "--due", "2026-12-15")
    assert status == 0, err
    assert "Campaign 1: Review of acme-build, population read " in out
    assert "23 memberships of 13 people in 3 projects (sha256 " in out
    assert f"packet Harbour Bridge Retrofit (1001): 12 rows, reviewers {DANA}" in out
    assert "If nobody answers: 23 memberships keep their access." in out

    rows = export(capsys, base, "--packet", "1001")
    assert len(rows) == 12
    assert {r["campaign"] for r in rows} == {"1"}
    assert {r["server"] for r in rows} == {server}
    dana_row = next(r for r in rows if r["email"] == DANA)
    assert dana_row["reviewer"] == OWNER  # nobody decides on their own access

    # Dana decides the packet: Björn removed, Chloé kept, the rest kept; one bulk act.
    for row in rows:
        row["decision"] = "keep"
        if row["email"] == BJORN:
            row["decision"], row["reason"] = "remove", "left the company"
    mine = [r for r in rows if r["email"] != DANA]
    be(monkeypatch, DANA)
    status, _, err = run(
        capsys, *base, "campaign", "decide", "1", decided(tmp_path / "d.csv", mine)
    )
    assert status == 0, err
    assert "Recorded 11 decisions as one bulk act by dana.whitfield@acme-build.com" in err

    # Dana's own row is not hers to decide: refused with its line, the rest untouched.
    status, _, err = run(
        capsys,
        *base,
        "campaign",
        "decide",
        "1",
        decided(tmp_path / "own.csv", [dana_row | {"decision": "keep"}]),
    )
    assert status == 2
    assert "line 2: dana.whitfield@acme-build.com decides on their own access" in err

    # A second reviewer disagrees on Björn: a conflict, with both names, not the last word.
    be(monkeypatch, "aiko.tanaka@acme-build.com")
    bjorn = next(r for r in rows if r["email"] == BJORN) | {"decision": "keep", "reason": ""}
    status, _, err = run(
        capsys, *base, "campaign", "decide", "1", decided(tmp_path / "a.csv", [bjorn])
    )
    assert status == 0, err
    status, out, _ = run(capsys, *base, "campaign", "status", "1")
    assert "Conflicts for the owner (olive.owner) to resolve: 1" in out
    assert (
        f"{BJORN} in Harbour Bridge Retrofit: deciders disagree "
        f"(dana.whitfield@acme-build.com: remove from hub, aiko.tanaka@acme-build.com: keep)"
    ) in out
    assert "Harbour Bridge Retrofit: 12 · 10 · 2" in out  # Dana's own row and the conflict

    # Only the owner resolves; a file of another campaign is refused whole.
    status, _, err = run(
        capsys, *base, "campaign", "decide", "1", "--resolve", decided(tmp_path / "r.csv", [bjorn])
    )
    assert status == 2
    assert "only the campaign's owner (olive.owner) resolves" in err
    be(monkeypatch, OWNER)
    other = bjorn | {"campaign": "7"}
    status, _, err = run(
        capsys, *base, "campaign", "decide", "1", decided(tmp_path / "o.csv", [other])
    )
    assert status == 2
    assert "line 2 is of campaign 7, this campaign's is 1: the file is refused whole" in err
    bad = [
        bjorn | {"decision": "maybe"},
        bjorn | {"decision": "remove", "reason": ""},
        bjorn | {"user_id": "999"},
    ]
    status, _, err = run(capsys, *base, "campaign", "decide", "1", decided(tmp_path / "b.csv", bad))
    assert status == 2
    assert "line 2: maybe is not a decision (keep, reader, remove)" in err
    assert "line 3: a removal needs a reason" in err
    assert "line 4: account 999 in project 1001 is not in the campaign's population" in err
    resolved = bjorn | {"decision": "remove", "reason": "left the company (HR ticket 88)"}
    status, _, err = run(
        capsys,
        *base,
        "campaign",
        "decide",
        "1",
        "--resolve",
        decided(tmp_path / "r.csv", [resolved]),
    )
    assert status == 0, err

    # Reminders: to those behind, never to one who has finished.
    status, out, _ = run(capsys, *base, "campaign", "remind", "1")
    assert "To: aiko.tanaka@acme-build.com" in out  # Depot 7 not decided
    assert "To: dana.whitfield@acme-build.com" in out  # Québec Office Tower not decided
    assert "To: olive.owner" in out  # Dana's own rows
    assert "Harbour Bridge Retrofit" not in out.split("To: dana.whitfield")[1].split("To:")[0]

    # The close: the undecided keep (the default), Björn out of the hub, read back, verified.
    status, out, err = run(capsys, *base, "campaign", "close", "1", "--yes")
    assert status == 0, err
    assert f"remove from hub {BJORN}" in out
    assert "rows had no answer: they take the default (keep)" in err
    assert "Campaign 1 closed: 1 change verified by reading back" in err
    assert BJORN not in hub_emails(capsys, base)
    # Closed twice, nothing is sent twice; a closed campaign takes no decision.
    status, _, err = run(capsys, *base, "campaign", "close", "1", "--yes")
    assert status == 2
    assert "closed already: nothing is sent twice" in err
    status, _, err = run(
        capsys, *base, "campaign", "decide", "1", decided(tmp_path / "r.csv", [resolved])
    )
    assert status == 2
    assert "is closed: it takes no decision" in err

    # Kept for good: pruning the store keeps every campaign.
    status, _, err = run(capsys, *base, "store", "prune", "--keep", "0d")
    assert status == 0, err

    # The record: who decided, bulk or not, the default said as such, each outcome verified.
    status, out, err = run(capsys, *base, "campaign", "report", "1", "--format", "json")
    assert status == 0, err
    report = json.loads(out)
    assert report["population"]["count"] == 23
    assert len(report["population"]["sha256"]) == 64
    by = {(r["project"], r["email"]): r for r in report["rows"]}
    b = by[("1001", BJORN)]
    assert (b["decided_by"], b["decision"], b["bulk"]) == (OWNER, "remove from hub", "no")
    assert b["reason"] == "left the company (HR ticket 88)"
    assert b["verified"] == "verified: not in the hub"
    c = by[("1001", CHLOE)]
    assert (c["decided_by"], c["bulk"], c["default"]) == (DANA, "yes", "no")
    d = by[("1001", DANA)]
    assert (d["decided_by"], d["default"], d["decision"]) == ("", "yes", "keep")
    assert report["totals"] == {"keep": 22, "remove from hub": 1}


def test_two_reviewers_deciding_one_packet_at_once_on_the_team_store_lose_nothing(
    capsys: pytest.CaptureFixture[str],
    server: str,
    pg_env: PostgresServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two processes, two machines' data folders, two database roles, one team store on a real
    PostgreSQL: each reviewer's decisions of the same packet land whole, each attributed by the
    database to the role that made it (Dana's role, and Aiko's, given the packet)."""
    schema = pg_env.new_schema()
    owner, member = pg_env.url(schema=schema), pg_env.url(user=MEMBER, schema=schema)
    base = ("--base-url", server, "--store-url", owner)
    assert run(capsys, *base, "store", "migrate")[0] == 0
    pg_env.grant_member(schema)
    assert run(capsys, *base, "store", "migrate")[0] == 0
    for role, account in ((DB_OWNER, DANA), (MEMBER, "aiko.tanaka@acme-build.com")):
        assert run(capsys, *base, "team", "add", role, "--account", account)[0] == 0
    be(monkeypatch, OWNER)
    status, _, err = run(capsys, *base, "campaign", "start", "acme-build")
    assert status == 0, err
    status, _, err = run(
        capsys, *base, "campaign", "delegate", "1", "--packet", "1001", "--to", MEMBER
    )
    assert status == 0, err
    rows = [r for r in export(capsys, base, "--packet", "1001") if r["email"] != DANA]
    halves = {
        (DANA, owner): [r | {"decision": "keep"} for r in rows[::2]],
        ("aiko.tanaka@acme-build.com", member): [
            r | {"decision": "reader"}
            for r in rows[1::2]
            if r["email"] != "aiko.tanaka@acme-build.com"
        ],
    }
    processes = []
    for n, ((who, url), mine) in enumerate(halves.items()):
        env = {
            **os.environ,
            "HUBTUI_OPERATOR": who,
            "HUBTUI_DATA_DIR": str(tmp_path / f"machine-{n}"),
        }
        file = decided(tmp_path / f"{n}.csv", mine)
        processes.append(
            subprocess.Popen(
                [
                    *hubtui_command(),
                    "--base-url",
                    server,
                    "--store-url",
                    url,
                    "campaign",
                    "decide",
                    "1",
                    file,
                ],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
        )
    for process in processes:
        _, err_bytes = process.communicate(timeout=60)
        assert process.returncode == 0, err_bytes.decode()
    decided_count = sum(len(mine) for mine in halves.values())
    status, out, err = run(capsys, *base, "campaign", "status", "1")
    assert status == 0, err
    assert f"Harbour Bridge Retrofit: 12 · {decided_count} · {12 - decided_count}" in out
    status, out, err = run(capsys, *base, "campaign", "report", "1", "--format", "json")
    report = json.loads(out)
    decided_rows = [r for r in report["rows"] if r["project"] == "1001" and r["decided_by"]]
    assert len(decided_rows) == decided_count
    assert {r["db_role"] for r in decided_rows} == {DB_OWNER, MEMBER}  # the database's word


def test_a_member_of_the_team_decides_but_can_neither_change_nor_delete_a_decision(
    capsys: pytest.CaptureFixture[str],
    server: str,
    pg_env: PostgresServer,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """The README's grants give a member every right on the rows; ``store migrate`` takes back
    those that would let them rewrite a campaign: a decision is the database's record."""
    schema = pg_env.new_schema()
    owner, member = pg_env.url(schema=schema), pg_env.url(user=MEMBER, schema=schema)
    base = ("--base-url", server)
    assert run(capsys, *base, "--store-url", owner, "store", "migrate")[0] == 0
    pg_env.grant_member(schema)
    assert run(capsys, *base, "--store-url", owner, "store", "migrate")[0] == 0
    status, _, err = run(
        capsys, *base, "--store-url", owner, "team", "add", MEMBER, "--account", DANA
    )
    assert status == 0, err
    monkeypatch.setenv("HUBTUI_STORE_URL", member)
    be(monkeypatch, DANA)
    assert run(capsys, *base, "campaign", "start", "acme-build")[0] == 0
    rows = [r | {"decision": "keep"} for r in export(capsys, base, "--packet", "1002")]
    rows = [r for r in rows if r["email"] != DANA]
    status, _, err = run(
        capsys, *base, "campaign", "decide", "1", decided(tmp_path / "d.csv", rows)
    )
    assert status == 0, err
    with Store.open_url(member) as store:
        for statement in (
            "UPDATE campaign_events SET decision = 'remove'",
            "DELETE FROM campaign_events",
            "UPDATE campaign_rows SET email = 'someone@else.example'",
            "DELETE FROM campaigns",
        ):
            with pytest.raises(StoreError), store.writing() as db:
                db.run(statement)
    status, out, err = run(capsys, *base, "campaign", "report", "1", "--format", "json")
    decided_rows = [r for r in json.loads(out)["rows"] if r["decided_by"]]
    assert len(decided_rows) == len(rows)
    assert {r["db_role"] for r in decided_rows} == {MEMBER}
    assert {r["decision"] for r in decided_rows} == {"keep"}


def test_a_close_sends_nothing_for_a_person_changed_since_the_freeze_and_a_default_demotes_no_admin(
    capsys: pytest.CaptureFixture[str],
    server: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    base = ("--base-url", server)
    be(monkeypatch, OWNER)
    status, out, err = run(
        capsys, *base, "campaign", "start", "acme-build", "--if-no-answer", "reader"
    )
    assert status == 0, err
    # Said before anyone decides: who would become Reader, and that Admins keep their role.
    assert "If nobody answers: " in out
    assert "memberships become Reader" in out
    assert "(Admins keep theirs)" in out
    # Björn is made Admin of 1001 after the freeze: his row is not sent, and says why.
    status, _, err = run(capsys, *base, "set-role", "acme-build", "1001", BJORN, "Admin", "--yes")
    assert status == 0, err
    status, out, err = run(capsys, *base, "campaign", "close", "1", "--dry-run")
    assert status == 0, err
    assert f"Not sent: {BJORN} in Harbour Bridge Retrofit: was Editor when frozen, now Admin" in err
    assert "Would send: PUT " in out  # the dry run prints exactly the requests
    assert "update   aiko.tanaka@acme-build.com" in out
    assert f"update   {DANA}" not in out  # an Admin is not made Reader by a default
    # The dry run closed nothing.
    status, out, err = run(capsys, *base, "campaign", "status", "1")
    assert ": open" in out.splitlines()[0]


def test_the_next_quarter_marks_what_was_kept_and_unchanged(
    capsys: pytest.CaptureFixture[str],
    server: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    base = ("--base-url", server)
    be(monkeypatch, OWNER)
    assert run(capsys, *base, "campaign", "start", "acme-build")[0] == 0
    rows = [r | {"decision": "keep"} for r in export(capsys, base, "--packet", "1001")]
    be(monkeypatch, DANA)
    mine = [r for r in rows if r["email"] != DANA]
    assert run(capsys, *base, "campaign", "decide", "1", decided(tmp_path / "d.csv", mine))[0] == 0
    be(monkeypatch, OWNER)
    assert run(capsys, *base, "campaign", "close", "1", "--yes")[0] == 0
    status, _, err = run(capsys, *base, "set-role", "acme-build", "1001", CHLOE, "Editor", "--yes")
    assert status == 0, err
    status, _, err = run(capsys, *base, "campaign", "start", "acme-build", "--since-last")
    assert status == 0, err
    status, out, err = run(capsys, *base, "campaign", "export", "2", "--packet", "1001")
    earlier = {r["email"]: r["earlier"] for r in csv.DictReader(io.StringIO(out))}
    assert earlier[BJORN] == f"kept in campaign 1 by {DANA}"
    assert earlier[CHLOE] == ""  # her access changed since: a look, not a stamp
    status, out, err = run(capsys, *base, "campaign", "report", "2", "--format", "json")
    assert json.loads(out)["since_previous_campaign"] == {
        "campaign": 1,
        "new": 0,
        "gone": 0,
        "other access": 1,  # Chloé: Reader then, Editor now
    }


def test_without_a_store_nothing_is_recorded_and_a_late_campaign_is_said_overdue(
    capsys: pytest.CaptureFixture[str],
    server: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    base = ("--base-url", server)
    be(monkeypatch, OWNER)
    status, _, err = run(capsys, *base, "--no-store", "campaign", "start", "acme-build")
    assert status == 2
    assert "A campaign lives in the store: nothing was done." in err
    status, _, err = run(capsys, *base, "campaign", "start", "acme-build", "--due", "2026-01-01")
    assert status == 0, err
    status, _, err = run(capsys, *base, "--offline", "campaign", "close", "1", "--yes")
    assert status == 2
    assert "--offline: a campaign is read from the server" in err
    status, out, _ = run(capsys, *base, "campaign", "status", "1")
    assert out.splitlines()[0].endswith(": OVERDUE, due 2026-01-01")
    # The team store away: the decisions of this run are kept nowhere, and it says so.
    rows = [r | {"decision": "keep"} for r in export(capsys, base, "--packet", "1003")]
    file = decided(tmp_path / "d.csv", rows)
    unreachable = "postgresql://hubtui@127.0.0.1:1/hubtui"
    status, _, err = run(capsys, *base, "--store-url", unreachable, "campaign", "decide", "1", file)
    assert status == 2
    assert "The team store postgresql://hubtui@127.0.0.1:1/hubtui cannot be reached" in err
    assert "Nothing was recorded, nothing sent." in err


def test_a_decisions_file_is_read_as_every_file_hubtui_takes_back(
    capsys: pytest.CaptureFixture[str],
    server: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The export guards a formula-like cell with ``'``; read back, the guard is taken off. A
    line is named where it starts (a reason over two lines); a file not UTF-8, or without the
    columns, is refused in words; nothing is recorded from it."""
    base = ("--base-url", server)
    be(monkeypatch, OWNER)
    assert run(capsys, *base, "campaign", "start", "acme-build")[0] == 0
    rows = export(capsys, base, "--packet", "1001")
    chloe = next(r for r in rows if r["email"] == CHLOE)
    bjorn = next(r for r in rows if r["email"] == BJORN)
    file = tmp_path / "d.csv"
    decided(file, [chloe | {"decision": "remove", "reason": "'-left, see HR\nticket 88"}, bjorn])
    status, _, err = run(capsys, *base, "campaign", "decide", "1", str(file))
    assert status == 0, err
    status, out, _ = run(capsys, *base, "campaign", "report", "1", "--format", "json")
    [row] = [r for r in json.loads(out)["rows"] if (r["project"], r["email"]) == ("1001", CHLOE)]
    assert row["reason"] == "-left, see HR\nticket 88"
    undecided = chloe | {"decision": "", "reason": "a note\nover two lines"}
    decided(file, [undecided, bjorn | {"decision": "maybe"}])
    status, _, err = run(capsys, *base, "campaign", "decide", "1", str(file))
    assert "line 4: maybe is not a decision" in err  # the reason's two lines counted
    file.write_bytes(b"project,user_id,decision\n1001,7,keep\xff\n")
    status, _, err = run(capsys, *base, "campaign", "decide", "1", str(file))
    assert status == 2
    assert "it is not UTF-8 text" in err
    file.write_text("project,email\n1001,someone@x.example\n")
    status, _, err = run(capsys, *base, "campaign", "decide", "1", str(file))
    assert status == 2
    assert "it lacks the column(s) user_id, decision of a campaign's decisions file" in err
