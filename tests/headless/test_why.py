"""``hubtui why``: the tickets support staff get, each answered in one step against the demo —
the verdict, the facts behind it (each from the record that said it) and the next step only where
the facts support it."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest

from tests.harness.commands import run

BRIDGE = "1001"


def why(
    capsys: pytest.CaptureFixture[str], email: str, project: str = BRIDGE, hub: str = "acme-build"
) -> tuple[int, dict[str, Any]]:
    status, out, err = run(
        capsys, "--demo", "why", email, project, "--hub", hub, "--format", "json"
    )
    assert out, err
    return status, json.loads(out)


def facts(answer: dict[str, Any]) -> dict[str, str]:
    return {fact["fact"]: fact["says"] for fact in answer["facts"]}


def steps(answer: dict[str, Any]) -> str:
    """Each next step's words and command, as one text."""
    return " ".join(
        f"{s['words']}." if s["command"] is None else f"{s['words']}: {s['command']}"
        for s in answer["next_steps"]
    )


def codes(answer: dict[str, Any]) -> list[str]:
    return [s["code"] for s in answer["next_steps"]]


def test_a_limited_reader_is_told_as_one_with_how_to_let_them_edit(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, answer = why(capsys, "grace.osei@northwind-eng.com")
    assert status == 0
    assert answer["verdict"] == "can only read, as a limited reader through @northwind-eng.com"
    said = facts(answer)
    assert said["IsLimited"].startswith("true")
    assert said["project access"].startswith("Limited")
    assert "add them as a direct member" in steps(answer)
    assert answer["verdict_code"] == "limited_reader"
    assert answer["limited_through"] == "northwind-eng.com"
    # She signs in: the restriction is worded with when, never as the cause for certain, and
    # not at all while she was seen in the last 30 days (it lets her in).
    days = days_since(datetime(2026, 11, 3, 12, 52, tzinfo=UTC))  # the demo's dates stay put
    when = f"last seen {days} days ago, counted from their last activity in the hub, 2026-11-03"
    assert (when in steps(answer)) == (days > 30)
    assert ("sso_tenant" in codes(answer)) == (days > 30)


@pytest.mark.parametrize(
    ("email", "verdict"),
    [
        ("chloe.moreau@acme-build.com", "can read (a direct Reader)"),
        ("aiko.tanaka@acme-build.com", "can edit"),
        ("dana.whitfield@acme-build.com", "admin"),
    ],
)
def test_a_direct_member_s_verdict_is_their_role(
    capsys: pytest.CaptureFixture[str], email: str, verdict: str
) -> None:
    status, answer = why(capsys, email)
    assert status == 0
    assert answer["verdict"] == verdict
    assert facts(answer)["IsLimited"] == "false (a direct member)"


def test_an_invitation_never_accepted_says_to_send_it_again(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, answer = why(capsys, "hamid.karimi@northwind-eng.com")
    assert facts(answer)["invitation to the hub"] == "not accepted"
    assert "hubtui resend-invite acme-build hamid.karimi@northwind-eng.com" in steps(answer)


def test_never_signed_in_and_inactive_are_said_from_the_dates(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, never = why(capsys, "diego.garcia@acme-build.com")
    assert facts(never)["last web sign-in"] == "never"
    assert "They have never signed in." in steps(never)
    _, stale = why(capsys, "fatima.rahman@northwind-eng.com")
    days = days_since(datetime(2025, 5, 22, 22, 10, tzinfo=UTC))
    said = (
        f"Inactive: last seen {days:,} days ago, counted from their last activity in the hub, "
        "2025-05-22 (inactive after 90 days, the inactive_after setting)."
    )
    assert said in steps(stale)


def test_outside_an_sso_restricted_hub_s_tenant_is_the_likely_cause_when_never_signed_in(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, answer = why(capsys, "ines.nunes@northwind-eng.com")
    assert "sign-in restricted to acme-build.com" in facts(answer)["Entra ID SSO restriction"]
    assert "the likely reason they cannot sign in (they have never signed in)" in steps(answer)
    _, inside = why(capsys, "diego.garcia@acme-build.com")  # never signed in, but inside
    assert "sso_tenant" not in codes(inside)


def test_no_access_is_said_and_nothing_invented(capsys: pytest.CaptureFixture[str]) -> None:
    status, answer = why(capsys, "nobody@acme-build.com")
    assert status == 0
    assert answer["verdict"] == "not a user of acme-build"
    assert facts(answer)["hub user"] == "not a user of the hub"
    assert answer["verdict_code"] == "not_a_user"
    # Nobody has the address: said first, and an add is offered only "if the address is right".
    assert codes(answer) == ["unknown_address", "add_if_right"]
    assert "sso_tenant" not in codes(answer)  # not a hub user: that is their first reason


def test_a_project_that_cannot_be_read_is_unknown_with_why_and_exit_3(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, answer = why(capsys, "priya.patel@northwind-eng.com", "1012", "nordic-rail")
    assert status == 3
    assert answer["verdict"] == "unknown"
    assert "EXPIRED_SUBSCRIPTION" in " ".join(answer["not_read"])


def test_the_text_answer_is_one_text_for_a_ticket(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(
        capsys, "--demo", "why", "grace.osei@northwind-eng.com", BRIDGE, "--hub", "acme-build"
    )
    assert status == 0
    first, *rest = out.splitlines()
    assert first.startswith(
        "grace.osei@northwind-eng.com in Harbour Bridge Retrofit (acme-build): "
    )
    assert any(line.startswith("- IsLimited: true") for line in rest)
    assert rest[-1].startswith("Next: ")


def test_input_that_names_no_person_or_project_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "--demo", "why", "not-an-address", BRIDGE, "--hub", "acme-build")[0] == 2
    assert run(capsys, "--demo", "why", "a@b.example", "Atlantis", "--hub", "acme-build")[0] == 2


def test_a_domain_search_s_summary_counts_each_project_once(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Member, limited reader, absent and not read add up to the projects searched (before:
    "member of 4 projects…, limited reader in 5, absent from 16; 1 project could not be read"
    over 24 projects)."""
    import re

    status, _, err = run(capsys, "--demo", "who", "@northwind-eng.com", "--format", "json")
    assert status == 3, err  # one project of the demo cannot be read
    found = re.search(
        r"member of (\d+) projects?.*limited reader in (\d+), absent from (\d+); (\d+) projects? "
        r"could not be read",
        err,
    )
    assert found is not None, err
    assert sum(int(n) for n in found.groups()) == 24  # the demo's projects


def test_a_project_named_by_part_of_its_name_accents_and_case_ignored(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, answer = why(capsys, "grace.osei@northwind-eng.com", "HARBOUR")
    assert status == 0
    assert (answer["project_id"], answer["project"]) == ("1001", "Harbour Bridge Retrofit")
    status, out, _ = run(capsys, "--demo", "why", "aiko.tanaka@acme-build.com", "quebec")
    assert status == 0
    assert out.startswith("aiko.tanaka@acme-build.com in Québec Office Tower (acme-build):")


def test_a_name_that_matches_several_projects_lists_them_and_asks_for_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, err = run(
        capsys, "--demo", "why", "grace.osei@northwind-eng.com", "o", "--hub", "acme-build"
    )
    assert status == 2
    assert not out
    assert "names 3 projects" in err
    for line in (
        "1001  Harbour Bridge Retrofit",
        "1002  Québec Office Tower",
        "1003  Depot 7 Fit-out",
    ):
        assert line in err


def test_without_a_project_every_project_where_they_have_access_is_answered(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = run(
        capsys,
        "--demo",
        "why",
        "grace.osei@northwind-eng.com",
        "--hub",
        "acme-build",
        "--format",
        "json",
    )
    assert status == 0
    answers = json.loads(out)
    assert {a["project"]: a["verdict"] for a in answers} == {
        "Harbour Bridge Retrofit": "can only read, as a limited reader through @northwind-eng.com",
        "Depot 7 Fit-out": "can read (a direct Reader)",
    }
    assert all(facts(a)["hub role"] == "Guest" for a in answers)  # the hub's facts in each


def test_without_a_project_a_project_that_cannot_be_read_is_unknown_never_left_out(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = run(
        capsys, "--demo", "why", "grace.osei@northwind-eng.com", "--format", "json"
    )
    assert status == 3
    unknown = [a for a in json.loads(out) if a["verdict"] == "unknown"]
    assert [a["project"] for a in unknown] == ["Bergen Tunnel Survey"]
    assert "EXPIRED_SUBSCRIPTION" in unknown[0]["not_read"][0]


def test_an_address_found_nowhere_names_no_person_and_exits_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, err = run(capsys, "--demo", "why", "nobody@acme-build.com", "--hub", "acme-build")
    assert status == 2
    assert "neither a user nor in a project of hub acme-build" in err
    # Said for the hub all the same: nobody has the address there, and nothing is offered.
    assert out.startswith(
        "nobody@acme-build.com in the hub (acme-build): not a user of acme-build."
    )
    assert "Next: No one with this address is a user of acme-build." in out
    assert "add-user" not in out


@pytest.mark.reads_only
def test_offline_why_answers_from_what_was_kept_and_says_so(
    capsys: pytest.CaptureFixture[str], server: str
) -> None:
    base = ("--base-url", server)
    status, _, err = run(capsys, *base, "snapshot", "acme-build")
    assert status == 0, err
    status, out, err = run(
        capsys, *base, "--offline", "why", "grace.osei@northwind-eng.com", "harbour",
        "--hub", "acme-build",
    )  # fmt: skip
    assert status == 0, err
    note, answer = out.split("\n", 1)
    # The answer a ticket holds carries the note too, not only standard error.
    assert note.startswith("(offline: from what the store kept (")
    assert note.endswith("not the server now)")
    assert answer.startswith(
        "grace.osei@northwind-eng.com in Harbour Bridge Retrofit (acme-build): can only read"
    )
    assert "(offline: from what the store kept (" in err
    assert "not the server now)" in err
    status, out, err = run(
        capsys, *base, "--offline", "why", "grace.osei@northwind-eng.com", "harbour",
        "--hub", "acme-build", "--format", "json",
    )  # fmt: skip
    assert json.loads(out)["offline"] == note


def days_since(moment: datetime) -> int:
    """Whole days from one of the demo's fixed dates to today, as why counts them."""
    return (datetime.now(UTC) - moment).days
