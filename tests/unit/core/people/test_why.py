"""The answer for a person and a project (or the hub), from lists already read."""

from __future__ import annotations

from datetime import UTC, datetime

from hubtui.api.models import Hub, HubUser
from hubtui.core.people.why import answer_of

NOW = datetime(2026, 11, 26, tzinfo=UTC)
HUB = Hub.model_validate({"Id": "h-1", "Name": "acme-build", "IsUserEntraIdSsoRestricted": False})


def test_a_hub_user_in_no_project_is_answered_for_the_hub_with_its_facts() -> None:
    person = HubUser.model_validate(
        {
            "User": {"Id": 7, "Email": "Ann@Example.com"},
            "Role": "Guest",
            "IsActivated": False,
            "LastWebLogin": None,
        }
    )
    answer = answer_of("ann@example.com", HUB, None, (), [person], [], now=NOW)
    assert answer.verdict.startswith("cannot get in until they accept the invitation to the hub")
    assert answer.verdict_code == "no_access"  # the code says their access: none of its projects
    assert answer.text().startswith(
        "ann@example.com in the hub (acme-build): cannot get in until they accept the invitation "
        "to the hub (the hub's users do not say when it was sent)."
    )
    said = {fact.what: fact.says for fact in answer.facts}
    assert said["invitation to the hub"] == "not accepted"
    assert "project role" not in said  # no project: nothing said of one
    assert any("send it again" in step for step in answer.next_steps)
    assert answer.as_record()["project_id"] is None


def test_another_address_is_not_the_person_however_alike() -> None:
    person = HubUser.model_validate(
        {"User": {"Id": 7, "Email": "straße@example.com"}, "Role": "Guest"}
    )
    answer = answer_of("strasse@example.com", HUB, None, (), [person], [], now=NOW)
    said = {fact.what: fact.says for fact in answer.facts}
    assert said["hub user"] == "not a user of the hub"
