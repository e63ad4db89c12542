"""The app open in a real terminal and several commands writing to the same SQLite store at once:
the file is whole (``PRAGMA integrity_check``) after each step, and every snapshot is kept."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from pathlib import Path

import pytest

from tests.harness.harness import hubtui_command
from tests.harness.tmux import Terminal

pytestmark = pytest.mark.e2e


def whole(store: Path) -> str:
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as db:
        return str(db.execute("PRAGMA integrity_check").fetchone()[0])


def snapshots(store: Path) -> int:
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as db:
        return int(db.execute("SELECT count(*) FROM snapshots").fetchone()[0])


@pytest.mark.slow
def test_the_app_and_commands_write_the_store_at_once_and_it_stays_whole(tmp_path: Path) -> None:
    data = tmp_path / "data"
    env = {**os.environ, "HUBTUI_DATA_DIR": str(data), "HUBTUI_CONFIG": str(tmp_path / "none")}
    store = data / "demo" / "store.sqlite3"
    app = Terminal(
        ["env", f"HUBTUI_DATA_DIR={data}", f"HUBTUI_CONFIG={tmp_path / 'none'}"]
        + [*hubtui_command(), "--demo"],
        width=80,
        height=24,
    )
    try:
        app.wait_for("acme-build", "8 hubs", timeout=40)
        app.send("D")
        app.wait_for("Changes in all hubs since", timeout=40)
        app.send("Enter")
        app.wait_for("changes since #1", timeout=40)
        app.send("Escape")
        app.wait_for("8 hubs", timeout=40)
        # While the app holds the store: two diffs and two snapshots, all at once.
        commands = [
            ["diff", "--format", "json"],
            ["snapshot"],
            ["diff", "--format", "json"],
            ["snapshot"],
        ]
        running = [
            subprocess.Popen(
                [*hubtui_command(), "--demo", *argv],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for argv in commands
        ]
        for argv, process in zip(commands, running, strict=True):
            out, err = process.communicate(timeout=120)
            assert "Traceback" not in err, err
            if argv[0] == "diff":
                json.loads(out)  # a whole answer
        assert whole(store) == "ok"
        assert snapshots(store) == 3  # the demo's week-old one and the two commands'
        app.send("C-p")
        app.type("Record a snapshot of all hubs")
        app.send("Enter")
        app.wait_for("Snapshot #4", timeout=60)
        assert whole(store) == "ok"
        app.send("q")
        assert app.exit_status() == 0
    finally:
        app.close()
    assert whole(store) == "ok"
    assert snapshots(store) == 4
    done = subprocess.run(
        [*hubtui_command(), "--demo", "--offline", "diff", "--format", "json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "Traceback" not in done.stderr, done.stderr
    assert "malformed" not in done.stderr
