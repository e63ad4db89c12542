"""What a snapshot and the store keep for offline, and what a snapshot says of a server that
offers less than the contract: the hub a one-hub snapshot read names it offline, and a server
that lists no hub's users makes no snapshot incomplete."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.harness.commands import run
from tests.harness.harness import running_demo_server


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
