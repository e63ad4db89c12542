"""The words of access and names, the same in the app and the headless commands."""

from __future__ import annotations

from hubtui.api import Hub, ProjectUser
from hubtui.core.presenting.words import (
    access_cell,
    access_sentence,
    amount,
    display_name_cell,
    limited_via,
)
from hubtui.tui.present import limited_cell


def user(
    is_limited: bool | None, *, role: str = "Editor", email: str = "a@x.example"
) -> ProjectUser:
    record: dict[str, object] = {
        "User": {"Id": 7, "Email": email, "FirstName": "Ann", "LastName": "Lee"},
        "Role": role,
        "IsReviewer": False,
    }
    if is_limited is not None:
        record["IsLimited"] = is_limited
    return ProjectUser.model_validate(record)


def test_a_limited_reader_is_named_by_the_domain_that_lets_them_read() -> None:
    reader = user(True, role="Reader", email="priya@northwind-eng.com")
    assert limited_via(reader) == "LIMITED @northwind-eng.com"
    assert access_cell(reader) == access_cell(reader, with_role=True) == limited_via(reader)
    assert access_sentence(reader) == "limited reader via northwind-eng.com"
    assert limited_cell(reader) == "LIMITED"


def test_a_member_and_a_user_the_server_did_not_say_of() -> None:
    member, unsaid = user(False), user(None)
    assert (access_cell(member), access_cell(member, with_role=True)) == (
        "member",
        "Editor (member)",
    )
    assert (access_cell(unsaid), access_cell(unsaid, with_role=True)) == (
        "unknown",
        "Editor (member? unknown)",
    )
    assert access_sentence(member) == "member, Editor"
    assert limited_cell(member) == ""
    assert limited_cell(unsaid) == "unknown"


def test_server_text_in_access_words_is_inert() -> None:
    hostile = user(True, email="x@evil\x1b]0;pwned\x07.example")
    assert "\x1b" not in access_cell(hostile)
    assert "\x07" not in access_sentence(hostile)
    assert "\x1b" not in access_cell(user(False, role="Admin\x1b[2J"), with_role=True)


def test_a_display_name_never_repeats_the_url_name_silently() -> None:
    plain = Hub.model_validate({"Id": "h", "Name": "acme-build", "DisplayName": "acme-build"})
    named = Hub.model_validate({"Id": "h", "Name": "acme-build", "DisplayName": "ACME Build"})
    old = Hub.model_validate({"Id": "h", "Name": "acme-build"})
    assert display_name_cell(plain) == "(none set = Name)"
    assert display_name_cell(named) == "ACME Build"
    assert display_name_cell(old) != display_name_cell(plain)  # not sent is said apart


def test_amounts_count_in_words() -> None:
    assert [amount(1, "project"), amount(3, "match"), amount(None, "user")] == [
        "1 project",
        "3 matches",
        "? users",
    ]
