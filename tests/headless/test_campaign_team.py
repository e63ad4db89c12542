"""A campaign's record holds against the team itself, on a real PostgreSQL set up as the README's
least-privilege SQL says: who decides is a database role and the hub account the roster says it
acts for, never the operator setting; and what hubtui refuses a member, the database refuses the
member's own connection too (each forgery tried through psycopg, signed in as the member)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest

from tests.harness.campaigns import decided, exported
from tests.harness.commands import run
from tests.harness.demo_api import calls_made
from tests.harness.postgres import MEMBER, PostgresServer
from tests.harness.postgres import OWNER as DB_OWNER

DANA = "dana.whitfield@acme-build.com"  # the only Admin of 1001 and 1002: their reviewer
EVE = "eve@acme-build.com"  # a hub Admin: the account the owner's role acts for
BJORN = "bjorn.lindqvist@acme-build.com"  # Editor in 1001
CHLOE = "chloe.moreau@acme-build.com"  # Reader in 1001


@dataclass
class Team:
    """One team store: its owner's address and a member's (Dana's role), the server."""

    pg: PostgresServer
    schema: str
    owner: str
    member: str
    base: tuple[str, ...]

    def as_owner(self, monkeypatch: pytest.MonkeyPatch, operator: str = "olive.owner") -> None:
        monkeypatch.setenv("HUBTUI_STORE_URL", self.owner)
        monkeypatch.setenv("HUBTUI_OPERATOR", operator)

    def as_member(self, monkeypatch: pytest.MonkeyPatch, operator: str = DANA) -> None:
        monkeypatch.setenv("HUBTUI_STORE_URL", self.member)
        monkeypatch.setenv("HUBTUI_OPERATOR", operator)

    def connect_member(self) -> psycopg.Connection[tuple[object, ...]]:
        """The member's own connection, as their psql would make it."""
        return psycopg.connect(self.member, autocommit=True)


@pytest.fixture
def team(
    capsys: pytest.CaptureFixture[str],
    server: str,
    pg_env: PostgresServer,
    monkeypatch: pytest.MonkeyPatch,
) -> Team:
    """The README's set-up: the owner migrates, a member's role gets every right on the rows,
    the owner migrates again (which takes back what the record forbids), and keeps the roster:
    the owner's role acts for Eve, the member's for Dana."""
    schema = pg_env.new_schema()
    base = ("--base-url", server)
    it = Team(
        pg_env, schema, pg_env.url(schema=schema), pg_env.url(user=MEMBER, schema=schema), base
    )
    it.as_owner(monkeypatch)
    assert run(capsys, *base, "store", "migrate")[0] == 0
    pg_env.grant_member(schema)
    assert run(capsys, *base, "store", "migrate")[0] == 0
    for role, account in ((DB_OWNER, EVE), (MEMBER, DANA)):
        status, out, err = run(capsys, *base, "team", "add", role, "--account", account)
        assert status == 0, err
    return it


def export(
    capsys: pytest.CaptureFixture[str], base: tuple[str, ...], packet: str
) -> list[dict[str, str]]:
    return exported(capsys, base, "--packet", packet)


written = decided


def started(
    capsys: pytest.CaptureFixture[str], team: Team, monkeypatch: pytest.MonkeyPatch
) -> None:
    team.as_owner(monkeypatch)
    status, _, err = run(capsys, *team.base, "campaign", "start", "acme-build")
    assert status == 0, err


def test_the_roster_is_the_owner_s_and_says_who_acts_for_which_account(
    capsys: pytest.CaptureFixture[str], team: Team, monkeypatch: pytest.MonkeyPatch
) -> None:
    status, out, err = run(capsys, *team.base, "team", "list", "--format", "json")
    assert status == 0, err
    listed = {(e["role"], e["email"], e["account"], e["db_role"]) for e in json.loads(out)}
    assert listed == {(DB_OWNER, EVE, "6", DB_OWNER), (MEMBER, DANA, "1", DB_OWNER)}
    team.as_member(monkeypatch)
    # A member's migrate of a store up to date: said so, nothing failed.
    status, out, err = run(capsys, *team.base, "store", "migrate")
    assert status == 0, err
    assert "up to date, nothing to apply" in err
    assert f"this role ({MEMBER}) has nothing to apply" in err
    status, _, err = run(capsys, *team.base, "team", "add", MEMBER, "--account", EVE)
    assert status == 2
    assert "permission denied for table team_roster" in err
    assert "Only the team store's owner keeps the roster" in err
    with team.connect_member() as db, pytest.raises(psycopg.errors.InsufficientPrivilege):
        db.execute(
            "INSERT INTO team_roster (role, origin, account, email, name, added) "
            "VALUES (%s, %s, '6', %s, '', 't')",
            (MEMBER, team.base[1], EVE),
        )
    # A role not in the roster decides nothing, and starts nothing: told before the hub's
    # projects and users are read (a firm's hub is seconds of reading).
    team.as_owner(monkeypatch)
    assert run(capsys, *team.base, "team", "remove", MEMBER)[0] == 0
    team.as_member(monkeypatch)
    before = calls_made(team.base[1])
    status, _, err = run(capsys, *team.base, "campaign", "start", "acme-build")
    assert status == 2
    assert f"the database role {MEMBER} is not in the team roster of this server" in err
    read = {
        route: count - before.get(route, 0)
        for route, count in calls_made(team.base[1]).items()
        if count != before.get(route, 0)
    }
    assert not [route for route in read if "/projects" in route or route.endswith("/users")]


def test_who_decides_is_the_role_and_its_account_never_the_operator_setting(
    capsys: pytest.CaptureFixture[str],
    team: Team,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    started(capsys, team, monkeypatch)
    rows = export(capsys, team.base, "1001")
    dana_row = next(r for r in rows if r["email"] == DANA)
    assert dana_row["reviewer"] == "olive.owner"  # never their own reviewer
    # Dana's role, typing the owner's operator text: still Dana's role. Her own row (by
    # account, whatever name she types) is not hers; a resolution is not hers.
    team.as_member(monkeypatch, operator="Ada Admin")
    own = written(tmp_path / "own.csv", [dana_row | {"decision": "keep"}])
    status, _, err = run(capsys, *team.base, "campaign", "decide", "1", own)
    assert status == 2
    assert f"line 2: {DANA} decides on their own access" in err
    team.as_member(monkeypatch, operator="olive.owner")
    bjorn = next(r for r in rows if r["email"] == BJORN) | {"decision": "keep"}
    status, _, err = run(
        capsys,
        *team.base,
        "campaign",
        "decide",
        "1",
        "--resolve",
        written(tmp_path / "r.csv", [bjorn]),
    )
    assert status == 2
    assert f"only the campaign's owner ({DB_OWNER}) resolves a conflict" in err
    # Her packet is hers: recorded under her role, whatever the operator says.
    status, _, err = run(
        capsys, *team.base, "campaign", "decide", "1", written(tmp_path / "d.csv", [bjorn])
    )
    assert status == 0, err
    assert f"Recorded 1 decision by olive.owner (database role {MEMBER})" in err
    # Another packet is not hers until the owner gives it to her role.
    depot = export(capsys, team.base, "1003")
    theirs = written(tmp_path / "depot.csv", [depot[0] | {"decision": "keep"}])
    status, _, err = run(capsys, *team.base, "campaign", "decide", "1", theirs)
    assert status == 2
    assert f"not the role {MEMBER}'s: the owner may give the packet to it" in err
    status, _, err = run(
        capsys, *team.base, "campaign", "delegate", "1", "--packet", "1003", "--to", MEMBER
    )
    assert status == 2
    assert f"only the campaign's owner ({DB_OWNER}) gives a packet" in err
    team.as_owner(monkeypatch)
    status, _, err = run(
        capsys, *team.base, "campaign", "delegate", "1", "--packet", "1003", "--to", MEMBER
    )
    assert status == 0, err
    team.as_member(monkeypatch)
    status, out, err = run(capsys, *team.base, "campaign", "mine", "--format", "json")
    assert status == 0, err
    waiting = {w["packet"]: w["left"] for w in json.loads(out)}
    assert waiting["1003"] == len(depot)  # given to her role: hers now, by the database's rules
    assert "1001" in waiting  # her own packet, as its reviewer's account
    status, _, err = run(capsys, *team.base, "campaign", "decide", "1", theirs)
    assert status == 0, err
    status, out, err = run(capsys, *team.base, "campaign", "report", "1", "--format", "json")
    assert status == 0, err
    report = json.loads(out)
    assert report["delegations"][0] | {"when": ""} == {
        "packet": "1003",
        "to": MEMBER,
        "by": "olive.owner",
        "db_role": DB_OWNER,
        "when": "",
    }
    decided = {r["email"]: r for r in report["rows"] if r["decided_by"]}
    assert decided[BJORN]["db_role"] == MEMBER


def test_each_forgery_through_a_member_s_own_connection_is_refused_by_the_database(
    capsys: pytest.CaptureFixture[str],
    team: Team,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    started(capsys, team, monkeypatch)
    status, out, err = run(capsys, *team.base, "campaign", "report", "1", "--format", "json")
    assert status == 0, err
    order = json.loads(out)["rows"]  # in the population's order: a row's place is its index
    depot = next(n for n, r in enumerate(order) if r["project"] == "1003")
    bjorn = next(n for n, r in enumerate(order) if (r["project"], r["email"]) == ("1001", BJORN))
    event = (
        "INSERT INTO campaign_events (campaign, position, kind, decision, reason, operator, "
        "moment, act, detail) VALUES (1, %s, %s, %s, '', 'olive.owner', %s, 0, %s)"
    )
    forgeries = {
        "a resolution of another's row": (bjorn, "resolve", "remove from hub", "t", ""),
        "a close the owner did not make": (-1, "close", "", "t", "0 changes"),
        "an outcome saying a person left": (
            bjorn,
            "outcome",
            "remove from hub",
            "t",
            "verified: not in the hub",
        ),
        "a decision of a row not its to decide": (depot, "decide", "keep", "t", ""),
        "an event of no kind the record knows": (0, "approve", "keep", "t", ""),
    }
    with team.connect_member() as db:
        for what, values in forgeries.items():
            with pytest.raises(psycopg.errors.InsufficientPrivilege) as refused:
                db.execute(event, values)
            assert "hubtui:" in str(refused.value), what
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="population is sealed"):
            db.execute(
                "INSERT INTO campaign_rows (campaign, position, project, project_name, user_id, "
                "email, name, role, hub_role, access, reviewer, earlier, reviewer_id) VALUES "
                "(1, 23, '1001', 'Harbour Bridge Retrofit', '99', 'mallory@x.example', 'M', "
                "'Admin', 'Admin', 'Admin', 'olive.owner', '', '1')"
            )
        for statement in ("UPDATE campaign_events SET kind = 'close'", "DELETE FROM campaigns"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                db.execute(statement)
    # Nothing of it is in the record: the status is as before, the owner closes.
    status, out, err = run(capsys, *team.base, "campaign", "status", "1")
    assert status == 0, err
    assert ": open" in out.splitlines()[0]
    status, _, err = run(capsys, *team.base, "campaign", "close", "1", "--yes")
    assert status == 0, err
    # Closed: a back-dated decision is refused, even of the member's own packet.
    with (
        team.connect_member() as db,
        pytest.raises(psycopg.errors.InsufficientPrivilege, match="is closed"),
    ):
        db.execute(event, (bjorn, "decide", "remove from hub", "2026-01-01T00:00:00Z", ""))
    status, out, err = run(capsys, *team.base, "campaign", "report", "1", "--format", "json")
    assert status == 0, err
    report = json.loads(out)
    assert report["closed_by"]["db_role"] == DB_OWNER
    assert [(e["kind"], e["db_role"]) for e in report["events"]] == [
        ("closing", DB_OWNER),
        ("close", DB_OWNER),
    ]  # the database's word on each; no forgery among them
    assert report["population"]["events_check"] == "each follows the one before"


def test_an_event_the_owner_edits_behind_hubtui_s_back_is_found_and_the_close_refuses(
    capsys: pytest.CaptureFixture[str],
    team: Team,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The owner's role may still UPDATE its tables: the chain finds it."""
    started(capsys, team, monkeypatch)
    chloe = next(r for r in export(capsys, team.base, "1001") if r["email"] == CHLOE)
    team.as_member(monkeypatch)
    file = written(tmp_path / "d.csv", [chloe | {"decision": "keep"}])
    assert run(capsys, *team.base, "campaign", "decide", "1", file)[0] == 0
    team.pg.sql(
        f"SET search_path = {team.schema}; UPDATE campaign_events "
        "SET decision = 'remove from hub', reason = 'left' WHERE kind = 'decide'"
    )
    team.as_owner(monkeypatch)
    status, out, err = run(capsys, *team.base, "campaign", "status", "1")
    assert status == 3
    assert err.startswith("CHANGED: the events of campaign 1 were changed after event 0")
    status, out, err = run(capsys, *team.base, "campaign", "close", "1", "--yes")
    assert status == 3
    assert "it is not closed, and nothing was sent" in err


def test_a_packet_reassigned_by_the_owner_is_its_new_reviewer_s_in_the_database_too(
    capsys: pytest.CaptureFixture[str],
    team: Team,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Depot 7 Fit-out is Aiko's packet: the member's role (Dana's account) may not decide it,
    through hubtui or its own connection, until the owner reassigns it to Dana; a member's own
    reassignment is refused by the database as by hubtui."""
    started(capsys, team, monkeypatch)
    status, out, err = run(capsys, *team.base, "campaign", "report", "1", "--format", "json")
    assert status == 0, err
    depot = next(n for n, r in enumerate(json.loads(out)["rows"]) if r["project"] == "1003")
    event = (
        "INSERT INTO campaign_events (campaign, position, kind, decision, reason, operator, "
        "moment, act, detail) VALUES (1, %s, %s, %s, %s, 'x', 't', 0, %s)"
    )
    with team.connect_member() as db:
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="reviewer of record"):
            db.execute(event, (depot, "decide", "keep", "", ""))
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="only the campaign"):
            db.execute(event, (-1, "reassign", "1", "1003", f"{DANA} · mine now"))
    team.as_member(monkeypatch)
    move = ("campaign", "reassign", "1", "--packet", "1003", "--to", DANA, "--note", "cover")
    status, _, err = run(capsys, *team.base, *move)
    assert status == 2
    assert "only the campaign's owner" in err
    team.as_owner(monkeypatch)
    status, _, err = run(capsys, *team.base, *move)
    assert status == 0, err
    with team.connect_member() as db:
        db.execute(event, (depot, "decide", "keep", "", ""))  # hers to decide now
    status, out, err = run(capsys, *team.base, "campaign", "report", "1", "--format", "json")
    assert status == 0, err
    report = json.loads(out)
    [moved] = report["reassignments"]
    assert (moved["packet"], moved["to"], moved["db_role"]) == ("1003", DANA, DB_OWNER)
    assert report["rows"][depot]["reviewer"] == DANA
