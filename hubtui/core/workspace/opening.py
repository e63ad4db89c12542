"""Building a Workspace from the settings: the one way one is built."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from hubtui.config import ConfigError, Settings
from hubtui.core.places import default_change_log_path, default_store_path
from hubtui.core.store import StoreError
from hubtui.core.workspace.connection import (
    client_factory,
    label_of,
    offline_client_factory,
    offline_label,
)
from hubtui.core.workspace.identity import DataPlaces, Identity
from hubtui.core.workspace.workspace import Connection, Workspace

if TYPE_CHECKING:
    from hubtui.api import HubClient
    from hubtui.core.workspace.connection import DemoClients, ServerClients
    from hubtui.core.workspace.offline import StoredAnswers
    from hubtui.core.workspace.workspace import SettingsFor

__all__ = ["open_workspace", "stored_answers"]


def open_workspace(
    settings: Settings,
    *,
    demo: DemoClients | None = None,
    offline: bool = False,
    settings_for: SettingsFor | None = None,
    rereads_token: bool = True,
    on_unlogged: Callable[[str], None] | None = None,
    server_clients: ServerClients | None = None,
    data: DataPlaces | None = None,
) -> Workspace:
    """The Workspace of these settings, the one way one is built: the demo API in-process, or
    the configured server; ``offline``, what the store kept of it
    (:class:`~hubtui.config.ConfigError` when nothing). ``settings_for`` reads the settings
    again for a profile (reconnect, profile switch); ``demo``, how to reach the demo API (None:
    the configured server); ``server_clients``, how to reach a configured server (None: over HTTP);
    ``data``, where the change log and the store are (None: the data folder's)."""
    is_demo = demo is not None
    identity = Identity.of(settings.base_url, settings.profile, demo=is_demo)
    change_log_path, store_path = data or DataPlaces(
        default_change_log_path(demo=is_demo), default_store_path(demo=is_demo)
    )
    answers = stored_answers(store_path, identity) if offline else None

    def connect_to(fresh: Settings) -> Callable[[], HubClient]:
        return client_factory(fresh, demo=demo, server_clients=server_clients)

    def go_offline() -> tuple[Callable[[], HubClient], str, StoredAnswers]:
        found = stored_answers(store_path, identity)
        return (
            offline_client_factory(settings, found, demo=is_demo),
            offline_label(settings, demo=is_demo),
            found,
        )

    def reconnect(profile: str | None) -> tuple[Callable[[], HubClient], str, Settings]:
        assert settings_for is not None
        fresh = settings_for(profile)
        return connect_to(fresh), label_of(fresh, demo=is_demo), fresh

    if answers is not None:
        connection = Connection(
            offline_client_factory(settings, answers, demo=is_demo),
            offline_label(settings, demo=is_demo),
            offline=answers,
            rereads_token=rereads_token,
        )
    else:
        connection = Connection(
            connect_to(settings),
            label_of(settings, demo=is_demo),
            last_week=None if demo is None else demo(settings, last_week=True),
            reconnect=None if settings_for is None else reconnect,
            go_offline=go_offline,
            rereads_token=rereads_token,
        )
    return Workspace(
        settings,
        identity,
        connection,
        DataPlaces(change_log_path, store_path),
        on_unlogged=on_unlogged,
    )


def stored_answers(store_path: Path, identity: Identity) -> StoredAnswers:
    """What the store kept of this server, to read offline (:class:`ConfigError` when nothing
    can be read from it)."""
    from hubtui.core.workspace.offline import open_offline

    try:
        return open_offline(store_path, identity.server, identity.profile)
    except StoreError as error:
        raise ConfigError(f"--offline: {error}") from None
