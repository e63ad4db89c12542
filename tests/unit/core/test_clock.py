"""A moment as the logs, the store and a CSV write it: UTC, to the second, with Z."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from hubtui.core.clock import stamp


@pytest.mark.parametrize(
    ("moment", "written"),
    [
        (datetime(2026, 11, 24, 14, 2, 0, 999_999, tzinfo=UTC), "2026-11-24T14:02:00Z"),
        (
            datetime(2026, 11, 24, 16, 2, tzinfo=timezone(timedelta(hours=2))),
            "2026-11-24T14:02:00Z",
        ),
        (datetime(2026, 1, 1, 0, 30, tzinfo=timezone(timedelta(hours=1))), "2025-12-31T23:30:00Z"),
        (datetime(1000, 1, 1, tzinfo=UTC), "1000-01-01T00:00:00Z"),
        (datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC), "9999-12-31T23:59:59Z"),
    ],
)
def test_a_moment_is_written_in_utc_to_the_second(moment: datetime, written: str) -> None:
    assert stamp(moment) == written


def test_a_year_before_1000_is_written_as_the_c_library_writes_it() -> None:
    moment = datetime(999, 3, 8, 9, 34, 22, tzinfo=UTC)
    assert stamp(moment) == moment.strftime("%Y-%m-%dT%H:%M:%SZ")
