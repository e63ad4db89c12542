"""Running ``hubtui ARGV`` in this process, and being a person at a machine of their own."""

from __future__ import annotations

from pathlib import Path

import pytest

from hubtui.demo import DEMO_TOKEN


def run_main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``hubtui ARGV`` run in this process: its exit status, stdout and stderr."""
    from hubtui.cli import main

    try:
        status = main(list(argv))
    except SystemExit as stop:  # a usage error, as the shell sees it
        status = stop.code if isinstance(stop.code, int) else 2
    out, err = capsys.readouterr()
    return status, out, err


run = run_main


def be(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str) -> Path:
    """From now on, ``name`` at a machine of their own: their data folder, their name."""
    data = tmp_path / name
    monkeypatch.setenv("HUBTUI_DATA_DIR", str(data))
    monkeypatch.setenv("HUBTUI_OPERATOR", name)
    return data


def headless_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No config file, a data folder of the test's own, the demo's token, no team store, 80
    columns."""
    monkeypatch.setenv("HUBTUI_CONFIG", str(tmp_path / "none.toml"))
    monkeypatch.setenv("HUBTUI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("HUBTUI_TOKEN", DEMO_TOKEN)
    monkeypatch.delenv("HUBTUI_PROFILE", raising=False)
    monkeypatch.delenv("HUBTUI_STORE_URL", raising=False)  # no team store but a test's own
    monkeypatch.setenv("COLUMNS", "80")
