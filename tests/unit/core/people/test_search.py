"""The search for a person across projects: what matches, and a summary that counts its rows."""

from __future__ import annotations

import pytest

from hubtui.api import HubClient
from hubtui.core.people.search import Finding, PersonQuery, Progress, search_people

PRIYA = "priya.patel@northwind-eng.com"


def test_the_kind_of_query_follows_what_was_typed() -> None:
    assert [PersonQuery(t).kind for t in (PRIYA, "@northwind-eng.com", "björn")] == [
        "email",
        "domain",
        "name",
    ]


@pytest.mark.parametrize(
    ("typed", "record", "found"),
    [
        (PRIYA.upper(), {"Email": PRIYA}, True),
        ("priya@northwind-eng.com", {"Email": PRIYA}, False),  # an email is matched whole
        ("@northwind-eng.com", {"Email": PRIYA}, True),
        ("@eng.com", {"Email": "x@northwind-eng.com"}, False),  # a domain whole, not a tail
        ("bjorn lindqvist", {"FirstName": "Björn", "LastName": "Lindqvist"}, True),
        ("bjorn smith", {"FirstName": "Björn", "LastName": "Lindqvist"}, False),
        (PRIYA, {"Email": 42}, False),  # a wrong type is no match, never an error
    ],
)
def test_matches_on_the_record_as_sent(typed: str, record: dict[str, object], found: bool) -> None:
    assert PersonQuery(typed).matches_sent({"User": record}) is found


async def test_a_search_of_the_demo_finds_every_access_and_counts_what_it_shows(
    client: HubClient,
) -> None:
    hubs = await client.list_hubs()
    query = PersonQuery(PRIYA)
    findings: list[Finding] = []
    progress = await search_people(client, query, hubs, on_finding=findings.append)
    assert isinstance(progress, Progress)
    assert progress.done
    assert progress.summary(query, findings) == (
        f"{PRIYA}: member of 2 projects (Admin 1, Editor 1), limited reader in 3, absent from "
        "18; 1 project could not be read"
    )
    failed = [f for f in findings if f.failed]
    assert len(failed) == 1
    assert failed[0].project is not None
    # The summary counts the rows given to it: one row fewer, one count fewer.
    shown = [f for f in findings if not (f.user is not None and f.user.is_limited)][:-1]
    assert "limited reader in 0" in progress.summary(query, shown)


def test_a_summary_of_a_stopped_search_says_how_far_it_got() -> None:
    progress = Progress(stopped=True, finished_after=1.0)
    progress.listed = {"h": {1: None, 2: None, 3: None}}  # type: ignore[dict-item]
    progress.answered = {("h", 1)}
    text = progress.summary(PersonQuery("@x.example"), [])
    assert text.endswith("stopped: 1 of 3 projects searched")
