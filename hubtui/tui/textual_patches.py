"""Work-arounds for Textual behaviour that costs an all-day session memory.

Each is applied only while the Textual in use still has the fault, so an upgrade that fixes it
upstream turns the work-around off by itself.
"""

from __future__ import annotations

from functools import lru_cache

from textual._styles_cache import StylesCache
from textual.color import Color
from textual.style import Style

__all__ = ["apply"]


@lru_cache(1024)
def _inner_outer(base_background: Color, background: Color) -> tuple[Style, Style]:
    return Style(background=base_background + background), Style(background=base_background)


def _get_inner_outer(
    self: StylesCache, base_background: Color, background: Color
) -> tuple[Style, Style]:
    return _inner_outer(base_background, background)


def apply() -> None:
    """``StylesCache.get_inner_outer`` is an ``lru_cache`` on a method: its key holds the
    widget's whole ``StylesCache`` (every line it drew), so the last 1,024 widgets ever drawn
    stayed in memory after they were removed, ~11 more with each reload of a list. The same
    colours, cached on the colours alone."""
    if hasattr(StylesCache.get_inner_outer, "cache_info"):
        StylesCache.get_inner_outer = _get_inner_outer  # type: ignore[method-assign,assignment]
