"""Which hosts stay on this machine: one rule for the settings and the client alike."""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

__all__ = ["DEMO_LABEL", "is_loopback_host", "server_aliases", "server_identity", "server_label"]

#: How the in-process demo API is named on the screen (and was, in change logs, its key).
DEMO_LABEL = "demo API (in-process)"


def is_loopback_host(host: str) -> bool:
    """Whether a host stays on this machine: ``localhost``, 127.0.0.0/8 or ::1.

    Names under ``.localhost`` are not counted: a resolver may send them to DNS.
    """
    host = host.lower().strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _parts(base_url: str) -> tuple[str, str, int, str]:
    parts = urlsplit(base_url.strip())
    scheme = parts.scheme.lower()
    try:
        port = parts.port or (443 if scheme == "https" else 80)
    except ValueError:
        port = 0
    host = (parts.hostname or "").lower()
    return scheme, host, port, parts.path.rstrip("/")


def server_identity(base_url: str | None) -> str:
    """Which server a base URL names, as its store, change log, snapshots and reverts are keyed:
    the whole base URL, normalised (scheme and host lowercased, the port said, no trailing
    ``/``), so ``http://h:8080/a`` and ``http://h:8080/b`` are two servers. No URL: the demo."""
    if not base_url:
        return "demo"
    scheme, host, port, path = _parts(base_url)
    return f"{scheme}://{host}:{port}{path}"


def server_label(base_url: str) -> str:
    """How a server is named on the screen: host, port if given, and path (``h:8080/a``)."""
    parts = urlsplit(base_url.strip())
    return f"{parts.netloc}{parts.path.rstrip('/')}" or base_url


def server_aliases(base_url: str | None) -> tuple[str, ...]:
    """The names earlier change logs gave this server (host and port only): still this server's
    only where its base URL has no path, so a batch of ``/a`` is never taken for one of ``/b``."""
    if not base_url:
        return (DEMO_LABEL,)
    parts = urlsplit(base_url.strip())
    return (parts.netloc,) if not parts.path.rstrip("/") and parts.netloc else ()
