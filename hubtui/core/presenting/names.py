"""A hub's two names, and which hub a person meant by what they typed: one rule for the app's
`g` and every headless command that takes a hub.

Look-ups match a hub's Name (its URL identifier) or Id, exactly. Anything less is offered, never
taken: a Name that matches only once case and compatibility forms are folded (``ACME-BUILD``,
``ＡＣＭＥ``, a Kelvin sign for a K) is named so the person can type it; several such hubs are
listed, each with its lookalike mark, and none is chosen. What matches a DisplayName is said the
same way, naming the Name to use.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hubtui.text import fold, inert, lookalike

if TYPE_CHECKING:
    from hubtui.api import Hub

NO_DISPLAY_NAME = "(none set = Name)"
DISPLAY_NAME_NOT_SENT = "(not sent by server)"
#: The marker of a hub whose Name or DisplayName may pass for another (see :func:`name_warnings`).
LOOKALIKE_MARK = "!"


def name_warnings(hub: Hub) -> tuple[str | None, str | None]:
    """Why the hub's Name, and why its DisplayName, may be mistaken for another (or None)."""
    placeholders = (NO_DISPLAY_NAME, DISPLAY_NAME_NOT_SENT)
    name = lookalike(hub.name, ascii_only=True, placeholders=placeholders)
    shown = None
    if hub.display_name_sent and hub.has_custom_display_name:
        shown = lookalike(hub.display_name, placeholders=placeholders)
    return name, shown


def lookalike_words(hub: Hub) -> str | None:
    """One sentence on why a hub's names may pass for another's, or None."""
    name, shown = name_warnings(hub)
    parts = []
    if name:
        parts.append(f"its Name {name.removeprefix('it ')}")
    if shown:
        parts.append(f"its DisplayName {shown.removeprefix('it ')}")
    return "; ".join(parts) or None


def _key(text: str) -> str:
    """A Name folded for comparison only: compatibility forms and case, never taken as a match."""
    return unicodedata.normalize("NFKC", text).casefold()


@dataclass(frozen=True)
class HubMatch:
    """What a typed hub name or id found."""

    typed: str
    hub: Hub | None = None
    """The hub whose Name or Id is exactly what was typed: the only one ever opened."""
    offer: Hub | None = None
    """The one hub that nearly matches (Name folded, or DisplayName): offered, never taken."""
    candidates: tuple[Hub, ...] = ()
    """Several hubs that nearly match: listed, none chosen."""
    by_display_name: bool = False
    """The offer or the candidates matched by DisplayName, not by Name."""
    ambiguous: bool = False
    """The candidates each match exactly, one by Name and another by Id: none is chosen."""

    def words(self) -> str:
        """What to tell the person when no hub was found exactly (inert, one paragraph)."""
        typed = inert(self.typed)
        if self.ambiguous:
            listed = "; ".join(
                f"the {'URL name' if h.name == self.typed else 'Id'} of hub “{inert(h.name)}” "
                f"(Id {inert(h.id)})"
                for h in self.candidates
            )
            return (
                f"“{typed}” names more than one hub, so none is chosen: it is {listed}. Give the "
                "hub by its other identifier."
            )
        start = f"No hub has the URL name or id “{typed}”."
        if self.offer is not None:
            hub = self.offer
            if self.by_display_name:
                how = (
                    "Hubs are named by their URL name (Name), not their display name: the hub "
                    f"displayed as “{inert(hub.display_name)}” has the URL name "
                    f"“{inert(hub.name)}”."
                )
            else:
                how = (
                    f"One hub's URL name differs from it only in case or form: "
                    f"“{inert(hub.name)}”. Type it exactly to use it."
                )
            return f"{start} {how}{_mark(hub)}"
        if self.candidates:
            what = "display name" if self.by_display_name else "URL name, in case or form"
            listed = "; ".join(
                f"“{inert(h.name)}” (displayed as “{inert(h.display_name)}”){_mark(h)}"
                for h in self.candidates
            )
            return (
                f"{start} {len(self.candidates)} hubs match it by {what}, so none is chosen: "
                f"{listed}. Type the URL name of the one you mean."
            )
        return start


def _mark(hub: Hub) -> str:
    why = lookalike_words(hub)
    return f" {LOOKALIKE_MARK} Lookalike: {inert(why)}." if why else ""


def match_hub(hubs: Iterable[Hub], typed: str, *, partial: bool = False) -> HubMatch:
    """Which of ``hubs`` was meant by ``typed``: exact Name or Id, else what to offer.

    ``partial`` also offers a hub whose DisplayName contains what was typed (the app's `g`,
    where a person types part of what they see)."""
    hubs = list(hubs)
    exact = list({h.id: h for h in hubs if typed in (h.name, h.id)}.values())
    if len(exact) > 1:  # one hub's Name is another's Id: an identifier names one hub or none
        return HubMatch(typed, candidates=tuple(exact), ambiguous=True)
    if exact:
        return HubMatch(typed, hub=exact[0])
    near = [h for h in hubs if _key(h.name) == _key(typed)]
    if near:
        return _offered(typed, near, by_display_name=False)
    wanted = fold(typed)
    shown = [h for h in hubs if h.display_name_sent and fold(h.display_name) == wanted]
    if not shown and partial and wanted:
        shown = [h for h in hubs if h.display_name_sent and wanted in fold(h.display_name)]
    if shown:
        return _offered(typed, shown, by_display_name=True)
    return HubMatch(typed)


def _offered(typed: str, hubs: Sequence[Hub], *, by_display_name: bool) -> HubMatch:
    if len(hubs) == 1:
        return HubMatch(typed, offer=hubs[0], by_display_name=by_display_name)
    return HubMatch(typed, candidates=tuple(hubs), by_display_name=by_display_name)


def displayed_as(hubs: Iterable[Hub], typed: str, *, partial: bool = False) -> Hub | None:
    """The one hub displayed under ``typed`` (see :func:`match_hub`), or None."""
    found = match_hub(hubs, typed, partial=partial)
    return found.offer if found.by_display_name else None
