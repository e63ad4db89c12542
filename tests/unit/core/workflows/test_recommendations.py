"""A campaign row's recommendation is decided by why's table, never a second set of rules: a
row of :data:`~hubtui.core.people.advice.TABLE` changed, both the ticket's next step and the
reviewer's recommendation change with it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from hubtui.api.models import Hub, HubUser
from hubtui.core.people import advice
from hubtui.core.people.advice import Advice, Facts, Kept, NextStep, next_steps
from hubtui.core.workflows.campaign.population import (
    Advising,
    PersonFacts,
    hub_member_of,
    limited_advice,
)

NOW = datetime(2026, 11, 25, 12, tzinfo=UTC)
HUB = Hub.model_validate({"Id": "h1", "Name": "acme-build"})
SENT = {
    "User": {"Id": 7, "Email": "ann@acme.example"},
    "Role": "Guest",
    "IsActivated": True,
    "LastWebLogin": "2026-05-09T12:00:00Z",
}
SEEN_200_DAYS_AGO = HubUser.model_validate(SENT)


def reviewer(inactive_after: int) -> PersonFacts:
    """What a campaign's start keeps of the person as the hub's users sent them."""
    found = hub_member_of(SENT, seen=False, hub=HUB, advising=Advising(NOW, inactive_after))
    assert found is not None
    facts = found[1].facts
    assert facts is not None
    return facts


def ticket(user: HubUser) -> list[str]:
    facts = Facts("ann@acme.example", HUB, NOW, person=user, kept=Kept(inactive_after=90))
    return [step.code for step in next_steps(facts)]


def test_inactive_past_the_setting_is_a_ticket_s_step_and_a_reviewer_s_removal() -> None:
    assert ticket(SEEN_200_DAYS_AGO) == ["inactive"]
    facts = reviewer(90)
    assert (facts.advice, facts.reason) == ("remove", "last seen 200 days ago (over 90)")
    assert facts.seen == "their last web sign-in, 2026-05-09"
    assert facts.invitation == "accepted"
    # Within the line: nothing for a ticket, keep for a reviewer.
    kept = reviewer(365)
    assert (kept.advice, kept.reason) == ("keep", "last seen 200 days ago (within 365)")


def test_a_row_of_why_s_table_changed_changes_the_ticket_and_the_recommendation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def sign_ins(facts: Facts) -> list[NextStep]:
        return [NextStep("demote", "Make them Reader", advice=Advice("reader", "only reads"))]

    table = tuple(
        (code, when, sign_ins if code.startswith("never_signed_in") else rule)
        for code, when, rule in advice.TABLE
    )
    monkeypatch.setattr(advice, "TABLE", table)
    assert ticket(SEEN_200_DAYS_AGO) == ["demote"]
    facts = reviewer(90)
    assert (facts.advice, facts.reason) == ("reader", "only reads")


def test_a_limited_reader_has_nothing_to_decide_by_the_same_table() -> None:
    found = limited_advice(HUB, "grace@partner.example", Advising(NOW, 90))
    assert found == Advice(
        "", "reads through @partner.example: the domain, not the person, gives access"
    )
