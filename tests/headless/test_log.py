"""`hubtui log`: the changes sent to a server, each with its operator, read from the change log
alone; filtered by date, operator and person; another server's changes are not its own."""

from __future__ import annotations

import json

import pytest

from tests.harness.commands import run
from tests.harness.harness import running_demo_server

CHLOE = "chloe.moreau@acme-build.com"
AIKO = "aiko.tanaka@acme-build.com"


def test_each_change_names_its_operator_and_the_log_filters_them(
    capsys: pytest.CaptureFixture[str], server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = ("--base-url", server)
    monkeypatch.setenv("HUBTUI_OPERATOR", "Ann (support)")
    assert run(capsys, *base, "set-role", "acme-build", "1001", CHLOE, "Admin", "--yes")[0] == 0
    monkeypatch.setenv("HUBTUI_OPERATOR", "Ben (admins)")
    assert run(capsys, *base, "set-role", "acme-build", "1001", AIKO, "Reader", "--yes")[0] == 0
    status, out, err = run(capsys, *base, "log", "--format", "json")
    assert status == 0, err
    logged = json.loads(out)
    assert [(c["operator"], c["email"], c["outcome"]) for c in logged] == [
        ("Ann (support)", CHLOE, "done"),
        ("Ben (admins)", AIKO, "done"),
    ]
    assert logged[0]["change"] == "Role: Reader → Admin"
    status, out, _ = run(capsys, *base, "log", "--operator", "ann", "--format", "json")
    assert [c["email"] for c in json.loads(out)] == [CHLOE]
    status, out, _ = run(capsys, *base, "log", "--person", AIKO.upper(), "--format", "json")
    assert [c["operator"] for c in json.loads(out)] == ["Ben (admins)"]
    status, out, err = run(capsys, *base, "log", "--since", "2999-01-01")
    assert (status, out) == (1, "")
    assert "no change in the change log matches" in err
    with running_demo_server() as other:  # another server: none of these are its own
        status, out, _ = run(capsys, "--base-url", other, "log", "--format", "json")
        assert (status, json.loads(out)) == (1, [])


def test_an_operator_that_is_not_one_line_of_plain_text_is_refused(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HUBTUI_OPERATOR", "Ann\x1b[2J")
    status, _, err = run(capsys, "--demo", "log")
    assert status == 2
    assert "The operator setting must be a name" in err
