"""A campaign as the store holds it: opened (of this server and profile only), listed, and
compared with the hub's campaign before it."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from hubtui.core.people.campaign_record import Campaign
from hubtui.core.store.campaigns import (
    campaign_events,
    campaign_head,
    campaign_rows,
    campaigns_of,
)
from hubtui.text import inert

if TYPE_CHECKING:
    from hubtui.core.store.repository import Store
    from hubtui.core.store.server_store import ServerStore


__all__ = [
    "RecordChanged",
    "Refused",
    "campaigns_kept",
    "changed_since",
    "events_again",
    "open_campaign",
    "previous_of",
    "read_campaign",
]


class Refused(Exception):
    """A campaign or a decisions file refused whole, in words."""


class RecordChanged(Refused):
    """The campaign's record does not hold as written (its population or its events' chain):
    nothing is closed or sent from it."""


def read_campaign(store: Store, number: int) -> Campaign:
    head = campaign_head(store, number)
    if head is None:
        raise Refused(f"there is no campaign {number} in the store {store.where}.")
    return Campaign(head, campaign_rows(store, number), campaign_events(store, number))


def events_again(store: Store, campaign: Campaign) -> Campaign:
    """The campaign with its events read again (others' too); its population is frozen, so
    its rows are not."""
    return Campaign(campaign.head, campaign.rows, campaign_events(store, campaign.number))


async def open_campaign(server_store: ServerStore, number: int) -> Campaign:
    """The campaign as the store holds it now; one of another server or profile is refused."""

    def read() -> Campaign:
        with server_store.open() as store:
            campaign = read_campaign(store, number)
        head = campaign.head
        if head.origin != server_store.origin or head.profile != (server_store.profile or ""):
            raise Refused(
                f"campaign {number} is of {inert(head.origin)} (profile "
                f"{inert(head.profile or 'default')}), not of {inert(server_store.origin)}: "
                "it is decided and closed from there."
            )
        return campaign

    return await asyncio.to_thread(read)


async def campaigns_kept(server_store: ServerStore) -> list[Campaign]:
    """The campaigns of this server and profile, oldest first, each read whole."""

    def read() -> list[Campaign]:
        if not server_store.has_store():
            return []
        with server_store.open() as store:
            heads = campaigns_of(store, server_store.origin, server_store.profile or "")
            return [read_campaign(store, head.id) for head in heads]

    return await asyncio.to_thread(read)


def changed_since(campaign: Campaign, before: Campaign | None) -> dict[str, int]:
    """What changed in the population since the hub's campaign before: memberships new, gone,
    and with another access (each by project and account Id)."""
    if before is None:
        return {}
    was = {(r.project, r.user_id): r.access for r in before.rows}
    now_is = {(r.project, r.user_id): r.access for r in campaign.rows}
    return {
        "campaign": before.number,
        "new": sum(1 for k in now_is if k not in was),
        "gone": sum(1 for k in was if k not in now_is),
        "other access": sum(1 for k, a in now_is.items() if k in was and was[k] != a),
    }


async def previous_of(server_store: ServerStore, campaign: Campaign) -> Campaign | None:
    """The hub's campaign before this one, of this server and profile (None: none)."""

    def read() -> Campaign | None:
        with server_store.open() as store:
            heads = campaigns_of(store, server_store.origin, server_store.profile or "")
            earlier = [h for h in heads if h.hub == campaign.head.hub and h.id < campaign.number]
            return read_campaign(store, earlier[-1].id) if earlier else None

    return await asyncio.to_thread(read)
