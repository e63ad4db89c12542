"""Which base URL a call goes to, and which hosts may ever receive the token.

A hub names its regional API (``RegionSummary.ApiRegionalUrl``). Calls under ``/hubs/{hubId}/``
go there only when that URL is trusted: https (or http to a loopback host, for local servers),
without credentials in it, and its host is the configured API host, a subdomain of the configured
API's parent domain, or listed by the person. Otherwise they go to the configured base URL.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import quote

import httpx

__all__ = ["RegionalRoute", "encode_segment", "is_loopback_host", "judge_regional_url"]


@dataclass(frozen=True)
class RegionalRoute:
    """Where a hub's project and user calls are sent, and why."""

    base_url: str
    """The base URL used for calls under ``/hubs/{hubId}/``."""
    regional_url: str | None
    """The regional URL the server named for the hub, if any."""
    trusted: bool
    """Whether ``regional_url`` is trusted (and so is ``base_url``)."""
    reason: str
    """One sentence saying why this base was chosen."""


def is_loopback_host(host: str) -> bool:
    """Whether a host name or address stays on this machine."""
    host = host.lower().strip("[]")
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def parent_domain(host: str) -> str | None:
    """The configured host less its first label, when that still names a domain of its own."""
    host = host.lower()
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        labels = host.split(".")
        return ".".join(labels[1:]) if len(labels) >= 3 else None
    return None


def judge_regional_url(
    regional_url: str | None, *, base_url: httpx.URL, trusted_hosts: Iterable[str] = ()
) -> RegionalRoute:
    """Decide whether a hub's regional URL may receive its calls (and the token)."""
    base = str(base_url).rstrip("/")
    if not regional_url:
        return RegionalRoute(base, None, False, "The hub names no regional API; using the server.")
    try:
        url = httpx.URL(regional_url)
    except httpx.InvalidURL:
        return _refuse(base, regional_url, "it is not a valid URL")
    host = url.host.lower()
    if not host:
        return _refuse(base, regional_url, "it names no host")
    if url.userinfo:
        return _refuse(base, regional_url, "it carries credentials")
    if url.scheme != "https" and not (url.scheme == "http" and is_loopback_host(host)):
        return _refuse(base, regional_url, "it is not https")
    listed = {h.lower() for h in trusted_hosts}
    parent = parent_domain(base_url.host)
    if host == base_url.host.lower() or host in listed:
        why = "its host is the configured server's" if host not in listed else "its host is listed"
    elif parent and host.endswith("." + parent):
        why = f"its host is under {parent}"
    else:
        under = f" nor under {parent}" if parent else ""
        return _refuse(base, regional_url, f"its host {host} is not {base_url.host}{under}")
    clean = str(url.copy_with(query=None, fragment=None)).rstrip("/")
    return RegionalRoute(clean, regional_url, True, f"Using the regional API: {why}.")


def _refuse(base: str, regional_url: str, why: str) -> RegionalRoute:
    return RegionalRoute(
        base,
        regional_url,
        False,
        f"The regional API is not trusted ({why}); using the configured server instead.",
    )


def encode_segment(value: int | str) -> str:
    """Percent-encode one path segment, ``/`` included, so a value never adds segments."""
    text = str(value)
    if not text:
        raise ValueError("an empty identifier cannot be sent")
    if text.strip(".") == "":
        # "." and ".." would be folded away by URL normalisation.
        return text.replace(".", "%2E")
    return quote(text, safe="")
