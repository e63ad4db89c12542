"""The next steps of a ticket, decided by one table: every row of it, and the design's table held
to the code's (``docs/design.md``)."""

from __future__ import annotations

import re
import shlex
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hubtui.api.models import Hub, HubUser, Project, ProjectUser
from hubtui.core.changes.record import Change
from hubtui.core.people.advice import (
    TABLE,
    Facts,
    Kept,
    OpenAddress,
    RevertBatch,
    ReviewNote,
    near_addresses,
    next_steps,
)

NOW = datetime(2026, 11, 27, 12, tzinfo=UTC)
HUB = Hub.model_validate(
    {
        "Id": "h-1",
        "Name": "acme-build",
        "IsUserEntraIdSsoRestricted": True,
        "RestrictedTenantDomain": "acme-build.com",
    }
)
OPEN = Project.model_validate(
    {"Id": 1002, "Name": "Québec Office Tower", "ProjectAccess": "Private"}
)
LIMITED = Project.model_validate(
    {"Id": 1001, "Name": "Harbour Bridge Retrofit", "ProjectAccess": "Limited"}
)
DESIGN = Path(__file__).resolve().parents[4] / "docs" / "design.md"


def hub_user(
    email: str, *, activated: bool = True, seen: str | None = "2026-10-28T12:00:00Z"
) -> HubUser:
    return HubUser.model_validate(
        {
            "User": {"Id": 7, "Email": email},
            "Role": "Guest",
            "IsActivated": activated,
            "LastWebLogin": seen,
            "LastAddinLogin": None,
            "LastHubProjectActivity": None,
        }
    )


def member(email: str, *, limited: bool = False) -> ProjectUser:
    return ProjectUser.model_validate(
        {"User": {"Id": 7, "Email": email}, "Role": "Reader", "IsLimited": limited}
    )


def facts(email: str, **given: Any) -> Facts:
    values: dict[str, Any] = {
        "email": email,
        "hub": HUB,
        "now": NOW,
        "project_id": "1002",
        "project": OPEN,
        "project_users": [],
        "hub_users": [],
    }
    values.update(given)
    return Facts(**values)


def codes(of: Facts) -> list[str]:
    return [step.code for step in next_steps(of)]


def test_an_address_nobody_has_is_said_first_then_what_is_near_then_the_add_if_right() -> None:
    lena = "lena.fischer@example-mail.com"
    steps = next_steps(
        facts("lena.fisher@example-mail.com", hub_users=[hub_user(lena)], project_users=[])
    )
    assert [s.code for s in steps] == ["unknown_address", "near_address", "add_if_right"]
    assert steps[0].words == "No one with this address is a user of acme-build or in the project"
    assert steps[1].words == (
        f"Near it in the hub: {lena} (a user of the hub, not in the project); is it theirs? "
        "(why for it)"
    )
    assert steps[1].fix == OpenAddress(lena)
    assert steps[1].command is not None
    assert steps[1].command.startswith(f"hubtui why {lena} ")
    assert steps[2].words.startswith("If the address is right")
    # Not a hub user: the SSO tenant is never their first reason, nor any reason at all here.
    assert "sso_tenant" not in [s.code for s in steps]


def test_near_addresses_one_or_two_letters_apart_or_the_same_name_elsewhere() -> None:
    known = [
        ("lena.fischer@example-mail.com", "Lena Fischer"),  # one letter apart
        ("lena.fisher@other.example", ""),  # the same local part at another domain
        ("lfisher@partner.example", "Léna FISHER"),  # the same name: accents and case aside
        ("lena.fi\u0455her@example-mail.com", ""),  # a Cyrillic ѕ: shown as such, never taken
        ("someone.else@example-mail.com", "Someone Else"),
        ("lena@example-mail.com", "Lena"),  # one word of the name is not the same name
    ]
    near = near_addresses("lena.fisher@example-mail.com", known)
    assert "lena.fischer@example-mail.com" in near
    assert "lena.fisher@other.example" in near
    assert "lfisher@partner.example" in near
    assert "lena.fi\u0455her@example-mail.com (it mixes Cyrillic and Latin letters)" in near
    assert not any("someone.else" in n for n in near)
    assert "lena@example-mail.com" not in near
    assert (
        near_addresses("lena.fisher@example-mail.com", [("LENA.FISHER@example-mail.com", "")]) == []
    )


def test_a_hub_user_the_project_does_not_list_is_to_be_added_to_it() -> None:
    lena = "lena.fischer@example-mail.com"
    open_steps = next_steps(facts(lena, hub_users=[hub_user(lena)], person=hub_user(lena)))
    assert open_steps[0].code == "add_to_project"
    assert shlex.split(open_steps[0].command or "") == [
        "hubtui", "add-user", "acme-build", "1002", lena, "Reader"
    ]  # fmt: skip
    limited = next_steps(facts(lena, project_id="1001", project=LIMITED, person=hub_user(lena)))
    assert limited[0].code == "add_to_project"
    assert "as a direct member" in limited[0].words
    assert "@example-mail.com is not one of them" in limited[0].words


def test_a_limited_reader_is_to_be_made_a_direct_member() -> None:
    grace = "grace.osei@acme-build.com"
    steps = next_steps(
        facts(grace, project_id="1001", project=LIMITED, member=member(grace, limited=True),
              person=hub_user(grace))
    )  # fmt: skip
    assert [s.code for s in steps] == ["make_direct_member"]
    assert (steps[0].command or "").endswith("grace.osei@acme-build.com Editor")


def test_an_invitation_never_accepted_is_to_be_sent_again() -> None:
    ann = "ann@acme-build.com"
    steps = next_steps(
        facts(ann, member=member(ann), person=hub_user(ann, activated=False, seen=None))
    )
    assert [s.code for s in steps] == ["resend_invitation", "never_signed_in"]
    assert steps[0].command == "hubtui resend-invite acme-build ann@acme-build.com"


def test_a_hub_user_outside_the_tenant_is_told_the_likely_reason_with_their_last_sign_in() -> None:
    oscar = "oscar@fabrikam.example"
    seen = "2026-10-12T12:00:00Z"
    signed = next_steps(facts(oscar, member=member(oscar), person=hub_user(oscar, seen=seen)))
    assert [s.code for s in signed] == ["sso_tenant"]
    assert "the likely reason they cannot sign in" in signed[0].words
    # The figure names the date it counts from, and which of the dates sent that is.
    assert (
        "last seen 46 days ago, counted from their last web sign-in, 2026-10-12" in signed[0].words
    )
    # Seen 30 days ago: they got in lately, so the restriction is not why they cannot.
    lately = next_steps(facts(oscar, member=member(oscar), person=hub_user(oscar)))
    assert lately == []
    inside = next_steps(facts("ann@acme-build.com", member=member("ann@acme-build.com"),
                              person=hub_user("ann@acme-build.com")))  # fmt: skip
    assert inside == []


def test_sign_ins_never_seen_or_long_ago() -> None:
    old = hub_user("ann@acme-build.com", seen="2024-01-01T00:00:00Z")
    assert codes(facts("ann@acme-build.com", member=member("ann@acme-build.com"), person=old)) == [
        "inactive"
    ]


def test_what_hubtui_changed_is_said_with_who_when_and_the_revert() -> None:
    removal = Change(
        time="2026-11-27T10:02:00Z",
        action="remove from hub",
        hub_id="h-1",
        hub_name="acme-build",
        project_id="",
        project_name=None,
        user_id="7",
        email="eve@acme-build.com",
        before={"Role": "Guest", "Projects": []},
        after={"Role": None},
        outcome="done",
        batch="b0123456789",
        operator="alice.ops",
    )
    steps = next_steps(facts("eve@acme-build.com", history=[removal]))
    assert steps[0].code == "changed_by_hubtui"
    assert steps[0].words.startswith(
        "hubtui changed their access: removed from the hub (was Guest) on 2026-11-27 10:02 UTC "
        "by alice.ops in batch b0123456789"
    )
    assert steps[0].command == "hubtui revert b0123456789"
    assert steps[0].fix == RevertBatch("b0123456789")  # what the key prepares, as an object
    # Sent for an access review kept: the review and the reason given for them name it.
    reviewed = Kept(reviews={"b0123456789": ReviewNote(1, "left the company")})
    steps = next_steps(facts("eve@acme-build.com", history=[removal], kept=reviewed))
    assert "by alice.ops in access review #1 (reason: left the company)" in steps[0].words


def test_the_design_s_table_of_next_steps_is_the_code_s() -> None:
    text = DESIGN.read_text(encoding="utf-8")
    table = text[text.index("| next step | when |") :].split("\n\n", 1)[0]
    named = re.findall(r"^\s*\| `([^`]+)` \|", table, flags=re.MULTILINE)
    assert named == [code for code, _, _ in TABLE]
