"""What a change does and how it ended, in words the log writes: a leaf every part of core may
import (the kinds, the log, the store, what is shown)."""

from __future__ import annotations

from enum import StrEnum

__all__ = [
    "DONE",
    "FAILED",
    "NOT_SENT_WORDS",
    "PENDING",
    "UNKNOWN",
    "Action",
    "Checked",
    "Outcome",
]


class Outcome(StrEnum):
    """How a change ended: as its log line says, and as a row of a batch ended."""

    PENDING = "pending"
    """Its request has left (or is about to); no answer yet."""
    DONE = "done"
    FAILED = "failed"
    """Refused: it did not take effect."""
    UNKNOWN = "unknown"
    """It may or may not have taken effect (no answer, a gateway's 502/504, a hang-up)."""
    NOT_SENT = "not sent"
    """A row of a batch that never left: stopped before its turn, or refused before sending
    (never a log line's: what is not sent is not logged)."""
    ALREADY = "already so"
    """A row of a batch sent and found already as it asked, not by this change (a removal
    answered 404 by a hub that no longer lists the person): nothing to put back. Its log line
    says failed, so that its revert sends nothing."""


class Action(StrEnum):
    """What a change does."""

    ADD = "add"
    """Add a direct member (or make a limited reader one)."""
    UPDATE = "update"
    """Set a direct member's role and reviewer flag."""
    RESEND = "resend invitation"
    """Send a hub user's invitation again (of the hub: no project)."""
    HUB_ROLE = "hub role"
    """Set a hub user's hub role (Guest or Admin)."""
    HUB_REMOVE = "remove from hub"
    """Remove a person from the hub, and so from every project of it."""
    HUB_INVITE = "invite to hub"
    """Invite a person to the hub (they get an email)."""


class Checked(StrEnum):
    """What reading the list back found, for an add whose outcome was unknown."""

    FOUND = "found"
    NOT_FOUND = "not found"


PENDING, DONE, FAILED, UNKNOWN = Outcome.PENDING, Outcome.DONE, Outcome.FAILED, Outcome.UNKNOWN
#: The detail of a change stopped after its pending line and before its request left.
NOT_SENT_WORDS = "Stopped before it was sent: nothing was sent."
