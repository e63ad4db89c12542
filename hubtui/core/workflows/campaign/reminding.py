"""Reminders for the reviewers still behind, each at their account's address now."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from hubtui.api import HubError
from hubtui.core.access import person_key
from hubtui.core.people.campaign import Campaign
from hubtui.core.workflows.campaign.population import hub_member_of

if TYPE_CHECKING:
    from hubtui.api import HubClient


__all__ = [
    "Reminder",
    "addresses_now",
    "reminders",
    "reviewers_now",
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
