"""A campaign's decisions file as people edit it in a spreadsheet: a column sorted apart from the
others, one row decided twice, an export given back whole, a file saved with ``;`` or in another
encoding, and a file piped in (``decide -``), through the installed command where a pipe is."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import sqlite3
import subprocess
from pathlib import Path

import pytest

from tests.harness.campaigns import decided, exported
from tests.harness.commands import run
from tests.harness.harness import hubtui_command

BJORN = "bjorn.lindqvist@acme-build.com"  # Editor in 1001
CHLOE = "chloe.moreau@acme-build.com"  # Reader in 1001
DANA = "dana.whitfield@acme-build.com"  # Admin of 1001: the packet's reviewer
AIKO = "aiko.tanaka@acme-build.com"
OWNER = "olive.owner"


def be(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.setenv("HUBTUI_OPERATOR", name)


def started(capsys: pytest.CaptureFixture[str], base: tuple[str, ...]) -> list[dict[str, str]]:
    """Campaign 1 of acme-build, and its packet 1001 as exported."""
    status, _, err = run(capsys, *base, "campaign", "start", "acme-build")
    assert status == 0, err
    return exported(capsys, base, "--packet", "1001")


written = decided


def report_rows(
    capsys: pytest.CaptureFixture[str], base: tuple[str, ...]
) -> dict[str, dict[str, str]]:
    status, out, err = run(capsys, *base, "campaign", "report", "1", "--format", "json")
    assert status == 0, err
    return {r["email"]: r for r in json.loads(out)["rows"] if r["project"] == "1001"}


def test_a_line_whose_address_is_another_accounts_is_refused_naming_both(
    capsys: pytest.CaptureFixture[str], server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One column sorted in a spreadsheet: Björn's Id beside Chloé's address. Neither account
    is decided by that line; the other lines are."""
    base = ("--base-url", server)
    be(monkeypatch, OWNER)
    rows = started(capsys, base)
    bjorn = next(r for r in rows if r["email"] == BJORN)
    chloe = next(r for r in rows if r["email"] == CHLOE)
    sorted_apart = bjorn | {"email": CHLOE, "decision": "remove", "reason": "left"}
    be(monkeypatch, DANA)
    file = written(tmp_path / "d.csv", [sorted_apart, chloe | {"decision": "reader"}])
    status, _, err = run(capsys, *base, "campaign", "decide", "1", file)
    assert status == 3  # some refused, the rest recorded
    assert (
        f"Refused: line 2: account {bjorn['user_id']} is {BJORN} in the campaign, but the line "
        f"says {CHLOE}" in err
    )
    assert "Recorded 1 decision by dana.whitfield@acme-build.com" in err
    decided = report_rows(capsys, base)
    assert decided[BJORN]["decided_by"] == ""  # nobody removed on a sorted column
    assert (decided[CHLOE]["decision"], decided[CHLOE]["decided_by"]) == ("set Reader", DANA)


def test_two_lines_of_one_row_that_disagree_are_both_refused_naming_their_lines(
    capsys: pytest.CaptureFixture[str], server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = ("--base-url", server)
    be(monkeypatch, OWNER)
    rows = started(capsys, base)
    chloe = next(r for r in rows if r["email"] == CHLOE)
    be(monkeypatch, DANA)
    file = written(
        tmp_path / "d.csv",
        [
            chloe | {"decision": "keep"},
            chloe | {"decision": "keep"},  # the same word twice: once
            chloe | {"decision": "remove", "reason": "contract ended"},
        ],
    )
    status, _, err = run(capsys, *base, "campaign", "decide", "1", file)
    assert status == 2
    assert (
        f"Refused: lines 2 and 4 decide {CHLOE} in Harbour Bridge Retrofit differently "
        "(keep, remove from hub): neither is recorded" in err
    )
    assert "No decision recorded" in err
    assert report_rows(capsys, base)[CHLOE]["decided_by"] == ""  # not the last line's word


def test_an_export_given_back_whole_records_only_what_changed_as_its_decider(
    capsys: pytest.CaptureFixture[str], server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Dana decides her packet; Aiko exports the whole campaign, changes one row and gives the
    file back: one decision is Aiko's, Dana's stay Dana's and no bulk act of Aiko's covers them."""
    base = ("--base-url", server)
    be(monkeypatch, OWNER)
    rows = started(capsys, base)
    be(monkeypatch, DANA)
    mine = [r | {"decision": "keep"} for r in rows if r["email"] != DANA]
    status, _, err = run(
        capsys, *base, "campaign", "decide", "1", written(tmp_path / "d.csv", mine)
    )
    assert status == 0, err
    status, out, err = run(capsys, *base, "campaign", "export", "1")
    assert status == 0, err
    everything = list(csv.DictReader(io.StringIO(out)))
    for row in everything:
        if row["email"] == CHLOE and row["project"] == "1001":
            row["decision"] = "reader"
    be(monkeypatch, AIKO)
    status, _, err = run(
        capsys, *base, "campaign", "decide", "1", written(tmp_path / "all.csv", everything)
    )
    assert status == 0, err
    assert f"Recorded 1 decision by {AIKO}" in err
    assert f"Already so, not recorded again: {len(mine) - 1} lines." in err
    decided = report_rows(capsys, base)
    assert decided[BJORN]["decided_by"] == DANA
    assert decided[BJORN]["bulk"] == "yes"  # Dana's act, still
    # Chloé: Dana kept, Aiko says Reader: a conflict for the owner, not Aiko's stamp on the rest.
    status, out, _ = run(capsys, *base, "campaign", "status", "1")
    assert "Conflicts for the owner (olive.owner) to resolve: 1" in out


def test_a_file_a_spreadsheet_saved_otherwise_is_refused_saying_what_to_save_it_as(
    capsys: pytest.CaptureFixture[str], server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = ("--base-url", server)
    be(monkeypatch, OWNER)
    rows = started(capsys, base)
    chloe = next(r for r in rows if r["email"] == CHLOE) | {"decision": "keep"}
    be(monkeypatch, DANA)
    semicolons = tmp_path / "semicolons.csv"
    semicolons.write_text(
        ";".join(chloe) + "\n" + ";".join(chloe.values()) + "\n", encoding="utf-8"
    )
    status, _, err = run(capsys, *base, "campaign", "decide", "1", str(semicolons))
    assert status == 2
    assert "its columns are separated by ';', not ','" in err
    assert 'save it as "CSV UTF-8 (comma delimited)"; nothing was recorded.' in err
    utf16 = tmp_path / "unicode.csv"
    utf16.write_text(",".join(chloe) + "\n" + ",".join(chloe.values()) + "\n", encoding="utf-16")
    status, _, err = run(capsys, *base, "campaign", "decide", "1", str(utf16))
    assert status == 2
    assert 'it is UTF-16 text (a spreadsheet\'s "Unicode text"): save it as "CSV UTF-8"' in err
    latin = tmp_path / "latin.csv"
    latin.write_bytes(",".join(chloe).encode() + b"\n1,2,3,1001,7,x,Chlo\xe9\n")
    status, _, err = run(capsys, *base, "campaign", "decide", "1", str(latin))
    assert status == 2
    assert "it is not UTF-8 text (byte " in err
    assert report_rows(capsys, base)[CHLOE]["decided_by"] == ""


@pytest.mark.e2e
def test_decisions_piped_into_the_installed_command_are_recorded(
    capsys: pytest.CaptureFixture[str], server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = ("--base-url", server)
    be(monkeypatch, OWNER)
    rows = started(capsys, base)
    chloe = next(r for r in rows if r["email"] == CHLOE) | {"decision": "reader"}
    body = io.StringIO()
    writer = csv.DictWriter(body, fieldnames=list(chloe))
    writer.writeheader()
    writer.writerow(chloe)
    done = subprocess.run(
        [*hubtui_command(), *base, "campaign", "decide", "1", "-"],
        input=body.getvalue().encode(),
        capture_output=True,
        env={**os.environ, "HUBTUI_OPERATOR": DANA},
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    assert f"Recorded 1 decision by {DANA} in campaign 1" in done.stderr.decode()
    decided = report_rows(capsys, base)
    assert (decided[CHLOE]["decision"], decided[CHLOE]["decided_by"]) == ("set Reader", DANA)


def test_a_population_changed_after_the_freeze_is_said_first_and_the_close_refuses(
    capsys: pytest.CaptureFixture[str], server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An eighth membership slipped into the store behind hubtui's back: status and the report
    say so before anything else (exit 3), the close sends nothing; untouched, an auditor
    recomputes the sha256 from the report's own rows as it says."""
    base = ("--base-url", server)
    be(monkeypatch, OWNER)
    started(capsys, base)
    status, out, err = run(capsys, *base, "campaign", "report", "1", "--format", "json")
    assert status == 0, err
    report = json.loads(out)
    assert report["population"]["check"] == "as frozen"
    lines = sorted(
        json.dumps(
            [r["project"], r["user_id"], r["email"], r["role"], r["hub_role"], r["access"]],
            ensure_ascii=False,
            separators=(",", ":"),
        )
        for r in report["rows"]
    )
    recomputed = hashlib.sha256("\n".join(lines).encode()).hexdigest()
    assert recomputed == report["population"]["sha256"]

    store = tmp_path / "data" / "store.sqlite3"
    with sqlite3.connect(store) as db:
        db.execute(
            "INSERT INTO campaign_rows (campaign, position, project, project_name, user_id, email, "
            "name, role, hub_role, access, reviewer, earlier, reviewer_id) VALUES (1, 23, '1001', "
            "'Harbour Bridge Retrofit', '99', 'mallory@acme-build.com', 'Mallory', 'Admin', "
            "'Member', 'Admin', 'olive.owner', '', '')"
        )
    status, out, err = run(capsys, *base, "campaign", "status", "1")
    assert status == 3
    assert err.startswith(
        "CHANGED: the population of campaign 1 changed after it was frozen: 24 rows, the "
        "freeze had 23"
    )
    status, out, err = run(capsys, *base, "campaign", "report", "1", "--format", "json")
    assert status == 3
    assert json.loads(out)["population"]["check"].endswith("24 rows, the freeze had 23")
    status, out, err = run(capsys, *base, "campaign", "close", "1", "--yes")
    assert status == 3
    assert "it is not closed, and nothing was sent" in err
    assert out == ""
