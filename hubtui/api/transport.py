"""How one call reaches the server and comes back: the token, retries, throttling, deadlines.

One idea: HTTP in one place: retries, deadlines, token gating, redirects and the request
log.

:class:`Transport` is what :class:`~hubtui.api.client.HubClient` sends through; the client
knows the operations of the contract, and this module knows HTTP. It decides:

- where the token goes (the server it was configured for, and trusted regional routes only);
- what is retried (GET and PUT after connection errors, timeouts, 429, 502, 503 and 504; POST
  never), and how long a server's ``Retry-After`` holds every caller back;
- how long one call may take in all, retries and waits included;
- how a failed connection is told (refused, TLS, broken mid-answer), naming the host and port.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import ssl
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import httpx

from hubtui import __version__
from hubtui.api import retries
from hubtui.api.bodies import (
    ACCEPT_ENCODING,
    BodyTooLarge,
    UnreadableEncoding,
    kept_headers,
    preview,
    read_body,
    redacted,
)
from hubtui.api.errors import (
    ApiConnectionError,
    ApiStatusError,
    ApiTimeoutError,
    HubError,
    InvalidResponseError,
    UnsafeUrlError,
    status_error_from_response,
)
from hubtui.api.exchanges import BODY_KEPT, Exchange, ExchangeLog, KeptBody, new_id, stamp
from hubtui.api.routing import origin

if TYPE_CHECKING:
    from hubtui.api.streaming import ListReader

__all__ = ["DEFAULT_DEADLINE", "MAX_RESPONSE_BYTES", "Received", "RequestStats", "Transport"]

#: A body larger than this (once decoded) is refused rather than read into memory.
MAX_RESPONSE_BYTES = 128 * 1024 * 1024
#: The longest one call may take, retries and waits included, however slowly a server answers.
DEFAULT_DEADLINE = 60.0
#: What never goes through a proxy from the environment (None: the direct transport).
NO_PROXY_PATTERNS = ("http://", "all://localhost", "all://127.0.0.1", "all://[::1]")

logger = logging.getLogger("hubtui.api")

Sleep = Callable[[float], Awaitable[None]]


@dataclass
class RequestStats:
    """Counts of what the client sent, for status lines and load measurements."""

    requests: int = 0
    retries: int = 0


@dataclass(frozen=True)
class Received:
    """A successful answer, read whole."""

    status_code: int
    content: bytes | bytearray


class _Token:
    """Holds the token so that no repr, log or traceback shows it."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "<token hidden>"

    __str__ = __repr__


@dataclass(frozen=True)
class _Call:
    """One call as the transport makes it, through its retries: what is sent, and for what."""

    method: str
    url: str
    operation: str
    body: dict[str, Any] | None
    reader: ListReader[Any] | None
    """Reads each successful answer of a list as it arrives."""
    ends: float
    """When the call must be over (``time.monotonic()``): no retry waits past it."""
    retry: bool = True
    """False: a call not idempotent in effect (an email sent again), never tried twice."""


@dataclass(frozen=True)
class _Redirect:
    """A 307 or 308: the service's way of naming the datacenter that serves a call."""

    status: int
    location: httpx.URL


#: Whether a redirect's target may receive the call (and the token), and why (or why not).
RedirectJudge = Callable[[httpx.URL], tuple[bool, str]]
#: Told of each redirect followed: the address a call was sent to, and where it was answered.
Followed = Callable[[httpx.URL, httpx.URL], object]


@dataclass
class _Seen:
    """What one attempt got back, as far as it got: kept in the exchange log however it ends."""

    response: httpx.Response | None = None
    content: bytes | bytearray = b""
    reader: ListReader[Any] | None = None
    """What read the body as it arrived (its parse may have let go of the body's start)."""

    def kept(self, body: bool = True) -> tuple[bytes, int]:
        """The body's first :data:`BODY_KEPT` bytes (``body`` False: none), and its size in
        all."""
        head: bytes | bytearray
        if self.reader is not None:
            head, size = self.reader.kept(self.content)
        else:
            head, size = self.content, len(self.content)
        return bytes(head[:BODY_KEPT]) if body else b"", size


class Transport:
    """Sends calls to one server: one connection pool, one token, one pace for all callers."""

    def __init__(
        self,
        base_url: httpx.URL,
        *,
        token: str | None,
        timeout: float,
        deadline: float,
        max_retries: int,
        transport: httpx.AsyncBaseTransport | None = None,
        ca_bundle: str | None = None,
        sleep: Sleep | None = None,
        clock: Callable[[], datetime] | None = None,
        judge_redirect: RedirectJudge | None = None,
        on_followed: Followed | None = None,
    ) -> None:
        self.max_retries = max(0, max_retries)
        #: A 307/308 is followed (once a call) only where this says so; None: never.
        self._judge_redirect = judge_redirect
        self._on_followed = on_followed
        #: Seconds one call may take in all; past it the call ends as a timeout.
        self.deadline = deadline
        self.stats = RequestStats()
        #: Every exchange of this client, the newest kept (see :mod:`hubtui.api.exchanges`).
        self.exchanges = ExchangeLog()
        self._base_url = base_url
        self._token = _Token(token) if token else None
        self._sleep: Sleep = sleep or asyncio.sleep
        self._clock = clock or (lambda: datetime.now(UTC))
        #: Where the token may go: the server's host and port, those of trusted routes and
        #: those a trusted redirect has sent calls to (remembered for the session).
        self._token_origins: frozenset[tuple[str, int]] = frozenset({origin(base_url)})
        self._route_origins: set[tuple[str, int]] = set()
        self._followed: set[tuple[str, int]] = set()
        #: No request leaves before this moment (monotonic): a server asked every caller of this
        #: client to slow down (429, or a Retry-After), not only the request it answered.
        self._resume_at = 0.0
        verify: ssl.SSLContext | bool = True  # TLS is always verified
        if ca_bundle:
            try:
                verify = ssl.create_default_context(cafile=ca_bundle)
            except (OSError, ssl.SSLError) as exc:
                raise UnsafeUrlError(
                    f"The CA bundle {ca_bundle} could not be used: {exc}.", operation="connect"
                ) from None
        self._http = httpx.AsyncClient(
            transport=transport,
            timeout=httpx.Timeout(timeout),
            headers={
                "Accept": "application/json",
                "Accept-Encoding": ACCEPT_ENCODING,
                "User-Agent": f"hubtui/{__version__}",
            },
            follow_redirects=False,
            verify=verify,
            # A proxy from the environment (http_proxy, ALL_PROXY) is used for https to other
            # machines only: plain http and loopback never go through one, which would read
            # the token in clear or send a local server's token away.
            mounts=dict.fromkeys(NO_PROXY_PATTERNS),
        )

    @property
    def has_token(self) -> bool:
        return self._token is not None

    def trust_origins(self, origins: set[tuple[str, int]]) -> None:
        """The token may go to these (host, port) pairs (the trusted routes) as well as the
        server's own and those of redirects followed."""
        self._route_origins = set(origins)
        self._token_origins = frozenset(
            {origin(self._base_url)} | self._route_origins | self._followed
        )

    def planned(
        self, method: str, url: str, *, operation: str, body: dict[str, Any] | None
    ) -> Exchange:
        """The exchange a call would open with, as the request log keeps it (nothing is sent):
        what ``--curl`` prints is built the way a sent request is."""
        return self._opening(_Call(method, url, operation, body, None, ends=0.0), 0)[1]

    def _opening(self, call: _Call, attempt: int) -> tuple[httpx.Request, Exchange]:
        """The request for one attempt (the token only where it may go), and its log entry."""
        request = self._http.build_request(call.method, call.url, json=call.body)
        if self._token and origin(request.url) in self._token_origins:
            request.headers["Authorization"] = f"Bearer {self._token.reveal()}"
        exchange = Exchange(
            id=new_id(),
            started=stamp(),
            operation=call.operation,
            method=call.method,
            url=str(request.url),
            request_headers=kept_headers(request.headers),
            request_kept=KeptBody(request.content[:BODY_KEPT]),
            attempt=attempt,
        )
        return request, exchange

    async def aclose(self) -> None:
        await self._http.aclose()

    def within(self, seconds: float | None) -> contextlib.AbstractContextManager[None]:
        """Bound every call made inside (and in the tasks started inside) by one deadline,
        ``seconds`` from now, beside each call's own: a call past it fails at once, saying so,
        and no wait for a server's ``Retry-After`` reaches beyond it. None: no bound."""
        return _within(None if seconds is None else (time.monotonic() + seconds, seconds))

    async def send(
        self,
        method: str,
        url: str,
        *,
        operation: str,
        body: dict[str, Any] | None = None,
        reader: ListReader[Any] | None = None,
        retry: bool = True,
    ) -> Received:
        """The answer, retried when that is safe; ``reader`` reads each successful answer
        of a list as it arrives. ``retry`` False: sent once whatever the answer (a call whose
        effect is not the same twice: an invitation emailed again)."""
        limit = self.deadline
        why = f"no complete answer within {self.deadline:g} s, the limit for one call"
        overall = _OVERALL_DEADLINE.get()
        if overall is not None and overall[0] - time.monotonic() < limit:
            limit = overall[0] - time.monotonic()
            why = f"gave up after {overall[1]:g} s, the limit for the whole search"
            if limit <= 0:
                raise ApiTimeoutError(operation=operation, reason=why, sent=False)
        call = _Call(
            method, url, operation, body, reader, ends=time.monotonic() + limit, retry=retry
        )
        try:
            async with asyncio.timeout(limit):
                return await self._send_with_retries(call)
        except TimeoutError:
            raise ApiTimeoutError(operation=operation, reason=why, sent=True) from None

    async def _send_with_retries(self, call: _Call) -> Received:
        attempt = 0
        while True:
            paused = self._resume_at - time.monotonic()
            if paused > 0 and attempt == 0:  # a retry has waited already
                if time.monotonic() + paused > call.ends:
                    raise ApiTimeoutError(
                        operation=call.operation,
                        reason=f"the server asked to wait {paused:.0f} s, past the time left "
                        "for this call",
                        sent=False,
                    )
                await self._sleep(paused)
            outcome = await self._attempt(call, attempt)
            if isinstance(outcome, _Redirect):
                outcome = await self._follow(call, attempt, outcome)
            if isinstance(outcome, Received):
                return outcome
            self._slow_down(outcome, attempt)
            delay = self._retry_delay(call, attempt, outcome)
            if delay is None or time.monotonic() + delay > call.ends:
                raise outcome  # a wait past the deadline would only end in a timeout
            attempt += 1
            self.stats.retries += 1
            logger.info("retrying %s in %.2fs after: %s", call.operation, delay, outcome)
            await self._sleep(delay)

    async def _follow(self, call: _Call, attempt: int, redirect: _Redirect) -> Received | HubError:
        """Follow a 307/308 once, with the same method and body (the first server did not act),
        where the target passes the rule a hub's regional API passes; otherwise refuse it,
        naming the host, and the token never goes there."""
        target = redirect.location
        trusted, why = False, "no redirect is followed"
        if httpx.URL(call.url).scheme == "https" and target.scheme != "https":
            why = "it leaves https for http, where the token would travel in clear"
        elif self._judge_redirect is not None:
            trusted, why = self._judge_redirect(target)
        if not trusted:
            return InvalidResponseError(
                operation=call.operation,
                problem=f"the server redirected (HTTP {redirect.status}) to {target.host}, which "
                f"is not trusted ({why}); not followed, and the token was not sent there",
            )
        self._followed.add(origin(target))
        self.trust_origins(self._route_origins)
        outcome = await self._attempt(replace(call, url=str(target)), attempt)
        if isinstance(outcome, _Redirect):
            return InvalidResponseError(
                operation=call.operation,
                problem=f"the server redirected a second time (to {outcome.location.host}); only "
                "one redirect is followed",
            )
        answered = isinstance(outcome, Received) or (
            isinstance(outcome, ApiStatusError) and outcome.status_code < 500
        )
        if answered and self._on_followed is not None:  # the call's right place
            self._on_followed(httpx.URL(call.url), target)
        return outcome

    def _slow_down(self, error: HubError, attempt: int) -> None:
        if not isinstance(error, ApiStatusError):
            return
        if error.status_code != 429 and error.retry_after is None:
            return
        wait = error.retry_after
        if wait is None:
            wait = retries.backoff_delay(attempt)
        if wait > retries.RETRY_AFTER_CEILING:
            return  # not waited out: the call ends now, and the others need not stop for it
        self._resume_at = max(self._resume_at, time.monotonic() + wait)

    def _retry_delay(self, call: _Call, attempt: int, error: HubError) -> float | None:
        if not call.retry or attempt >= self.max_retries:
            return None
        if call.method not in retries.RETRYABLE_METHODS:
            return None
        if isinstance(error, ApiConnectionError) and not error.refused:
            return retries.backoff_delay(attempt)
        if isinstance(error, ApiStatusError) and error.status_code in retries.RETRYABLE_STATUSES:
            return retries.retry_delay(attempt, error.retry_after)
        return None

    async def _attempt(self, call: _Call, attempt: int = 0) -> Received | HubError | _Redirect:
        request, exchange = self._opening(call, attempt)
        self.stats.requests += 1
        started = time.perf_counter()
        seen = _Seen()
        outcome: Received | HubError | _Redirect | None = None
        try:
            outcome = await self._exchange(call, request, started, seen)
            return outcome
        finally:
            # Kept however the attempt ended: an answer, an error, or a cancel (unknown).
            response = seen.response
            head, size = seen.kept(self.exchanges.keeps_bodies)
            if outcome is None:
                error = "stopped before the answer came"
            elif isinstance(outcome, HubError) and not isinstance(outcome, ApiStatusError):
                error = str(outcome)
            else:
                error = ""
            self.exchanges.add(
                replace(
                    exchange,
                    status=None if response is None else response.status_code,
                    reason="" if response is None else response.reason_phrase,
                    response_headers=() if response is None else kept_headers(response.headers),
                    response_kept=KeptBody(head),
                    response_size=size,
                    seconds=time.perf_counter() - started,
                    error=error,
                )
            )

    async def _exchange(
        self, call: _Call, request: httpx.Request, started: float, seen: _Seen
    ) -> Received | HubError | _Redirect:
        method, operation, reader = call.method, call.operation, call.reader
        try:
            response = await self._http.send(request, stream=True)
            seen.response = response
            try:
                into = reader.begin() if reader is not None and response.is_success else None
                content = await read_body(
                    response,
                    limit=MAX_RESPONSE_BYTES,
                    into=into,
                    grew=None if reader is None else reader.grew,
                )
                seen.content, seen.reader = content, reader if into is not None else None
            finally:
                await response.aclose()
        except httpx.TimeoutException as exc:
            sent = not isinstance(exc, httpx.ConnectTimeout | httpx.PoolTimeout)
            return ApiTimeoutError(
                operation=operation,
                reason=f"no answer from {request.url.host} in time",
                sent=sent,
            )
        except httpx.TransportError as exc:
            return _connection_error(exc, operation, _host_and_port(request.url))
        except (BodyTooLarge, UnreadableEncoding) as exc:
            # The status decides what happened, not the method: a 2xx was done (its details
            # unknown), a 4xx or 5xx was not (a gateway's 502/504: unknown, as always).
            if not response.is_success:
                return status_error_from_response(
                    response, operation=operation, content=b"", now=self._clock()
                )
            problem = (
                f"the body is larger than {MAX_RESPONSE_BYTES // (1024 * 1024)} MB"
                if isinstance(exc, BodyTooLarge)
                else f"the body is unreadable: {exc}"
            )
            return InvalidResponseError(
                operation=operation, problem=problem, applied=method != "GET"
            )
        elapsed_ms = (time.perf_counter() - started) * 1000
        if logger.isEnabledFor(logging.DEBUG):
            head, size = seen.kept()
            logger.debug(
                "%s %s %s body=%s -> %s in %.0f ms, %d bytes %s body=%r",
                method,
                request.url,
                redacted(request.headers),
                preview(request.content),
                response.status_code,
                elapsed_ms,
                size,
                redacted(response.headers),
                preview(head, size),
            )
        if response.is_success:
            return Received(response.status_code, content)
        location = response.headers.get("Location")
        if response.status_code in (307, 308) and location:
            try:
                return _Redirect(response.status_code, request.url.join(location))
            except httpx.InvalidURL:
                pass  # told below as a redirect not followed
        if 300 <= response.status_code < 400:
            return InvalidResponseError(
                operation=operation,
                problem=f"the server redirected (HTTP {response.status_code}); not followed",
            )
        return status_error_from_response(
            response, operation=operation, content=content, now=self._clock()
        )


#: The deadline of every call made within :meth:`Transport.within`: (when, of how many seconds).
_OVERALL_DEADLINE: contextvars.ContextVar[tuple[float, float] | None] = contextvars.ContextVar(
    "hubtui_overall_deadline", default=None
)


@contextlib.contextmanager
def _within(deadline: tuple[float, float] | None) -> Iterator[None]:
    if deadline is None:
        yield
        return
    token = _OVERALL_DEADLINE.set(deadline)
    try:
        yield
    finally:
        _OVERALL_DEADLINE.reset(token)


def _connection_error(exc: httpx.TransportError, operation: str, host: str) -> ApiConnectionError:
    """A failed connection as the person reads it: refused, TLS, or broken mid-answer."""
    if isinstance(exc, httpx.ConnectError):
        if "CERTIFICATE_VERIFY_FAILED" in str(exc):
            reason = (
                f"the TLS certificate of {host} could not be verified "
                "(if it uses a private CA, set a CA bundle)"
            )
        elif _refused(exc):
            reason = f"{host} refused the connection (is the server running, on that port?)"
            return ApiConnectionError(operation=operation, reason=reason, sent=False, refused=True)
        else:
            reason = f"could not connect to {host}"
        return ApiConnectionError(operation=operation, reason=reason, sent=False)
    if isinstance(exc, httpx.RemoteProtocolError | httpx.ReadError):
        reason = f"the connection to {host} broke before the answer was complete"
    else:
        reason = f"the connection to {host} failed ({type(exc).__name__})"
    return ApiConnectionError(operation=operation, reason=reason, sent=True)


def _refused(exc: BaseException) -> bool:
    """Whether a connect error was a refusal (nothing listens there), however httpx wraps it."""
    seen: BaseException | None = exc
    for _ in range(10):
        if seen is None:
            return False
        if isinstance(seen, ConnectionRefusedError):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _host_and_port(url: httpx.URL) -> str:
    """``api.example.com:8443``; the port only where the URL names one."""
    return f"{url.host}:{url.port}" if url.port is not None else url.host
