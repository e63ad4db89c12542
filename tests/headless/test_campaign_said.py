"""What a campaign says of itself to a script and to its owner: ``status --format json``, and a
start whose population is empty refused before anything is kept for good."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from hubtui.core.people.campaign_record import population_sha256
from hubtui.core.workflows import campaign as use
from tests.harness.campaigns import decided, exported
from tests.harness.commands import run

DANA = "dana.whitfield@acme-build.com"
BJORN = "bjorn.lindqvist@acme-build.com"


def test_status_as_json_counts_what_the_text_counts(
    capsys: pytest.CaptureFixture[str], server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = ("--base-url", server)
    monkeypatch.setenv("HUBTUI_OPERATOR", "olive.owner")
    assert run(capsys, *base, "campaign", "start", "acme-build", "--due", "2026-01-01")[0] == 0
    bjorn = next(r for r in exported(capsys, base, "--packet", "1001") if r["email"] == BJORN)
    monkeypatch.setenv("HUBTUI_OPERATOR", DANA)
    file = decided(tmp_path / "d.csv", [bjorn | {"decision": "keep"}])
    assert run(capsys, *base, "campaign", "decide", "1", file)[0] == 0
    status, text, err = run(capsys, *base, "campaign", "status", "1")
    assert status == 0, err
    status, out, err = run(capsys, *base, "campaign", "status", "1", "--format", "json")
    assert status == 0, err
    said = json.loads(out)
    assert (said["campaign"], said["state"], said["due"]) == (1, "OVERDUE", "2026-01-01")
    assert said["record_check"] == "as written"
    bridge = next(p for p in said["packets"] if p["project"] == "1001")
    assert (bridge["assigned"], bridge["decided"], bridge["left"]) == (12, 1, 11)
    # The same numbers the text shows, line for line.
    assert "  Harbour Bridge Retrofit: 12 · 1 · 11" in text.splitlines()
    for reviewer in said["reviewers"]:
        words = f"  {reviewer['reviewer']}: {reviewer['assigned']:,} · {reviewer['decided']:,} · "
        assert words + f"{reviewer['left']:,}" in text.splitlines()


def test_a_start_nobody_matches_is_refused_unless_asked(
    capsys: pytest.CaptureFixture[str], server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both of skyline-dev's people signed in this year: ``--stale 3650d`` matches nobody."""
    base = ("--base-url", server)
    monkeypatch.setenv("HUBTUI_OPERATOR", "olive.owner")
    status, _, err = run(capsys, *base, "campaign", "start", "skyline-dev", "--stale", "3650d")
    assert status == 2
    assert "nobody matches --stale 3650d: no campaign started" in err
    status, out, err = run(capsys, *base, "campaign", "status", "1")
    assert status == 2
    assert "there is no campaign 1" in err
    status, out, err = run(
        capsys, *base, "campaign", "start", "skyline-dev", "--stale", "3650d", "--allow-empty"
    )
    assert status == 0, err
    assert "0 memberships of 0 people in 1 project (sha256 " in out


def test_the_report_names_each_bulk_act_resolution_and_a_decider_not_of_record(
    capsys: pytest.CaptureFixture[str], server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a file the operator decides: Dana (the packet's reviewer) keeps Björn in one act of
    two rows, Aiko (no reviewer of it) says Reader, the owner resolves. The report, in JSON
    and in the CSV's header block, says each of it."""
    base = ("--base-url", server)
    monkeypatch.setenv("HUBTUI_OPERATOR", "olive.owner")
    assert run(capsys, *base, "campaign", "start", "acme-build")[0] == 0
    rows = exported(capsys, base, "--packet", "1001")
    bjorn = next(r for r in rows if r["email"] == BJORN)
    chloe = next(r for r in rows if r["email"] == "chloe.moreau@acme-build.com")
    monkeypatch.setenv("HUBTUI_OPERATOR", DANA)
    file = decided(
        tmp_path / "dana.csv", [bjorn | {"decision": "keep"}, chloe | {"decision": "keep"}]
    )
    assert run(capsys, *base, "campaign", "decide", "1", file)[0] == 0
    monkeypatch.setenv("HUBTUI_OPERATOR", "aiko.tanaka@acme-build.com")
    file = decided(tmp_path / "aiko.csv", [chloe | {"decision": "reader"}])
    assert run(capsys, *base, "campaign", "decide", "1", file)[0] == 0
    monkeypatch.setenv("HUBTUI_OPERATOR", "olive.owner")
    file = decided(tmp_path / "owner.csv", [chloe | {"decision": "reader"}])
    assert run(capsys, *base, "campaign", "decide", "1", "--resolve", file)[0] == 0
    status, out, err = run(capsys, *base, "campaign", "report", "1", "--format", "json")
    assert status == 0, err
    record = json.loads(out)
    [act] = record["bulk_acts"]
    assert (act["by"], act["what"]) == (DANA, "2 rows · decisions file dana.csv")
    assert [r["email"] for r in act["rows"]] == [BJORN, "chloe.moreau@acme-build.com"]
    [resolution] = record["resolutions"]
    assert (resolution["email"], resolution["decision"], resolution["by"]) == (
        "chloe.moreau@acme-build.com",
        "set Reader",
        "olive.owner",
    )
    by_email = {r["email"]: r for r in record["rows"] if r["project"] == "1001"}
    assert by_email[BJORN]["by_reviewer_of_record"] == "yes"
    assert by_email["chloe.moreau@acme-build.com"]["by_reviewer_of_record"] == (
        "resolved by the owner"
    )
    kinds = [e["kind"] for e in record["events"]]
    assert kinds == ["bulk", "decide", "decide", "decide", "resolve"]
    status, out, err = run(capsys, *base, "campaign", "report", "1")
    assert status == 0, err
    head = [cells[0] for cells in csv.reader(io.StringIO(out)) if cells[0].startswith("# ")]
    assert any(
        h.startswith(f"# bulk act {act['act']}: {DANA} (database role none) at ") for h in head
    )
    assert (
        "# resolution 1: chloe.moreau@acme-build.com in 1001: set Reader by olive.owner "
        in "\n".join(head)
    )
    # Aiko's word alone, on a row that is not hers: flagged.
    monkeypatch.setenv("HUBTUI_OPERATOR", "aiko.tanaka@acme-build.com")
    diego = next(r for r in rows if r["email"] == "diego.garcia@acme-build.com")
    file = decided(tmp_path / "aiko2.csv", [diego | {"decision": "keep"}])
    assert run(capsys, *base, "campaign", "decide", "1", file)[0] == 0
    status, out, err = run(capsys, *base, "campaign", "report", "1", "--format", "json")
    diego_row = next(r for r in json.loads(out)["rows"] if r["email"] == diego["email"])
    assert diego_row["by_reviewer_of_record"] == "NO"


def test_the_start_counts_what_nobody_answering_would_send_as_the_close_sends_it(
    capsys: pytest.CaptureFixture[str], server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--if-no-answer reader``: the start counts the memberships the close would make
    Reader, not the Readers already, the Admins or the limited readers; its dry run sends as
    many; the start's words agree in number and name the hub once."""
    base = ("--base-url", server)
    monkeypatch.setenv("HUBTUI_OPERATOR", "olive.owner")
    status, out, err = run(
        capsys, *base, "campaign", "start", "acme-build", "--if-no-answer", "reader"
    )
    assert status == 0, err
    assert out.startswith("Campaign 1: Review of acme-build, population read ")
    assert "packet Depot 7 Fit-out (1003): 7 rows" in out
    said = next(line for line in out.splitlines() if line.startswith("If nobody answers: "))
    count = int(said.split()[3])
    status, sent, err = run(capsys, *base, "campaign", "close", "1", "--dry-run")
    assert status == 0, err
    assert sent.count("Would send: ") == count


def test_an_empty_packet_is_exported_as_its_header_and_a_cross_packet_conflict_is_left(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A packet the status lists exports (its header, said empty), never "no packet"; and a
    row in conflict counts as left wherever the conflict lies: a removal in one packet beside
    a keep in another is the owner's to resolve, not decided (the keep is decided)."""
    from hubtui.core.store import Store
    from hubtui.core.store.campaigns import CampaignRow, save_campaign

    monkeypatch.setenv("HUBTUI_OPERATOR", "olive.owner")
    folder = tmp_path / "data" / "demo"
    folder.mkdir(parents=True, mode=0o700)
    packets = {
        "1001": {"name": "Bridge", "reviewers": [DANA]},
        "1002": {"name": "Tower", "reviewers": [DANA]},
        "1003": {"name": "Depot", "reviewers": [DANA]},
    }
    rows = [
        CampaignRow(0, "1001", "Bridge", "3", BJORN, "", "Editor", "Guest", "Editor", DANA, ""),
        CampaignRow(1, "1002", "Tower", "3", BJORN, "", "Editor", "Guest", "Editor", DANA, ""),
    ]
    with Store.open(folder / "store.sqlite3") as store:
        save_campaign(
            store,
            {
                "origin": "demo",
                "hub": "7d1f0c3e-4b8a-4f6e-9a51-acme00000001",
                "hub_name": "acme-build",
                "name": "Review of acme-build",
                "owner": "olive.owner",
                "counts": json.dumps({"memberships": 2, "packets": packets}),
                "sha256": population_sha256(rows),
            },
            rows,
        )
    status, out, err = run(capsys, "--demo", "campaign", "export", "1", "--packet", "1003")
    assert status == 0, err
    assert out.splitlines() == [",".join(use.FILE_COLUMNS)]
    assert "Packet 1003 has no row to decide." in err
    status, _, err = run(capsys, "--demo", "campaign", "export", "1", "--packet", "9999")
    assert status == 1
    assert "no packet 9999 in campaign 1" in err
    both = exported(capsys, ("--demo",))
    both[0] |= {"decision": "remove", "reason": "left"}
    both[1] |= {"decision": "keep"}
    monkeypatch.setenv("HUBTUI_OPERATOR", DANA)
    file = decided(tmp_path / "d.csv", both)
    assert run(capsys, "--demo", "campaign", "decide", "1", file)[0] == 0
    status, out, err = run(capsys, "--demo", "campaign", "status", "1", "--format", "json")
    assert status == 0, err
    said = {p["name"]: (p["decided"], p["left"]) for p in json.loads(out)["packets"]}
    assert said == {"Bridge": (0, 1), "Tower": (1, 0), "Depot": (0, 0)}  # one rule: left


def test_campaign_mine_lists_what_waits_on_the_reviewer_and_nothing_else(
    capsys: pytest.CaptureFixture[str], server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = ("--base-url", server)
    monkeypatch.setenv("HUBTUI_OPERATOR", "olive.owner")
    assert run(capsys, *base, "campaign", "start", "acme-build", "--due", "2099-01-01")[0] == 0
    monkeypatch.setenv("HUBTUI_OPERATOR", DANA)
    status, out, err = run(capsys, *base, "campaign", "mine")
    assert status == 0, err
    assert out.splitlines() == [
        "Campaign 1 (Review of acme-build), due 2099-01-01: packet Harbour Bridge Retrofit "
        "(1001): 11 rows left · hubtui campaign export 1 --packet 1001",
        "Campaign 1 (Review of acme-build), due 2099-01-01: packet Québec Office Tower (1002): "
        "3 rows left · hubtui campaign export 1 --packet 1002",
    ]  # her own rows are the owner's; Depot 7 is Aiko's
    mine = [r | {"decision": "keep"} for r in exported(capsys, base, "--packet", "1001")]
    mine = [r for r in mine if r["email"] != DANA]
    assert run(capsys, *base, "campaign", "decide", "1", decided(tmp_path / "d.csv", mine))[0] == 0
    status, out, err = run(capsys, *base, "campaign", "mine", "--format", "json")
    assert status == 0, err
    assert [(w["packet"], w["left"]) for w in json.loads(out)] == [("1002", 3)]
    monkeypatch.setenv("HUBTUI_OPERATOR", "nobody@acme-build.com")
    status, out, err = run(capsys, *base, "campaign", "mine")
    assert (status, out) == (0, "")
    assert "Nothing waits on nobody@acme-build.com." in err
