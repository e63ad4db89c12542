"""``hubtui apply FILE.csv`` and ``hubtui revert BATCH`` against the demo server over HTTP: an
export edited and applied, a results file applied again, a dry run that is the real request."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import httpx
import pytest

from tests.harness.commands import run
from tests.harness.demo_api import DEMO_HEADERS

CHLOE = "chloe.moreau@acme-build.com"
DIEGO = "diego.garcia@acme-build.com"
GRACE = "grace.osei@northwind-eng.com"


def changes_made(url: str) -> tuple[int, int]:
    stats = httpx.get(f"{url}/_demo/stats", headers=DEMO_HEADERS).json()
    return stats["creates"], stats["updates"]


def rows_of(text: str) -> list[list[str]]:
    return [r for r in csv.reader(io.StringIO(text)) if r and not r[0].startswith("#")]


def results_file(folder: Path) -> Path:
    found = sorted(folder.glob("*-results-*.csv"))
    assert len(found) == 1, found
    return found[0]


def test_an_export_edited_is_applied_and_its_results_applied_again_change_nothing(
    server: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, out, _ = run(
        capsys, "--base-url", server, "users", "acme-build", "1001", "--format", "csv"
    )
    assert status == 0
    exported = rows_of(out)
    assert exported[0][:6] == ["hub", "project", "email", "role", "reviewer", "access"]
    grace = next(row for row in exported if row[2] == GRACE)
    assert grace[3:6] == ["—", "no", "limited reader"]  # no role of their own, as lists say
    # Untouched, the export changes nothing: every row is already so.
    untouched = tmp_path / "untouched.csv"
    untouched.write_text(out)
    status, out, err = run(capsys, "--base-url", server, "apply", str(untouched), "--dry-run")
    assert status == 0, err
    assert "0 to send (0 adds, 0 updates) · 12 no change" in out  # the preview: the answer
    # Edited: Chloe becomes an Editor, a limited reader becomes a direct member, a new person.
    edited = []
    for row in exported:
        if row[2] == CHLOE:
            row[3] = "Editor"
        if row[2] == GRACE:
            # No longer "limited reader", and a role of their own: a direct member.
            row[3], row[5] = "Reader", ""
        if row[2] == DIEGO:
            row[0], row[3] = "ACME Construction Group", "Admin"  # a DisplayName: refused
        edited.append(row)
    edited.append(["acme-build", "1001", "new.crew@subcontractor.example", "Reader", "", ""])
    edited.append(["acme-build", "1001", "new.crew@subcontractor.example", "Admin", "", ""])
    batch = tmp_path / "batch.csv"
    with batch.open("w", newline="") as handle:
        csv.writer(handle).writerows(edited)
    before = changes_made(server)
    status, out, err = run(capsys, "--base-url", server, "apply", str(batch), "--dry-run")
    assert status == 2, err  # the real run would refuse the duplicate and the DisplayName
    assert "3 to send (2 adds, 1 updates)" in out
    assert "a duplicate of line 14" in out
    assert "“ACME Construction Group” has the URL name “acme-build”" in out
    assert len(re.findall(r"Would send: (POST|PUT) ", out)) == 3
    assert changes_made(server) == before
    status, _, err = run(capsys, "--base-url", server, "apply", str(batch))
    assert status == 2
    assert "not asking without a terminal: add --yes" in err
    assert changes_made(server) == before
    status, _, err = run(capsys, "--base-url", server, "apply", str(batch), "--yes")
    assert status == 2, err  # done, with two rows refused
    assert re.search(r"Batch b[0-9a-f]{10}: 3 done, 0 failed, 0 unknown", err)
    assert changes_made(server) == (before[0] + 2, before[1] + 1)
    results = results_file(tmp_path)
    written = rows_of(results.read_text(encoding="utf-8-sig"))
    assert written[0][:5] == ["hub", "project", "email", "role", "reviewer"]
    assert written[0][-2:] == ["outcome", "message"]
    assert "access" in written[0]
    outcome = {(r[2], r[3]): r[-2] for r in written[1:]}
    assert outcome[CHLOE, "Editor"] == "done"
    assert outcome[GRACE, "Reader"] == "done"
    assert outcome["new.crew@subcontractor.example", "Reader"] == "done"
    assert outcome["new.crew@subcontractor.example", "Admin"] == "skipped"
    assert outcome[DIEGO, "Admin"] == "skipped"
    # The results, corrected (the DisplayName made a Name) and applied again: only Diego moves.
    fixed = results.read_text(encoding="utf-8-sig").replace("ACME Construction Group", "acme-build")
    again = tmp_path / "again.csv"
    again.write_text(fixed)
    status, out, err = run(capsys, "--base-url", server, "apply", str(again), "--yes")
    assert "1 to send (0 adds, 1 updates)" in out, err
    assert changes_made(server) == (before[0] + 2, before[1] + 2)
    status, out, _ = run(
        capsys, "--base-url", server, "users", "acme-build", "1001", "--format", "json"
    )
    roles = {u["User"]["Email"]: (u["Role"], u.get("IsLimited")) for u in json.loads(out)}
    assert roles[CHLOE] == ("Editor", False)
    assert roles[GRACE] == ("Reader", False)
    assert roles[DIEGO] == ("Admin", False)


def test_a_batch_is_reverted_and_its_adds_are_named_not_skipped(
    server: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    batch = tmp_path / "batch.csv"
    batch.write_text(
        "hub,project,email,role,reviewer\n"
        f"acme-build,1001,{CHLOE},Admin,yes\n"
        "acme-build,Québec Office Tower,temp@subcontractor.example,Reader,\n"
    )
    status, _, err = run(capsys, "--base-url", server, "apply", str(batch), "--yes")
    assert status == 0, err
    batch_id = re.search(r"Batch (b[0-9a-f]{10}):", err)
    assert batch_id is not None
    status, out, err = run(capsys, "--base-url", server, "revert", batch_id.group(1), "--dry-run")
    assert status == 0, err
    assert "Role: Admin → Reader, IsReviewer: yes → no" in out
    assert "Cannot be put back: temp@subcontractor.example was added" in err
    status, _, err = run(capsys, "--base-url", server, "revert", batch_id.group(1), "--yes")
    assert status == 0, err
    assert f"(reverts {batch_id.group(1)})" in err
    # Run again: already reverted, said with its rows, and nothing is sent.
    before = changes_made(server)
    status, out, err = run(capsys, "--base-url", server, "revert", batch_id.group(1), "--yes")
    assert status == 0, err
    assert "Already put back by batch b" in err
    assert f"{CHLOE} in Harbour Bridge Retrofit: Role: Admin → Reader" in err
    assert f"Batch {batch_id.group(1)} is reverted." in err
    assert "changed since staged" not in out + err
    assert changes_made(server) == before
    status, out, _ = run(
        capsys, "--base-url", server, "users", "acme-build", "1001", "--format", "json"
    )
    chloe = next(u for u in json.loads(out) if u["User"]["Email"] == CHLOE)
    assert (chloe["Role"], chloe["IsReviewer"]) == ("Reader", False)
    status, _, err = run(capsys, "--base-url", server, "revert", "b0000000000")
    assert status == 1
    assert f"the latest: {batch_id.group(1)}" in err


def test_apply_refuses_under_read_only_and_names_a_file_it_cannot_read(
    server: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    batch = tmp_path / "batch.csv"
    batch.write_text(f"hub,project,email,role\nacme-build,1001,{CHLOE},Editor\n")
    status, _, err = run(
        capsys, "--base-url", server, "--read-only", "apply", str(batch), "--dry-run"
    )
    assert status == 2
    assert "read-only is on" in err
    nothing = tmp_path / "nothing.csv"
    nothing.write_text("email,role\nx@y.example,Reader\n")
    status, _, err = run(capsys, "--base-url", server, "apply", str(nothing), "--yes")
    assert status == 2
    assert "lacks the column(s) hub, project" in err


def test_server_text_in_a_batch_is_inert_in_the_preview_and_the_results(
    server: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    batch = tmp_path / "batch.csv"
    evil = "=cmd|' /C calc'!A0\x1b[31m@evil.example"
    batch.write_text(f'hub,project,email,role\nacme-build,1001,"{evil}",Reader\n')
    status, out, err = run(capsys, "--base-url", server, "apply", str(batch), "--yes")
    assert status == 2
    assert "\x1b" not in out + err
    written = results_file(tmp_path).read_text(encoding="utf-8-sig")
    assert "\x1b" not in written
    assert "'=cmd" in written  # formula-safe
