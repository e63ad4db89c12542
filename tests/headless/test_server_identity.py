"""The commands hold a server to its whole base URL and its files to one way of opening: a batch
reverted, offline answers and snapshots only of the server that made them; an export or results
file never written through a link; a lying store refused; an ambiguous hub sends nothing."""

from __future__ import annotations

import stat
from datetime import datetime, timedelta
from pathlib import Path

import httpx
import pytest

from hubtui.api import HubClient
from hubtui.core.batches import batches_in
from hubtui.core.changes.log import ChangeLog
from hubtui.core.history import read_snapshot_file
from hubtui.demo import DEMO_TOKEN, DemoStore, Faults, create_app
from hubtui.demo.data import DemoHub
from hubtui.headless.output import Stop
from hubtui.headless.tables import resolve_hub
from hubtui.hosts import server_identity as origin_of
from tests.harness.commands import run_main
from tests.harness.demo_api import DEMO_URL
from tests.harness.stores import lying_store, snapshot_file, users_list

CHLOE = "chloe.moreau@acme-build.com"


run = run_main


@pytest.fixture
def headless_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setenv("HUBTUI_CONFIG", str(tmp_path / "none.toml"))
    monkeypatch.setenv("HUBTUI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("HUBTUI_TOKEN", DEMO_TOKEN)
    monkeypatch.delenv("HUBTUI_PROFILE", raising=False)
    return tmp_path / "data"


def test_a_batch_is_reverted_only_on_the_server_that_made_it(
    server: str, headless_env: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    batch_file = tmp_path / "batch.csv"
    batch_file.write_text(f"hub,project,email,role\nacme-build,1001,{CHLOE},Editor\n")
    status, _, err = run(capsys, "--base-url", server, "apply", str(batch_file), "--yes")
    assert status == 0, err
    log = ChangeLog(headless_env / "changes.jsonl", server=origin_of(server))
    (batch_id,) = batches_in(log)
    before = httpx.get(f"{server}/_demo/stats", headers={"Authorization": "Bearer demo-token"})
    # The same host and port under another path is another server: its log holds no batch.
    status, _, err = run(capsys, "--base-url", f"{server}/b", "revert", batch_id, "--yes")
    assert status == 1, err
    assert f"no batch {batch_id}" in err
    after = httpx.get(f"{server}/_demo/stats", headers={"Authorization": "Bearer demo-token"})
    assert after.json()["updates"] == before.json()["updates"]


@pytest.mark.reads_only
def test_offline_under_another_path_shows_nothing_of_the_first(
    server: str, headless_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(capsys, "--base-url", server, "hubs", "--format", "json")
    assert status == 0
    assert "acme-build" in out
    status, out, err = run(capsys, "--base-url", f"{server}/b", "--offline", "hubs")
    assert status != 0
    assert "acme-build" not in out + err


@pytest.mark.reads_only
def test_a_snapshot_of_another_server_is_not_compared(
    server: str, headless_env: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, _, err = run(capsys, "--base-url", server, "snapshot")
    assert "kept as snapshot #1" in err  # incomplete: the demo has a project that cannot be read
    status, out, err = run(capsys, "--base-url", f"{server}/b", "diff", "--since", "#1")
    assert status == 2
    assert f"snapshot #1 is not of this server: its server is {server!r}, this run's " in err
    assert "hubtui compares a server only with itself" in err
    assert out == ""


@pytest.mark.reads_only
def test_snapshot_export_onto_a_link_writes_a_new_private_file(
    server: str, headless_env: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    target = tmp_path / "evidence.jsonl"
    target.symlink_to(victim)
    status, _, err = run(capsys, "--base-url", server, "snapshot", "--export", str(target))
    assert "Traceback" not in err
    assert victim.read_text() == "keep me"
    written = tmp_path / "evidence-2.jsonl"
    assert f"written to {written}" in err
    assert stat.S_IMODE(written.stat().st_mode) == 0o600
    assert read_snapshot_file(written).origin == origin_of(server)


def test_a_results_name_taken_gets_a_free_one_after_the_batch(
    server: str, headless_env: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    batch_file = tmp_path / "batch.csv"
    batch_file.write_text(f"hub,project,email,role\nacme-build,1001,{CHLOE},Editor\n")
    # Every name the results could take this minute is planted as a link beforehand.
    now = datetime.now()
    for seconds in range(0, 120):
        stamp = (now + timedelta(seconds=seconds)).strftime("%Y%m%d-%H%M%S")
        (tmp_path / f"batch-results-{stamp}.csv").symlink_to(tmp_path / "elsewhere")
    status, _, err = run(capsys, "--base-url", server, "apply", str(batch_file), "--yes")
    assert status == 0, err
    assert "Traceback" not in err
    (results,) = [p for p in tmp_path.glob("batch-results-*-2.csv") if not p.is_symlink()]
    assert f"Results: {results}" in err
    assert not (tmp_path / "elsewhere").exists()


def test_store_info_and_offline_refuse_a_lying_store_without_a_traceback(
    headless_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    headless_env.mkdir(mode=0o700)
    lying_store(headless_env / "store.sqlite3")
    status, _, err = run(capsys, "--base-url", "http://127.0.0.1:9", "store", "info")
    assert status == 2
    assert "lacks" in err
    assert "Traceback" not in err
    status, _, err = run(capsys, "--base-url", "http://127.0.0.1:9", "--offline", "hubs")
    assert status != 0
    assert "lacks" in err
    assert "Traceback" not in err


async def test_a_command_given_an_ambiguous_hub_sends_nothing() -> None:
    store = DemoStore()
    acme = store.hub_by_name("acme-build")
    assert acme is not None
    store._add_hub(
        DemoHub(
            id="hub-named-like-an-id",
            name=acme.id,
            display_name=None,
            author_id=acme.author_id,
            created=acme.created,
            region=acme.region,
        )
    )
    transport = httpx.ASGITransport(app=create_app(store, Faults()))
    async with HubClient(DEMO_URL, token=DEMO_TOKEN, transport=transport) as client:
        with pytest.raises(Stop) as caught:
            await resolve_hub(client, acme.id)
        assert caught.value.status == 2
        assert "names more than one hub" in caught.value.message
        assert (await resolve_hub(client, "acme-build")).id == acme.id


def test_diff_of_a_deep_snapshot_file_exits_2_without_a_traceback(
    headless_env: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    good = snapshot_file(tmp_path / "good.jsonl", [users_list([])])
    deep = snapshot_file(tmp_path / "deep.jsonl", ['{"k": ' + "[" * 50_000 + "]" * 50_000 + "}"])
    status, _, err = run(capsys, "diff", str(good), str(deep))
    assert status == 2  # never 1, which says "differences"
    assert "nests deeper" in err
    assert "Traceback" not in err


def test_two_files_of_different_servers_are_said_to_be(
    headless_env: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    first = snapshot_file(tmp_path / "a.jsonl", [users_list([])])
    second = tmp_path / "b.jsonl"
    text = first.read_text().replace('"server": "demo"', '"server": "https://other:443"', 1)
    second.write_text(text)
    second.chmod(0o600)
    status, _, err = run(capsys, "diff", str(first), str(second))
    assert status == 0
    assert "the two files are of different servers (demo; https://other:443)" in err
