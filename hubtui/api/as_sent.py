"""A record's fields as the server sent it, read without validating it: a firm's 100,000 project
users are read for a campaign at a tuple's cost, each field under its API name (``Email``) or
the name the typed records also accept (``email``). Nothing here raises on what a server sends:
a record that is not an object reads as None, a field absent as None."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any, NamedTuple

from pydantic.alias_generators import to_snake

from hubtui.api.models import HubUser, read_moment

__all__ = [
    "SentHubUser",
    "SignedIn",
    "SentProjectUser",
    "hub_user_as_sent",
    "hub_user_signed_in",
    "new_record",
    "project_user_as_sent",
    "sent_field",
]


def sent_field(record: Mapping[str, Any], name: str) -> Any:
    """A field of a record as the server sent it, by its API name (``Email``) or by the name
    the records also accept (``email``), as the typed records read it."""
    if name in record:
        return record[name]
    return record.get(_snake(name))


#: An API name's other name, worked out once (the names are this module's own: a handful).
_snake = lru_cache(maxsize=64)(to_snake)


def text_of(value: object) -> str:
    """A value as sent, as text (None: empty); never an error, whatever its type."""
    if type(value) is str:
        return value
    return "" if value is None else str(value)


class SentProjectUser(NamedTuple):
    """A project's user as sent: its account's Id, address and names, its role, and whether it
    is a limited reader (``IsLimited`` as sent: only True is one)."""

    user_id: str
    email: str
    first: str
    last: str
    role: str
    is_limited: object


class SentHubUser(NamedTuple):
    """A hub's user as sent: its account's Id and address, and its role in the hub."""

    user_id: str
    email: str
    role: str


def project_user_as_sent(sent: object) -> SentProjectUser | None:
    """A project's user as sent (None: not a record at all)."""
    if not isinstance(sent, dict):
        return None
    try:  # each field under its API name, as nearly every record sends it
        user = sent["User"]
        found = (user["Id"], user["Email"], user["FirstName"], user["LastName"])
        role, limited = sent["Role"], sent["IsLimited"]
    except (KeyError, TypeError):  # a field absent, or sent under the name records accept too
        user = sent_field(sent, "User")
        user = user if isinstance(user, dict) else {}
        found = tuple(sent_field(user, n) for n in ("Id", "Email", "FirstName", "LastName"))
        role, limited = sent_field(sent, "Role"), sent_field(sent, "IsLimited")
    user_id, email, first, last = map(text_of, found)
    return SentProjectUser(user_id, email, first, last, text_of(role), limited)


def hub_user_as_sent(sent: object) -> SentHubUser | None:
    """A hub's user as sent (None: not a record at all)."""
    if not isinstance(sent, dict):
        return None
    try:  # as in project_user_as_sent
        user = sent["User"]
        user_id, email, role = user["Id"], user["Email"], sent["Role"]
    except (KeyError, TypeError):
        user = sent_field(sent, "User")
        user = user if isinstance(user, dict) else {}
        user_id, email = sent_field(user, "Id"), sent_field(user, "Email")
        role = sent_field(sent, "Role")
    return SentHubUser(text_of(user_id), text_of(email), text_of(role))


#: A hub user's fields its sign-ins and invitation are read from: (API name, the record's).
_SIGNED_IN = (
    ("IsActivated", "is_activated"),
    ("LastWebLogin", "last_web_login"),
    ("LastAddinLogin", "last_addin_login"),
    ("LastHubProjectActivity", "last_hub_project_activity"),
)


class SignedIn(NamedTuple):
    """A hub user's sign-ins and invitation as sent, each date read by the typed record's own
    rule (:data:`~hubtui.api.models.read_moment`): what a firm's 100,000 are judged on, read
    without validating the rest of each record (a tuple: made and read at a tuple's cost)."""

    sent: Mapping[str, Any]
    """The record as sent."""
    last_web_login: Any = None
    """Each date as read (a ``datetime``), or as sent where it cannot be (None: not sent)."""
    last_addin_login: Any = None
    last_hub_project_activity: Any = None
    is_activated: Any = None
    """The invitation's state as sent (None: null, or not sent)."""
    activation_sent: bool = False
    """Whether the invitation's state was sent at all."""

    @property
    def fields(self) -> dict[str, Any]:
        """The sign-ins and the invitation as sent, under the record's names (absent: not
        sent)."""
        fields: dict[str, Any] = {}
        for wire, name in _SIGNED_IN:
            if wire in self.sent:
                fields[name] = self.sent[wire]
            elif name in self.sent:
                fields[name] = self.sent[name]
        return fields

    def record(self, user_id: int | str) -> HubUser | None:
        """The typed record of what was sent (None: the record refuses it)."""
        try:
            return HubUser.model_validate({"user": {"id": user_id}, **self.fields})
        except ValueError:
            return None


#: A named tuple of its values in its fields' order, as ``Kind._make`` makes it without the
#: call's checks: ``new_record(Kind, values)`` (a firm's 100,000 records).
new_record = tuple.__new__


def hub_user_signed_in(sent: object) -> SignedIn | None:
    """A hub user's :class:`SignedIn` (None: not a record): each field read once, here."""
    if not isinstance(sent, dict):
        return None
    try:  # each under its API name, as nearly every record sends them
        dates = (sent["LastWebLogin"], sent["LastAddinLogin"], sent["LastHubProjectActivity"])
    except KeyError:
        dates = tuple(sent_field(sent, wire) for wire, _ in _SIGNED_IN[1:])
    web, addin, activity = map(read_moment, dates)
    if "IsActivated" in sent:
        return new_record(SignedIn, (sent, web, addin, activity, sent["IsActivated"], True))
    if "is_activated" in sent:
        return new_record(SignedIn, (sent, web, addin, activity, sent["is_activated"], True))
    return new_record(SignedIn, (sent, web, addin, activity, None, False))
