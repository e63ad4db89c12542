"""The demo API over real HTTP with a front that plays a hostile server, a colleague or a
renamed account: it can act before a request reaches the demo, replace an answer, or change a
list's records, by method and path.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from hubtui.demo import DemoStore, Faults, create_app
from hubtui.demo.data import DemoHub, HubAccess, Membership
from tests.harness.harness import serving

Key = tuple[str, str]
#: What a front does to an answer: the status and JSON body in, the status and body out.
Rewrite = Callable[[int, Any], tuple[int, Any]]


@dataclass
class Front:
    """An ASGI app in front of the demo API. ``before`` runs when a request (method, path)
    arrives, before the demo sees it (once each unless it returns True to stay); ``rewrite``
    replaces that request's answer; ``seen`` lists every request but the reads."""

    app: Any
    before: dict[Key, Callable[[], object]] = field(default_factory=dict)
    rewrite: dict[Key, Rewrite] = field(default_factory=dict)
    seen: list[Key] = field(default_factory=list)
    asked: list[Key] = field(default_factory=list)
    bodies: list[tuple[str, str, Any]] = field(default_factory=list)
    """Each request but the reads, with its JSON body (None: none)."""

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        key = (scope["method"], scope["path"])
        self.asked.append(key)
        if scope["method"] != "GET":
            self.seen.append(key)
            parts: list[bytes] = []
            while True:
                message = await receive()
                parts.append(message.get("body", b""))
                if not message.get("more_body"):
                    break
            raw = b"".join(parts)
            self.bodies.append((*key, json.loads(raw) if raw else None))

            async def replay() -> dict[str, Any]:
                return {"type": "http.request", "body": raw, "more_body": False}

            receive = replay
        act = self.before.get(key)
        if act is not None and not act():
            del self.before[key]
        rewrite = self.rewrite.get(key)
        if rewrite is None:
            await self.app(scope, receive, send)
            return
        await answer_rewritten(self.app, scope, receive, send, rewrite)


async def answer_rewritten(app: Any, scope: Any, receive: Any, send: Any, rewrite: Rewrite) -> None:
    """``app``'s answer to this request, its status and JSON body passed through ``rewrite``
    (its headers kept, its length said anew): the one way a test's server changes an answer."""
    start: dict[str, Any] = {}
    chunks: list[bytes] = []

    async def keep(message: Any) -> None:
        if message["type"] == "http.response.start":
            start.update(message)
        else:
            chunks.append(message.get("body", b""))

    await app(scope, receive, keep)
    raw = b"".join(chunks)
    status, body = rewrite(start["status"], json.loads(raw) if raw else None)
    out = b"" if body is None else json.dumps(body).encode()
    headers = [(k, v) for k, v in start["headers"] if k.lower() != b"content-length"]
    headers.append((b"content-length", b"%d" % len(out)))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": out})


@dataclass
class Served:
    """The demo API served over HTTP behind a :class:`Front`."""

    url: str
    store: DemoStore
    front: Front

    def hub(self, name: str = "acme-build") -> DemoHub:
        found = self.store.hub_by_name(name)
        assert found is not None, name
        return found

    def hub_path(self, name: str = "acme-build") -> str:
        return f"/v3/hubs/{self.hub(name).id}"

    def user_id(self, email: str) -> int:
        user = self.store.user_by_email(email)
        assert user is not None, email
        return user.id

    def rename(self, user_id: int, email: str) -> None:
        """The account ``user_id`` now has the address ``email`` (its old one, no account)."""
        user = self.store.users[user_id]
        self.store._user_by_email.pop(user.email.lower(), None)
        user.email = email
        self.store._user_by_email[email.lower()] = user

    def add_account(
        self, email: str, *, role: str = "Guest", hub: str = "acme-build", activated: bool = True
    ) -> int:
        """A new account of the hub with this address (another may have it too)."""
        user = self.store._new_user("Test", email.split("@")[0], email)
        moment = datetime.now(UTC)
        self.store._hub_access[self.hub(hub).id, user.id] = HubAccess(
            role, activated, moment if activated else None, None, None
        )
        self.hub(hub).user_ids.append(user.id)
        return user.id

    def member(self, user_id: int, project: int, role: str, hub: str = "acme-build") -> None:
        self.hub(hub).projects[project].members[user_id] = Membership(role=role)

    def changes(self) -> list[Key]:
        """The requests that change something, as they reached the server."""
        return [key for key in self.front.seen if key[0] != "GET"]


@contextmanager
def served(faults: Faults | None = None, store: DemoStore | None = None) -> Iterator[Served]:
    """A fresh demo API (its own store) behind a front, over real HTTP."""
    store = store or DemoStore()
    front = Front(create_app(store, faults or Faults()))
    with serving(front) as url:
        yield Served(url, store, front)


def why_json(capsys: Any, at: Served, *argv: str) -> tuple[int, Any, str]:
    """``hubtui why ARGV --format json`` against ``at``: its status, its JSON, its stderr."""
    from tests.harness.commands import run_main

    status, out, err = run_main(capsys, "--base-url", at.url, "why", *argv, "--format", "json")
    return status, json.loads(out) if out else None, err
