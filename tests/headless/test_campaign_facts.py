"""A reviewer decides from the facts: each row of a campaign carries what why's table stands on
(the hub role, the last sign-in, the invitation, the domain a limited reader reads through, how
many projects, outside the SSO tenant) and the table's recommendation with its reason, in the
start's counts, the export and the report (which says whether each decision followed it).
Against the demo server over HTTP; ``--inactive-after 3650`` keeps the demo's fixed sign-ins on
one side of the line whatever day the suite runs."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from hubtui.core.workflows.campaign import starting
from tests.harness.campaigns import decided, exported
from tests.harness.commands import run

DANA = "dana.whitfield@acme-build.com"  # hub Admin, last seen 2025-07-18, in two projects
DIEGO = "diego.garcia@acme-build.com"  # never signed in
CHLOE = "chloe.moreau@acme-build.com"  # seen 2026-11-11
GRACE = "grace.osei@northwind-eng.com"  # a limited reader through northwind-eng.com
FATIMA = "fatima.rahman@northwind-eng.com"  # a member outside the hub's SSO tenant


def started(capsys: pytest.CaptureFixture[str], base: tuple[str, ...]) -> str:
    status, out, err = run(
        capsys, *base, "campaign", "start", "acme-build", "--inactive-after", "3650"
    )
    assert status == 0, err
    return out


def test_each_row_carries_why_s_facts_and_its_recommendation(
    capsys: pytest.CaptureFixture[str], server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HUBTUI_OPERATOR", "olive.owner")
    base = ("--base-url", server)
    out = started(capsys, base)
    # Every row counted once: Diego's two (never signed in) to remove, the rest seen to keep,
    # the limited readers' ten with nothing to decide.
    assert "Recommended, by why's table: 2 remove, 11 keep, 10 with no recommendation" in out
    rows = {(r["project"], r["email"]): r for r in exported(capsys, base, "--packet", "1001")}
    diego = rows[("1001", DIEGO)]
    assert (diego["last_sign_in"], diego["recommendation"]) == ("never", "remove")
    assert diego["recommendation_reason"] == "never signed in"
    dana = rows[("1001", DANA)]
    assert dana["hub_role"] == "Admin"
    assert dana["last_sign_in"].endswith("2025-07-18")
    assert (dana["projects"], dana["invitation"]) == ("2", "accepted")
    assert dana["recommendation"] == "keep"
    assert dana["recommendation_reason"].startswith("last seen ")
    assert dana["recommendation_reason"].endswith("days ago (within 3,650)")
    grace = rows[("1001", GRACE)]
    assert (grace["access"], grace["limited_through"]) == ("LIMITED", "northwind-eng.com")
    assert grace["recommendation"] == ""
    assert grace["recommendation_reason"] == (
        "reads through @northwind-eng.com: the domain, not the person, gives access"
    )
    assert rows[("1001", FATIMA)]["outside_tenant"] == "acme-build.com"
    assert rows[("1001", CHLOE)]["outside_tenant"] == ""


def test_the_report_says_whether_each_decision_followed_the_recommendation(
    capsys: pytest.CaptureFixture[str],
    server: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HUBTUI_OPERATOR", "olive.owner")
    base = ("--base-url", server)
    started(capsys, base)
    words = {DIEGO: ("remove", "never signed in"), CHLOE: ("remove", "left the company")}
    mine = [
        r | {"decision": words[r["email"]][0], "reason": words[r["email"]][1]}
        for r in exported(capsys, base, "--packet", "1001")
        if r["email"] in words
    ]
    monkeypatch.setenv("HUBTUI_OPERATOR", DANA)  # their packet's reviewer
    status, _, err = run(
        capsys, *base, "campaign", "decide", "1", decided(tmp_path / "d.csv", mine)
    )
    assert status == 0, err
    status, out, err = run(capsys, *base, "campaign", "report", "1", "--format", "json")
    assert status == 0, err
    report = {(r["project"], r["email"]): r for r in json.loads(out)["rows"]}
    assert report[("1001", DIEGO)]["followed"] == "yes"  # advised remove, removed
    assert report[("1001", CHLOE)]["followed"] == "no"  # advised keep, removed
    assert report[("1001", DANA)]["followed"] == "default"  # nobody decided
    assert report[("1001", GRACE)]["followed"] == ""  # nothing was advised
    assert report[("1001", CHLOE)]["recommendation"] == "keep"


AIKO = "aiko.tanaka@acme-build.com"


def test_the_owner_reassigns_a_packet_and_its_earlier_decisions_stay_their_deciders(
    capsys: pytest.CaptureFixture[str],
    server: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``campaign reassign 1 --packet 1001 --to aiko --note …``: the packet's rows are Aiko's
    to decide from then (her own row stays Dana's), kept with who, when and the note; Dana's
    decision made before stays hers, by the reviewer of record of its time; only the owner
    reassigns."""
    base = ("--base-url", server)
    monkeypatch.setenv("HUBTUI_OPERATOR", "olive.owner")
    started(capsys, base)
    chloe = [
        r | {"decision": "keep", "reason": ""}
        for r in exported(capsys, base, "--packet", "1001")
        if r["email"] == CHLOE
    ]
    monkeypatch.setenv("HUBTUI_OPERATOR", DANA)
    file = decided(tmp_path / "d.csv", chloe)
    assert run(capsys, *base, "campaign", "decide", "1", file)[0] == 0
    move = ("campaign", "reassign", "1", "--packet", "1001", "--to", AIKO)
    status, _, err = run(capsys, *base, *move, "--note", "Dana is on leave")
    assert status == 2  # not the owner
    assert "only the campaign's owner (olive.owner) reassigns a packet" in err
    monkeypatch.setenv("HUBTUI_OPERATOR", "olive.owner")
    status, _, err = run(capsys, *base, *move, "--note", "Dana is on leave")
    assert status == 0, err
    assert f"Packet 1001 of campaign 1 is now {AIKO}'s (account 2) to decide" in err
    reviewers = {r["email"]: r["reviewer"] for r in exported(capsys, base, "--packet", "1001")}
    assert reviewers[CHLOE] == AIKO
    assert reviewers[AIKO] == DANA  # never her own row
    monkeypatch.setenv("HUBTUI_OPERATOR", AIKO)
    status, out, _ = run(capsys, *base, "campaign", "mine")
    assert "packet Harbour Bridge Retrofit (1001): 10 rows left" in out
    monkeypatch.setenv("HUBTUI_OPERATOR", "olive.owner")
    status, out, err = run(capsys, *base, "campaign", "report", "1", "--format", "json")
    report = json.loads(out)
    [moved] = report["reassignments"]
    assert (moved["packet"], moved["to"], moved["note"]) == ("1001", AIKO, "Dana is on leave")
    rows = {(r["project"], r["email"]): r for r in report["rows"]}
    assert rows[("1001", CHLOE)]["decided_by"] == DANA
    assert rows[("1001", CHLOE)]["by_reviewer_of_record"] == "yes"  # hers when she decided
    assert rows[("1001", CHLOE)]["reviewer"] == AIKO


JONAS = "jonas.osei@lakeshore-partners.example"  # invited to the hub, never accepted


def test_an_invitation_hubtui_sent_says_when_and_counts_its_days_from_then(
    capsys: pytest.CaptureFixture[str], server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server does not say when an invitation went out; hubtui's change log does: the row
    says when hubtui sent it, and it is recommended for removal only once it has waited past
    the inactive days, counted from then."""
    monkeypatch.setenv("HUBTUI_OPERATOR", "olive.owner")
    base = ("--base-url", server)
    status, _, err = run(capsys, *base, "resend-invite", "lakeshore-partners-1", JONAS, "--yes")
    assert status == 0, err
    sent_on = datetime.now(UTC).date().isoformat()
    status, _, err = run(capsys, *base, "campaign", "start", "lakeshore-partners-1")
    assert status == 0, err
    (jonas,) = (r for r in exported(capsys, base) if r["email"] == JONAS)
    assert jonas["invitation"] == f"not accepted (sent by hubtui {sent_on})"
    assert jonas["recommendation"] == ""
    assert jonas["recommendation_reason"] == "invited 0 days ago, not accepted yet (within 90)"
    # The same invitation 120 days on: past the line, to remove.
    later = datetime.now(UTC) + timedelta(days=120)
    monkeypatch.setattr(starting, "utc_now", lambda: later)
    status, _, err = run(capsys, *base, "campaign", "start", "lakeshore-partners-1")
    assert status == 0, err
    (jonas,) = (r for r in exported(capsys, base, number="2") if r["email"] == JONAS)
    assert (jonas["recommendation"], jonas["recommendation_reason"]) == (
        "remove",
        "invited 120 days ago, never accepted",
    )
