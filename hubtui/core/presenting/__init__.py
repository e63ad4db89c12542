"""What is said and laid out: the same words, columns and files in the app and headless.

Its parts: :mod:`~hubtui.core.presenting.words` (how access, a hub's facts, dates and amounts
are said), :mod:`~hubtui.core.presenting.layout` (how columns share a terminal's width),
:mod:`~hubtui.core.presenting.names` (a hub's two names, and which hub a person meant) and
:mod:`~hubtui.core.presenting.export` (lists written out as CSV or JSON). Every value in them
went through :func:`hubtui.text.inert` first. Each name below is imported when first asked for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hubtui.lazy import names_from

if TYPE_CHECKING:
    from hubtui.core.presenting.export import (
        FORMATS,
        Cell,
        default_file_name,
        render,
        typed_cell,
        write_export,
    )
    from hubtui.core.presenting.layout import WISH_CAP, Column, fit_columns
    from hubtui.core.presenting.names import (
        DISPLAY_NAME_NOT_SENT,
        LOOKALIKE_MARK,
        NO_DISPLAY_NAME,
        lookalike_words,
        match_hub,
        name_warnings,
    )
    from hubtui.core.presenting.words import (
        ACCESS_NOT_SENT,
        DATE_UNKNOWN,
        LIMITED_BADGE,
        access_cell,
        access_sentence,
        amount,
        count,
        display_name_cell,
        hub_facts,
        role_cell,
        seen_stamp,
        seen_words,
        size_words,
        when,
        when_both,
    )

_EXPORTS: dict[str, str] = {
    "Cell": "hubtui.core.presenting.export",
    "FORMATS": "hubtui.core.presenting.export",
    "default_file_name": "hubtui.core.presenting.export",
    "render": "hubtui.core.presenting.export",
    "typed_cell": "hubtui.core.presenting.export",
    "write_export": "hubtui.core.presenting.export",
    "Column": "hubtui.core.presenting.layout",
    "WISH_CAP": "hubtui.core.presenting.layout",
    "fit_columns": "hubtui.core.presenting.layout",
    "DISPLAY_NAME_NOT_SENT": "hubtui.core.presenting.names",
    "LOOKALIKE_MARK": "hubtui.core.presenting.names",
    "NO_DISPLAY_NAME": "hubtui.core.presenting.names",
    "lookalike_words": "hubtui.core.presenting.names",
    "match_hub": "hubtui.core.presenting.names",
    "name_warnings": "hubtui.core.presenting.names",
    "ACCESS_NOT_SENT": "hubtui.core.presenting.words",
    "DATE_UNKNOWN": "hubtui.core.presenting.words",
    "LIMITED_BADGE": "hubtui.core.presenting.words",
    "access_cell": "hubtui.core.presenting.words",
    "access_sentence": "hubtui.core.presenting.words",
    "amount": "hubtui.core.presenting.words",
    "count": "hubtui.core.presenting.words",
    "display_name_cell": "hubtui.core.presenting.words",
    "hub_facts": "hubtui.core.presenting.words",
    "role_cell": "hubtui.core.presenting.words",
    "seen_stamp": "hubtui.core.presenting.words",
    "seen_words": "hubtui.core.presenting.words",
    "size_words": "hubtui.core.presenting.words",
    "when": "hubtui.core.presenting.words",
    "when_both": "hubtui.core.presenting.words",
}

__all__ = [
    "ACCESS_NOT_SENT",
    "Cell",
    "Column",
    "DATE_UNKNOWN",
    "DISPLAY_NAME_NOT_SENT",
    "FORMATS",
    "LIMITED_BADGE",
    "LOOKALIKE_MARK",
    "NO_DISPLAY_NAME",
    "WISH_CAP",
    "access_cell",
    "access_sentence",
    "amount",
    "count",
    "default_file_name",
    "display_name_cell",
    "fit_columns",
    "hub_facts",
    "lookalike_words",
    "match_hub",
    "name_warnings",
    "render",
    "role_cell",
    "seen_stamp",
    "seen_words",
    "size_words",
    "typed_cell",
    "when",
    "when_both",
    "write_export",
]


__getattr__ = names_from(__name__, _EXPORTS)
