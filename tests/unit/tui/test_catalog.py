"""What the command palette can jump to: everything loaded, found by every word typed."""

from __future__ import annotations

from hubtui.api import Hub, Project, ProjectUser
from hubtui.tui.catalog import USER_LISTS_KEPT, Catalog

HUB = Hub.model_validate({"Id": "h1", "Name": "acme-build", "DisplayName": "ACME Build"})
PROJECT = Project.model_validate({"Id": 1001, "Name": "Harbour Bridge Retrofit"})


def person(n: int, *, limited: bool = False, first: str = "Ann") -> ProjectUser:
    return ProjectUser.model_validate(
        {
            "User": {"Id": n, "Email": f"p{n}@acme.example", "FirstName": first, "LastName": "Lee"},
            "Role": "Reader",
            "IsReviewer": False,
            "IsLimited": limited,
        }
    )


def test_hubs_are_found_by_either_name_and_accents_are_ignored() -> None:
    catalog = Catalog()
    catalog.add_hubs([HUB])
    assert [e.hub.id for _, e in catalog.search("acme build")] == ["h1"]  # both names' words
    assert catalog.search("ACME-BUILD")[0][1].kind == "hub"
    catalog.add_users(HUB, PROJECT, "1001", [person(1, first="Björn")])
    assert [e.user_id for _, e in catalog.search("bjorn harbour")] == ["1"]
    assert catalog.search("") == []


def test_a_limited_reader_says_so_in_the_palette() -> None:
    catalog = Catalog()
    catalog.add_users(HUB, PROJECT, "1001", [person(1), person(2, limited=True)])
    texts = {e.user_id: e.text for _, e in catalog.search("lee")}
    assert "LIMITED reader" in texts["2"]
    assert "LIMITED" not in texts["1"]


def test_only_the_newest_user_lists_are_kept_and_reopening_one_refreshes_it() -> None:
    catalog = Catalog()
    for n in range(USER_LISTS_KEPT + 3):
        catalog.add_users(HUB, None, str(n), [person(n)])
    assert catalog.loaded_users("h1", "0") is None  # the oldest let go
    assert catalog.loaded_users("h1", str(USER_LISTS_KEPT + 2)) is not None
    catalog.add_users(HUB, None, "3", [person(3)])  # opened again: now the newest
    for n in range(100, 103):
        catalog.add_users(HUB, None, str(n), [person(n)])
    assert catalog.loaded_users("h1", "3") is not None
    users = sum(1 for _, e in catalog.search("lee", limit=1000) if e.kind == "user")
    assert users == USER_LISTS_KEPT
