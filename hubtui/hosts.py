"""Which hosts stay on this machine: one rule for the settings and the client alike."""

from __future__ import annotations

import ipaddress

__all__ = ["is_loopback_host"]


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
