"""What a campaign says of itself to a script and to its owner: ``status --format json``, and a
start whose population is empty refused before anything is kept for good."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

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
