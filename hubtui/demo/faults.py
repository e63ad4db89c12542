"""Misbehaviour the demo API can be asked for: latency, error statuses, broken bodies.

All of it is off unless :class:`Faults` turns it on; :class:`ServerStats` counts what was asked;
:class:`Pauses` holds answers back for the latencies and lets them all go when the server stops.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass, field

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from hubtui.demo.problems import problem


@dataclass
class Faults:
    """Misbehaviour to inject; everything off by default."""

    latency: float = 0.0
    """Seconds added before every API answer."""
    failure_rate: float = 0.0
    """Share of API requests answered with one of ``failure_statuses`` instead."""
    failure_statuses: tuple[int, ...] = (503,)
    retry_after: int = 1
    """The ``Retry-After`` seconds sent with injected 429 and 503 answers."""
    malformed_rate: float = 0.0
    """Share of successful answers whose body is replaced by broken JSON."""
    truncated_rate: float = 0.0
    """Share of successful answers cut off half-way through the body."""
    omit_new_fields: bool = False
    """Behave like a server older than the ``IsLimited`` and ``DisplayName`` changes."""
    no_hub_users: bool = False
    """Behave like a server without the hub-user operations (404 to the list, 405 to changes)."""
    projects_listing_status: int | None = None
    """Answer the (assumed) list-projects operation with this status, e.g. 404 or 405."""
    change_failure_status: int | None = None
    """Answer every create and update with this status instead of making the change."""
    change_latency: float = 0.0
    """Seconds added after a create or update is made, before its answer is sent."""
    datacenter_redirect: bool = False
    """Route as the production service does: hubs name no regional API, and a call sent to the
    wrong region is answered 307 with the right address in ``Location`` (not 421)."""
    refuse_with_code: str | None = None
    """Answer every API call 409 with this service ``Code`` (``USER_PROFILE_NOT_CREATED`` comes
    with a ``WebsiteLoginUrl``; ``FUNCTIONALITY_NOT_AVAILABLE`` without)."""
    redirect_to: str | None = None
    """Answer every hub-scoped call (not under ``/regions/``) with 307 to this base URL plus
    the call's path: a redirect to wherever a test wants (another host, a second redirect)."""
    page_size: int | None = None
    """Answer every list in OData pages of this many records (``{"value": [...],
    "@odata.nextLink": ...}``), as the service may; None: each list whole, a bare array."""
    keep_answers: bool = False
    """Answer a read asked before with the bytes of its first answer, until the next change:
    a server whose answers cost it almost nothing, so that a benchmark measures its client."""
    seed: int = 0


@dataclass
class ServerStats:
    requests: int = 0
    injected_failures: int = 0
    by_route: dict[str, int] = field(default_factory=dict)
    in_flight: int = 0
    """Requests being answered now."""
    max_in_flight: int = 0
    """The most requests ever answered at once (how concurrent a client was)."""


class Pauses:
    """The pauses ``latency`` and ``change_latency`` put before answers. :meth:`end` cuts every
    one short, now and after: a demo server asked to stop answers what it holds at once, rather
    than keep the person at Ctrl+C (and its clients) waiting out a pause of 30 seconds."""

    def __init__(self) -> None:
        self._ended = False
        # Each pause is a timer and a future of the loop that pauses (an in-process demo may
        # serve one test's loop, then another's): nothing more, so that the latency asked for
        # is what a client sees (a task and a cancelled wait for each cost 1–2 ms more).
        self._waiting: set[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = set()

    async def pause(self, seconds: float) -> None:
        if self._ended:
            return
        loop = asyncio.get_running_loop()
        waiting = (loop, loop.create_future())
        timer = loop.call_later(seconds, _done, waiting[1])
        self._waiting.add(waiting)
        try:
            await waiting[1]
        finally:
            timer.cancel()
            self._waiting.discard(waiting)

    def end(self) -> None:
        """From a signal handler or any thread: every pause ends, now and after."""
        self._ended = True
        for loop, future in list(self._waiting):
            if not loop.is_closed():
                loop.call_soon_threadsafe(_done, future)


def _done(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class FaultMiddleware:
    """Counts API requests and injects the configured faults (never on ``/_demo``)."""

    def __init__(self, app: ASGIApp, *, faults: Faults, stats: ServerStats, pauses: Pauses) -> None:
        self.app = app
        self.faults = faults
        self.stats = stats
        self.pauses = pauses
        self.rng = random.Random(faults.seed)
        self.kept = KeptAnswers(app)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].startswith("/_demo"):
            await self.app(scope, receive, send)
            return
        stats = self.stats
        stats.in_flight += 1
        stats.max_in_flight = max(stats.max_in_flight, stats.in_flight)
        try:
            await self._answer(scope, receive, send)
        finally:
            stats.in_flight -= 1

    async def _answer(self, scope: Scope, receive: Receive, send: Send) -> None:
        faults = self.faults
        self.stats.requests += 1
        key = f"{scope['method']} {_route_kind(scope['path'])}"
        self.stats.by_route[key] = self.stats.by_route.get(key, 0) + 1
        if faults.latency > 0:
            await self.pauses.pause(faults.latency)
        is_change = scope["method"] in ("POST", "PUT")
        if is_change and faults.change_failure_status is not None:
            status = faults.change_failure_status
            response = problem(status, "Injected failure", "The demo server refused the change.")
            await response(scope, receive, send)
            return
        if faults.refuse_with_code:
            body: dict[str, str] = {
                "Code": faults.refuse_with_code,
                "Message": "Refused by the demo server on purpose.",
            }
            if faults.refuse_with_code == "USER_PROFILE_NOT_CREATED":
                body["WebsiteLoginUrl"] = "https://app.example.com/login"
            await JSONResponse(body, status_code=409)(scope, receive, send)
            return
        if faults.redirect_to and "/{hubId}/" in _route_kind(scope["path"]):
            if not scope["path"].startswith("/regions/"):
                target = faults.redirect_to.rstrip("/") + scope["path"]
                response = problem(
                    307, "Temporary Redirect", "Elsewhere.", headers={"Location": target}
                )
                await response(scope, receive, send)
                return
        if is_change and faults.change_latency > 0:
            send = _delayed_send(send, self.pauses, faults.change_latency)
        if faults.failure_rate > 0 and self.rng.random() < faults.failure_rate:
            self.stats.injected_failures += 1
            status = self.rng.choice(faults.failure_statuses)
            headers = {"Retry-After": str(faults.retry_after)} if status in (429, 503) else None
            response = problem(
                status, "Injected failure", "The demo server failed on purpose.", headers=headers
            )
            await response(scope, receive, send)
            return
        mangle = None
        if faults.malformed_rate > 0 and self.rng.random() < faults.malformed_rate:
            mangle = "malformed"
        elif faults.truncated_rate > 0 and self.rng.random() < faults.truncated_rate:
            mangle = "truncated"
        if mangle is None:
            await (self.kept if faults.keep_answers else self.app)(scope, receive, send)
            return
        await self.app(scope, receive, _mangling_send(send, mangle))


class KeptAnswers:
    """Each successful read's answer kept as sent (its status, headers and body) and sent again
    to the same read with the same credentials; every change forgets them all."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.answers: dict[tuple[str, bytes, bytes], tuple[Message, bytes]] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["method"] != "GET":
            self.answers.clear()
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        key = (scope["path"], scope["query_string"], headers.get(b"authorization", b""))
        if (answer := self.answers.get(key)) is not None:
            start, body = answer
            await send(start)
            await send({"type": "http.response.body", "body": body})
            return
        started: list[Message] = []
        chunks: list[bytes] = []

        async def keeping(message: Message) -> None:
            if message["type"] == "http.response.start":
                started.append(message)
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
                if not message.get("more_body") and started[0]["status"] == 200:
                    self.answers[key] = (started[0], b"".join(chunks))
            await send(message)

        await self.app(scope, receive, keeping)


def _delayed_send(send: Send, pauses: Pauses, seconds: float) -> Send:
    """Send the answer only after a pause: the change is made, its answer is late."""

    async def delayed(message: Message) -> None:
        if message["type"] == "http.response.start":
            await pauses.pause(seconds)
        await send(message)

    return delayed


def _mangling_send(send: Send, how: str) -> Send:
    start: Message | None = None
    chunks: list[bytes] = []

    async def mangled(message: Message) -> None:
        nonlocal start
        if message["type"] == "http.response.start":
            start = message
            return
        if message["type"] != "http.response.body":
            await send(message)
            return
        chunks.append(message.get("body", b""))
        if message.get("more_body"):
            return
        assert start is not None
        body = b"".join(chunks)
        if start["status"] >= 400:
            await send(start)
            await send({"type": "http.response.body", "body": body})
            return
        headers = [(k, v) for k, v in start["headers"] if k.lower() != b"content-length"]
        if how == "malformed":
            out = b'{"Id": "broken", "Name": [1, 2, ' + b"\x00garbage"
            headers.append((b"content-length", str(len(out)).encode()))
            await send({**start, "headers": headers})
            await send({"type": "http.response.body", "body": out})
        else:
            # Announce the whole body, send half: the connection ends mid-body.
            headers.append((b"content-length", str(len(body)).encode()))
            await send({**start, "headers": headers})
            await send({"type": "http.response.body", "body": body[: len(body) // 2]})

    return mangled


def _route_kind(path: str) -> str:
    """A path with its identifiers replaced, for counting requests per operation."""
    parts = [p for p in path.split("/") if p]
    if parts[:1] == ["regions"]:
        parts = parts[2:]
    kind: list[str] = []
    for i, part in enumerate(parts):
        before = parts[i - 1] if i else ""
        if before == "hubs" and part != "name":
            kind.append("{hubId}")
        elif before == "name":
            kind.append("{hubName}")
        elif part.isdigit():
            kind.append("{id}")
        else:
            kind.append(part)
    return "/" + "/".join(kind)
