"""When a failed call is tried again, and how long to wait first. Every constant is here."""

from __future__ import annotations

import random
from datetime import UTC, datetime

#: Methods that are safe to repeat: reading, and a PUT that sets the same values again.
#: POST is never repeated: a user must not be created twice.
RETRYABLE_METHODS = frozenset({"GET", "PUT"})
#: Statuses worth another try: rate limited, or a gateway or the service briefly down.
RETRYABLE_STATUSES = frozenset({429, 502, 503, 504})

DEFAULT_MAX_RETRIES = 2
INITIAL_DELAY = 0.5
MAX_DELAY = 8.0
#: The longest ``Retry-After`` that is waited out; a longer one ends the call at once, with the
#: wait in the error, rather than leaving a person staring at a spinner.
RETRY_AFTER_CEILING = 30.0
JITTER = 0.25


def parse_retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (seconds or an HTTP date), or None."""
    if value is None:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:
        return seconds if seconds >= 0 and seconds == seconds else None
    from email.utils import parsedate_to_datetime  # 4 ms at start, for a rare answer

    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def backoff_delay(attempt: int, *, rng: random.Random | None = None) -> float:
    """Exponential backoff with jitter for the given retry (0 for the first), capped."""
    delay = min(INITIAL_DELAY * 2.0**attempt, MAX_DELAY)
    fraction = rng.random() if rng else random.random()
    return delay * (1 - JITTER * fraction)


def retry_delay(attempt: int, retry_after: float | None) -> float | None:
    """How long to wait before retry ``attempt``, or None when the call should not wait.

    A server's ``Retry-After`` is honoured exactly up to :data:`RETRY_AFTER_CEILING`.
    """
    if retry_after is not None:
        return retry_after if retry_after <= RETRY_AFTER_CEILING else None
    return backoff_delay(attempt)
