"""How a Workspace reaches its server: the client of the configured server, of the store's
answers (offline), or of the demo API the composition root (``hubtui.cli``) builds; and how
each is named on the screen. Every client is made by :func:`configured_client`, from the
settings."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from hubtui.hosts import server_label

if TYPE_CHECKING:
    import httpx

    from hubtui.api import HubClient
    from hubtui.config import Settings
    from hubtui.core.workspace.offline import StoredAnswers

    #: How to reach the demo API in-process (``last_week``: its data a week ago); the demo is
    #: the composition root's to build, never the core's.
    DemoClients = Callable[..., Callable[[], HubClient]]
    #: How to reach a configured server (:func:`server_client_factory`: over HTTP).
    ServerClients = Callable[[Settings], Callable[[], HubClient]]

__all__ = [
    "DEMO_BASE_URL",
    "DEMO_SCREEN_LABEL",
    "configured_client",
    "client_factory",
    "label_of",
    "offline_client_factory",
    "offline_label",
    "server_client_factory",
]

#: The in-process demo API's address: loopback by name, no socket is ever opened for it.
DEMO_BASE_URL = "http://localhost"
#: How the in-process demo API is named on the screen.
DEMO_SCREEN_LABEL = "demo API (in-process)"


def configured_client(
    settings: Settings,
    base_url: str,
    token: str | None,
    transport: httpx.AsyncBaseTransport | None = None,
) -> HubClient:
    """A client of ``base_url`` with every setting that bears on one (version, trust, TLS,
    deadlines, the most records a list may hold). The client's code (httpx, the models) is
    loaded here, off the event loop where the workspace builds it: a start that paints the
    hub list kept in the store paints it before the client has loaded."""
    from hubtui.api import HubClient

    return HubClient(
        base_url,
        token=token,
        api_version=settings.api_version,
        transport=transport,
        trusted_hosts=settings.trusted_hosts,
        allow_insecure_http=settings.allow_insecure_http,
        ca_bundle=settings.ca_bundle,
        deadline=settings.deadline,
        max_records=settings.max_records,
    )


def label_of(settings: Settings, *, demo: bool) -> str:
    """How the server is named on the screen and in messages."""
    if demo:
        return DEMO_SCREEN_LABEL
    return server_label(settings.base_url) if settings.base_url else "no server"


def offline_label(settings: Settings, *, demo: bool) -> str:
    base_url = settings.base_url or DEMO_BASE_URL
    return f"{'demo API' if demo else server_label(base_url)}, offline"


def client_factory(
    settings: Settings, *, demo: DemoClients | None, server_clients: ServerClients | None = None
) -> Callable[[], HubClient]:
    """How to build the client: the demo API's, or the server's (``server_clients``: how; None: over
    HTTP)."""
    if demo is not None:
        return demo(settings, last_week=False)
    return (server_clients or server_client_factory)(settings)


def offline_client_factory(
    settings: Settings, answers: StoredAnswers, *, demo: bool
) -> Callable[[], HubClient]:
    """A client whose every read the store answers (it never reaches a server)."""
    base_url = DEMO_BASE_URL if demo else settings.base_url
    assert base_url is not None

    def connect() -> HubClient:
        from hubtui.core.workspace.offline import OFFLINE_TOKEN

        return configured_client(settings, base_url, OFFLINE_TOKEN, answers)

    return connect


def server_client_factory(settings: Settings) -> Callable[[], HubClient]:
    """Build, when called, a client of the configured server."""

    def connect() -> HubClient:
        assert settings.base_url is not None
        return configured_client(settings, settings.base_url, settings.token)

    return connect
