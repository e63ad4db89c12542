"""A row of `P`: a plain person's texts as sent, anything else made inert one text at a time,
and a text longer than a cell shows cut with its length said."""

from __future__ import annotations

from datetime import UTC, datetime

from hubtui.api.models import HubUser, UserSummary
from hubtui.core.people import HubPerson
from hubtui.tui.screens.people.hub_people import person_row

NOW = datetime(2026, 11, 28, tzinfo=UTC)


def row_of(email: str, first: str, role: str = "Guest") -> tuple[str, ...]:
    user = UserSummary.model_validate({"Id": 7, "Email": email, "FirstName": first})
    hub_user = HubUser.model_validate(
        {"User": user.as_sent(), "Role": role, "LastWebLogin": "2026-11-20T09:00:00Z"}
    )
    return person_row(HubPerson(email, user, hub_user), NOW, 90).cells


def test_a_plain_person_is_shown_as_sent() -> None:
    assert row_of("ann@acme-build.com", "Ann") == (
        "ann@acme-build.com",
        "Ann",
        "Guest",
        "7 days ago",
        "0",
        "—",
    )


def test_terminal_control_in_one_text_is_made_visible_and_the_others_stay_as_sent() -> None:
    cells = row_of("ann\x1b[2J@acme-build.com", "Zoë", role="Admin\x07")
    assert cells[:3] == ("ann␛[2J@acme-build.com", "Zoë", "Admin␇")
    assert cells[5] == "—"  # a role that is not Admin is no hub admin
    assert not any(ch in "".join(cells) for ch in "\x1b\x07")


def test_a_name_longer_than_a_value_is_shown_cut_and_says_how_long() -> None:
    cells = row_of("ann@acme-build.com", "A" * 400)
    assert cells[1].endswith("… (400 characters)")
    assert len(cells[1]) < 320
    assert cells[0] == "ann@acme-build.com"
