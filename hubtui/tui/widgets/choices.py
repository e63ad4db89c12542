"""A radio button and a check box whose mark says their value in any colours.

Textual's draw every button with the same mark (``●``, ``X``) and tell on from off by colour
alone: under ``NO_COLOR``, in a screenshot's text or to a person who cannot tell the colours
apart, "Reviewer ▐X▌" says nothing. These draw ``●`` / a space and ``X`` / a space.
"""

from __future__ import annotations

from typing import Any

from textual.widgets import Checkbox, RadioButton

__all__ = ["Choice", "Tick"]


class Choice(RadioButton):
    """A radio button: ``▐●▌`` chosen, ``▐ ▌`` not."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._mark(self.value)

    def watch_value(self) -> None:
        super().watch_value()
        self._mark(self.value)

    def _mark(self, value: bool) -> None:
        self.BUTTON_INNER = "●" if value else " "
        self.refresh()


class Tick(Checkbox):
    """A check box: ``▐X▌`` on, ``▐ ▌`` off."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._mark(self.value)

    def watch_value(self) -> None:
        super().watch_value()
        self._mark(self.value)

    def _mark(self, value: bool) -> None:
        self.BUTTON_INNER = "X" if value else " "
        self.refresh()
