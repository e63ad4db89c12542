"""When a hub user last signed in, from what the server sent and nothing else: a leaf the people,
the batches and the words import.

- a date the server did not send, or sent as null, is **never**;
- a date it sent that cannot be read (text, a number, no UTC moment, the future) is **unknown**,
  and makes the person's last sign-in unknown;
- otherwise the latest of the three dates (web, add-in, project activity) is when the person was
  last seen.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

__all__ = ["FUTURE_SLACK", "LastSeen", "last_seen", "utc_moment"]


@dataclass(frozen=True, slots=True)
class LastSeen:
    """When a hub user was last seen, as far as what the server sent tells (slots: one is
    kept for each of a firm's 100,000 hub users)."""

    moment: datetime | None
    """The latest of the dates that could be read (None: none could)."""
    unreadable: tuple[str, ...] = ()
    """The fields sent as text that is no date: the last sign-in is then unknown."""
    latest: str | None = None
    """The field the moment is from (``LastWebLogin``, ``LastAddinLogin``,
    ``LastHubProjectActivity``; None: never)."""

    def counted_from(self) -> str:
        """What a figure of days counts from: ``their last web sign-in, 2026-10-26``."""
        if self.moment is None:
            return "never"
        what = _WHAT.get(self.latest or "", "their latest sign-in or activity")
        return f"{what}, {self.moment.strftime('%Y-%m-%d')}"

    @property
    def unknown(self) -> bool:
        return bool(self.unreadable)

    @property
    def never(self) -> bool:
        return self.moment is None and not self.unreadable

    def days_before(self, now: datetime) -> int | None:
        """Whole days from when last seen to ``now`` (None: never, or unknown)."""
        moment = self.moment
        if moment is None or self.unreadable:
            return None
        return max(0, (now - moment).days)


_SEEN_FIELDS = (
    ("LastWebLogin", "last_web_login"),
    ("LastAddinLogin", "last_addin_login"),
    ("LastHubProjectActivity", "last_hub_project_activity"),
)


_WHAT = {
    "LastWebLogin": "their last web sign-in",
    "LastAddinLogin": "their last add-in sign-in",
    "LastHubProjectActivity": "their last activity in the hub",
}


class SignIns(Protocol):
    """What a hub user's last sign-in is read from: a typed record, or its fields as sent."""

    @property
    def last_web_login(self) -> Any: ...

    @property
    def last_addin_login(self) -> Any: ...

    @property
    def last_hub_project_activity(self) -> Any: ...


def last_seen(user: SignIns, clock: datetime | None = None) -> LastSeen:
    """When ``user`` was last seen (see the module for the rule). ``clock``: this machine's
    clock read once for many (a firm's 100,000), else read here."""
    latest: tuple[datetime, str] | None = None
    unreadable: list[str] = []
    # the latest date read as a sign-in: now, with the slack
    limit = None if clock is None else clock + FUTURE_SLACK
    for wire, name in _SEEN_FIELDS:
        value = getattr(user, name)
        if value is None:  # never
            continue
        if isinstance(value, datetime):
            if limit is None:  # one clock read for the three dates (a firm's 300,000)
                limit = datetime.now(UTC) + FUTURE_SLACK
            if value.tzinfo is UTC:  # as nearly every date is read: in UTC already
                moment = None if value > limit else value
            else:
                moment = _in_utc(value, limit)
            if moment is None:  # past the calendar's ends in UTC, or in the future
                unreadable.append(wire)
            elif latest is None or (moment, wire) > latest:
                latest = (moment, wire)
        else:  # sent, but no date: text, a number…
            unreadable.append(wire)
    if latest is None:
        return LastSeen(None, tuple(unreadable))
    return LastSeen(latest[0], tuple(unreadable), latest[1])


#: How far ahead of this machine's clock a date may be and still be read as a sign-in (clocks
#: drift); a date further ahead is unknown, never "today": it must not hide an inactive person.
FUTURE_SLACK = timedelta(days=1)


def utc_moment(value: datetime, now: datetime | None = None) -> datetime | None:
    """A date a server sent, in UTC (one without an offset is read as UTC, the service's own
    zone); None where it has no UTC moment (``0001-01-01T00:00:00+14:00``) or lies in the
    future: such a date is unknown, in every table, export and panel alike."""
    return _in_utc(value, (now or datetime.now(UTC)) + FUTURE_SLACK)


def _in_utc(value: datetime, limit: datetime) -> datetime | None:
    """:func:`utc_moment`, the latest date it reads given."""
    try:
        moment = value.astimezone(UTC) if value.tzinfo is not None else value.replace(tzinfo=UTC)
    except (OverflowError, ValueError):
        return None
    if moment > limit:
        return None
    return moment
