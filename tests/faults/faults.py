"""The faults of the reliability matrix, each as the answer a transport gives one request."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable

import httpx

HUB = {"Id": "h1", "Name": "acme-build", "DisplayName": "ACME", "RegionSummary": None}
PROJECT = {"Id": 1001, "Name": "Harbour Bridge", "ProjectAccess": "Limited"}
USER = {"User": {"Id": 5, "Email": "a@b.example"}, "Role": "Editor", "IsLimited": False}
BIG = 20 * 1024 * 1024


class BrokenStream(httpx.AsyncByteStream):
    """Half of a body, then the connection resets."""

    def __init__(self, body: bytes) -> None:
        self.body = body

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield self.body[: len(self.body) // 2]
        raise httpx.ReadError("connection reset by peer")


def problem(status: int) -> httpx.Response:
    body = {"type": "about:blank", "title": "Failure", "status": status, "detail": "It failed."}
    return httpx.Response(status, json=body, headers={"Content-Type": "application/problem+json"})


def big_body(good: object) -> bytes:
    """A 20 MB body of the right shape: one record whose name is very long."""
    padding = "x" * BIG
    if isinstance(good, list):
        record = dict(good[0])
        _pad(record, padding)
        return json.dumps([record]).encode()
    assert isinstance(good, dict)
    record = dict(good)
    _pad(record, padding)
    return json.dumps(record).encode()


def _pad(record: dict[str, object], padding: str) -> None:
    if "User" in record:
        record["User"] = {**record["User"], "FirstName": padding}  # type: ignore[dict-item]
    else:
        record["Name"] = padding


Fault = Callable[[httpx.Request, object], httpx.Response]


def _raise(error: Exception) -> Fault:
    def fault(request: httpx.Request, good: object) -> httpx.Response:
        raise error

    return fault


def _answer(make: Callable[[object], httpx.Response]) -> Fault:
    def fault(request: httpx.Request, good: object) -> httpx.Response:
        return make(good)

    return fault


FAULTS: dict[str, Fault] = {
    "connection refused": _raise(httpx.ConnectError("connection refused")),
    "timeout": _raise(httpx.ReadTimeout("timed out")),
    "reset mid-body": _answer(
        lambda good: httpx.Response(
            200,
            headers={"Content-Length": str(len(json.dumps(good)))},
            stream=BrokenStream(json.dumps(good).encode()),
        )
    ),
    "401": _answer(lambda good: problem(401)),
    "403": _answer(lambda good: problem(403)),
    "404": _answer(lambda good: problem(404)),
    "409 problem details": _answer(lambda good: problem(409)),
    "409 Code and Message": _answer(
        lambda good: httpx.Response(
            409,
            json={
                "Code": "FUNCTIONALITY_NOT_AVAILABLE",
                "Message": "Not available on this plan.",
                "WebsiteLoginUrl": "https://example.com/login",
            },
        )
    ),
    "429 Retry-After": _answer(
        lambda good: httpx.Response(429, json={"title": "Slow down"}, headers={"Retry-After": "0"})
    ),
    "500": _answer(lambda good: problem(500)),
    "502": _answer(lambda good: problem(502)),
    "503": _answer(lambda good: problem(503)),
    "HTML error page": _answer(
        lambda good: httpx.Response(
            500, text="<html><h1>Internal Error</h1></html>", headers={"Content-Type": "text/html"}
        )
    ),
    "malformed JSON": _answer(lambda good: httpx.Response(200, content=b'{"Id": "h1", "Na')),
    "JSON of the wrong shape": _answer(lambda good: httpx.Response(200, json={"unexpected": [1]})),
    "empty body": _answer(lambda good: httpx.Response(200, content=b"")),
    "20 MB body": _answer(lambda good: httpx.Response(200, content=big_body(good))),
}

#: Faults a GET or PUT recovers from by trying again.
RETRIED = {"connection refused", "timeout", "reset mid-body", "429 Retry-After", "502", "503"}
#: Faults that are not failures at all.
SUCCEEDS = {"20 MB body"}
