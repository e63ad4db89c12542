"""A radio button and a check box whose mark says their value in any colours.

Textual's draw every button with the same mark (``●``, ``X``) and tell on from off by colour
alone: under ``NO_COLOR``, in a screenshot's text or to a person who cannot tell the colours
apart, "Reviewer ▐X▌" says nothing. These draw ``●`` / a space and ``X`` / a space.
"""

from __future__ import annotations

from textual.widgets import Checkbox, RadioButton

__all__ = ["Choice", "Tick"]


class Choice(RadioButton):
    """A radio button: ``▐●▌`` chosen, ``▐ ▌`` not."""

    @property  # read by each paint, which a change of value asks for
    def BUTTON_INNER(self) -> str:  # type: ignore[override]  # Textual's is one mark for both
        return "●" if self.value else " "


class Tick(Checkbox):
    """A check box: ``▐X▌`` on, ``▐ ▌`` off."""

    @property
    def BUTTON_INNER(self) -> str:  # type: ignore[override]
        return "X" if self.value else " "
