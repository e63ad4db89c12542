"""Which server and profile a Workspace is, and where its files are."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from hubtui.hosts import server_aliases, server_identity

__all__ = ["DataPlaces", "Identity"]


class DataPlaces(NamedTuple):
    """Where a Workspace's files are: its change log and its store."""

    change_log: Path
    store: Path


@dataclass(frozen=True)
class Identity:
    """Which server and profile a store, a change log, a snapshot and a revert belong to.

    ``server`` is the whole normalised base URL (:func:`~hubtui.hosts.server_identity`; the
    demo API: ``demo``), ``profile`` the settings profile (never one for the demo API), and
    ``aliases`` the older names the change log gave the same server.
    """

    server: str
    profile: str | None
    aliases: tuple[str, ...] = ()
    #: The demo API (in-process): its store is a file of its own, and never a team's.
    demo: bool = False

    @classmethod
    def of(cls, base_url: str | None, profile: str | None, *, demo: bool) -> Identity:
        url = None if demo else base_url
        return cls(server_identity(url), None if demo else profile, server_aliases(url), demo)
