"""The contract's URL layout, once: the client builds its addresses from these, and whatever
answers reads in the server's place (the store, offline) reads a request's address back with
:func:`read_of`. Paths only: which base URL (the hub's regional API) is ``routing``'s."""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import unquote

__all__ = ["HUBS", "HUB_BY_NAME", "PROJECTS", "USERS", "Read", "hub_scoped", "read_of"]

#: Every hub the token can see; one hub is ``HUBS/{hubId}``.
HUBS = "/v3/hubs"
#: One hub by its URL name: ``HUB_BY_NAME/{name}``.
HUB_BY_NAME = "/v3/hubs/name"
#: Under a hub: ``{hub_scoped(version)}/{hubId}/projects[/{projectId}/users[/{userId}]]``, and
#: the hub's own users, ``/v3/hubs/{hubId}/users[/{userId}]``.
PROJECTS = "projects"
USERS = "users"


def hub_scoped(version: str) -> str:
    """The prefix of the calls about one hub, for an API version (``/v3/hubs``)."""
    return f"/{version}/hubs"


@dataclass(frozen=True)
class Read:
    """What a read asks for: ``hubs``, ``hub``, ``hub_by_name``, ``hub_users``, ``projects``,
    ``users`` or ``user``, and the identifiers it names (unquoted)."""

    kind: str
    hub: str = ""
    name: str = ""
    project: str = ""
    user: str = ""


_SEGMENT = r"[^/]+"
_READS = (
    ("hubs", re.compile(rf"^{HUBS}$")),
    ("hub_by_name", re.compile(rf"^{HUB_BY_NAME}/(?P<name>{_SEGMENT})$")),
    ("hub", re.compile(rf"^{HUBS}/(?P<hub>{_SEGMENT})$")),
    ("projects", re.compile(rf"^/v[23]/hubs/(?P<hub>{_SEGMENT})/{PROJECTS}$")),
    ("hub_users", re.compile(rf"^{HUBS}/(?P<hub>{_SEGMENT})/{USERS}$")),
    (
        "users",
        re.compile(
            rf"^/v[23]/hubs/(?P<hub>{_SEGMENT})/{PROJECTS}/(?P<project>{_SEGMENT})/{USERS}$"
        ),
    ),
    (
        "user",
        re.compile(
            rf"^/v[23]/hubs/(?P<hub>{_SEGMENT})/{PROJECTS}/(?P<project>{_SEGMENT})/{USERS}"
            rf"/(?P<user>{_SEGMENT})$"
        ),
    ),
)


def read_of(path: str) -> Read | None:
    """The read a request's path asks for (a regional API's path too: its prefix, such as
    ``/regions/eu``, is not part of the layout); None when the path is no read of the contract."""
    for kind, pattern in _READS:
        for start in _starts(path):
            found = pattern.match(path[start:])
            if found:
                named = {key: unquote(value) for key, value in found.groupdict().items()}
                return Read(kind, **named)
    return None


def _starts(path: str) -> list[int]:
    """Where the contract's part of a path may begin: at its start, or after a base path."""
    return [0, *(i for i, char in enumerate(path) if char == "/" and i)]
