"""From a ticket to the next step, as ``hubtui why`` answers it against the demo over HTTP: the
tickets a newcomer tried, each decided by the one table (``core/people/advice.py``)."""

from __future__ import annotations

import json
import re
import shlex
from typing import Any

import pytest

from tests.harness.commands import run
from tests.harness.fronts import Served, why_json

ACME = "acme-build"


def steps(answer: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {step["code"]: step for step in answer["next_steps"]}


def test_a_typo_names_the_address_nearby_and_adds_nobody_unasked(
    capsys: pytest.CaptureFixture[str], demo: Served
) -> None:
    status, answer, err = why_json(
        capsys, demo, "lena.fisher@example-mail.com", "tower", "--hub", ACME
    )
    assert status == 0, err
    assert answer["verdict_code"] == "not_a_user"
    said = steps(answer)
    assert list(said) == ["unknown_address", "near_address", "add_if_right"]
    assert said["near_address"]["words"] == (
        "Near it in the hub: lena.fischer@example-mail.com (Reader in the project); is it "
        "theirs? (why for it)"
    )
    assert said["near_address"]["command"] == (
        f"hubtui why lena.fischer@example-mail.com 1002 --hub {ACME}"
    )
    assert said["add_if_right"]["words"].startswith("If the address is right")
    assert "sso_tenant" not in said  # before: the SSO tenant was blamed


def test_an_address_that_is_nowhere_is_said_to_be_in_no_hub(
    capsys: pytest.CaptureFixture[str], demo: Served
) -> None:
    status, answers, err = why_json(capsys, demo, "nobody@nowhere.example", "--hub", ACME)
    assert status == 2, err
    assert [a["verdict_code"] for a in answers] == ["not_a_user"]
    assert steps(answers[0])["unknown_address"]["words"] == (
        "No one with this address is a user of acme-build"
    )
    assert "neither a user nor in a project of hub acme-build" in err


def test_a_hub_user_not_in_the_project_is_to_be_added_to_it(
    capsys: pytest.CaptureFixture[str], demo: Served
) -> None:
    lena = "lena.fischer@example-mail.com"  # a Reader of Québec Office Tower, not of Harbour
    status, answer, err = why_json(capsys, demo, lena, "harbour", "--hub", ACME)
    assert status == 0, err
    add = steps(answer)["add_to_project"]
    assert shlex.split(add["command"]) == ["hubtui", "add-user", ACME, "1001", lena, "Reader"]
    assert "as a direct member" in add["words"]  # Harbour is Limited: her domain is not read by


def test_a_hub_user_outside_the_tenant_is_told_the_likely_cause_unless_they_got_in_lately(
    capsys: pytest.CaptureFixture[str], demo: Served
) -> None:
    from datetime import UTC, datetime, timedelta

    oscar = demo.add_account("oscar@fabrikam.example", activated=True)
    demo.member(oscar, 1002, "Editor")
    status, answer, err = why_json(capsys, demo, "oscar@fabrikam.example", "1002", "--hub", ACME)
    assert status == 0, err
    assert answer["verdict_code"] == "can_edit"
    assert "sso_tenant" not in steps(answer)  # signed in today: the restriction lets them in
    access = demo.store._hub_access[demo.hub().id, oscar]
    access.web_login = datetime.now(UTC) - timedelta(days=45)
    status, answer, err = why_json(capsys, demo, "oscar@fabrikam.example", "1002", "--hub", ACME)
    assert status == 0, err
    sso = steps(answer)["sso_tenant"]["words"]
    assert "that is the likely reason they cannot sign in" in sso
    assert "last seen 45 days ago, counted from their last web sign-in, 20" in sso
    assert sso.endswith("; if the restriction came since, this is why)")


def test_a_person_a_review_removed_is_told_who_removed_them_and_how_to_put_it_back(
    capsys: pytest.CaptureFixture[str], demo: Served
) -> None:
    status, _, err = run(capsys, "--base-url", demo.url, "offboard", "eve@acme-build.com",
                         "--hub", ACME, "--yes", "--reason", "left the company")  # fmt: skip
    assert status == 0, err
    batch = re.search(r"Batch (b\w+)", err)
    assert batch is not None, err
    status, answer, err = why_json(capsys, demo, "eve@acme-build.com", "1001", "--hub", ACME)
    assert status == 0, err
    said = steps(answer)
    changed = said["changed_by_hubtui"]
    assert changed["words"].startswith("hubtui changed their access: removed from the hub")
    # The review it was decided in, its reason, when to the minute, and what they had.
    assert re.search(
        r"on \d{4}-\d\d-\d\d \d\d:\d\d UTC by \S+ in access review #1 \(reason: left the "
        r"company\); they had Reader in Harbour Bridge Retrofit; to put it back",
        changed["words"],
    ), changed["words"]
    facts = {f["fact"]: f["says"] for f in answer["facts"]}
    assert facts["hub user before"].startswith("account Id ")
    assert "was a user of the hub (Admin) until hubtui's change of " in facts["hub user before"]
    assert changed["command"] == f"hubtui revert {batch.group(1)}"
    assert "sso_tenant" not in said  # no longer a hub user: never blamed on the SSO
    assert list(said)[0] == "changed_by_hubtui"  # what hubtui did comes first
    assert "add_if_right" not in said  # its revert is the fix, not a new invitation


def test_the_help_s_opening_names_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    import argparse

    from hubtui.cli import build_parser

    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert parser.description is not None
    opening = parser.description.replace("\n", " ")
    for name in ("why", "review", "reviews", "log", "offboard", "serve", "demo-server"):
        assert name in commands.choices
    for name in commands.choices:
        assert f" {name}," in opening or f"({name}," in opening or f" {name})" in opening, name


def test_hub_and_project_named_as_a_script_can_rely_on(
    capsys: pytest.CaptureFixture[str], demo: Served
) -> None:
    grace = "grace.osei@northwind-eng.com"
    status, _, err = why_json(capsys, demo, grace, "9999", "--hub", ACME)
    assert status == 2, err  # not a 404 read as "unknown", exit 3
    assert "no project named '9999' or with that Id in the projects the hub lists" in err
    status, _, err = why_json(capsys, demo, grace, "1001", "--hub", "nope")
    assert status == 2, err  # not 1
    assert "No hub has the URL name or id “nope”" in err
    status, answer, err = why_json(capsys, demo, grace, "1001", "--hub", "ACME Construction Group")
    assert status == 0, err
    assert (answer["hub"], answer["verdict_code"]) == (ACME, "limited_reader")
    assert "is the DisplayName of hub acme-build: answering for that hub" in err


def test_a_change_under_demo_says_it_lasts_only_in_that_process(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, _, err = run(capsys, "--demo", "set-role", ACME, "1001",
                         "aiko.tanaka@acme-build.com", "Reader", "--yes")  # fmt: skip
    assert status == 0, err
    assert "--demo starts afresh in each process: the change lasts only in this one" in err
    status, _, err = run(capsys, "--demo", "hubs")
    assert "starts afresh" not in err  # only where something was changed


def test_each_fact_carries_its_field_its_value_as_sent_and_its_record(
    demo: Served, capsys: pytest.CaptureFixture[str]
) -> None:
    """A script reads each fact's field by its API name and its value as the server sent it
    (a date in the server's own form, not hubtui's); a field the server did not send has no
    value at all, never a default."""
    lena = "lena.fischer@example-mail.com"
    lena_id = demo.user_id(lena)

    def as_odd_as_sent(status: int, body: Any) -> tuple[int, Any]:
        for record in body:
            if record["User"]["Id"] == lena_id:
                record["LastWebLogin"] = "2026-10-26T19:34:00.1234567+02:00"
                del record["IsActivated"]
        return status, body

    demo.front.rewrite["GET", f"{demo.hub_path()}/users"] = as_odd_as_sent
    status, answer, err = why_json(capsys, demo, lena, "1002", "--hub", ACME)
    assert status == 0, err
    facts = {fact["fact"]: fact for fact in answer["facts"]}
    web = facts["last web sign-in"]
    assert web["field"] == "LastWebLogin"
    assert web["value"] == "2026-10-26T19:34:00.1234567+02:00"  # as sent, to the digit
    assert web["record"] == f"hub {demo.hub().id}, user Id {lena_id}"
    invitation = facts["invitation to the hub"]
    assert invitation["field"] == "IsActivated"
    assert "value" not in invitation  # not sent: no value, no default
    assert invitation["says"] == "not sent"
    limited = facts["IsLimited"]
    assert (limited["field"], limited["value"]) == ("IsLimited", False)
    assert limited["record"] == f"project 1002, user Id {lena_id}"
    assert facts["project access"]["value"] == "Private"
    assert "field" not in facts["last seen"]  # a conclusion, not a field: no value claimed


def test_why_says_since_when_from_the_snapshots_kept(capsys: pytest.CaptureFixture[str]) -> None:
    """The demo keeps its week-old data as the first snapshot: Aiko, a Reader then and an
    Editor now, is told to have changed since it; Chloe, a Reader in both, since it."""
    status, out, err = run(
        capsys, "--demo", "why", "aiko.tanaka@acme-build.com", "1001", "--hub", ACME
    )
    assert status == 0, err
    assert "- since: Editor now; Reader at snapshot #1 (" in out
    assert "the latest kept: changed since (the snapshots kept)" in out
    status, out, err = run(
        capsys,
        "--demo",
        "why",
        "chloe.moreau@acme-build.com",
        "1001",
        "--hub",
        ACME,
        "--format",
        "json",
    )
    assert status == 0, err
    since = [fact for fact in json.loads(out)["facts"] if fact["fact"] == "since"]
    assert len(since) == 1
    assert since[0]["says"].startswith("Reader in every snapshot kept of it, since snapshot #1")
    assert since[0]["from"] == "the snapshots kept"


def test_a_store_that_cannot_be_read_is_said_never_taken_for_no_snapshot(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The demo's store broken after its first snapshot: why still answers from what it read
    now, and says the snapshots could not be read rather than saying nothing of them."""
    from hubtui.core.places import default_store_path

    status, out, err = run(
        capsys, "--demo", "why", "aiko.tanaka@acme-build.com", "1001", "--hub", ACME
    )
    assert status == 0, err
    assert "- since: Editor now" in out
    default_store_path(demo=True).write_bytes(b"not a store at all " * 512)
    status, out, err = run(
        capsys, "--demo", "why", "aiko.tanaka@acme-build.com", "1001", "--hub", ACME
    )
    assert status == 0, err  # what was read now is answered whole
    assert "- since: not read (The store " in out
    assert "project role: Editor" in out


def test_an_address_unknown_everywhere_is_said_first_with_what_was_not_read(
    capsys: pytest.CaptureFixture[str], demo: Served
) -> None:
    """No --hub: nobody with the address in any hub is the answer's first line, the projects
    that could not be read named in it; the exit status says the answer is incomplete."""
    status, out, err = run(capsys, "--base-url", demo.url, "why", "nobody@nowhere.example")
    assert status == 3, err  # a project could not be read: it may hold them
    first = out.splitlines()[0]
    assert first.startswith("No one with this address is a user of any of the 8 hubs read")
    assert "not read, so not known there: Bergen Tunnel Survey (nordic-rail)" in first
    status, answers, err = why_json(capsys, demo, "nobody@nowhere.example")
    codes = [a["verdict_code"] for a in answers]
    assert codes.count("not_a_user") == 8
    assert codes.count("unknown") == 1


def test_a_typo_everywhere_names_the_near_address_of_each_hub(
    capsys: pytest.CaptureFixture[str], demo: Served
) -> None:
    status, out, err = run(capsys, "--base-url", demo.url, "why", "aiko.tanaka@acme-biuld.com")
    assert out.startswith("No one with this address is a user of any of the 8 hubs read")
    assert "Next: Near it in the hub: aiko.tanaka@acme-build.com (a user of the hub)" in out
    assert "aiko.tanaka@harbor-contractors.example" in out


def test_a_lookalike_address_is_said_to_be_one_in_the_text_and_the_json(
    capsys: pytest.CaptureFixture[str], demo: Served
) -> None:
    cyrillic = "len\u0430.fischer@example-mail.com"  # a Cyrillic а
    status, answer, err = why_json(capsys, demo, cyrillic, "tower", "--hub", ACME)
    assert status == 0, err
    facts = {f["fact"]: f["says"] for f in answer["facts"]}
    assert facts["address"] == "a lookalike: it mixes Cyrillic and Latin letters"
    near = steps(answer)["near_address"]
    assert near["command"] == f"hubtui why lena.fischer@example-mail.com 1002 --hub {ACME}"
    status, out, err = run(capsys, "--base-url", demo.url, "why", cyrillic, "tower", "--hub", ACME)
    assert "- address: a lookalike: it mixes Cyrillic and Latin letters" in out
