"""A campaign row's recommendation is decided by why's table, never a second set of rules: a
row of :data:`~hubtui.core.people.advice.TABLE` changed, both the ticket's next step and the
reviewer's recommendation change with it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from hubtui.api.models import Hub, HubUser
from hubtui.core.changes.actions import Action
from hubtui.core.changes.record import Change
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


def invited_on(time: str, *, user_id: str | None = None, outcome: str = "done") -> Change:
    """An invitation to the hub hubtui sent, as the change log keeps it."""
    return Change(
        time, Action.HUB_INVITE, "h1", "acme-build", "", None, user_id, "Cai@acme.example", None,
        {"Role": "Guest"}, outcome,
    )  # fmt: skip


NOT_ACCEPTED = {
    "User": {"Id": 9, "Email": "cai@acme.example"},
    "Role": "Guest",
    "IsActivated": False,
}


def invitee(*invitations: Change) -> PersonFacts:
    """A person invited, never accepted, as a campaign's start reads them beside the log."""
    advising = Advising(NOW, 90, invitations={"cai@acme.example": list(invitations)})
    found = hub_member_of(NOT_ACCEPTED, seen=False, hub=HUB, advising=advising)
    assert found is not None
    assert found[1].facts is not None
    return found[1].facts


def test_an_invitation_never_accepted_is_removed_past_the_days_from_when_hubtui_sent_it() -> None:
    old = invitee(invited_on("2026-07-28T09:00:00Z"))
    assert (old.advice, old.reason) == ("remove", "invited 120 days ago, never accepted")
    assert old.invitation == "not accepted (sent by hubtui 2026-07-28)"
    # Sent again lately: the latest sending counts, and it is not past the days yet.
    again = invitee(invited_on("2026-07-28T09:00:00Z"), invited_on("2026-11-15T09:00:00Z"))
    assert (again.advice, again.reason) == (
        "",
        "invited 10 days ago, not accepted yet (within 90)",
    )
    # Nothing hubtui sent that took effect, or sent to another account: the server's word only.
    for unknown in (
        invitee(),
        invitee(invited_on("2026-11-15T09:00:00Z", outcome="failed")),
        invitee(invited_on("2026-11-15T09:00:00Z", user_id="44")),
    ):
        assert (unknown.advice, unknown.reason) == ("remove", "invited to the hub, never accepted")
        assert unknown.invitation == "not accepted"
