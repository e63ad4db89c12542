"""A support team in real terminals at 80×24, against the demo server over HTTP and one team
store on a real PostgreSQL: Ann applies a batch from the command line; Ben, at a machine of his
own, opens the app, sees her batch under `c` with her name, and reverts it with `c R` typed in
one burst; the person's role is read back from the server, and Ann's `hubtui log` then holds
Ben's revert."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import httpx
import pytest

from hubtui.demo import DEMO_TOKEN
from tests.harness.harness import hubtui_command, running_demo_server
from tests.harness.postgres import PostgresServer
from tests.harness.tmux import Terminal

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

ACME_ID = "7d1f0c3e-4b8a-4f6e-9a51-acme00000001"
CHLOE = "chloe.moreau@acme-build.com"
HEADERS = {"Authorization": f"Bearer {DEMO_TOKEN}"}


def role_of(url: str, email: str) -> str:
    answer = httpx.get(f"{url}/v3/hubs/{ACME_ID}/projects/1001/users", headers=HEADERS).json()
    return next(str(u["Role"]) for u in answer if u["User"]["Email"] == email)


def test_a_colleagues_change_is_seen_and_reverted_from_another_machine(
    tmp_path: Path, pg_env: PostgresServer
) -> None:
    team = pg_env.url(schema=pg_env.new_schema())
    shared = {
        **pg_env.environment(),
        "HUBTUI_TOKEN": DEMO_TOKEN,
        "HUBTUI_CONFIG": str(tmp_path / "none.toml"),
        "HUBTUI_STORE_URL": team,
    }

    def person(name: str) -> dict[str, str]:
        return {**shared, "HUBTUI_DATA_DIR": str(tmp_path / name), "HUBTUI_OPERATOR": name}

    with running_demo_server() as url:
        base = [*hubtui_command(), "--base-url", url]
        batch = tmp_path / "promote.csv"
        batch.write_text(f"hub,project,email,role,reviewer\nacme-build,1001,{CHLOE},Admin,no\n")
        subprocess.run(
            [*base, "apply", str(batch), "--yes"],
            env={**os.environ, **person("Ann")},
            check=True,
            capture_output=True,
        )
        assert role_of(url, CHLOE) == "Admin"
        env = [f"{key}={value}" for key, value in person("Ben").items()]
        terminal = Terminal(["env", *env, *base], width=80, height=24)
        try:
            terminal.wait_for("acme-build", "8 hubs", timeout=40)
            terminal.type("cR")  # one burst: R lands once the team's batches are read
            terminal.wait_for("Revert of batch", "Role: Admin → Reader", timeout=40)
            terminal.send("a")
            terminal.wait_for("Send 1 change?", timeout=40)
            terminal.send("y")
            terminal.wait_for("1 done, 0 failed, 0 unknown", timeout=40)
            terminal.send("Escape")
            terminal.wait_for("8 hubs", timeout=40)
            terminal.send("c")
            # Each batch row says what it changed and who: Ann's, then Ben's putting it back.
            terminal.wait_for("Role: Reader → Admin", "done by Ann", "by Ben", timeout=40)
            terminal.type("qq")  # the first closes the change log, the second quits
            assert terminal.exit_status() == 0
        finally:
            terminal.close()
        assert role_of(url, CHLOE) == "Reader"
        logged = subprocess.run(
            [*base, "log", "--format", "json"],
            env={**os.environ, **person("Ann")},
            check=True,
            capture_output=True,
            text=True,
        )
    changes = json.loads(logged.stdout)
    assert [(c["operator"], c["change"]) for c in changes] == [
        ("Ann", "Role: Reader → Admin"),
        ("Ben", "Role: Admin → Reader"),
    ]
    assert changes[1]["reverts"]  # Ben's change names the batch it put back
