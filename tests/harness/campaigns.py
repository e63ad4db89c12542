"""A campaign's decisions files as a reviewer handles them: exported, edited, written back."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from tests.harness.commands import run


def exported(
    capsys: pytest.CaptureFixture[str], base: tuple[str, ...], *more: str, number: str = "1"
) -> list[dict[str, str]]:
    """``campaign export NUMBER MORE…`` read back as the rows a spreadsheet shows."""
    status, out, err = run(capsys, *base, "campaign", "export", number, *more)
    assert status == 0, err
    return list(csv.DictReader(io.StringIO(out)))


def decided(path: Path, rows: list[dict[str, str]]) -> str:
    """The rows written as a decisions file at ``path`` (its header the rows' own columns)."""
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return str(path)
