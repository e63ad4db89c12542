"""Which hub a person meant by a DisplayName: one rule for the app and the headless commands."""

from __future__ import annotations

from hubtui.api import Hub
from hubtui.names import displayed_as


def hub(name: str, display_name: str) -> Hub:
    return Hub.model_validate({"Id": name, "Name": name, "DisplayName": display_name})


HUBS = [hub("acme-build", "ACME Construction Group"), hub("nordic-rail", "Nordic Rail Örebro")]


def test_the_whole_display_name_finds_its_hub_ignoring_case_and_accents() -> None:
    found = displayed_as(HUBS, "nordic rail orebro")
    assert found is not None
    assert found.name == "nordic-rail"


def test_part_of_a_display_name_finds_it_only_when_asked() -> None:
    assert displayed_as(HUBS, "construction") is None
    found = displayed_as(HUBS, "construction", partial=True)
    assert found is not None
    assert found.name == "acme-build"


def test_no_hub_is_displayed_as_nothing_or_as_words_no_hub_has() -> None:
    assert displayed_as(HUBS, "", partial=True) is None
    assert displayed_as(HUBS, "harbour", partial=True) is None
