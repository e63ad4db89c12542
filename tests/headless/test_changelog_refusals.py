"""The change log as the commands use it: no change is sent when its pending line cannot be
written; an outcome not logged is said loudly (the form: tests/tui/changes/test_edits.py).

Root writes through any mode, so "cannot be written" is made here as a data folder that is a
file (ENOTDIR) and as a file-size limit (RLIMIT_FSIZE binds root too).
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from hubtui.cli import main
from hubtui.core.changes.log import ChangeLog, ChangeLogError
from hubtui.core.changes.record import Change

NEW = "night.shift@acme-build.com"


def creates(url: str) -> int:
    answer = httpx.get(f"{url}/_demo/stats", headers={"Authorization": "Bearer demo-token"})
    count: int = answer.json()["creates"]
    return count


def headless_add(
    url: str, data: Path, tmp_path: Path, *, size_limit: int | None = None
) -> subprocess.CompletedProcess[str]:
    def limit() -> None:
        if size_limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (size_limit, size_limit))

    env = {
        **os.environ,
        "HUBTUI_TOKEN": "demo-token",
        "HUBTUI_DATA_DIR": str(data),
        "HUBTUI_CONFIG": str(tmp_path / "none.toml"),
    }
    return subprocess.run(
        [sys.executable, "-m", "hubtui", "--base-url", url, "add-user", "acme-build", "1001"]
        + [NEW, "Editor", "--yes"],
        env=env,
        capture_output=True,
        text=True,
        preexec_fn=limit,
        timeout=60,
        check=False,
    )


@pytest.mark.e2e
@pytest.mark.reads_only
def test_headless_add_sends_nothing_when_the_folder_is_unwritable(
    server: str, tmp_path: Path
) -> None:
    blocker = tmp_path / "data"
    blocker.write_text("")
    done = headless_add(server, blocker, tmp_path)
    assert done.returncode == 2
    assert f"Could not write the change log {blocker}/changes.jsonl" in done.stderr
    assert "Nothing was sent." in done.stderr
    assert "Done" not in done.stderr
    assert creates(server) == 0


@pytest.mark.e2e
@pytest.mark.reads_only
def test_headless_add_sends_nothing_past_a_file_size_limit(server: str, tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    (data / "changes.jsonl").write_text("x" * 1000 + "\n")
    done = headless_add(server, data, tmp_path, size_limit=1200)
    assert done.returncode == 2, done.stderr
    assert "size limit" in done.stderr
    assert creates(server) == 0
    assert (data / "changes.jsonl").read_text() == "x" * 1000 + "\n"  # no half line either


def test_headless_says_loudly_when_the_outcome_is_not_logged(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("HUBTUI_CONFIG", str(tmp_path / "none.toml"))
    monkeypatch.setenv("HUBTUI_DATA_DIR", str(tmp_path / "data"))
    real = ChangeLog._write_line

    def only_pending(
        self: ChangeLog, entry: Change, *, flush: bool = True
    ) -> ChangeLogError | None:
        if entry.outcome != "pending":
            return ChangeLogError("Could not write the change log (test): No space left.")
        return real(self, entry, flush=flush)

    monkeypatch.setattr(ChangeLog, "_write_line", only_pending)
    status = main(["--demo", "add-user", "acme-build", "1001", NEW, "Editor", "--yes"])
    err = capsys.readouterr().err
    assert status == 0
    assert "WARNING: an outcome is not in the change log" in err
    assert '"outcome": "done"' in err  # the line, to paste by hand
    assert "Done: night.shift@acme-build.com is Editor." in err
