"""The records accept what real servers send: unknown fields, nulls, older and newer shapes."""

from __future__ import annotations

import asyncio
import json
import pickle
import sys
from datetime import datetime
from typing import Any

import pytest
from pydantic import ValidationError

from hubtui.api import Hub, Project, ProjectUser, models

AUTHOR: dict[str, Any] = {
    "Id": 7,
    "UserName": "0f1e2d3c-4b5a",
    "Email": None,
    "FirstName": "Dana",
    "LastName": None,
    "AvatarUrl": None,
}


def hub_payload(**changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "Id": "hub-1",
        "Name": "acme-build",
        "DisplayName": "ACME Construction Group",
        "Author": AUTHOR,
        "Image": None,
        "CreationDate": "2023-03-14T08:30:00Z",
        "RegionSummary": {"Location": "US East", "ApiRegionalUrl": "https://us.api.example.com"},
        "NumberOfUsers": 13,
        "NumberOfProjects": 3,
        "IsUserEntraIdSsoRestricted": True,
        "RestrictedTenantId": None,
        "RestrictedTenantDomain": None,
        "RequestingUserPermissions": {"Role": "Admin"},
    }
    body.update(changes)
    return body


def test_hub_keeps_both_names_and_unknown_fields() -> None:
    hub = Hub.model_validate(hub_payload())
    assert hub.name == "acme-build"
    assert hub.display_name == "ACME Construction Group"
    assert hub.has_custom_display_name
    assert hub.display_name_sent
    assert hub.region_summary is not None
    assert hub.region_summary.api_regional_url == "https://us.api.example.com"
    assert hub.is_user_entra_id_sso_restricted is True
    assert hub.model_extra == {"RequestingUserPermissions": {"Role": "Admin"}}
    assert hub.author is not None
    assert hub.author.full_name == "Dana"


def test_hub_without_display_name_from_an_older_server_falls_back_to_name() -> None:
    body = hub_payload()
    del body["DisplayName"]
    hub = Hub.model_validate(body)
    assert hub.display_name == "acme-build"
    assert not hub.has_custom_display_name
    assert not hub.display_name_sent


def test_hub_whose_owner_set_no_display_name() -> None:
    hub = Hub.model_validate(hub_payload(DisplayName="acme-build"))
    assert not hub.has_custom_display_name
    assert hub.display_name_sent


def test_hub_serialises_back_to_wire_names() -> None:
    dumped = Hub.model_validate(hub_payload()).model_dump(mode="json")
    assert dumped["DisplayName"] == "ACME Construction Group"
    assert dumped["RegionSummary"]["ApiRegionalUrl"] == "https://us.api.example.com"
    assert "display_name_sent" not in dumped
    assert "DisplayNameSent" not in dumped


def user_payload(**changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "User": AUTHOR,
        "DefaultFilterTemplateId": None,
        "Role": "Reader",
        "Teams": [{"Id": 1, "Name": "Structural"}],
        "IsReviewer": False,
        "IsLimited": True,
    }
    body.update(changes)
    return body


def test_limited_reader() -> None:
    user = ProjectUser.model_validate(user_payload())
    assert user.is_limited is True
    assert user.is_direct_member is False
    assert user.teams is not None
    assert user.teams[0].name == "Structural"


def test_is_limited_omitted_is_unknown_not_false() -> None:
    body = user_payload()
    del body["IsLimited"]
    user = ProjectUser.model_validate(body)
    assert user.is_limited is None
    assert user.is_direct_member is None


@pytest.mark.parametrize("role", ["Reader", "Editor", "Admin", "SiteOwner"])
def test_any_role_string_is_kept_as_sent(role: str) -> None:
    assert ProjectUser.model_validate(user_payload(Role=role)).role == role


def test_teams_may_be_null_and_filter_template_an_int() -> None:
    user = ProjectUser.model_validate(user_payload(Teams=None, DefaultFilterTemplateId=42))
    assert user.teams is None
    assert user.default_filter_template_id == 42


def test_project_access_limited() -> None:
    project = Project.model_validate(
        {"Id": 1001, "Name": "Harbour Bridge", "ProjectAccess": "Limited", "Future": 1}
    )
    assert project.is_access_limited
    assert project.model_extra == {"Future": 1}
    other = Project.model_validate({"Id": 1002, "Name": "Tower", "ProjectAccess": "Whatever"})
    assert not other.is_access_limited
    assert other.project_access == "Whatever"


def test_a_record_missing_a_required_field_is_rejected() -> None:
    body = user_payload()
    del body["Role"]
    with pytest.raises(ValidationError):
        ProjectUser.model_validate(body)


def test_records_given_the_same_fields_share_one_field_set_safely() -> None:
    first = ProjectUser.model_validate(user_payload())
    second = ProjectUser.model_validate(user_payload(Role="Editor"))
    assert first.model_fields_set is second.model_fields_set
    changed = first.model_copy(update={"role": "Admin"})
    assert changed.role == "Admin"
    assert first.role == "Reader"
    assert first.model_fields_set == second.model_fields_set
    fewer = user_payload()
    del fewer["IsLimited"]
    assert "is_limited" not in ProjectUser.model_validate(fewer).model_fields_set
    assert "is_limited" in first.model_fields_set


def test_records_of_six_fields_hold_their_values_in_dicts_that_share_their_keys() -> None:
    sent = [user_payload(Role=role) for role in ("Reader", "Editor") * 50]
    *_, first, second = (ProjectUser.model_validate(each) for each in sent)
    # Smaller than the dict pydantic makes for the same six values (272 bytes in CPython 3.11),
    # once a list's first few records have told Python how many keys its records hold.
    assert sys.getsizeof(first.__dict__) < sys.getsizeof(dict(first.__dict__))
    assert sys.getsizeof(first.user.__dict__) < sys.getsizeof(dict(first.user.__dict__))
    # Read, compared, copied and dumped as any record: as sent.
    assert list(first.__dict__) == list(ProjectUser.model_fields)
    assert (first.role, second.role) == ("Reader", "Editor")
    assert first == ProjectUser.model_validate(sent[0])
    assert first != second
    assert first.as_sent() == json.loads(json.dumps(sent[0]))
    changed = first.model_copy(update={"role": "Admin"})
    assert (changed.role, first.role) == ("Admin", "Reader")
    assert pickle.loads(pickle.dumps(first)) == first


def test_a_kind_makes_its_values_object_only_past_its_first_few_dozen_records() -> None:
    class Sixfold(models.ApiModel):
        a: int
        b: int = 0
        c: int = 0
        d: int = 0
        e: int = 0
        f: int = 0

    # A start that shows a handful of hubs makes no class for them (0.65 ms a kind).
    early = [Sixfold.model_validate({"A": n}) for n in range(models.VALUES_OBJECT_AFTER - 1)]
    assert not isinstance(Sixfold._values_of, type)
    later = [Sixfold.model_validate({"A": n}) for n in range(100)]
    assert isinstance(Sixfold._values_of, type)
    assert sys.getsizeof(later[-1].__dict__) < sys.getsizeof(early[-1].__dict__)
    assert [r.a for r in early + later] == [*range(models.VALUES_OBJECT_AFTER - 1), *range(100)]
    assert later[-1].as_sent() == {"A": 99}


@pytest.fixture
def nothing_held_yet(monkeypatch: pytest.MonkeyPatch) -> None:
    """The values held once as a new process holds them: none. The other tests in this process
    cannot have filled the bound between two records here (which empties it), and a flood of
    values here stays out of theirs."""
    monkeypatch.setattr(models, "_SHARED_VALUES", {})


@pytest.mark.usefixtures("nothing_held_yet")
def test_repeated_values_are_held_once_and_read_as_sent() -> None:
    payloads = [
        user_payload(Role="Editor", Teams=[{"Id": 1, "Name": "Structural"}]),
        user_payload(Role="Editor", Teams=[{"Id": 1, "Name": "Structural"}]),
    ]
    first, second = (ProjectUser.model_validate(p) for p in payloads)
    # The same role, names and team: one object each, not one per record.
    assert first.role is second.role
    assert first.user.first_name is second.user.first_name
    assert first.teams is not None
    assert second.teams is not None
    assert first.teams[0] is second.teams[0]
    assert first == second
    assert first.as_sent()["Teams"] == [{"Id": 1, "Name": "Structural"}]
    assert first.teams is second.teams  # the same teams sent: one tuple held for both
    hubs = [Hub.model_validate(hub_payload(Id=f"hub-{n}")) for n in (1, 2)]
    assert hubs[0].region_summary is hubs[1].region_summary
    assert hubs[0].region_name == "US East"


async def test_within_one_reading_a_person_sent_alike_by_two_lists_holds_one_summary() -> None:
    """The hub's users and a project's, read at once on threads of their own: the same account
    sent the same way is one summary from the moment each is read; sent otherwise (another
    address, a field more), or read after the reading, it is its own; each prints as sent."""
    person = {"Id": 7, "Email": "ann@example.com", "FirstName": "Ann"}
    other_address = {**person, "Email": "ann@elsewhere.example"}
    a_field_more = {**person, "LastName": None}

    def read(model: type[Any], users: list[dict[str, Any]]) -> list[Any]:
        return [model.model_validate({"User": user, "Role": "Editor"}) for user in users]

    with models.one_summary_a_person():
        hub_users, project_users = await asyncio.gather(
            asyncio.to_thread(read, models.HubUser, [person, other_address]),
            asyncio.to_thread(read, ProjectUser, [person, {**person}, a_field_more]),
        )
    after = read(ProjectUser, [person])[0]
    ann = hub_users[0].user
    assert [user.user is ann for user in project_users] == [True, True, False]
    assert hub_users[1].user is not ann
    assert after.user is not ann
    assert project_users[2].as_sent()["User"] == a_field_more
    assert hub_users[1].as_sent()["User"] == other_address


def test_shared_values_keep_absent_apart_from_null_and_unknown_fields() -> None:
    sent = ProjectUser.model_validate(user_payload(Teams=[{"Id": 1, "Name": None}]))
    absent = ProjectUser.model_validate(user_payload(Teams=[{"Id": 1}]))
    unknown = ProjectUser.model_validate(user_payload(Teams=[{"Id": 1, "Name": None, "Lead": 9}]))
    assert sent.teams
    assert absent.teams
    assert unknown.teams
    assert sent.teams[0] is not absent.teams[0]
    assert "name" in sent.teams[0].model_fields_set
    assert "name" not in absent.teams[0].model_fields_set
    assert absent.teams[0].model_dump(exclude_unset=True) == {"Id": 1}
    assert unknown.teams[0].model_extra == {"Lead": 9}
    assert sent.teams[0].model_extra == {}


@pytest.mark.usefixtures("nothing_held_yet")
def test_a_long_list_of_teams_is_held_as_sent_not_once_for_every_record() -> None:
    teams = [{"Id": n, "Name": f"Team {n}"} for n in range(models._SHARED_ITEMS_MAX + 1)]
    first, second = (ProjectUser.model_validate(user_payload(Teams=teams)) for _ in "12")
    assert first.teams == second.teams
    assert first.teams is not second.teams  # no key as long as the teams for each such record
    assert first.as_sent()["Teams"] == teams
    few = teams[: models._SHARED_ITEMS_MAX]
    first, second = (ProjectUser.model_validate(user_payload(Teams=few)) for _ in "12")
    assert first.teams is second.teams


@pytest.mark.usefixtures("nothing_held_yet")
def test_a_flood_of_distinct_values_is_held_in_bounded_memory() -> None:
    names = [f"Person{n}" for n in range(models._SHARED_VALUES_MAX + 10)]
    users = [ProjectUser.model_validate(user_payload(Role=name)) for name in names]
    assert len(models._SHARED_VALUES) <= models._SHARED_VALUES_MAX
    # Every record still reads what was sent for it, after the cache was emptied.
    assert [user.role for user in users] == names
    long_role = "R" * 65
    assert ProjectUser.model_validate(user_payload(Role=long_role)).role == long_role
    assert long_role not in models._SHARED_VALUES
    long_team = [{"Id": 1, "Name": "T" * 65}]
    first, second = (ProjectUser.model_validate(user_payload(Teams=long_team)) for _ in "12")
    assert first.teams is not None
    assert second.teams is not None
    assert first.teams[0] is not second.teams[0]
    assert first.teams[0] == second.teams[0]


@pytest.mark.parametrize(
    "sent",
    [
        "2026-09-04T13:07:00Z",
        "2026-09-04T13:07:00.123456Z",
        "2026-09-04T13:07:00.5Z",
        "2026-09-04T13:07:00.000000Z",
        "2026-09-04T13:07:00.1234567Z",
        "2026-09-04T13:07:00+00:00",
        "2026-09-04T13:07:00+02:00",
        " 2026-09-04T13:07:00Z",
        "2026-09-04T13:07Z",
        "2026-09-04Z",
        "2026-09-04T13:07:00z",
    ],
)
def test_a_last_sign_in_prints_as_the_text_sent_in_every_shape(sent: str) -> None:
    """Every shape of date a server may send (ISO with Z or an offset, fractions of any length,
    no seconds, spaces around, a small z) prints as the text sent."""
    from hubtui.api.models import HubUser

    user = HubUser.model_validate({"User": {"Id": 1}, "LastWebLogin": sent})
    assert user.as_sent()["LastWebLogin"] == sent
    assert json.loads(user.model_dump_json(by_alias=True))["LastWebLogin"] == sent


@pytest.mark.parametrize(
    "sent",
    [
        "0001-01-01T00:00:00Z",
        "0999-02-03T04:05:06Z",
        "2026-12-31T23:59:59Z",
        "9999-12-31T23:59:59Z",
        "2026-09-04t13:07:00Z",  # a small t: read, and kept as sent
        "2026-09-04T13:07:00z",  # a small z: no date
        "2026-09-04T13:07:00.5Z",
        "2026-W36-5T13:07:00Z",  # a week date of the same length
        "2026-09-04 13:07:00Z",
    ],
)
def test_a_date_in_the_shape_nearly_every_server_sends_is_not_held_twice(sent: str) -> None:
    """``2026-09-04T13:07:00Z`` is the date written again character for character: the record
    holds the date alone (a firm's 300,000 dates, 21 MB), and prints the text sent, as every
    other shape, whose text is kept, prints its own."""
    from hubtui.api.models import Hub, HubUser

    user = HubUser.model_validate({"User": {"Id": 1}, "LastWebLogin": sent})
    assert user.as_sent()["LastWebLogin"] == sent
    assert json.loads(user.model_dump_json(by_alias=True))["LastWebLogin"] == sent
    read = [user.last_web_login]
    try:  # a hub's own dates are read by pydantic's reader, which refuses what is no date
        hub = Hub.model_validate({"Id": "h", "Name": "n", "CreationDate": sent})
    except ValidationError:
        pass
    else:
        assert hub.as_sent()["CreationDate"] == sent
        read.append(hub.creation_date)
    plain = len(sent) == 20 and sent[10] == "T" and sent[19] == "Z" and "W" not in sent
    for moment in read:
        if isinstance(moment, models.SentDateTime):
            assert moment.sent == sent
            assert (moment._sent is None) == plain


@pytest.mark.parametrize(
    "sent",
    [
        "2026-09-04T10:00:00Z",
        " 2026-09-04T10:00:00Z ",
        "\t2026-09-04\n",
        "2026-09-04Z",
        "2026-09-04T10:00:00+02:00",
        "2026-09-04T10:00:00.123456Z",
        "20260904T100000Z",
        "2026-09-04T10:00:00z",
        "2026-13-01",
        "yesterday",
    ],
)
def test_a_date_reads_alike_by_either_reader_and_as_iso_8601_reads_it(sent: str) -> None:
    """The quick reader (a firm's records read without validating) and the record's own reach
    the same date as ISO 8601 read after white space is left out and ``Z`` is UTC; what is no
    date is kept as sent by both, so a row says "unknown", never "never"."""
    try:
        expected: object = datetime.fromisoformat(models._iso(sent))
    except ValueError:
        expected = sent
    assert models.read_moment(sent) == expected
    read = models._moment(sent)
    assert read == expected
    if read is not sent:
        assert read.sent == sent  # printed as the text sent
