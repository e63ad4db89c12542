"""HubClient: one async method per operation of the contract."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import ssl
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from types import TracebackType
from typing import Any, Generic, Self, TypeVar

import httpx
from pydantic import BaseModel

from hubtui import __version__
from hubtui.api import retries
from hubtui.api.errors import (
    ApiConnectionError,
    ApiStatusError,
    ApiTimeoutError,
    HubError,
    InvalidResponseError,
    UnsafeUrlError,
    status_error_from_response,
)
from hubtui.api.models import Hub, Project, ProjectUser
from hubtui.api.parsing import (
    DEFAULT_MAX_RECORDS,
    FIRST_BYTES,
    GrowingBody,
    RawFilter,
    Records,
    parse_first,
    parse_list,
    parse_one,
)
from hubtui.api.routing import (
    RegionalRoute,
    encode_segment,
    is_loopback_host,
    judge_regional_url,
    origin,
)
from hubtui.api.transport import (
    ACCEPT_ENCODING,
    BodyTooLarge,
    UnreadableEncoding,
    preview,
    read_body,
    redacted,
)
from hubtui.api.versions import ApiVersion, is_api_version

__all__ = ["ApiVersion", "ChangeRequest", "HubClient", "RequestStats"]

#: A body larger than this (once decoded) is refused rather than read into memory.
MAX_RESPONSE_BYTES = 128 * 1024 * 1024
#: The longest one call may take, retries and waits included, however slowly a server answers.
DEFAULT_DEADLINE = 60.0
#: A list body larger than this is parsed on a thread, so the app keeps answering keys.
THREADED_PARSE_BYTES = 256 * 1024
#: How many records of a large list are handed to ``first`` before the whole list is read.
FIRST_RECORDS = 200

logger = logging.getLogger("hubtui.api")

M = TypeVar("M", bound=BaseModel)
Id = int | str
Sleep = Callable[[float], Awaitable[None]]


@dataclass
class RequestStats:
    """Counts of what the client sent, for status lines and load measurements."""

    requests: int = 0
    retries: int = 0


@dataclass(frozen=True)
class ChangeRequest:
    """A change exactly as it goes out: what a dry run prints is what the real run sends."""

    method: str
    url: str
    body: dict[str, Any]
    operation: str


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


class HubClient:
    """An async client of the hub and project-user API.

    Use it as ``async with HubClient(base_url, token=...) as client:``. GET and PUT calls are
    retried after connection errors, timeouts, 429, 502, 503 and 504; POST never is.
    """

    def __init__(
        self,
        base_url: str,
        *,
        token: str | None = None,
        api_version: ApiVersion = "v3",
        timeout: float = 30.0,
        deadline: float = DEFAULT_DEADLINE,
        max_records: int = DEFAULT_MAX_RECORDS,
        max_retries: int = retries.DEFAULT_MAX_RETRIES,
        transport: httpx.AsyncBaseTransport | None = None,
        trusted_hosts: Iterable[str] = (),
        allow_insecure_http: bool = False,
        ca_bundle: str | None = None,
        sleep: Sleep | None = None,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self._base_url = httpx.URL(base_url.rstrip("/"))
        if self._base_url.scheme not in ("http", "https") or not self._base_url.host:
            raise UnsafeUrlError(
                f"The server address {base_url!r} is not an http(s) URL.", operation="connect"
            )
        if (
            self._base_url.scheme == "http"
            and not is_loopback_host(self._base_url.host)
            and not allow_insecure_http
        ):
            raise UnsafeUrlError(
                f"The server address {self._base_url} is plain http to another machine, which "
                "would send the token unencrypted; use https (or allow insecure http "
                "explicitly).",
                operation="connect",
            )
        self.api_version: ApiVersion = _check_version(api_version)
        self.max_retries = max(0, max_retries)
        #: Seconds one call may take in all; past it the call ends as a timeout.
        self.deadline = deadline
        #: The most records one list answer may hold.
        self.max_records = max_records
        self.stats = RequestStats()
        self._token = _Token(token) if token else None
        self._trusted_hosts = tuple(trusted_hosts)
        self._sleep: Sleep = sleep or asyncio.sleep
        self._clock = clock or (lambda: datetime.now(UTC))
        self._routes: dict[str, RegionalRoute] = {}
        #: Where the token may go: the server's host and port and those of trusted regional routes.
        self._token_origins: frozenset[tuple[str, int]] = frozenset({origin(self._base_url)})
        self._route_locks: dict[str, asyncio.Lock] = {}
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
    def base_url(self) -> str:
        """The configured server's base URL."""
        return str(self._base_url)

    def __repr__(self) -> str:
        token = "set" if self._token else "none"
        version = self.api_version
        return f"HubClient(base_url={self.base_url!r}, api_version={version!r}, token={token})"

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the connections."""
        await self._http.aclose()

    # Hubs -------------------------------------------------------------------------------------

    async def list_hubs(self) -> Records[Hub]:
        """Every hub the token can see (``GET /v3/hubs``)."""
        hubs = await self._get_list("list hubs", self._url("/v3/hubs"), Hub)
        self._learn_routes(hubs)
        return hubs

    async def get_hub(self, hub_id: Id) -> Hub:
        """One hub by its id (``GET /v3/hubs/{hubId}``)."""
        operation = f"get hub {hub_id!r}"
        hub = await self._get_one(operation, self._url("/v3/hubs", hub_id), Hub)
        self._learn_routes([hub])
        return hub

    async def get_hub_by_name(self, name: str) -> Hub:
        """One hub by its URL name (``Name``), never by its ``DisplayName``."""
        operation = f"get hub by URL name {name!r}"
        hub = await self._get_one(operation, self._url("/v3/hubs/name", name), Hub)
        self._learn_routes([hub])
        return hub

    def regional_route(self, hub: Hub) -> RegionalRoute:
        """Where calls about this hub's projects and users go, and why."""
        return judge_regional_url(
            hub.api_regional_url, base_url=self._base_url, trusted_hosts=self._trusted_hosts
        )

    # Projects ---------------------------------------------------------------------------------

    async def list_projects(self, hub_id: Id) -> Records[Project]:
        """The hub's projects (``GET /v3/hubs/{hubId}/projects``).

        This operation is assumed, not in the spec: a server may answer 404 or 405.
        """
        url = await self._hub_url(hub_id, "v3", "projects")
        return await self._get_list(f"list projects of hub {hub_id!r}", url, Project)

    # Project users ----------------------------------------------------------------------------

    async def list_project_users(
        self,
        hub_id: Id,
        project_id: Id,
        *,
        api_version: ApiVersion | None = None,
        where: RawFilter | None = None,
        first: Callable[[Records[ProjectUser]], object] | None = None,
    ) -> Records[ProjectUser]:
        """The project's users, limited readers included.

        Like every list, a record that breaks the contract is left out and counted in
        ``skipped_count``; the others come back. ``where`` keeps only the records it accepts
        as the server sent them (a JSON object), before they are validated: a fast pre-filter.
        ``first``, for a large list, is called with its first records as soon as the answer is
        in, before the whole list is read (a screen shows them meanwhile).
        """
        url = await self._hub_url(
            hub_id, self._version(api_version), "projects", project_id, "users"
        )
        operation = f"list users of project {project_id!r}"
        return await self._get_list(operation, url, ProjectUser, where=where, first=first)

    async def get_project_user(
        self, hub_id: Id, project_id: Id, user_id: Id, *, api_version: ApiVersion | None = None
    ) -> ProjectUser:
        """One user's permissions in a project."""
        url = await self._hub_url(
            hub_id, self._version(api_version), "projects", project_id, "users", user_id
        )
        operation = f"get user {user_id!r} of project {project_id!r}"
        return await self._get_one(operation, url, ProjectUser)

    async def plan_create(
        self,
        hub_id: Id,
        project_id: Id,
        *,
        email: str,
        role: str,
        is_reviewer: bool | None = None,
        api_version: ApiVersion | None = None,
    ) -> ChangeRequest:
        """The request :meth:`create_project_user` sends for these values (nothing is sent)."""
        url = await self._hub_url(
            hub_id, self._version(api_version), "projects", project_id, "users"
        )
        body = _change_body({"Email": email, "Role": role}, is_reviewer)
        return ChangeRequest("POST", url, body, f"add {email!r} to project {project_id!r}")

    async def plan_update(
        self,
        hub_id: Id,
        project_id: Id,
        user_id: Id,
        *,
        role: str,
        is_reviewer: bool | None = None,
        api_version: ApiVersion | None = None,
    ) -> ChangeRequest:
        """The request :meth:`update_project_user` sends for these values (nothing is sent)."""
        url = await self._hub_url(
            hub_id, self._version(api_version), "projects", project_id, "users", user_id
        )
        body = _change_body({"Role": role}, is_reviewer)
        return ChangeRequest("PUT", url, body, f"update user {user_id!r} of project {project_id!r}")

    async def create_project_user(
        self,
        hub_id: Id,
        project_id: Id,
        *,
        email: str,
        role: str,
        is_reviewer: bool | None = None,
        api_version: ApiVersion | None = None,
    ) -> ProjectUser:
        """Add a user to a project as a direct member. Never retried automatically."""
        plan = await self.plan_create(
            hub_id,
            project_id,
            email=email,
            role=role,
            is_reviewer=is_reviewer,
            api_version=api_version,
        )
        response = await self._send(plan.method, plan.url, operation=plan.operation, body=plan.body)
        try:
            return parse_one(response.content, plan.operation, ProjectUser)
        except InvalidResponseError as unreadable:
            # The server said yes: the user was added. Read them back rather than guess.
            wanted = email.lower()
            return await self._read_back(
                unreadable,
                response.status_code,
                lambda: self.list_project_users(hub_id, project_id, api_version=api_version),
                lambda user: (user.user.email or "").lower() == wanted and not user.is_limited,
            )

    async def update_project_user(
        self,
        hub_id: Id,
        project_id: Id,
        user_id: Id,
        *,
        role: str,
        is_reviewer: bool | None = None,
        api_version: ApiVersion | None = None,
    ) -> ProjectUser:
        """Change a direct member's role (and reviewer flag)."""
        plan = await self.plan_update(
            hub_id, project_id, user_id, role=role, is_reviewer=is_reviewer, api_version=api_version
        )
        response = await self._send(plan.method, plan.url, operation=plan.operation, body=plan.body)
        try:
            return parse_one(response.content, plan.operation, ProjectUser)
        except InvalidResponseError as unreadable:
            return await self._read_back(
                unreadable,
                response.status_code,
                lambda: self._one_user(hub_id, project_id, user_id, api_version),
                lambda user: True,
            )

    async def _one_user(
        self, hub_id: Id, project_id: Id, user_id: Id, api_version: ApiVersion | None
    ) -> list[ProjectUser]:
        return [await self.get_project_user(hub_id, project_id, user_id, api_version=api_version)]

    async def _read_back(
        self,
        unreadable: InvalidResponseError,
        status: int,
        read: Callable[[], Awaitable[list[ProjectUser]]],
        wanted: Callable[[ProjectUser], bool],
    ) -> ProjectUser:
        """After a change answered with success but an unreadable body: the user as now stored."""
        try:
            found = next((user for user in await read() if wanted(user)), None)
        except HubError as error:
            why = f"reading it back failed too ({error})"
        else:
            if found is not None:
                return found
            why = "reading it back did not find the user"
        raise InvalidResponseError(
            operation=unreadable.operation,
            problem=f"the server accepted the change (HTTP {status}), but its answer "
            f"({unreadable.problem}) could not be read and {why}",
            applied=True,
        )

    # Plumbing ---------------------------------------------------------------------------------

    def _version(self, api_version: ApiVersion | None) -> ApiVersion:
        return self.api_version if api_version is None else _check_version(api_version)

    def _url(self, prefix: str, *segments: Id, base: str | None = None) -> str:
        path = "/".join([prefix.rstrip("/"), *(encode_segment(s) for s in segments)])
        return (base or str(self._base_url)).rstrip("/") + path

    def _learn_routes(self, hubs: Sequence[Hub]) -> None:
        for hub in hubs:
            route = self.regional_route(hub)
            if hub.api_regional_url and not route.trusted:
                logger.warning("hub %s: %s", hub.id, route.reason)
            self._routes[hub.id] = route
        self._token_origins = frozenset(
            {origin(self._base_url)}
            | {r.origin for r in self._routes.values() if r.trusted and r.origin is not None}
        )

    async def _route_for(self, hub_id: Id) -> RegionalRoute:
        key = str(hub_id)
        if key not in self._routes:
            lock = self._route_locks.setdefault(key, asyncio.Lock())
            async with lock:
                if key not in self._routes:
                    await self.get_hub(hub_id)
        return self._routes[key]

    async def _hub_url(self, hub_id: Id, version: str, *segments: Id) -> str:
        route = await self._route_for(hub_id)
        return self._url(f"/{version}/hubs", hub_id, *segments, base=route.base_url)

    def _may_hold_token(self, url: httpx.URL) -> bool:
        return origin(url) in self._token_origins

    async def _get_list(
        self,
        operation: str,
        url: str,
        model: type[M],
        *,
        where: RawFilter | None = None,
        first: Callable[[Records[M]], object] | None = None,
    ) -> Records[M]:
        def show_first(content: bytes | bytearray) -> None:
            assert first is not None
            head = parse_first(content, model, FIRST_RECORDS)
            if head:
                first(head)

        def parse(content: bytes | bytearray | GrowingBody) -> Records[M]:
            return parse_list(content, operation, model, max_records=self.max_records, where=where)

        reader = _ListReader(parse, show_first if first is not None and where is None else None)
        try:
            response = await self._send("GET", url, operation=operation, reader=reader)
            records = await reader.records(response.content)
        finally:
            reader.close()
        if records.skipped_count:
            logger.warning(
                "%s: %d records left out: %s",
                operation,
                records.skipped_count,
                "; ".join(map(str, records.skipped)),
            )
        return records

    async def _get_one(self, operation: str, url: str, model: type[M]) -> M:
        response = await self._send("GET", url, operation=operation)
        return parse_one(response.content, operation, model)

    async def _send(
        self,
        method: str,
        url: str,
        *,
        operation: str,
        body: dict[str, Any] | None = None,
        reader: _ListReader[Any] | None = None,
    ) -> _Received:
        """The answer, retried when that is safe; ``reader`` reads each successful answer
        of a list as it arrives."""
        limit = self.deadline
        why = f"no complete answer within {self.deadline:g} s, the limit for one call"
        overall = _OVERALL_DEADLINE.get()
        if overall is not None and overall[0] - time.monotonic() < limit:
            limit = overall[0] - time.monotonic()
            why = f"gave up after {overall[1]:g} s, the limit for the whole search"
            if limit <= 0:
                raise ApiTimeoutError(operation=operation, reason=why, sent=False)
        call = _Call(method, url, operation, body, reader, ends=time.monotonic() + limit)
        try:
            async with asyncio.timeout(limit):
                return await self._send_with_retries(call)
        except TimeoutError:
            raise ApiTimeoutError(operation=operation, reason=why, sent=True) from None

    def within(self, seconds: float | None) -> contextlib.AbstractContextManager[None]:
        """Bound every call made inside (and in the tasks started inside) by one deadline,
        ``seconds`` from now, beside each call's own: a call past it fails at once, saying so,
        and no wait for a server's ``Retry-After`` reaches beyond it. None: no bound."""
        return _within(None if seconds is None else (time.monotonic() + seconds, seconds))

    async def _send_with_retries(self, call: _Call) -> _Received:
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
            outcome = await self._attempt(call)
            if isinstance(outcome, _Received):
                return outcome
            self._slow_down(outcome, attempt)
            delay = self._retry_delay(call.method, attempt, outcome)
            if delay is None or time.monotonic() + delay > call.ends:
                raise outcome  # a wait past the deadline would only end in a timeout
            attempt += 1
            self.stats.retries += 1
            logger.info("retrying %s in %.2fs after: %s", call.operation, delay, outcome)
            await self._sleep(delay)

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

    def _retry_delay(self, method: str, attempt: int, error: HubError) -> float | None:
        if attempt >= self.max_retries or method not in retries.RETRYABLE_METHODS:
            return None
        if isinstance(error, ApiConnectionError) and not error.refused:
            return retries.backoff_delay(attempt)
        if isinstance(error, ApiStatusError) and error.status_code in retries.RETRYABLE_STATUSES:
            return retries.retry_delay(attempt, error.retry_after)
        return None

    async def _attempt(self, call: _Call) -> _Received | HubError:
        method, operation, reader = call.method, call.operation, call.reader
        request = self._http.build_request(method, call.url, json=call.body)
        if self._token and self._may_hold_token(request.url):
            request.headers["Authorization"] = f"Bearer {self._token.reveal()}"
        self.stats.requests += 1
        started = time.perf_counter()
        try:
            response = await self._http.send(request, stream=True)
            try:
                into = reader.begin() if reader is not None and response.is_success else None
                content = await read_body(
                    response,
                    limit=MAX_RESPONSE_BYTES,
                    into=into,
                    grew=None if reader is None else reader.grew,
                )
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
            logger.debug(
                "%s %s %s body=%s -> %s in %.0f ms, %d bytes %s body=%r",
                method,
                request.url,
                redacted(request.headers),
                preview(request.content),
                response.status_code,
                elapsed_ms,
                len(content),
                redacted(response.headers),
                preview(bytes(content)),
            )
        if response.is_success:
            return _Received(response.status_code, content)
        if 300 <= response.status_code < 400:
            return InvalidResponseError(
                operation=operation,
                problem=f"the server redirected (HTTP {response.status_code}); not followed",
            )
        return status_error_from_response(
            response, operation=operation, content=content, now=self._clock()
        )


class _ListReader(Generic[M]):
    """A list answer read as it arrives, afresh on each attempt: its first records are shown
    once :data:`FIRST_BYTES` are in, and from :data:`THREADED_PARSE_BYTES` on it is parsed on a
    thread while the rest downloads (keys and escape keep working meanwhile)."""

    def __init__(
        self,
        parse: Callable[[bytes | bytearray | GrowingBody], Records[M]],
        show_first: Callable[[bytes | bytearray], None] | None,
    ) -> None:
        self._parse = parse
        self._show_first = show_first
        self._body: GrowingBody | None = None
        self._parsing: asyncio.Future[Records[M]] | None = None
        self._shown = False

    def begin(self) -> bytearray:
        """A successful answer starts: the buffer its body is read into."""
        self.close()
        self._body, self._shown = GrowingBody(), False
        return self._body.data

    def grew(self, content: bytearray) -> None:
        if self._body is None or content is not self._body.data:
            return
        parsing = self._parsing
        if parsing is not None and parsing.done() and not parsing.cancelled():
            refused = parsing.exception()
            if isinstance(refused, InvalidResponseError):
                raise refused  # refused already (a flood of records, broken JSON): read no more
        if self._show_first is not None and not self._shown and len(content) > FIRST_BYTES:
            self._shown = True
            self._show_first(content)
        if self._parsing is None and len(content) > THREADED_PARSE_BYTES:
            self._parsing = asyncio.ensure_future(asyncio.to_thread(self._parse, self._body))
        self._body.grew()

    async def records(self, content: bytes | bytearray) -> Records[M]:
        """The records of the whole answer, ``content``."""
        if self._body is not None and content is self._body.data and self._parsing is not None:
            self._body.end()
            return await self._parsing
        if len(content) <= THREADED_PARSE_BYTES:
            return self._parse(content)
        if self._show_first is not None and not self._shown:
            self._show_first(content)  # the body came whole (read at once)
        return await asyncio.to_thread(self._parse, content)

    def close(self) -> None:
        """Stop reading an answer given up (a failed attempt, a cancelled call)."""
        if self._body is not None:
            self._body.abandon()
        if self._parsing is not None:
            if self._parsing.done() and not self._parsing.cancelled():
                self._parsing.exception()  # seen: an abandoned parse ends in Abandoned
            else:
                self._parsing.cancel()
        self._body, self._parsing = None, None


@dataclass(frozen=True)
class _Call:
    """One call as the client makes it, through its retries: what is sent, and for what."""

    method: str
    url: str
    operation: str
    body: dict[str, Any] | None
    reader: _ListReader[Any] | None
    """Reads each successful answer of a list as it arrives."""
    ends: float
    """When the call must be over (``time.monotonic()``): no retry waits past it."""


#: What never goes through a proxy from the environment (None: the direct transport).
NO_PROXY_PATTERNS = ("http://", "all://localhost", "all://127.0.0.1", "all://[::1]")

#: The deadline of every call made within :meth:`HubClient.within`: (when, of how many seconds).
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


@dataclass(frozen=True)
class _Received:
    status_code: int
    content: bytes | bytearray


def _connection_error(exc: httpx.TransportError, operation: str, host: str) -> ApiConnectionError:
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


def _change_body(fields: dict[str, Any], is_reviewer: bool | None) -> dict[str, Any]:
    """A change's body: ``IsReviewer`` only when one was given (never a default sent)."""
    return fields if is_reviewer is None else {**fields, "IsReviewer": is_reviewer}


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


def _check_version(version: str) -> ApiVersion:
    if is_api_version(version):
        return version
    raise ValueError(f"api_version must be 'v2' or 'v3', not {version!r}")
