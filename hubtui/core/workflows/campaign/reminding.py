"""Reminders for the reviewers still behind, each at their account's address now."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hubtui.api import HubError
from hubtui.core.access import person_key
from hubtui.core.people.campaign_record import Campaign
from hubtui.core.workflows.campaign.deciding import may_not_decide
from hubtui.core.workflows.campaign.population import hub_member_of
from hubtui.core.workflows.team import Decider

if TYPE_CHECKING:
    from hubtui.api import HubClient
    from hubtui.core.store.campaigns import CampaignRow


__all__ = [
    "Reminder",
    "Waiting",
    "addresses_now",
    "reminders",
    "reviewers_now",
    "waiting_on",
]


@dataclass(frozen=True)
class Reminder:
    """A message for one reviewer still behind: where it goes (their account's address now),
    what that address was when the campaign froze, and each packet's rows left."""

    to: str
    note: str
    """Why the address is not the frozen one, or why none is known (empty: as frozen)."""
    packets: tuple[tuple[str, int], ...]

    @property
    def left(self) -> int:
        return sum(count for _, count in self.packets)


async def addresses_now(client: HubClient, campaign: Campaign) -> dict[str, str] | None:
    """Each user of the campaign's hub's address now, by account Id (None: the hub's users
    could not be read)."""
    try:
        sent = await client.list_hub_users_as_sent(campaign.head.hub)
    except HubError:
        return None
    found = (hub_member_of(u.root, seen=False) for u in sent)
    return {user_id: member.email for user_id, member in filter(None, found)}


def reviewers_now(campaign: Campaign, now_at: dict[str, str] | None) -> dict[str, str]:
    """Each reviewer of record as frozen → the address their account has now, where it changed
    (``now_at``: the hub's users by account Id; None, not read: none changed as far as known)."""
    if now_at is None:
        return {}
    shown = {}
    for row in campaign.rows:
        now_is = now_at.get(row.reviewer_id) if row.reviewer_id else None
        if now_is is not None and person_key(now_is) != person_key(row.reviewer):
            shown[row.reviewer] = now_is
    return shown


def reminders(campaign: Campaign, now_at: dict[str, str] | None) -> list[Reminder]:
    """A reminder for each reviewer of record still behind (never one who has finished, never
    for a packet with no rows), addressed by account: at the account's address now where the
    hub's users were read (``now_at``), saying the change from the address frozen."""
    behind: dict[tuple[str, str], dict[str, int]] = {}
    for packet in campaign.packets:
        for s in campaign.left_of(packet.positions):
            who = (s.row.reviewer_id, s.row.reviewer if not s.row.reviewer_id else "")
            counts = behind.setdefault(who, {})
            counts[packet.name] = counts.get(packet.name, 0) + 1
    frozen = {
        (s.row.reviewer_id, s.row.reviewer if not s.row.reviewer_id else ""): s.row.reviewer
        for s in campaign.states.values()
    }
    said = []
    for key, counts in behind.items():
        account, _ = key
        was = frozen[key]
        to, note = was, ""
        if account and now_at is not None:
            now_is = now_at.get(account)
            if now_is is None:
                note = f"account {account} is no longer a user of the hub; its address was {was}"
            elif person_key(now_is) != person_key(was):
                to, note = now_is, f"the account's address since the freeze; it was {was}"
        elif "@" not in was:
            note = "no address is known: the campaign's owner, as the operator setting names them"
        said.append(Reminder(to, note, tuple(counts.items())))
    return sorted(said, key=lambda r: r.to.casefold())


@dataclass(frozen=True)
class Waiting:
    """A packet waiting on someone: its campaign, its project and name, and the rows left that
    are theirs to decide."""

    campaign: Campaign
    project: str
    name: str
    left: int


def waiting_on(campaigns: Sequence[Campaign], decider: Decider) -> list[Waiting]:
    """The packets of the open campaigns with rows left for ``decider`` to decide (its reviewer
    of record, or a packet given to its role; never its own account's rows), oldest campaign
    first: what ``campaign mine`` lists."""
    found = []
    for campaign in campaigns:
        if campaign.takes_no_decision():
            continue
        for packet in campaign.packets:
            left = [
                s for s in campaign.left_of(packet.positions) if _theirs(campaign, decider, s.row)
            ]
            if left:
                found.append(Waiting(campaign, packet.project, packet.name, len(left)))
    return found


def _theirs(campaign: Campaign, decider: Decider, row: CampaignRow) -> bool:
    """Whether ``row`` waits on ``decider``: its reviewer of record (by account on the team
    store, by address on a file), or in a packet given to its role; never its own access."""
    if may_not_decide(campaign, decider, row):
        return False
    if decider.team:
        return True  # may_not_decide holds it to its accounts and delegations
    return person_key(row.reviewer) == person_key(decider.operator)
