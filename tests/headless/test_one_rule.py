"""Each rule has one home: a wished change is decided once (form, add-user/set-role, batch rows,
all to the API version read), a person is matched one way, and a server's store and change log
are keyed by one identity. Each test here failed while the rule had more than one home."""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

import httpx
import pytest

from hubtui.api import HubClient
from hubtui.cli import demo_connector
from hubtui.config import Settings
from hubtui.core.people.search import Finding, PersonQuery, search_people
from hubtui.core.workspace import open_workspace
from hubtui.demo import DEMO_TOKEN, DemoStore, create_app
from tests.harness.commands import run
from tests.harness.demo_api import demo_stats

CHLOE = "chloe.moreau@acme-build.com"
Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


def test_a_batch_sends_to_the_api_version_it_read(
    server: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    batch = tmp_path / "batch.csv"
    with batch.open("w", newline="") as handle:
        csv.writer(handle).writerows(
            [["hub", "project", "email", "role"], ["acme-build", "1001", CHLOE, "Editor"]]
        )
    options = ("--base-url", server, "--api-version", "v2")
    status, out, err = run(capsys, *options, "apply", str(batch), "--dry-run")
    assert status == 0, err
    assert re.search(r"Would send: PUT http://\S+/v2/hubs/\S+/projects/1001/users/\d+", out)
    status, _, err = run(capsys, *options, "apply", str(batch), "--yes")
    assert status == 0, err
    routes = demo_stats(server)["by_route"]
    assert isinstance(routes, dict)
    assert routes.get("PUT /v2/hubs/{hubId}/projects/{id}/users/{id}") == 1
    assert not any(route.startswith("PUT /v3/") for route in routes)


def test_one_wish_is_one_request_from_the_command_line_and_a_batch_row(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The same wish (add as Reader, not a reviewer) becomes the same body either way; a wish
    that leaves the flag out sends no default."""

    def body(out: str) -> dict[str, object]:
        sent: dict[str, object] = json.loads(out.split("Would send: ", 1)[1].split("\n", 1)[1])
        return sent

    new = "new.person@subcontractor.example"
    status, out, err = run(
        capsys, "--demo", "add-user", "acme-build", "1001", new, "Reader", "--no-reviewer",
        "--dry-run",
    )  # fmt: skip
    assert status == 0, err
    from_command = body(out)
    assert from_command == {"Email": new, "Role": "Reader", "IsReviewer": False}
    batch = tmp_path / "batch.csv"
    with batch.open("w", newline="") as handle:
        csv.writer(handle).writerows(
            [["hub", "project", "email", "role", "reviewer"],
             ["acme-build", "1001", new, "Reader", "no"]]
        )  # fmt: skip
    status, out, err = run(capsys, "--demo", "apply", str(batch), "--dry-run")
    assert status == 0, err
    assert body(out) == from_command
    status, out, _ = run(
        capsys, "--demo", "add-user", "acme-build", "1001", new, "Reader", "--dry-run"
    )
    assert body(out) == {"Email": new, "Role": "Reader"}  # no default sent


def lowercase_keys(value: Any) -> Any:
    """A record as a server that spells every field in lower camel case sends it."""
    if isinstance(value, dict):
        return {key[:1].lower() + key[1:]: lowercase_keys(v) for key, v in value.items()}
    if isinstance(value, list):
        return [lowercase_keys(v) for v in value]
    return value


class LowercaseUsers:
    """The demo API, but a project's users come with lowercase field names (``email``)."""

    def __init__(self) -> None:
        self.app = create_app(DemoStore())

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].endswith("/users"):
            await self.app(scope, receive, send)
            return
        started: MutableMapping[str, Any] = {}
        chunks: list[bytes] = []

        async def keep(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                started.update(message)
            else:
                chunks.append(message.get("body", b""))

        await self.app(scope, receive, keep)
        body = json.dumps(lowercase_keys(json.loads(b"".join(chunks)))).encode()
        headers = [(k, v) for k, v in started["headers"] if k.lower() != b"content-length"]
        headers.append((b"content-length", str(len(body)).encode()))
        await send({**started, "headers": headers})
        await send({"type": "http.response.body", "body": body})


async def test_a_person_shown_in_a_list_is_found_by_the_search_whatever_the_field_case() -> None:
    transport = httpx.ASGITransport(app=LowercaseUsers())
    async with HubClient("http://localhost", token=DEMO_TOKEN, transport=transport) as client:
        hub = await client.get_hub_by_name("acme-build")
        users = await client.list_project_users(hub.id, "1001")
        assert CHLOE in {u.user.email for u in users}  # the list shows her
        found: list[Finding] = []
        await search_people(client, PersonQuery(CHLOE.upper()), [hub], on_finding=found.append)
    emails = [f.user.user.email for f in found if f.user is not None]
    assert emails
    assert set(emails) == {CHLOE}


@pytest.mark.parametrize(
    ("base_url", "demo"),
    [("HTTPS://Api.Example.com/", False), ("https://api.example.com:443/a/", False), (None, True)],
)
def test_the_store_and_the_change_log_of_a_server_are_keyed_by_one_identity(
    base_url: str | None, demo: bool
) -> None:
    settings = Settings(base_url=base_url, profile="ops", token="t")
    workspace = open_workspace(settings, demo=demo_connector if demo else None)
    server_store = workspace.server_store
    assert server_store is not None
    log = workspace.change_log
    assert (log.server, log.profile) == (server_store.origin, server_store.profile)
    if demo:
        assert (log.server, log.profile) == ("demo", None)  # the demo API is no profile's
    else:
        assert log.server.startswith("https://api.example.com:443")


@pytest.mark.reads_only
def test_who_history_says_access_not_sent_where_a_snapshot_holds_no_is_limited(
    capsys: pytest.CaptureFixture[str], server: str, tmp_path: Path
) -> None:
    """What access a record gives is said one way: a record without IsLimited is "access not
    sent" in `who --history` as in `diff`, never "direct member"."""
    from hubtui.core.store import ListKey, Snapshot, Store, now
    from hubtui.hosts import server_identity

    sent = {"User": {"Id": 7, "Email": CHLOE}, "Role": "Editor"}  # IsLimited not sent
    with Store.open(tmp_path / "data" / "store.sqlite3") as store:
        store.write_snapshot(
            Snapshot(
                server_identity(server),
                "",
                "all hubs",
                now(),
                {ListKey("users", "h1", "1001"): (True, "", [sent])},
            )  # fmt: skip
        )
    status, out, err = run(capsys, "--base-url", server, "who", CHLOE, "--history",
                           "--format", "json")  # fmt: skip
    assert status == 0, err
    assert [row["access"] for row in json.loads(out)] == ["access not sent"]
