"""HubClient: one async method per operation of the contract."""

from __future__ import annotations

import asyncio
import json
import logging
import ssl
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from types import TracebackType
from typing import Any, Literal, Self, TypeVar

import httpx
from pydantic import BaseModel, TypeAdapter, ValidationError

from hubtui.api import retries
from hubtui.api.errors import (
    ApiConnectionError,
    ApiTimeoutError,
    HubError,
    InvalidResponseError,
    UnsafeUrlError,
    status_error_from_response,
)
from hubtui.api.models import Hub, Project, ProjectUser
from hubtui.api.routing import RegionalRoute, encode_segment, is_loopback_host, judge_regional_url

__all__ = ["ApiVersion", "HubClient", "RequestStats"]

ApiVersion = Literal["v2", "v3"]
API_VERSIONS: tuple[ApiVersion, ...] = ("v2", "v3")
#: A body larger than this is refused rather than read into memory.
MAX_RESPONSE_BYTES = 128 * 1024 * 1024
#: A list body larger than this is validated in batches: slower by about a third, but its peak
#: memory is some 40 MB lower for a 50,000-user project.
BATCHED_LIST_BYTES = 8 * 1024 * 1024
_BATCH = 2000

logger = logging.getLogger("hubtui.api")

M = TypeVar("M", bound=BaseModel)
Id = int | str
Sleep = Callable[[float], Awaitable[None]]


@dataclass
class RequestStats:
    """Counts of what the client sent, for status lines and load measurements."""

    requests: int = 0
    retries: int = 0


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
        self.stats = RequestStats()
        self._token = _Token(token) if token else None
        self._trusted_hosts = tuple(trusted_hosts)
        self._sleep: Sleep = sleep or asyncio.sleep
        self._clock = clock or (lambda: datetime.now(UTC))
        self._routes: dict[str, RegionalRoute] = {}
        #: Hosts that may receive the token: the server's and those of trusted regional routes.
        self._token_hosts: frozenset[str] = frozenset({self._base_url.host.lower()})
        self._route_locks: dict[str, asyncio.Lock] = {}
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
            headers={"Accept": "application/json"},
            follow_redirects=False,
            verify=verify,
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

    async def list_hubs(self) -> list[Hub]:
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

    async def list_projects(self, hub_id: Id) -> list[Project]:
        """The hub's projects (``GET /v3/hubs/{hubId}/projects``).

        This operation is assumed, not in the spec: a server may answer 404 or 405.
        """
        url = await self._hub_url(hub_id, "v3", "projects")
        return await self._get_list(f"list projects of hub {hub_id!r}", url, Project)

    # Project users ----------------------------------------------------------------------------

    async def list_project_users(
        self, hub_id: Id, project_id: Id, *, api_version: ApiVersion | None = None
    ) -> list[ProjectUser]:
        """The project's users, limited readers included."""
        url = await self._hub_url(
            hub_id, self._version(api_version), "projects", project_id, "users"
        )
        operation = f"list users of project {project_id!r}"
        return await self._get_list(operation, url, ProjectUser)

    async def get_project_user(
        self, hub_id: Id, project_id: Id, user_id: Id, *, api_version: ApiVersion | None = None
    ) -> ProjectUser:
        """One user's permissions in a project."""
        url = await self._hub_url(
            hub_id, self._version(api_version), "projects", project_id, "users", user_id
        )
        operation = f"get user {user_id!r} of project {project_id!r}"
        return await self._get_one(operation, url, ProjectUser)

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
        url = await self._hub_url(
            hub_id, self._version(api_version), "projects", project_id, "users"
        )
        body: dict[str, Any] = {"Email": email, "Role": role}
        if is_reviewer is not None:
            body["IsReviewer"] = is_reviewer
        operation = f"add {email!r} to project {project_id!r}"
        response = await self._send("POST", url, operation=operation, body=body)
        return _parse_one(response, operation, ProjectUser)

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
        url = await self._hub_url(
            hub_id, self._version(api_version), "projects", project_id, "users", user_id
        )
        body: dict[str, Any] = {"Role": role}
        if is_reviewer is not None:
            body["IsReviewer"] = is_reviewer
        operation = f"update user {user_id!r} of project {project_id!r}"
        response = await self._send("PUT", url, operation=operation, body=body)
        return _parse_one(response, operation, ProjectUser)

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
        self._token_hosts = frozenset(
            {self._base_url.host.lower()}
            | {httpx.URL(r.base_url).host.lower() for r in self._routes.values() if r.trusted}
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
        return url.host.lower() in self._token_hosts

    async def _get_list(self, operation: str, url: str, model: type[M]) -> list[M]:
        response = await self._send("GET", url, operation=operation)
        return _parse_list(response, operation, model)

    async def _get_one(self, operation: str, url: str, model: type[M]) -> M:
        response = await self._send("GET", url, operation=operation)
        return _parse_one(response, operation, model)

    async def _send(
        self, method: str, url: str, *, operation: str, body: dict[str, Any] | None = None
    ) -> _Received:
        attempt = 0
        while True:
            outcome = await self._attempt(method, url, operation=operation, body=body)
            if isinstance(outcome, _Received):
                return outcome
            delay = self._retry_delay(method, attempt, outcome)
            if delay is None:
                raise outcome
            attempt += 1
            self.stats.retries += 1
            logger.info("retrying %s in %.2fs after: %s", operation, delay, outcome)
            await self._sleep(delay)

    def _retry_delay(self, method: str, attempt: int, error: HubError) -> float | None:
        if attempt >= self.max_retries or method not in retries.RETRYABLE_METHODS:
            return None
        status = getattr(error, "status_code", None)
        if isinstance(error, ApiConnectionError):
            return retries.backoff_delay(attempt)
        if status in retries.RETRYABLE_STATUSES:
            return retries.retry_delay(attempt, getattr(error, "retry_after", None))
        return None

    async def _attempt(
        self, method: str, url: str, *, operation: str, body: dict[str, Any] | None
    ) -> _Received | HubError:
        request = self._http.build_request(method, url, json=body)
        if self._token and self._may_hold_token(request.url):
            request.headers["Authorization"] = f"Bearer {self._token.reveal()}"
        self.stats.requests += 1
        started = time.perf_counter()
        try:
            response = await self._http.send(request, stream=True)
            try:
                content = await _read_capped(response)
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
            return _connection_error(exc, operation, request.url.host)
        except _TooLarge:
            return InvalidResponseError(
                operation=operation,
                problem=f"the body is larger than {MAX_RESPONSE_BYTES // (1024 * 1024)} MB",
            )
        elapsed_ms = (time.perf_counter() - started) * 1000
        if logger.isEnabledFor(logging.DEBUG):
            logger.debug(
                "%s %s %s body=%s -> %s in %.0f ms, %d bytes %s body=%r",
                method,
                request.url,
                _redacted(request.headers),
                _preview(request.content),
                response.status_code,
                elapsed_ms,
                len(content),
                _redacted(response.headers),
                _preview(bytes(content)),
            )
        if response.is_success:
            return _Received(response.status_code, content)
        if 300 <= response.status_code < 400:
            return InvalidResponseError(
                operation=operation,
                problem=f"the server redirected (HTTP {response.status_code}); not followed",
            )
        return status_error_from_response(response, operation=operation, now=self._clock())


@dataclass(frozen=True)
class _Received:
    status_code: int
    content: bytes | bytearray


class _TooLarge(Exception):
    pass


async def _read_capped(response: httpx.Response) -> bytearray:
    # One growing buffer, parsed as it is: a large list is held in memory once, not twice.
    content = bytearray()
    async for chunk in response.aiter_bytes():
        content += chunk
        if len(content) > MAX_RESPONSE_BYTES:
            raise _TooLarge
    if not response.is_success:
        response._content = bytes(content)  # status_error_from_response reads the error body
    return content


#: Headers whose values never reach a log.
_SECRET_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie"})
_PREVIEW_BYTES = 300


def _redacted(headers: httpx.Headers) -> dict[str, str]:
    return {
        name: "[redacted]" if name.lower() in _SECRET_HEADERS else value
        for name, value in headers.items()
    }


def _preview(body: bytes) -> str:
    text = body[:_PREVIEW_BYTES].decode("utf-8", "replace")
    return text + ("…" if len(body) > _PREVIEW_BYTES else "")


def _connection_error(exc: httpx.TransportError, operation: str, host: str) -> ApiConnectionError:
    if isinstance(exc, httpx.ConnectError):
        if "CERTIFICATE_VERIFY_FAILED" in str(exc):
            reason = (
                f"the TLS certificate of {host} could not be verified "
                "(if it uses a private CA, set a CA bundle)"
            )
        else:
            reason = f"could not connect to {host}"
        return ApiConnectionError(operation=operation, reason=reason, sent=False)
    if isinstance(exc, httpx.RemoteProtocolError | httpx.ReadError):
        reason = f"the connection to {host} broke before the answer was complete"
    else:
        reason = f"the connection to {host} failed ({type(exc).__name__})"
    return ApiConnectionError(operation=operation, reason=reason, sent=True)


def _check_version(version: str) -> ApiVersion:
    for known in API_VERSIONS:
        if version == known:
            return known
    raise ValueError(f"api_version must be 'v2' or 'v3', not {version!r}")


_LIST_ADAPTERS: dict[type[BaseModel], TypeAdapter[Any]] = {}


def _list_adapter(model: type[M]) -> TypeAdapter[list[M]]:
    adapter = _LIST_ADAPTERS.get(model)
    if adapter is None:
        adapter = _LIST_ADAPTERS[model] = TypeAdapter(list[model])  # type: ignore[valid-type]
    return adapter


def _parse_list(
    received: _Received,
    operation: str,
    model: type[M],
    *,
    batched_above: int = BATCHED_LIST_BYTES,
) -> list[M]:
    """A bare JSON array, or an OData ``{"value": [...]}`` wrapper, of records."""
    content = received.content
    head = content.lstrip()[:1]
    try:
        if head == b"[" and len(content) > batched_above:
            return _parse_in_batches(content, operation, model)
        if head == b"[":
            return _list_adapter(model).validate_json(content)
        if head == b"{":
            wrapper = json.loads(content)
            if isinstance(wrapper, dict) and isinstance(wrapper.get("value"), list):
                return _list_adapter(model).validate_python(wrapper["value"])
            raise InvalidResponseError(
                operation=operation,
                problem='expected a JSON array or an object with a "value" array',
            )
    except ValidationError as exc:
        raise _invalid(operation, exc) from None
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise InvalidResponseError(
            operation=operation, problem="the body is not valid JSON"
        ) from None
    raise _not_json(operation, content, expected="a JSON array")


def _parse_in_batches(content: bytes | bytearray, operation: str, model: type[M]) -> list[M]:
    """Decode one array element at a time and validate them a batch at a time.

    Validating the whole body at once holds a parse tree of all of it; this holds one batch.
    """
    text = content.decode("utf-8")
    decoder = json.JSONDecoder()
    adapter = _list_adapter(model)
    records: list[M] = []
    batch: list[Any] = []
    position = _skip_space(text, 0) + 1  # past "["
    while True:
        position = _skip_space(text, position)
        if text.startswith("]", position) and not records and not batch:
            break
        item, position = decoder.raw_decode(text, position)
        batch.append(item)
        position = _skip_space(text, position)
        if len(batch) == _BATCH:
            records.extend(_validate_batch(adapter, batch, operation, len(records)))
            batch = []
        if text.startswith(",", position):
            position += 1
        elif text.startswith("]", position):
            break
        else:
            raise ValueError("expected , or ]")
    if _skip_space(text, position + 1) != len(text):
        raise ValueError("data after the array")
    records.extend(_validate_batch(adapter, batch, operation, len(records)))
    return records


def _skip_space(text: str, position: int) -> int:
    while position < len(text) and text[position] in " \t\n\r":
        position += 1
    return position


def _validate_batch(
    adapter: TypeAdapter[list[M]], batch: list[Any], operation: str, offset: int
) -> list[M]:
    try:
        return adapter.validate_python(batch)
    except ValidationError as exc:
        raise _invalid(operation, exc, offset=offset) from None


def _parse_one(received: _Received, operation: str, model: type[M]) -> M:
    content = received.content
    if content.lstrip()[:1] != b"{":
        raise _not_json(operation, content, expected="a JSON object")
    try:
        return model.model_validate_json(content)
    except ValidationError as exc:
        raise _invalid(operation, exc) from None
    except (ValueError, RecursionError):
        raise InvalidResponseError(
            operation=operation, problem="the body is not valid JSON"
        ) from None


def _not_json(operation: str, content: bytes | bytearray, *, expected: str) -> InvalidResponseError:
    stripped = content.strip()
    if not stripped:
        problem = f"the body is empty where {expected} was expected"
    elif stripped[:1] == b"<":
        problem = f"the body is HTML or XML where {expected} was expected"
    else:
        problem = f"expected {expected}"
    return InvalidResponseError(operation=operation, problem=problem)


def _invalid(operation: str, exc: ValidationError, *, offset: int = 0) -> InvalidResponseError:
    first = exc.errors(include_url=False, include_input=False)[0]
    if first["type"] == "json_invalid":
        return InvalidResponseError(operation=operation, problem="the body is not valid JSON")
    loc = list(first["loc"])
    if loc and isinstance(loc[0], int):
        loc[0] += offset  # the index in the whole list, not in its batch
    location = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc).lstrip(
        "."
    )
    return InvalidResponseError(
        operation=operation, problem=first["msg"].rstrip(".").lower(), location=location or None
    )
