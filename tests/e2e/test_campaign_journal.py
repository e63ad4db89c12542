"""A campaign's close is a journal that can always be finished: the installed command killed
(``kill -9``) after its first change, or its team store stopped after the changes left, leaves
a campaign that says "closing: interrupted", never "closed"; the same close run again sends only
what was never sent, settles what was in flight by reading the hub again, records every row's
outcome and only then closes. Against the demo server over HTTP with each change slowed, so that
the interruption lands mid-batch."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.harness.campaigns import decided, exported
from tests.harness.commands import headless_settings, run
from tests.harness.harness import hubtui_command, running_demo_server
from tests.harness.postgres import running_postgres

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

DANA = "dana.whitfield@acme-build.com"  # the reviewer of 1001
OWNER = "olive.owner"
#: Packet 1001 as Dana decides it: three Editors made Reader, one person removed from the hub.
DECISIONS = {
    "aiko.tanaka@acme-build.com": ("reader", ""),
    "bjorn.lindqvist@acme-build.com": ("reader", ""),
    "fatima.rahman@northwind-eng.com": ("reader", ""),
    "chloe.moreau@acme-build.com": ("remove", "left the company"),
}


@pytest.fixture(autouse=True)
def own_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    headless_settings(monkeypatch, tmp_path)


@pytest.fixture
def slow_server() -> Iterator[str]:
    """The demo server answering each change after 1.5 s (reads at once)."""
    with running_demo_server("--change-latency", "1.5") as url:
        yield url


def decide_packet(
    capsys: pytest.CaptureFixture[str],
    base: tuple[str, ...],
    tmp_path: Path,
    mp: pytest.MonkeyPatch,
) -> None:
    mp.setenv("HUBTUI_OPERATOR", OWNER)
    status, _, err = run(capsys, *base, "campaign", "start", "acme-build")
    assert status == 0, err
    rows = exported(capsys, base, "--packet", "1001")
    mine = [
        r | {"decision": DECISIONS[r["email"]][0], "reason": DECISIONS[r["email"]][1]}
        for r in rows
        if r["email"] in DECISIONS
    ]
    assert len(mine) == len(DECISIONS), [r["email"] for r in rows]
    mp.setenv("HUBTUI_OPERATOR", DANA)
    status, _, err = run(
        capsys, *base, "campaign", "decide", "1", decided(tmp_path / "d.csv", mine)
    )
    assert status == 0, err
    mp.setenv("HUBTUI_OPERATOR", OWNER)


def close_in_background(base: tuple[str, ...]) -> subprocess.Popen[bytes]:
    """``hubtui campaign close 1 --yes``, one change at a time, as its own process."""
    return subprocess.Popen(
        [*hubtui_command(), "--concurrency", "1", *base, "campaign", "close", "1", "--yes"],
        env=dict(os.environ),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def log_lines(log: Path) -> list[dict[str, object]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


def wait_for_done(log: Path, count: int, process: subprocess.Popen[bytes]) -> None:
    """Until ``count`` changes of the log are done (the process still running)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        done = [line for line in log_lines(log) if line.get("outcome") == "done"]
        if len(done) >= count:
            return
        assert process.poll() is None, process.communicate()[1].decode()
        time.sleep(0.05)
    process.kill()
    raise AssertionError(f"no change was done in time: {process.communicate()[1].decode()}")


def report_rows(capsys: pytest.CaptureFixture[str], base: tuple[str, ...]) -> dict[str, str]:
    status, out, err = run(capsys, *base, "campaign", "report", "1", "--format", "json")
    assert status == 0, err
    return {
        r["email"]: r["verified"]
        for r in json.loads(out)["rows"]
        if r["project"] == "1001" and r["email"] in DECISIONS
    }


def made_once(log: Path) -> None:
    """Each change made once: per membership, one change of the log ended done (a settled
    unknown included); an attempt whose request never took is settled as such, never done."""
    last: dict[str, dict[str, object]] = {}
    for line in log_lines(log):
        last[str(line["id"])] = line  # each change's last line is its outcome
    made = Counter(
        (line["action"], line["project_id"], line["user_id"])
        for line in last.values()
        if line["outcome"] == "done"
    )
    assert len(made) == len(DECISIONS), made
    assert max(made.values()) == 1, made
    assert all(line["outcome"] in ("done", "failed") for line in last.values()), last


def test_a_close_killed_after_its_first_change_is_finished_by_the_same_close_run_again(
    capsys: pytest.CaptureFixture[str],
    slow_server: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    base = ("--base-url", slow_server)
    decide_packet(capsys, base, tmp_path, monkeypatch)
    log = tmp_path / "data" / "changes.jsonl"
    process = close_in_background(base)
    wait_for_done(log, 1, process)
    process.send_signal(signal.SIGKILL)
    process.communicate(timeout=10)  # its pipes closed with it

    status, out, err = run(capsys, *base, "campaign", "status", "1")
    assert status == 0, err
    first = out.splitlines()[0]
    assert ": closing: interrupted (batch " in first
    assert first.endswith("hubtui campaign close 1 finishes it")
    status, _, err = run(capsys, *base, "campaign", "decide", "1", str(tmp_path / "d.csv"))
    assert status == 2
    assert "is being closed (batch " in err  # no decision while the close is unfinished

    status, out, err = run(capsys, "--concurrency", "1", *base, "campaign", "close", "1", "--yes")
    assert status == 0, err
    assert "was closing (batch " in err
    assert "only what was never sent is sent now" in err
    assert "Campaign 1 closed: 4 changes verified by reading back" in err
    made_once(log)
    outcomes = report_rows(capsys, base)
    assert set(outcomes) == set(DECISIONS)
    assert all(o.startswith("verified: ") for o in outcomes.values()), outcomes
    assert sum("(batch " in o for o in outcomes.values()) >= 1  # made before the kill
    status, out, _ = run(capsys, *base, "campaign", "status", "1")
    assert out.splitlines()[0].endswith(": closed")
    status, _, err = run(capsys, *base, "campaign", "close", "1", "--yes")
    assert status == 2
    assert "closed already: nothing is sent twice" in err


def test_a_team_store_stopped_after_the_changes_left_is_said_and_the_close_finished_later(
    capsys: pytest.CaptureFixture[str],
    slow_server: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The team store goes away while the batch is sent: the changes made are said, with the
    command that finishes the close (exit 4), never "nothing sent"; back, the close finishes
    without sending any change again."""
    with running_postgres() as pg:
        for key, value in pg.environment().items():
            monkeypatch.setenv(key, value)
        url = pg.url(schema=pg.new_schema())
        monkeypatch.setenv("HUBTUI_STORE_URL", url)
        base = ("--base-url", slow_server)
        assert run(capsys, *base, "store", "migrate")[0] == 0
        for account in ("eve@acme-build.com",):
            assert run(capsys, *base, "team", "add", "hubtui_owner", "--account", account)[0] == 0
        monkeypatch.setenv("HUBTUI_OPERATOR", OWNER)
        status, _, err = run(capsys, *base, "campaign", "start", "acme-build")
        assert status == 0, err
        status, _, err = run(
            capsys, *base, "campaign", "delegate", "1", "--packet", "1001", "--to", "hubtui_owner"
        )
        assert status == 0, err
        rows = exported(capsys, base, "--packet", "1001")
        mine = [
            r | {"decision": DECISIONS[r["email"]][0], "reason": DECISIONS[r["email"]][1]}
            for r in rows
            if r["email"] in DECISIONS
        ]
        file = decided(tmp_path / "d.csv", mine)
        status, _, err = run(capsys, *base, "campaign", "decide", "1", file)
        assert status == 0, err
        log = tmp_path / "data" / "changes.jsonl"
        process = close_in_background(base)
        wait_for_done(log, 1, process)
        pg.stop()
        _, err_bytes = process.communicate(timeout=60)
        said = err_bytes.decode()
        assert process.returncode == 4, said
        assert " made; their outcomes wait in the change log: run hubtui campaign close 1 " in said
        assert "Nothing was recorded, nothing sent" not in said
        pg.start()
        status, out, err = run(capsys, *base, "campaign", "status", "1")
        assert ": closing: interrupted (batch " in out.splitlines()[0]
        status, out, err = run(capsys, *base, "campaign", "close", "1", "--yes")
        assert status == 0, err
        assert "Campaign 1 closed: 4 changes verified by reading back" in err
        made_once(log)
        outcomes = report_rows(capsys, base)
        assert all(o.startswith("verified: ") for o in outcomes.values()), outcomes
