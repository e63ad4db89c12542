"""Which hub a person meant by a DisplayName: one rule for the app and the headless commands."""

from __future__ import annotations

from hubtui.api import Hub
from hubtui.core.presenting.names import displayed_as


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


def test_an_exact_name_or_id_wins_and_anything_nearer_is_offered_never_taken() -> None:
    from hubtui.core.presenting.names import match_hub

    kelvin = hub("\u212acme", "KCME Lookalike")  # a Kelvin sign for the K
    real = hub("acme-build", "ACME Construction Group")
    upper = hub("ACME-BUILD", "Upper")
    assert match_hub([kelvin, real, upper], "acme-build").hub is real
    assert match_hub([kelvin, real, upper], "ACME-BUILD").hub is upper
    found = match_hub([kelvin, real], "kcme")
    assert found.hub is None
    assert found.offer is kelvin
    assert "differs from it only in case or form" in found.words()
    assert "! Lookalike" in found.words()
    several = match_hub([real, upper], "Acme-Build")
    assert several.hub is None
    assert several.offer is None
    assert len(several.candidates) == 2
    assert "none is chosen" in several.words()


def test_a_display_name_shared_by_several_hubs_chooses_none() -> None:
    from hubtui.core.presenting.names import match_hub

    latin = hub("acme-a", "Acme Group")
    cyrillic = hub("acme-b", "\u0410cme Group")  # a Cyrillic А
    same = hub("acme-c", "Acme Group")
    found = match_hub([latin, same, cyrillic], "Acme Group")
    assert found.offer is None
    assert {h.name for h in found.candidates} == {"acme-a", "acme-c"}
    words = match_hub([latin, cyrillic, same], "acme group").words()
    assert "none is chosen" in words
