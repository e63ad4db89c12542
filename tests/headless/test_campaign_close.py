"""A campaign's close as the team relies on it: never the last Admin of a project or of the hub,
and why each decided change was not sent kept in the record, not only said at the terminal."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from tests.harness.commands import run
from tests.harness.harness import running_demo_server

DANA = "dana.whitfield@acme-build.com"  # the only Admin of 1001 and 1002
CHLOE = "chloe.moreau@acme-build.com"  # Reader in 1001
BJORN = "bjorn.lindqvist@acme-build.com"  # Editor in 1001
OWNER = "olive.owner"


def be(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.setenv("HUBTUI_OPERATOR", name)


def decide(
    capsys: pytest.CaptureFixture[str],
    base: tuple[str, ...],
    path: Path,
    words: dict[str, str],
) -> None:
    """Packet 1001's rows named in ``words`` (address → decision) decided from a file."""
    status, out, err = run(capsys, *base, "campaign", "export", "1", "--packet", "1001")
    assert status == 0, err
    rows = [
        r | {"decision": words[r["email"]], "reason": "review"}
        for r in csv.DictReader(io.StringIO(out))
        if r["email"] in words
    ]
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    status, _, err = run(capsys, *base, "campaign", "decide", "1", str(path))
    assert status == 0, err


def test_the_close_never_takes_a_project_s_only_admin_and_the_report_says_why(
    capsys: pytest.CaptureFixture[str], server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = ("--base-url", server)
    be(monkeypatch, OWNER)
    assert run(capsys, *base, "campaign", "start", "acme-build")[0] == 0
    # Dana's own row is the owner's to decide: Reader, which would leave 1001 with no Admin.
    decide(capsys, base, tmp_path / "o.csv", {DANA: "reader", BJORN: "reader"})

    status, out, err = run(capsys, *base, "campaign", "close", "1", "--dry-run")
    assert status == 0, err
    said = (
        f"Not sent: {DANA} in Harbour Bridge Retrofit: {DANA} is the only Admin of Harbour "
        "Bridge Retrofit: it would be left with none"
    )
    assert said in err
    assert f"update   {BJORN}" in out
    assert f"update   {DANA}" not in out
    status, out, err = run(capsys, *base, "campaign", "close", "1", "--dry-run", "--allow-no-admin")
    assert status == 0, err
    assert f"Sent all the same (--allow-no-admin): {DANA}: {DANA} is the only Admin" in err
    assert f"update   {DANA}" in out

    status, out, err = run(capsys, *base, "campaign", "close", "1", "--yes")
    assert status == 0, err
    assert said in err
    status, out, err = run(capsys, *base, "users", "acme-build", "1001", "--format", "json")
    assert status == 0, err
    roles = {u["User"]["Email"]: u["Role"] for u in json.loads(out)}
    assert (roles[DANA], roles[BJORN]) == ("Admin", "Reader")
    status, out, err = run(capsys, *base, "campaign", "report", "1", "--format", "json")
    assert status == 0, err
    rows = {r["email"]: r for r in json.loads(out)["rows"] if r["project"] == "1001"}
    assert rows[DANA]["verified"] == (
        f"not sent: {DANA} is the only Admin of Harbour Bridge Retrofit: it would be left with none"
    )
    assert rows[BJORN]["verified"] == "verified: Reader"


def test_a_change_the_server_refuses_is_the_row_s_outcome_in_its_words(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with running_demo_server("--change-failure-status", "409") as refusing:
        base = ("--base-url", refusing)
        be(monkeypatch, OWNER)
        assert run(capsys, *base, "campaign", "start", "acme-build")[0] == 0
        be(monkeypatch, DANA)
        decide(capsys, base, tmp_path / "d.csv", {BJORN: "reader"})
        be(monkeypatch, OWNER)
        status, out, err = run(capsys, *base, "campaign", "close", "1", "--yes")
        assert status == 3, err
        assert f"FAILED: {BJORN} in Harbour Bridge Retrofit: failed: " in err
        status, out, err = run(capsys, *base, "campaign", "report", "1", "--format", "json")
        record = json.loads(out)
        [bjorn] = [r for r in record["rows"] if (r["project"], r["email"]) == ("1001", BJORN)]
        assert bjorn["verified"].startswith("failed: ")
        assert "The demo server refused the change" in bjorn["verified"]
        assert record["closed"] is not None  # every row says what happened: closed
