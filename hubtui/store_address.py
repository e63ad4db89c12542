"""The team store's address rule: an address holding a password is refused, without repeating
it, as libpq would read it.

A leaf below the settings and the core (as :mod:`hubtui.hosts` is): the settings check the
address before any driver is imported, and the PostgreSQL engine checks it again. Standard
library only; psycopg's own reading of the address is asked where psycopg is installed.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlsplit

__all__ = ["PASSWORD_HELD", "SOURCES", "store_url_problem"]

#: Where the setting comes from, as a message names it.
SOURCES = "store_url, HUBTUI_STORE_URL or --store-url"
_PASSWORD_KEY = re.compile(r"(?:^|[\s'])\s*(?:ssl)?password\s*=", re.IGNORECASE)
#: Why an address holding a password is refused (without repeating the password).
PASSWORD_HELD = (
    f"The team store address ({SOURCES}) holds a password: hubtui would show and log it. Give "
    "the address without it; libpq reads the password from ~/.pgpass, PGPASSWORD or the "
    "service file (pg_service.conf)."
)


def store_url_problem(url: str) -> str | None:
    """Why a team store's address cannot be used (None: it can): an address holding a password
    is refused, as hubtui would show and log it."""
    if any(not ch.isprintable() for ch in url) or not url.strip():
        return f"The team store address ({SOURCES}) is empty or holds control characters."
    parsed = _as_libpq_reads(url)
    if parsed is not None:
        return PASSWORD_HELD if parsed & {"password", "sslpassword"} else None
    holds = False
    if re.match(r"^postgres(?:ql)?://", url, re.IGNORECASE):
        try:
            parts = urlsplit(url)
            holds = parts.password is not None or any(
                key.lower() in ("password", "sslpassword") for key, _ in parse_qsl(parts.query)
            )
        except ValueError:
            return f"The team store address ({SOURCES}) is not a postgresql:// URL libpq reads."
    else:
        holds = bool(_PASSWORD_KEY.search(url))
    return PASSWORD_HELD if holds else None


def _as_libpq_reads(url: str) -> set[str] | None:
    """The keys libpq reads in ``url`` (psycopg's ``conninfo_to_dict``, libpq's own parser:
    ``host='h'password=x`` holds a password though no space stands before it); an address it
    cannot read at all holds none it would use. None where psycopg is not installed (the team
    extra): hubtui's own reading then decides."""
    try:
        from psycopg import Error
        from psycopg.conninfo import conninfo_to_dict
    except ImportError:
        return None
    try:
        return {key.lower() for key in conninfo_to_dict(url)}
    except Error:
        return None
