"""What a snapshot and the store keep for offline, and what a snapshot says of a server that
offers less than the contract: the hub a one-hub snapshot read names it offline, and a server
that lists no hub's users makes no snapshot incomplete."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hubtui.demo import DemoStore, Faults, create_app
from tests.harness.commands import run
from tests.harness.fronts import answer_rewritten
from tests.harness.harness import running_demo_server, serving


@pytest.mark.reads_only
def test_a_one_hub_snapshot_names_its_hub_offline(
    capsys: pytest.CaptureFixture[str], server: str
) -> None:
    base = ("--base-url", server)
    status, _, err = run(capsys, *base, "snapshot", "acme-build")
    assert status == 0, err
    status, out, err = run(capsys, *base, "--offline", "access", "acme-build", "--format", "json")
    assert status == 0, err
    assert "Not kept" not in err
    people = json.loads(out)
    assert "chloe.moreau@acme-build.com" in {p["Email"] for p in people}


@pytest.fixture
def no_hub_users() -> Iterator[str]:
    with running_demo_server("--no-hub-users") as url:
        yield url


def test_a_server_that_lists_no_hub_s_users_makes_a_complete_snapshot_said_once(
    capsys: pytest.CaptureFixture[str], no_hub_users: str
) -> None:
    status, _, err = run(capsys, "--base-url", no_hub_users, "snapshot", "acme-build")
    assert status == 0, err  # a cron job mails nothing: nothing is missing
    assert err.count("does not list a hub's users") == 1
    assert "Incomplete" not in err


@pytest.mark.reads_only
def test_one_hub_whose_users_are_not_read_among_others_stays_not_read(
    capsys: pytest.CaptureFixture[str], server: str
) -> None:
    status, _, err = run(capsys, "--base-url", server, "snapshot")
    assert status == 3, err  # the demo's hub that answers 404 alone: not read, said
    assert "Incomplete: 1 not read" in err
    assert "does not list a hub's users" not in err


def _a_number_among_the_users_of_1001(inner: Any) -> Any:
    """The demo API, project 1001's users answered with a number among its records."""

    async def server(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not scope["path"].endswith("/projects/1001/users"):
            await inner(scope, receive, send)
            return
        await answer_rewritten(inner, scope, receive, send, lambda s, body: (s, [*body, 5]))

    return server


def test_a_snapshot_keeps_each_list_as_read_a_record_left_out_left_out(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A list with a record left out (not an object) is kept as it was read, without it, beside
    a list read whole: offline, and in the store itself, each is what the app read."""
    from hubtui.core.store import ListKey, open_store

    app = _a_number_among_the_users_of_1001(create_app(DemoStore(), Faults()))
    with serving(app) as url:
        base = ("--base-url", url)
        online = {}
        for project in ("1001", "1002"):
            status, out, err = run(
                capsys, *base, "users", "acme-build", project, "--format", "json"
            )
            assert status == 0, err
            online[project] = json.loads(out)
        status, _, err = run(capsys, *base, "snapshot", "acme-build")
        assert status == 0, err
    assert 5 not in online["1001"]
    for project in ("1001", "1002"):
        status, out, err = run(
            capsys, *base, "--offline", "users", "acme-build", project, "--format", "json"
        )
        assert status == 0, err
        assert json.loads(out) == online[project]
    (path,) = Path(os.environ["HUBTUI_DATA_DIR"]).rglob("store.sqlite3")
    with open_store(path, read_only=True) as store:
        (origin,) = {s.origin for s in store.snapshots()}
        lists = store.engine.run("SELECT hub, project FROM lists WHERE kind = 'users'").fetchall()
        kept = {}
        for hub_id, project in lists:
            latest = store.latest(origin, None, ListKey("users", hub_id, project))
            assert latest is not None
            kept[project] = latest[0]
    assert kept["1001"] == online["1001"]  # the number left out
    assert kept["1002"] == online["1002"]
