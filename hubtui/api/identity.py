"""The service's roles and how two of its records name one person, without pydantic: read by
``hubtui.core.access`` (the one home of these rules) on paths that load no record type."""

from __future__ import annotations

import string

#: The project roles the service documents, in order of growing rights.
KNOWN_ROLES: tuple[str, ...] = ("Reader", "Editor", "Admin")


#: ASCII's capitals to its small letters, and nothing else: an address's key never folds
#: ``ß`` into ``ss``, the Kelvin sign into ``k`` or the long s into ``s``.
_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)


def email_domain(email: str | None) -> str | None:
    """The part of an email after its last ``@``, lowercased (None: no ``@``, or nothing after
    it)."""
    if not email or "@" not in email:
        return None
    return email.rsplit("@", 1)[1].lower() or None


def email_key(email: str | None) -> str:
    """An email as two records of one person agree on it: ASCII white space stripped, ASCII
    capitals made small, nothing else (``straße@`` and ``strasse@`` are two people)."""
    key = (email or "").strip(" \t\r\n")
    # For an all-ASCII address (nearly every one) str.lower is the same map and ten times faster.
    small = key.lower() if key.isascii() else key.translate(_ASCII_LOWER)
    # An address sent in small letters is its own key: one text held, not two (a firm's 100,000
    # people, 8.7 MB).
    return key if small == key else small
