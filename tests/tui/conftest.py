"""Running the app against the in-process demo API, and reading the screen as a person would."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _work_in_a_temporary_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Exports and files typed as relative paths land in the test's own folder, never the repo."""
    monkeypatch.chdir(tmp_path)
