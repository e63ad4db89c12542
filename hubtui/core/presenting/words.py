"""How access, a hub's facts, dates and amounts are said: the same words in the app and headless."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

from hubtui.core.clock import stamp
from hubtui.core.presenting.names import DISPLAY_NAME_NOT_SENT, NO_DISPLAY_NAME
from hubtui.text import inert

if TYPE_CHECKING:
    from hubtui.api import Hub, ProjectUser, RegionalRoute
    from hubtui.core.signins import LastSeen

__all__ = [
    "ACCESS_NOT_SENT",
    "DATE_UNKNOWN",
    "LIMITED_BADGE",
    "NO_OWN_ROLE",
    "access_cell",
    "access_sentence",
    "amount",
    "count",
    "display_name_cell",
    "hub_facts",
    "limited_via",
    "role_cell",
    "size_words",
    "when",
    "when_both",
]

#: The mark of a limited reader: read-only through a whitelisted email domain, not a member.
LIMITED_BADGE = "LIMITED"
#: What an access cell says when the server did not send ``IsLimited`` (it predates the field).
ACCESS_NOT_SENT = "unknown"


def limited_via(user: ProjectUser) -> str:
    """``LIMITED @northwind-eng.com``: a limited reader, by the domain that lets them read."""
    return f"{LIMITED_BADGE} @{inert(user.user.email_domain or '?')}"


#: The Role cell of a limited reader: they have no role of their own (the server's Role for them
#: says nothing a person can use), in the app and headless alike.
NO_OWN_ROLE = "—"


def role_cell(user: ProjectUser) -> str:
    """A user's role as a list shows it: ``—`` for a limited reader, else the role as sent."""
    return NO_OWN_ROLE if user.is_limited else inert(user.role)


def access_cell(user: ProjectUser, *, with_role: bool = False) -> str:
    """A user's access in one cell: ``LIMITED @domain``, ``member`` (``Editor (member)`` with
    the role) or, when the server did not say, ``unknown`` (``Editor (member? unknown)``)."""
    if user.is_limited:
        return limited_via(user)
    if not with_role:
        return ACCESS_NOT_SENT if user.is_limited is None else "member"
    role = inert(user.role)
    return f"{role} (member? unknown)" if user.is_limited is None else f"{role} (member)"


def access_sentence(user: ProjectUser) -> str:
    """A user's access for a ticket: ``limited reader via domain`` or ``member, Editor``."""
    if user.is_limited:
        return f"limited reader via {inert(user.user.email_domain or '?')}"
    return f"member, {inert(user.role)}"


def display_name_cell(hub: Hub) -> str:
    """The DisplayName as a cell: says so when the owner set none, never repeats silently."""
    if not hub.display_name_sent:
        return DISPLAY_NAME_NOT_SENT
    if not hub.has_custom_display_name:
        return NO_DISPLAY_NAME
    return inert(hub.display_name)


#: What a date cell says when the server's date cannot be shown (the reason is on the panel).
DATE_UNKNOWN = "unknown"


def _in_zones(moment: datetime) -> tuple[datetime, datetime] | None:
    """The moment in local time and in UTC, or None when either lies outside the years a
    date can hold (``0001-01-01T00:00:00+14:00`` is in the year 0 in UTC)."""
    try:
        return moment.astimezone(), moment.astimezone(UTC)
    except (OverflowError, ValueError, OSError):
        return None


def when(moment: datetime | None) -> str:
    """A date as local time, short; ``unknown`` when it cannot be shown (:func:`when_both`
    says why)."""
    if moment is None:
        return ""
    zones = _in_zones(moment)
    return DATE_UNKNOWN if zones is None else zones[0].strftime("%Y-%m-%d")


def when_both(moment: datetime | None) -> str:
    """A timestamp in local time and in UTC; the date as sent and why, when it cannot be."""
    if moment is None:
        return "not given"
    zones = _in_zones(moment)
    if zones is None:
        return (
            f"{DATE_UNKNOWN}: the server sent {inert(moment.isoformat())}, "
            "which lies outside the dates that can be shown in local time and UTC"
        )
    local, utc = zones
    if local.utcoffset() == utc.utcoffset():
        return f"{utc:%Y-%m-%d %H:%M} UTC"  # local time is UTC: said once
    return f"{local:%Y-%m-%d %H:%M %Z} (UTC {utc:%Y-%m-%d %H:%M})"


def ago(days: int) -> str:
    """How long ago, in whole days, as a person says it: ``today``, ``5 days ago``, ``3 months
    ago``, ``2 years ago``."""
    if days < 1:
        return "today"
    if days < 45:
        return "1 day ago" if days == 1 else f"{days} days ago"
    if days < 548:
        months = round(days / 30.44)
        return "1 month ago" if months == 1 else f"{months} months ago"
    return f"{round(days / 365.25)} years ago"


def seen_words(seen: LastSeen | None, now: datetime) -> str:
    """A hub user's last sign-in (None: the hub's users were not read) for a cell: ``3 months
    ago``, ``never``, ``unknown``, or ``not read``."""
    if seen is None:
        return "not read"
    if seen.unknown:
        return DATE_UNKNOWN
    days = seen.days_before(now)
    return "never" if days is None else ago(days)


def seen_stamp(seen: LastSeen) -> str:
    """When last seen, as a file and the evidence of a decision keep it: ``2026-11-24T14:02:00Z``
    (UTC), ``unknown`` where a date could not be read, ``""`` for never."""
    if seen.unknown:
        return DATE_UNKNOWN
    return "" if seen.moment is None else stamp(seen.moment)


def size_words(size: int) -> str:
    """``812 B``, ``2.1 KB``, ``48.0 KB``: a body's size."""
    return f"{size} B" if size < 1024 else f"{size / 1024:,.1f} KB"


def count(value: int | None) -> str:
    return "?" if value is None else f"{value:,}"


def amount(value: int | None, noun: str, plural: str | None = None) -> str:
    """``1 project``, ``3 projects``, ``1 match``, ``4 matches``; ``? projects`` when unknown."""
    many = plural or (noun + "es" if noun.endswith(("s", "ch", "sh", "x")) else noun + "s")
    return f"{count(value)} {noun if value == 1 else many}"


def hub_facts(
    hub: Hub, route: RegionalRoute | None, *, failed: bool = False
) -> list[tuple[str, str]]:
    """A hub's facts beyond its two names, as (label, words) pairs: region and whether its
    regional API is trusted, author, dates and counts, SSO restriction, id and image. Every
    server value is already inert."""
    regional = hub.api_regional_url
    if route is None:
        trust = "not checked: the hub could not be read" if failed else "checking…"
    elif regional is None:
        trust = "none named; calls go to the configured server"
    elif route.trusted:
        trust = f"trusted: {inert(route.why)}"
    else:
        trust = f"NOT trusted ({inert(route.why)}); calls go to the configured server"
    region = inert(hub.region_name or "not given")
    facts = [("Region", f"{region} · API {inert(regional or '—', limit=80)} · {trust}")]
    author = hub.author
    if author:
        who = inert(author.full_name or author.user_name or f"user {author.id}")
        facts.append(("Author", who + (f" <{inert(author.email)}>" if author.email else "")))
    else:
        facts.append(("Author", "not given"))
    facts.append(
        (
            "Created",
            f"{when_both(hub.creation_date)} · {amount(hub.number_of_users, 'user')} · "
            f"{amount(hub.number_of_projects, 'project')}",
        )
    )
    restricted = hub.is_user_entra_id_sso_restricted
    sso = "not sent" if restricted is None else "yes" if restricted else "no"
    tenant = ""
    if hub.restricted_tenant_domain or hub.restricted_tenant_id:
        tenant = (
            f" · tenant {inert(hub.restricted_tenant_domain or '—')}"
            f" ({inert(hub.restricted_tenant_id or 'no id')})"
        )
    facts.append(("Entra ID SSO", f"restricted: {sso}{tenant}"))
    image = hub.image
    shown = "none" if image is None else inert(image.name or image.url or "unnamed", limit=40)
    facts.append(("Id", f"{inert(hub.id)} · image: {shown}"))
    return facts
