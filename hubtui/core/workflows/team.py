"""Who a person in the team is: a database role and the hub accounts it acts for, kept in the
team store's roster by its owner (``hubtui team add | list | remove``). On the team store the
role a connection signs in as decides, never a name typed in a setting (the ``operator`` is
shown beside it, and decides nothing); a file is one person's, so there the roster is the local
user, as the operator setting names them.

The database itself keeps the same rules (``store migrate`` installs them): what is refused
here is refused to the role's own ``psql`` too.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hubtui.api import HubError
from hubtui.core.access import person_key
from hubtui.core.clock import now
from hubtui.core.store.campaigns import RosterEntry, roster, roster_add, roster_remove
from hubtui.text import inert

if TYPE_CHECKING:
    from hubtui.api import HubClient
    from hubtui.core.store.repository import Store
    from hubtui.core.store.server_store import ServerStore

__all__ = [
    "Decider",
    "NotInRoster",
    "RosterEntry",
    "add_to_roster",
    "decider_in",
    "find_account",
    "remove_from_roster",
    "roster_of",
]


class NotInRoster(Exception):
    """The role is not one the roster lets decide; in words, with the owner's command."""


@dataclass(frozen=True)
class Decider:
    """Who is at the store: its database role (empty: a file, one person's) and the accounts
    it acts for on this server (by Id), with the operator setting shown beside them."""

    role: str
    operator: str
    accounts: frozenset[str] = frozenset()
    emails: tuple[str, ...] = ()

    @property
    def team(self) -> bool:
        """Whether the database's role decides (a team store), not the operator setting."""
        return bool(self.role)

    @property
    def name(self) -> str:
        """Who the record names: the role on a team store (the operator beside it), else the
        operator."""
        return self.role if self.team else self.operator

    def acts_for(self, user_id: str, email: str) -> bool:
        """Whether this is the account in question: by Id on a team store; by address on a
        file (the operator setting is all a file knows of its person)."""
        if self.team:
            return bool(user_id) and user_id in self.accounts
        return person_key(email) == person_key(self.operator)

    def refusal(self) -> str:
        return (
            f"the database role {inert(self.role)} is not in the team roster of this server: it "
            f"decides nothing. The store's owner adds it: hubtui team add {inert(self.role)} "
            "--account EMAIL"
        )


def decider_in(store: Store, origin: str, operator: str) -> Decider:
    """The decider at ``store``: on a team store the connection's role and the accounts the
    roster says it acts for on ``origin``; on a file the operator setting alone."""
    role = store.engine.role()
    if not role:
        return Decider("", operator)
    mine = [e for e in roster(store, origin) if e.role == role]
    return Decider(role, operator, frozenset(e.account for e in mine), tuple(e.email for e in mine))


async def roster_of(server_store: ServerStore) -> list[RosterEntry]:
    """The team roster of this server."""

    def read() -> list[RosterEntry]:
        with server_store.open() as store:
            return roster(store, server_store.origin)

    return await asyncio.to_thread(read)


async def find_account(
    client: HubClient, email: str, *, on_hub: Callable[[str], None] = lambda name: None
) -> tuple[str, str, str] | None:
    """The account at ``email`` on this server: its Id, its address as sent and its name,
    looked up among the users of each hub the token sees (None: no hub knows it)."""
    wanted = person_key(email)
    for hub in await client.list_hubs():
        on_hub(hub.name)
        try:
            users = await client.list_hub_users(hub.id)
        except HubError:
            continue
        for user in users:
            if person_key(user.user.email or "") == wanted:
                return str(user.user.id), user.user.email or "", user.user.full_name
    return None


async def add_to_roster(
    server_store: ServerStore, role: str, account: tuple[str, str, str], name: str
) -> RosterEntry:
    """``role`` acts for ``account`` (its Id, address and name) on this server from now on;
    only the store's owner may (the database refuses any other role)."""
    user_id, email, sent_name = account
    entry = RosterEntry(role, server_store.origin, user_id, email, name or sent_name, now(), "")

    def write() -> None:
        with server_store.open() as store:
            roster_add(store, entry)

    await asyncio.to_thread(write)
    return entry


async def remove_from_roster(server_store: ServerStore, role: str) -> int:
    def write() -> int:
        with server_store.open() as store:
            return roster_remove(store, role)

    return await asyncio.to_thread(write)
