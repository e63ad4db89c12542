"""The time as the change log, the store and the history write it: a leaf."""

from __future__ import annotations

from datetime import UTC, datetime

__all__ = ["minute", "now", "stamp", "utc_now"]


def now() -> str:
    return stamp(utc_now())


def utc_now() -> datetime:
    """This moment, in UTC."""
    return datetime.now(UTC)


def stamp(moment: datetime) -> str:
    """A moment as the logs and the store write it: ``2026-11-24T14:02:00Z``."""
    utc = moment.astimezone(UTC)
    if utc.year >= 1000:  # ISO's text, the same but four times as fast (a CSV of 100,000 rows)
        return f"{utc.isoformat(timespec='seconds')[:19]}Z"
    return utc.strftime("%Y-%m-%dT%H:%M:%SZ")


def minute(stamped: str) -> str:
    """A moment as :func:`stamp` writes it, to the minute for a person: ``2026-11-24 14:02``."""
    return stamped[:16].replace("T", " ")
