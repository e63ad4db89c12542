"""Which base URL a call goes to, and which hosts may ever receive the token.

A hub names its regional API (``RegionSummary.ApiRegionalUrl``). Calls under ``/hubs/{hubId}/``
go there only when that URL is trusted: https (or http to a loopback host, for local servers),
without credentials in it, on the configured port (or https's own), and its host is the configured
API host, under the configured host's registrable domain (by the Public Suffix List, so that
``evil.co.uk`` is not a sibling of ``api.example.co.uk``), or listed by the person. Otherwise they
go to the configured base URL.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING
from urllib.parse import quote, unquote

import httpx

from hubtui.api.errors import InvalidResponseError, UnsafeUrlError
from hubtui.hosts import is_loopback_host

if TYPE_CHECKING:
    from publicsuffixlist import PublicSuffixList

    from hubtui.api.models import Hub

__all__ = [
    "RegionalRoute",
    "Routes",
    "encode_segment",
    "is_loopback_host",
    "judge_regional_url",
    "origin",
    "server_url",
]

logger = logging.getLogger("hubtui.api")


def server_url(base_url: str, *, allow_insecure_http: bool) -> httpx.URL:
    """The configured server's address, refused if the token could not go there safely."""
    url = httpx.URL(base_url.rstrip("/"))
    if url.scheme not in ("http", "https") or not url.host:
        raise UnsafeUrlError(
            f"The server address {base_url!r} is not an http(s) URL.", operation="connect"
        )
    if url.scheme == "http" and not is_loopback_host(url.host) and not allow_insecure_http:
        raise UnsafeUrlError(
            f"The server address {url} is plain http to another machine, which would send the "
            "token unencrypted; use https (or allow insecure http explicitly).",
            operation="connect",
        )
    return url


@dataclass(frozen=True)
class RegionalRoute:
    """Where a hub's project and user calls are sent, and why."""

    base_url: str
    """The base URL used for calls under ``/hubs/{hubId}/``."""
    regional_url: str | None
    """The regional URL the server named for the hub, if any."""
    trusted: bool
    """Whether ``regional_url`` is trusted (and so is ``base_url``)."""
    why: str
    """Why: "its host is listed", "it is not https", "its port 9042 is not 9041"..."""
    origin: tuple[str, int] | None = None
    """The host and port of a trusted ``base_url`` (None when not trusted)."""

    @property
    def reason(self) -> str:
        """One sentence saying why this base was chosen."""
        if self.regional_url is None and self.trusted:
            return f"Calls go to {self.base_url}: {self.why}."
        if self.regional_url is None:
            return "The hub names no regional API; using the server."
        if self.trusted:
            return f"Using the regional API: {self.why}."
        return f"The regional API is not trusted ({self.why}); using the configured server instead."


@cache
def _suffix_list() -> PublicSuffixList | None:
    try:
        from publicsuffixlist import PublicSuffixList
    except ImportError:  # no suffix list, no parent-domain trust
        return None
    return PublicSuffixList()  # its bundled copy: nothing is fetched


def parent_domain(host: str) -> str | None:
    """The configured host's registrable domain (``example.co.uk`` of ``api.example.co.uk``).

    None for an address, a public suffix itself, or when no suffix list is installed.
    """
    host = host.lower().strip("[]")
    try:
        ipaddress.ip_address(host)
    except ValueError:
        suffixes = _suffix_list()
        return suffixes.privatesuffix(host) if suffixes is not None else None
    return None


def origin(url: httpx.URL) -> tuple[str, int]:
    """A URL's host (lowercase) and port (the scheme's default when none is written)."""
    return (url.host.lower(), url.port or (443 if url.scheme == "https" else 80))


def judge_regional_url(
    regional_url: str | None, *, base_url: httpx.URL, trusted_hosts: Iterable[str] = ()
) -> RegionalRoute:
    """Decide whether a hub's regional URL may receive its calls (and the token).

    Never raises: a URL that cannot be read is an untrusted one, and costs only its own hub.
    """
    base = str(base_url).rstrip("/")
    if not regional_url:
        return RegionalRoute(base, None, False, "none named")
    try:
        return _judge(regional_url, base, base_url, trusted_hosts)
    except (httpx.InvalidURL, ValueError, UnicodeError):
        return RegionalRoute(base, regional_url, False, "its host cannot be read")


def _judge(
    regional_url: str, base: str, base_url: httpx.URL, trusted_hosts: Iterable[str]
) -> RegionalRoute:
    def refuse(why: str) -> RegionalRoute:
        return RegionalRoute(base, regional_url, False, why)

    try:
        url = httpx.URL(regional_url)
    except httpx.InvalidURL:
        return refuse("it is not a valid URL")
    host = url.host.lower()
    if not host:
        return refuse("it names no host")
    if url.userinfo:
        return refuse("it carries credentials")
    if url.scheme != "https" and not (url.scheme == "http" and is_loopback_host(host)):
        return refuse("it is not https")
    if url.scheme != "https" and base_url.scheme == "https":
        return refuse("it leaves https for http, where the token would travel in clear")
    base_host = base_url.host.lower()
    listed = {h.lower() for h in trusted_hosts}
    if host == base_host:
        why = "its host is the configured server's"
    elif host in listed:
        why = "its host is listed"
    else:
        parent = parent_domain(base_host)
        if not (parent and host.endswith("." + parent)):
            under = f" nor under {parent}" if parent else ""
            return refuse(f"its host {host} is not {base_host}{under}")
        why = f"its host is under {parent}"
    port, base_port = origin(url)[1], origin(base_url)[1]
    if port != base_port and not (url.scheme == "https" and port == 443):
        return refuse(f"its port {port} is not the configured server's ({base_port})")
    clean = str(url.copy_with(query=None, fragment=None)).rstrip("/")
    return RegionalRoute(clean, regional_url, True, why, origin=(host, port))


def encode_segment(value: int | str) -> str:
    """Percent-encode one path segment, ``/`` included, so a value never adds segments."""
    text = str(value)
    if not text:
        raise ValueError("an empty identifier cannot be sent")
    if text.strip(".") == "":
        # "." and ".." would be folded away by URL normalisation.
        return text.replace(".", "%2E")
    return quote(text, safe="")


class Routes:
    """The route of each hub seen so far, learned from the hubs the server sent."""

    def __init__(self, base_url: httpx.URL, trusted_hosts: Iterable[str]) -> None:
        self._base_url = base_url
        self.trusted_hosts = tuple(trusted_hosts)
        self._routes: dict[str, RegionalRoute] = {}
        #: Hubs whose calls a trusted redirect sent elsewhere: kept over a new read of the hub.
        self._moved: dict[str, RegionalRoute] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    def judge(self, hub: Hub) -> RegionalRoute:
        """Where calls about this hub's projects and users go, and why."""
        moved = self._moved.get(hub.id)
        if moved is not None:
            return moved
        return judge_regional_url(
            hub.api_regional_url, base_url=self._base_url, trusted_hosts=self.trusted_hosts
        )

    def learn(self, hubs: Sequence[Hub]) -> set[tuple[str, int]]:
        """Take these hubs' routes; the origins of every trusted route known (the token's)."""
        for hub in hubs:
            route = self.judge(hub)
            if hub.api_regional_url and not route.trusted:
                logger.warning("hub %s: %s", hub.id, route.reason)
            self._routes[hub.id] = route
        return {r.origin for r in self._routes.values() if r.trusted and r.origin is not None}

    def move(self, sent: httpx.URL, answered: httpx.URL) -> RegionalRoute | None:
        """A call about a hub (``…/hubs/{hubId}/…``) sent to ``sent`` was redirected and
        answered at ``answered`` (already judged trusted): that hub's calls go there directly for
        the rest of the session. The new route, or None when the call was not about one hub or
        the addresses do not share the call's path."""
        segments = sent.raw_path.decode("ascii").partition("?")[0].split("/")
        if "hubs" not in segments[:-2]:
            return None  # not under /hubs/{hubId}/
        at = segments.index("hubs")
        call_path = "/".join(segments[at - 1 :])  # from the version segment on
        target = str(answered.copy_with(query=None, fragment=None))
        if at < 2 or segments[at + 1] == "name" or not target.endswith(call_path):
            return None  # a hub by name is asked of the server, not of the hub's route
        base = target.removesuffix(call_path).rstrip("/")
        hub_id = unquote(segments[at + 1])
        known = self._routes.get(hub_id)
        route = RegionalRoute(
            base,
            known.regional_url if known else None,
            True,
            f"the server redirected its calls to {answered.host}",
            origin=origin(answered),
        )
        self._routes[hub_id] = self._moved[hub_id] = route
        logger.info("hub %s: calls now go to %s (redirected)", hub_id, base)
        return route

    async def of(self, hub_id: int | str, fetch: Callable[[], Awaitable[object]]) -> RegionalRoute:
        """The hub's route, once ``fetch`` (reading the hub, which learns it) has run if needed:
        once for all the callers that ask at the same time."""
        key = str(hub_id)
        if key not in self._routes:
            async with self._locks.setdefault(key, asyncio.Lock()):
                if key not in self._routes:
                    answered = await fetch()
                    if key not in self._routes:  # the server answered another hub's Id
                        other = getattr(answered, "id", None)
                        raise InvalidResponseError(
                            operation=f"get hub {key!r}",
                            problem=f"it answered a hub whose Id is {other!r}, not {key!r}",
                        )
        return self._routes[key]
