"""Many writers, as a team is: ten ``hubtui snapshot`` processes, each a person at a machine of
their own, recording different hubs into one team store at the same moment. Every snapshot lands
whole: each is what the same hub's snapshot taken alone afterwards holds (taken one after
another by ``hubtui snapshot`` in this test's process: alone, nothing needs a process of its
own)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from hubtui.cli import main
from hubtui.core.store import Store
from hubtui.demo import DEMO_TOKEN
from tests.harness.harness import hubtui_command, running_demo_server
from tests.harness.postgres import PostgresServer

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def test_ten_processes_recording_at_once_each_land_whole(
    pg_env: PostgresServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = pg_env.url(schema=pg_env.new_schema())
    person_env = {
        "HUBTUI_CONFIG": str(tmp_path / "none.toml"),
        "HUBTUI_TOKEN": DEMO_TOKEN,
    }
    with running_demo_server("--hubs", "10", "--users-per-project", "60") as server:

        def snapshot(hub: str, person: str) -> subprocess.Popen[str]:
            env = {
                **os.environ,
                **pg_env.environment(),
                **person_env,
                "HUBTUI_DATA_DIR": str(tmp_path / person),
                "HUBTUI_OPERATOR": person,
            }
            command = [*hubtui_command(), "--base-url", server, "--store-url", url]
            return subprocess.Popen(
                [*command, "snapshot", hub],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )

        listed = subprocess.run(
            [*hubtui_command(), "--base-url", server, "hubs", "--format", "csv"],
            env={**os.environ, "HUBTUI_TOKEN": DEMO_TOKEN, "HUBTUI_DATA_DIR": str(tmp_path)},
            capture_output=True,
            text=True,
            check=True,
        )
        # The ten generated hubs (the showcase's first four hold a project that cannot be read).
        hubs = [line.split(",")[0] for line in listed.stdout.splitlines()[1:]][4:]
        assert len(hubs) == 10
        writers = [snapshot(hub, f"person-{n}") for n, hub in enumerate(hubs)]
        for writer in writers:
            _, err = writer.communicate(timeout=120)
            assert writer.returncode == 0, err
        alone = {"HUBTUI_DATA_DIR": str(tmp_path / "alone"), "HUBTUI_OPERATOR": "alone"}
        for key, value in {**person_env, **alone}.items():
            monkeypatch.setenv(key, value)
        for hub in hubs:
            assert main(["--base-url", server, "--store-url", url, "snapshot", hub]) == 0
    with Store.open_url(url, read_only=True) as store:
        kept = store.snapshots()
        assert len(kept) == 20
        at_once, afterwards = kept[:10], kept[10:]
        by_scope = {info.scope: info for info in afterwards}
        for info in at_once:
            reference = by_scope[info.scope]
            assert info.counts == reference.counts
            together, later = store.reads(info.id), store.reads(reference.id)
            assert {k: v.hashes for k, v in together.items()} == {
                k: v.hashes for k, v in later.items()
            }
            assert info.counts["users"] > 0
