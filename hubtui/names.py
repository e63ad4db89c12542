"""A hub's two names: which hub a person meant when they typed its DisplayName.

Look-ups match a hub's Name (its URL identifier) only. When what was typed is no hub's Name,
the app and the headless commands both say which hub is *displayed* under those words, so the
person learns the Name to use: one rule, here.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from hubtui.text import fold

if TYPE_CHECKING:
    from hubtui.api import Hub


def displayed_as(hubs: Iterable[Hub], typed: str, *, partial: bool = False) -> Hub | None:
    """The hub whose DisplayName is ``typed`` (case and accents ignored); with ``partial``, when
    none is, the first whose DisplayName contains it. None when no hub is displayed so."""
    wanted = fold(typed)
    hubs = list(hubs)
    for hub in hubs:
        if fold(hub.display_name) == wanted:
            return hub
    if partial and wanted:
        for hub in hubs:
            if wanted in fold(hub.display_name):
                return hub
    return None
