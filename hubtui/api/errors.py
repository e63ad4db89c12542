"""One exception tree for every way a call can fail.

``str(error)`` is one sentence a person understands: the operation, what went wrong and the
server's own words when it gave any. No error ever holds the token.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import TYPE_CHECKING, Any

from hubtui.api.retries import parse_retry_after

if TYPE_CHECKING:
    import httpx

__all__ = [
    "ApiConnectionError",
    "ApiStatusError",
    "ApiTimeoutError",
    "AuthenticationError",
    "BadRequestError",
    "ConflictError",
    "HubError",
    "IncompleteListError",
    "InvalidResponseError",
    "NOT_KEPT_HEADER",
    "STORE_UNREADABLE_HEADER",
    "NotFoundError",
    "NotKeptError",
    "StoreUnreadableError",
    "PermissionDeniedError",
    "RateLimitError",
    "ServerError",
    "UnprocessableEntityError",
    "NOT_OFFERED",
    "UnsafeUrlError",
    "not_offered",
    "status_error_from_response",
]

# What each status means, in plain words, for when the server says nothing itself.
_STATUS_WORDS: dict[int, str] = {
    400: "the server rejected the request as invalid",
    401: "the token is missing, expired or not accepted",
    403: "the token is not allowed to do this",
    404: "it was not found",
    405: "the server does not offer this operation",
    408: "the server timed out waiting for the request",
    409: "it conflicts with the current state",
    410: "it no longer exists",
    421: "the server says this hub is served by another regional address",
    422: "the server could not process the request",
    429: "too many requests; the server asks to slow down",
    500: "the server had an internal error",
    502: "a gateway in front of the server failed",
    503: "the service is unavailable",
    504: "a gateway in front of the server timed out",
}


def status_words(status_code: int) -> str:
    """Plain words for an HTTP status."""
    if status_code in _STATUS_WORDS:
        return _STATUS_WORDS[status_code]
    if status_code >= 500:
        return "the server failed"
    return "the server refused the request"


class HubError(Exception):
    """Base of every error raised by :class:`hubtui.api.HubClient`."""

    #: Whether a change that failed this way may still have been made by the server: its outcome
    #: is unknown, so it must not be sent again before the data has been read back.
    may_have_applied: bool = False

    def __init__(self, message: str, *, operation: str) -> None:
        super().__init__(message)
        self.message = message
        self.operation = operation

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r})"


class UnsafeUrlError(HubError):
    """A URL was refused before anything was sent (for example plain http to a remote host)."""


class ApiConnectionError(HubError):
    """The server could not be reached, or the connection broke before an answer came."""

    def __init__(
        self, *, operation: str, reason: str, sent: bool | None = None, refused: bool = False
    ) -> None:
        super().__init__(f"{_cap(operation)} failed: {reason}.", operation=operation)
        self.reason = reason
        #: True if the request may have reached the server (its outcome is unknown).
        self.sent = sent
        self.may_have_applied = sent is not False
        #: Nothing listens at that address: trying again at once would be refused the same.
        self.refused = refused


class ApiTimeoutError(ApiConnectionError):
    """No answer came in time."""


class InvalidResponseError(HubError):
    """A success response whose body breaks the contract.

    ``applied`` is True when the answer was a success status to a change: the change was made,
    only its answer could not be read.
    """

    def __init__(
        self,
        *,
        operation: str,
        problem: str,
        location: str | None = None,
        applied: bool = False,
    ) -> None:
        where = f" at {location}" if location else ""
        super().__init__(
            f"{_cap(operation)} failed: the server's answer was not understood{where}: {problem}.",
            operation=operation,
        )
        self.problem = problem
        self.location = location
        self.applied = applied
        self.may_have_applied = applied


class IncompleteListError(InvalidResponseError):
    """A list the server sent in pages could not be read whole: what was read is not the list,
    and nothing is answered from it as if it were."""

    def __init__(self, *, operation: str, problem: str, read: int) -> None:
        super().__init__(
            operation=operation,
            problem=f"the list came in pages and could not be read whole ({read:,} records "
            f"read): {problem}",
        )
        #: How many records the pages read before it held.
        self.read = read


class ApiStatusError(HubError):
    """The server answered with an error status."""

    def __init__(
        self,
        *,
        operation: str,
        status_code: int,
        title: str | None = None,
        detail: str | None = None,
        code: str | None = None,
        server_message: str | None = None,
        retry_after: float | None = None,
        login_url: str | None = None,
        field_errors: tuple[str, ...] = (),
    ) -> None:
        self.status_code = status_code
        #: What the server said of each field it refused (``Role: The Role field is
        #: required.``), from a problem body's ``errors`` or ``validation``.
        self.field_errors = field_errors
        #: Where to sign in once, when the service says the person's profile is not created.
        self.login_url = login_url
        self.title = title
        self.detail = detail
        self.code = code
        self.server_message = server_message
        self.retry_after = retry_after
        # A server or a gateway that failed may have acted before it did (a 501 says the
        # operation is not offered at all): the outcome of a change is unknown until read back.
        self.may_have_applied = status_code >= 500 and status_code != 501
        sentence = f"{_cap(operation)} failed: {status_words(status_code)} (HTTP {status_code})"
        said = self.server_words
        if said:
            sentence += f". The server said: {said}"
        sentence = _end(sentence)
        if self.advice:
            sentence += f" {self.advice}"
        super().__init__(sentence, operation=operation)

    @property
    def advice(self) -> str | None:
        """What to do, for the service's codes that have an answer."""
        if self.code == "USER_PROFILE_NOT_CREATED":
            where = f" ({_one_line(self.login_url)})" if self.login_url else ""
            return f"Sign in to the web app once{where} to create your profile, then try again."
        if self.code == "FUNCTIONALITY_NOT_AVAILABLE":
            return "The hub's plan does not include this; its administrator can change the plan."
        return None

    @property
    def server_words(self) -> str | None:
        """What the server itself said about the failure, if anything."""
        parts: list[str] = []
        if self.code:
            parts.append(self.code)
        for text in (self.server_message, self.title, self.detail, *self.field_errors):
            if text and text not in parts:
                parts.append(text)
        return " — ".join(_one_line(p) for p in parts) or None


class BadRequestError(ApiStatusError):
    """400: the request was invalid."""


class AuthenticationError(ApiStatusError):
    """401: the token is missing or not accepted."""


class PermissionDeniedError(ApiStatusError):
    """403: the token may not do this."""


class NotFoundError(ApiStatusError):
    """404: no such hub, project or user."""


class NotKeptError(NotFoundError):
    """Offline, a list hubtui never kept (its stored answers say so with the header
    :data:`NOT_KEPT_HEADER`): said in hubtui's own words, never as a server's answer."""

    def __init__(self, **fields: Any) -> None:
        super().__init__(**fields)
        what = fields.get("detail") or "this"
        self.message = (
            f"Not kept: {_one_line(what)}, never read from this server. Open it once online, or "
            "record a snapshot, to read it offline."
        )
        self.args = (self.message,)


#: The header hubtui's stored answers (offline) put on a list they never kept.
NOT_KEPT_HEADER = "x-hubtui-not-kept"


class StoreUnreadableError(ApiStatusError):
    """Offline, the store the answers are read from cannot be read (corrupt, a newer schema):
    its stored answers say so with :data:`STORE_UNREADABLE_HEADER`, and it is said in the
    store's own words, never as an HTTP status no server sent."""

    def __init__(self, **fields: Any) -> None:
        super().__init__(**fields)
        self.may_have_applied = False
        self.message = _one_line(fields.get("detail") or "The store cannot be read.")
        self.args = (self.message,)


#: The header hubtui's stored answers (offline) put on an answer the store could not give.
STORE_UNREADABLE_HEADER = "x-hubtui-store-unreadable"


class ConflictError(ApiStatusError):
    """409: the change conflicts with the current state."""


class UnprocessableEntityError(ApiStatusError):
    """422: the server understood the request but could not act on its values."""


class RateLimitError(ApiStatusError):
    """429: too many requests. ``retry_after`` holds the server's wait in seconds, if given."""


class ServerError(ApiStatusError):
    """5xx: the server failed."""


_STATUS_CLASSES: dict[int, type[ApiStatusError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    422: UnprocessableEntityError,
    429: RateLimitError,
}
#: Statuses from a gateway in front of the server: the server itself may have acted.
GATEWAY_STATUSES = frozenset({502, 504})

#: How much of an error body is read for the server's words.
_MAX_ERROR_WORDS = 500


def status_error_from_response(
    response: httpx.Response,
    *,
    operation: str,
    content: bytes | bytearray | None = None,
    now: datetime | None = None,
) -> ApiStatusError:
    """Map an error response to the right :class:`ApiStatusError` subclass.

    Reads RFC 7807 problem details (``title``, ``detail``) and the service's
    ``{"Code", "Message"}`` shape from ``content`` (the body already read, or else
    ``response.content``); anything else leaves only the status's plain words.
    """
    status = response.status_code
    cls = _STATUS_CLASSES.get(status) or (ServerError if status >= 500 else ApiStatusError)
    if status == 404 and NOT_KEPT_HEADER in response.headers:
        cls = NotKeptError
    if STORE_UNREADABLE_HEADER in response.headers:
        cls = StoreUnreadableError
    body = _body(response.content if content is None else content)
    fields = _error_fields(body)
    return cls(
        operation=operation,
        status_code=status,
        title=fields.get("title"),
        detail=fields.get("detail"),
        code=fields.get("Code"),
        server_message=fields.get("Message") or fields.get("message"),
        retry_after=parse_retry_after(response.headers.get("Retry-After"), now=now),
        login_url=fields.get("WebsiteLoginUrl"),
        field_errors=_field_errors(body),
    )


#: The most field errors said of one answer (the rest are counted).
_MAX_FIELD_ERRORS = 8


def _field_errors(body: dict[str, object]) -> tuple[str, ...]:
    """What a problem body says of each field: ASP.NET's ``errors`` (``{"Role": ["The Role
    field is required."]}``) or a ``validation`` list (``[{"field": …, "message": …}]`` or
    plain text), bounded in count and length."""
    said: list[str] = []
    errors = body.get("errors")
    if isinstance(errors, dict):
        for name, messages in errors.items():
            listed = messages if isinstance(messages, list) else [messages]
            text = "; ".join(m for m in listed if isinstance(m, str) and m.strip())
            said.append(f"{name}: {text}" if text else str(name))
    for key in ("validation", "errors"):
        entries = body.get(key)
        if not isinstance(entries, list):
            continue
        for entry in entries:
            if isinstance(entry, str):
                said.append(entry)
            elif isinstance(entry, dict):
                name = next((entry[k] for k in ("field", "name", "path") if k in entry), None)
                text = next((entry[k] for k in ("message", "detail", "error") if k in entry), "")
                if isinstance(text, str) and text.strip():
                    said.append(f"{name}: {text}" if isinstance(name, str) else text)
    words = [" ".join(w.split())[:_MAX_ERROR_WORDS] for w in said if w.strip()]
    if len(words) > _MAX_FIELD_ERRORS:
        extra = len(words) - _MAX_FIELD_ERRORS
        words = [*words[:_MAX_FIELD_ERRORS], f"and {extra} more"]
    return tuple(words)


def _body(content: bytes | bytearray) -> dict[str, object]:
    """An error answer's body as JSON, read once (empty: no JSON object)."""
    try:
        body = json.loads(content)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return {}
    return body if isinstance(body, dict) else {}


def _error_fields(body: dict[str, object]) -> dict[str, str]:
    found: dict[str, str] = {}
    for key in ("title", "detail", "Code", "Message", "message", "WebsiteLoginUrl"):
        value = body.get(key)
        if isinstance(value, str) and value.strip():
            found[key] = value.strip()[:_MAX_ERROR_WORDS]
    return found


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _end(text: str) -> str:
    return text if text.endswith((".", "!", "?")) else text + "."


def _one_line(text: str) -> str:
    return " ".join(text.split())


#: Statuses that mean a server does not offer an operation at all.
NOT_OFFERED = (404, 405, 501)


def not_offered(error: Exception) -> bool:
    """Whether ``error`` says the server does not offer the operation (404, 405, 501); a list
    offline that was never kept is not that."""
    if isinstance(error, NotKeptError):
        return False
    return isinstance(error, ApiStatusError) and error.status_code in NOT_OFFERED
