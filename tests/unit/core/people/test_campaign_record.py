"""A campaign's rules, decided from what the store holds: each decider's latest word, a
disagreement a conflict the owner settles, a removal beside another packet's keep a conflict,
a default that removes no one and demotes no Admin; and a close that sends nothing it cannot
check, and verifies nothing from a list it could not read back."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from hubtui.api import Hub
from hubtui.core.people.campaign_record import Campaign, population_sha256
from hubtui.core.people.review import Decision
from hubtui.core.store.campaigns import CampaignEvent, CampaignHead, CampaignRow
from hubtui.core.workflows.campaign import (
    HubMember,
    Member,
    Population,
    StartAsked,
    check_file,
    freeze,
    hub_member_of,
    member_of,
    reminders,
    reviewers_now,
)
from hubtui.core.workflows.campaign.closing import close_rows, verified

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
    return CampaignEvent(
        id=n,
        position=position,
        kind=kind,
        decision=word.value,
        reason="why",
        operator=by,
        moment="t",
    )


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


@pytest.mark.parametrize(
    "sent",
    [
        {
            "User": {"Id": 7, "Email": "b@x.example", "FirstName": "Bo", "LastName": "Ek"},
            "Role": "Editor",
            "IsLimited": False,
        },
        {
            "user": {"id": 7, "email": "b@x.example", "first_name": "Bo", "last_name": "Ek"},
            "role": "Editor",
            "is_limited": False,
        },
        {
            "User": {"Id": 7, "Email": "b@x.example", "FirstName": "Bo", "last_name": "Ek"},
            "Role": "Editor",
        },
    ],
    ids=["api-names", "snake-names", "mixed-and-absent"],
)
def test_a_membership_is_read_the_same_under_either_name(sent: dict[str, object]) -> None:
    assert member_of(sent) == Member("7", "b@x.example", "Bo Ek", "Editor", "Editor")


def test_a_membership_reads_alike_as_nearly_every_server_sends_it_and_field_by_field() -> None:
    """The read of a record as sent in one step gives what reading it field by field gives, for
    each field absent, null, or of another kind, under either name."""
    sent: dict[str, Any] = {
        "User": {"Id": 7, "Email": "b@x.example", "FirstName": "Bo", "LastName": "Ek"},
        "Role": "Editor",
        "IsLimited": False,
    }
    odd: list[object] = [None, 3, "", "Vi", ["Admin"], {"a": 1}, True]
    variants: list[object] = [sent, [sent], "text", None]
    for field_name in ("Role", "IsLimited", "User"):
        variants.append({k: v for k, v in sent.items() if k != field_name})
        variants += [{**sent, field_name: value} for value in odd]
    for field_name in ("Id", "Email", "FirstName", "LastName"):
        user = sent["User"]
        variants.append({**sent, "User": {k: v for k, v in user.items() if k != field_name}})
        variants += [{**sent, "User": {**user, field_name: value}} for value in odd]
    variants.append({**sent, "is_limited": True, "IsLimited": None})
    read_in_one_step = [v for v in variants if member_of(v) == member_of_field_by_field(v)]
    assert read_in_one_step == variants
    assert member_of(sent) == Member("7", "b@x.example", "Bo Ek", "Editor", "Editor")
    assert member_of({**sent, "IsLimited": True}) == Member(
        "7", "b@x.example", "Bo Ek", "Editor", "LIMITED"
    )


def member_of_field_by_field(sent: object) -> Member | None:
    """:func:`member_of` by its rule for any record: each field read by name."""
    from hubtui.api.as_sent import project_user_as_sent

    found = project_user_as_sent(sent)
    if found is None:
        return None
    first, last = found.first, found.last
    name = f"{first} {last}" if first and last else first or last
    access = "LIMITED" if found.is_limited is True else found.role
    return Member(found.user_id, found.email, name, found.role, access)


def test_a_membership_sent_oddly_is_kept_as_text_and_costs_no_one_their_row() -> None:
    limited = {
        "User": {"Id": "9", "Email": None, "FirstName": "", "LastName": "Ek"},
        "Role": "Viewer",
        "IsLimited": True,
    }
    assert member_of(limited) == Member("9", "", "Ek", "Viewer", "LIMITED")
    assert member_of({"User": "not a record", "Role": ["Admin"]}) == Member(
        "", "", "", "['Admin']", "['Admin']"
    )
    assert member_of(["a list"]) is None
    assert hub_member_of(
        {"User": {"Id": 3, "Email": "c@x.example"}, "Role": "Admin"}, seen=False
    ) == ("3", HubMember("c@x.example", "Admin"))
    assert hub_member_of(
        {"user": {"id": 3, "email": "c@x.example"}, "role": "Admin"}, seen=False
    ) == ("3", HubMember("c@x.example", "Admin"))
    assert hub_member_of({"User": 5}, seen=False) == ("", HubMember("", ""))


def test_the_population_s_sha256_is_what_an_auditor_recomputes_from_the_report() -> None:
    tricky = [
        *ROWS,
        CampaignRow(
            4,
            "1001",
            "Bridge",
            "10",
            'zoë "q"\\n@x.example',
            "",
            "Editor",
            "",
            "Editor",
            "dana@x.example",
            "",
        ),
    ]
    lines = sorted(
        json.dumps(
            [r.project, r.user_id, r.email, r.role, r.hub_role, r.access],
            ensure_ascii=False,
            separators=(",", ":"),
        )
        for r in tricky
    )
    assert population_sha256(tricky) == hashlib.sha256("\n".join(lines).encode()).hexdigest()
    assert population_sha256(tricky) != population_sha256(ROWS)


def test_nobody_is_their_own_reviewer_of_record() -> None:
    read = Population(HUB)
    read.projects = [("1001", "Bridge")]
    read.lists["1001"] = [
        Member("1", "Dana@x.example", "Dana", "Admin", "Admin"),
        Member("2", "erin@x.example", "Erin", "Admin", "Admin"),
        Member("7", "bjorn@x.example", "Bjorn", "Editor", "Editor"),
    ]
    read.hub_users = {}
    _, rows = freeze(read, StartAsked(), "olive@x.example")
    assert [(r.email, r.reviewer) for r in rows] == [
        ("Dana@x.example", "erin@x.example"),
        ("erin@x.example", "Dana@x.example"),
        ("bjorn@x.example", "Dana@x.example"),
    ]
    read.lists["1001"] = read.lists["1001"][:1]
    _, rows = freeze(read, StartAsked(), "olive@x.example")
    assert [(r.email, r.reviewer) for r in rows] == [("Dana@x.example", "olive@x.example")]


def admins_population() -> Population:
    """Bridge's two Admins (Dana, Gus), Tower's one (Gus); Gus the hub's only Admin."""
    read = Population(HUB, [("1001", "Bridge"), ("1002", "Tower")])
    read.lists = {
        "1001": [
            Member("1", "dana@x.example", "", "Admin", "Admin"),
            Member("9", "gus@x.example", "", "Admin", "Admin"),
            Member("8", "chloe@x.example", "", "Editor", "Editor"),
        ],
        "1002": [Member("9", "gus@x.example", "", "Admin", "Admin")],
    }
    read.hub_users = {
        "1": HubMember("dana@x.example", "Member"),
        "9": HubMember("gus@x.example", "Admin"),
        "8": HubMember("chloe@x.example", "Member"),
    }
    return read


ADMIN_ROWS = [
    CampaignRow(
        0, "1001", "Bridge", "1", "dana@x.example", "", "Admin", "Member", "Admin", "o", ""
    ),
    CampaignRow(1, "1001", "Bridge", "9", "gus@x.example", "", "Admin", "Admin", "Admin", "o", ""),
    CampaignRow(
        2, "1001", "Bridge", "8", "chloe@x.example", "", "Editor", "Member", "Editor", "o", ""
    ),
    CampaignRow(3, "1002", "Tower", "9", "gus@x.example", "", "Admin", "Admin", "Admin", "o", ""),
]


def test_no_close_leaves_a_project_without_an_admin() -> None:
    """Both of Bridge's Admins made Reader: neither is sent, each saying why; Chloé's change,
    which takes no Admin, is. One of two is sent: the other Admin stays."""
    both = [
        said(1, 0, Decision.READER, "o"),
        said(2, 1, Decision.READER, "o"),
        said(3, 2, Decision.READER, "o"),
    ]
    closing = close_rows(Campaign(head(), ADMIN_ROWS, both), admins_population())
    assert [w.email for w in closing.wanted] == ["chloe@x.example"]
    assert [(s.row.email, why) for s, why in closing.not_sent] == [
        (
            "dana@x.example",
            "it would leave Bridge with no Admin (its Admins: dana@x.example, gus@x.example)",
        ),
        (
            "gus@x.example",
            "it would leave Bridge with no Admin (its Admins: dana@x.example, gus@x.example)",
        ),
    ]
    one = close_rows(Campaign(head(), ADMIN_ROWS, both[:1]), admins_population())
    assert [w.email for w in one.wanted] == ["dana@x.example"]
    allowed = close_rows(
        Campaign(head(), ADMIN_ROWS, both), admins_population(), allow_no_admin=True
    )
    assert [w.email for w in allowed.wanted] == [
        "dana@x.example",
        "gus@x.example",
        "chloe@x.example",
    ]
    assert len(allowed.no_admin) == 2  # said in the preview, recorded with the close


def test_no_close_removes_the_hub_s_only_admin_nor_a_project_s_only_admin() -> None:
    """Gus removed from the hub: the hub's only Admin, and Tower's: not sent, said as such."""
    gus = [said(1, 1, Decision.REMOVE, "o"), said(2, 3, Decision.REMOVE, "o")]
    closing = close_rows(Campaign(head(), ADMIN_ROWS, gus), admins_population())
    assert closing.wanted == []
    assert {why for _, why in closing.not_sent} == {
        "gus@x.example is the only Admin of the hub: it would be left with none"
    }
    # Tower's only Admin, not the hub's: Tower is named.
    read = admins_population()
    assert read.hub_users is not None
    read.hub_users["1"] = HubMember("dana@x.example", "Admin")
    closing = close_rows(Campaign(head(), ADMIN_ROWS, gus), read)
    assert {why for _, why in closing.not_sent} == {
        "gus@x.example is the only Admin of Tower: it would be left with none"
    }


def test_a_reminder_goes_to_the_reviewer_s_account_as_it_is_addressed_now() -> None:
    """Dana's account (1) renamed since the freeze: her reminder goes to the address now and
    says the one frozen; the owner, known by no address, is said so; Gus's account gone from
    the hub is said; nobody who has finished is reminded."""
    rows = [
        CampaignRow(0, "1001", "Bridge", "7", "b@x.example", "", "Editor", "Guest", "Editor",
                    "dana@x.example", "", "1"),
        CampaignRow(1, "1001", "Bridge", "1", "dana@x.example", "", "Admin", "Guest", "Admin",
                    "olive", "", ""),
        CampaignRow(2, "1002", "Tower", "8", "c@x.example", "", "Editor", "Guest", "Editor",
                    "gus@x.example", "", "9"),
        CampaignRow(3, "1002", "Tower", "5", "e@x.example", "", "Editor", "Guest", "Editor",
                    "ann@x.example", "", "4"),
    ]  # fmt: skip
    campaign = Campaign(head(), rows, [said(1, 3, Decision.KEEP, "ann@x.example")])
    now_at = {"1": "dana.lind@x.example", "4": "ann@x.example", "7": "b@x.example"}
    said_to = {(r.to, r.note, r.packets) for r in reminders(campaign, now_at)}
    assert said_to == {
        (
            "dana.lind@x.example",
            "the account's address since the freeze; it was dana@x.example",
            (("Bridge", 1),),
        ),
        (
            "olive",
            "no address is known: the campaign's owner, as the operator setting names them",
            (("Bridge", 1),),
        ),
        (
            "gus@x.example",
            "account 9 is no longer a user of the hub; its address was gus@x.example",
            (("Tower", 1),),
        ),
    }
    # The hub's users not read: each to the address frozen.
    assert {r.to for r in reminders(campaign, None)} == {"dana@x.example", "olive", "gus@x.example"}


def test_a_reviewer_or_a_line_named_by_the_account_s_address_now_is_known_as_that_account() -> None:
    """Dana's account renamed since the freeze: status shows her address now beside the one
    frozen; a decisions file naming Björn's account by its new address is taken, by another
    address refused."""
    rows = [
        CampaignRow(0, "1001", "Bridge", "7", "b@x.example", "", "Editor", "Guest", "Editor",
                    "dana@x.example", "", "1"),
    ]  # fmt: skip
    campaign = Campaign(head(), rows, [])
    assert reviewers_now(campaign, {"1": "dana.lind@x.example"}) == {
        "dana@x.example": "dana.lind@x.example"
    }
    assert reviewers_now(campaign, None) == {}
    line = {"project": "1001", "user_id": "7", "email": "bjorn.new@x.example", "decision": "keep"}
    taken = check_file(
        campaign, "demo", [(2, line)], "dana@x.example", now_at={"7": "bjorn.new@x.example"}
    )
    assert (len(taken.events), taken.refused) == (1, [])
    refused = check_file(
        campaign, "demo", [(2, line)], "dana@x.example", now_at={"7": "b@x.example"}
    )
    assert refused.events == []
    assert refused.refused[0].startswith("line 2: account 7 is b@x.example in the campaign")
