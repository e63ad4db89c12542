"""One home for access and identity: the roles, what access a record gives, and one rule for
whether two records are the same person. Search, batches, diff, the change log, the form and
the commands all ask here, so a person found by one is found by every other.

Textual-free.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, TypeVar

from hubtui.api.as_sent import sent_field
from hubtui.api.identity import KNOWN_ROLES, email_key
from hubtui.text import hidden_character

if TYPE_CHECKING:
    from hubtui.api import ProjectUser
    from hubtui.api.models import HubUser

__all__ = [
    "ACCESS_NOT_SENT",
    "DIRECT_MEMBER",
    "LIMITED_CELL",
    "LIMITED_READER",
    "ROLES",
    "access_cell",
    "access_words",
    "email_problem",
    "find_person",
    "person_key",
    "role_named",
    "sent_field",
]

#: The roles the service documents, in order of growing rights.
ROLES: tuple[str, ...] = KNOWN_ROLES

LIMITED_READER = "limited reader"
DIRECT_MEMBER = "direct member"
#: A record that did not say whether the person is limited: never taken for either.
ACCESS_NOT_SENT = "access not sent"
#: A limited reader's access in one word, where a role stands for a member (a matrix cell, the
#: evidence of a decision, a decisions file).
LIMITED_CELL = "LIMITED"

Person = TypeVar("Person", "ProjectUser", "HubUser")


def role_named(text: str) -> str | None:
    """The role ``text`` names, in the server's spelling (any case is taken: ``editor`` →
    ``Editor``); None when it names none."""
    wanted = text.strip().casefold()
    return next((role for role in ROLES if role.casefold() == wanted), None)


def access_words(is_limited: object) -> str:
    """What access a record's ``IsLimited`` gives, in words: a limited reader, a direct
    member, or (anything but a boolean) not sent."""
    if is_limited is True:
        return LIMITED_READER
    if is_limited is False:
        return DIRECT_MEMBER
    return ACCESS_NOT_SENT


#: An email as two records of one person agree on it: an address matches only itself, ASCII
#: case aside.
person_key = email_key


def find_person(users: Iterable[Person], email: str) -> Person | None:
    """The record of a project's users, or of a hub's, with this email (by :func:`person_key`),
    if any: the one way a person is found by their address."""
    wanted = person_key(email)
    return next((u for u in users if person_key(u.user.email) == wanted), None)


def access_cell(user: ProjectUser) -> str:
    """A person's access in one project in one word: their role, or ``LIMITED``."""
    return LIMITED_CELL if user.is_limited else user.role


def accounts_of(users: Sequence[HubUser], email: str) -> list[HubUser]:
    """Every account of the hub whose address is ``email`` (ASCII case aside): usually one;
    a server may hold two (``Ann@`` and ``ann@``), each a person to act on by its Id."""
    key = person_key(email)
    return [u for u in users if person_key(u.user.email) == key]


def account_of(users: Sequence[HubUser], email: str, user_id: str | None) -> HubUser | None:
    """The account a change acts on: by its Id when it names one, else the one account with
    that address (None: none, or several: :func:`accounts_of` tells them apart)."""
    if user_id is not None:
        return next((u for u in users if str(u.user.id) == user_id), None)
    found = accounts_of(users, email)
    return found[0] if len(found) == 1 else None


def accounts_words(found: Sequence[HubUser | ProjectUser]) -> str:
    """``Id 10 Ann@acme.example, Id 11 ann@acme.example``: each account named."""
    return ", ".join(f"Id {u.user.id} {u.user.email or '(no email)'}" for u in found)


#: What an email address looks like, for the check before anything goes out.
EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s.]+$")


def email_problem(email: str) -> str | None:
    """Why ``email`` cannot be sent, or None when it can."""
    if not email.strip():
        return "Type the person's email address."
    if email != email.strip():
        return "Remove the spaces around the address."
    hidden = hidden_character(email)
    if hidden is not None:
        return (
            f"The address holds the control or invisible character U+{ord(hidden):04X}, which "
            "no address has: type it again."
        )
    if not EMAIL.match(email):
        return "This is not an email address (name@domain.example)."
    return None
