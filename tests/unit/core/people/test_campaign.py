"""A campaign's rules, decided from what the store holds: each decider's latest word, a
disagreement a conflict the owner settles, a removal beside another packet's keep a conflict,
a default that removes no one and demotes no Admin; and a close that sends nothing it cannot
check, and verifies nothing from a list it could not read back."""

from __future__ import annotations

from hubtui.api import Hub
from hubtui.core.people.campaign import Campaign
from hubtui.core.people.review import Decision
from hubtui.core.store.campaigns import CampaignEvent, CampaignHead, CampaignRow
from hubtui.core.workflows.campaign import HubMember, Member, Population, close_rows, verified

HUB = Hub.model_validate({"Id": "h1", "Name": "acme-build"})


def head(if_no_answer: str = "keep") -> CampaignHead:
    return CampaignHead(
        1,
        "demo",
        "",
        "h1",
        "acme-build",
        "Q4",
        "olive",
        "t",
        "t",
        "",
        if_no_answer,
        "all",
        '{"packets": {"1001": {"name": "Bridge", "reviewers": ["dana@x.example"]}, '
        '"1002": {"name": "Tower", "reviewers": ["dana@x.example"]}}}',
        "sha",
        "",
    )


def row(position: int, project: str, user_id: str, email: str, role: str = "Editor") -> CampaignRow:
    name = "Bridge" if project == "1001" else "Tower"
    return CampaignRow(
        position, project, name, user_id, email, "", role, "Guest", role, "dana@x.example", ""
    )


ROWS = [
    row(0, "1001", "7", "bjorn@x.example"),
    row(1, "1002", "7", "bjorn@x.example"),
    row(2, "1001", "8", "chloe@x.example"),
    row(3, "1001", "1", "dana@x.example", "Admin"),
]


def said(n: int, position: int, word: Decision, by: str, kind: str = "decide") -> CampaignEvent:
    return CampaignEvent(n, position, kind, word.value, "why", by, "t", 0, "")


def test_two_deciders_who_disagree_are_a_conflict_the_owner_settles() -> None:
    events = [said(1, 2, Decision.KEEP, "dana"), said(2, 2, Decision.READER, "aiko")]
    campaign = Campaign(head(), ROWS, events)
    assert campaign.states[2].decision is None
    assert campaign.states[2].conflict == "deciders disagree (dana: keep, aiko: set Reader)"
    # The same decider changing their word is no conflict: their latest word stands.
    campaign = Campaign(head(), ROWS, [*events[:1], said(3, 2, Decision.READER, "dana")])
    assert campaign.states[2].decision is Decision.READER
    settled = Campaign(head(), ROWS, [*events, said(4, 2, Decision.READER, "olive", "resolve")])
    assert (settled.states[2].decision, settled.states[2].conflict) == (Decision.READER, "")


def test_a_removal_beside_another_packet_s_keep_is_a_conflict_and_kept_at_the_close() -> None:
    events = [said(1, 0, Decision.REMOVE, "dana"), said(2, 1, Decision.KEEP, "dana")]
    campaign = Campaign(head(), ROWS, events)
    assert campaign.states[0].conflict == "removed here, kept in Tower"
    assert campaign.at_close(campaign.states[0])[0] is Decision.KEEP


def test_the_reader_default_demotes_no_admin_and_removes_no_one() -> None:
    campaign = Campaign(head("reader"), ROWS, [])
    assert campaign.at_close(campaign.states[2]) == (
        Decision.READER,
        "no answer: the campaign's default (reader)",
    )
    decision, why = campaign.at_close(campaign.states[3])
    assert decision is Decision.KEEP
    assert "an Admin keeps their access" in why
    assert all(campaign.at_close(s)[0] is not Decision.REMOVE for s in campaign.states.values())


def population(*, hub_users: bool = True, lists: tuple[str, ...] = ("1001", "1002")) -> Population:
    members = {
        "1001": [
            Member("7", "bjorn@x.example", "", "Editor", "Editor"),
            Member("8", "chloe@x.example", "", "Editor", "Editor"),
        ],
        "1002": [Member("7", "bjorn@x.example", "", "Editor", "Editor")],
    }
    read = Population(HUB, [("1001", "Bridge"), ("1002", "Tower")])
    read.lists = {p: members[p] for p in lists}
    if hub_users:
        read.hub_users = {
            "7": HubMember("bjorn@x.example", "Guest"),
            "8": HubMember("chloe@x.example", "Guest"),
        }
    return read


def test_a_close_sends_nothing_it_cannot_check_against_a_list_read_now() -> None:
    events = [
        said(1, 0, Decision.REMOVE, "dana"),
        said(2, 1, Decision.REMOVE, "dana"),
        said(3, 2, Decision.READER, "dana"),
    ]
    campaign = Campaign(head(), ROWS, events)
    whole = close_rows(campaign, population())
    assert [w.intent.value for w in whole.wanted] == ["set", "remove from hub"]
    part = close_rows(campaign, population(hub_users=False, lists=("1002",)))
    assert part.wanted == []
    assert sorted(why for _, why in part.not_sent) == [
        "its project's users could not be read now",
        "its project's users could not be read now",
        "the hub's users could not be read now",
    ]


def test_nothing_is_verified_from_a_list_not_read_back() -> None:
    events = [said(1, 0, Decision.REMOVE, "dana"), said(2, 1, Decision.REMOVE, "dana")]
    campaign = Campaign(head(), ROWS, events)
    closing = close_rows(campaign, population())
    gone = population(hub_users=False, lists=())
    assert {e.detail for e in verified(campaign, closing, gone)} == {"NOT VERIFIED: not read back"}
    after = population(lists=("1002",))
    after.hub_users = {"8": HubMember("chloe@x.example", "Guest")}
    after.lists = {"1001": [], "1002": []}
    assert {e.detail for e in verified(campaign, closing, after)} == {"verified: not in the hub"}
