"""Characters a real Linux console lacks in its font, and the ASCII shown there instead.

The console's font (TERM=linux) holds Latin-1 and box lines, not ≠, …, ›, ⚠, ⏎ or rounded
corners: there they would show as blobs, so marks that carry meaning become ASCII words.
"""

from __future__ import annotations

import os

#: Whether the terminal is a Linux console (or the person asked for ASCII with HUBTUI_ASCII=1).
PLAIN = os.environ.get("TERM") == "linux" or os.environ.get("HUBTUI_ASCII") == "1"


def glyph(fancy: str, plain: str) -> str:
    return plain if PLAIN else fancy


NOT_EQUAL = glyph("≠", "!=")
ELLIPSIS = glyph("…", "~")
SEPARATOR = glyph("›", ">")
WARNING = glyph("⚠", "!")
ASCENDING = glyph("▲", "^")
DESCENDING = glyph("▼", "v")
MARK = glyph("●", "*")
#: A row with a change staged, not yet sent (Latin-1: the console's font has it too).
STAGED_MARK = "±"
KEY_NAMES = {"⏎": "enter", "⌫": "bksp", "←": "left", "↑": "up", "↓": "down"} if PLAIN else {}


def plain_keys(text: str) -> str:
    """Key names as the console can show them (the footer's ⏎ becomes enter)."""
    for fancy, plain in KEY_NAMES.items():
        text = text.replace(fancy, plain)
    return text


#: One cell for one cell, so nothing moves: what is left of Textual's own drawing (scroll bars,
#: the footer's bar, frames) and hubtui's prose, shown with what the console's font has.
_CONSOLE = str.maketrans(
    {
        "≠": "#",
        "…": "~",
        "›": ">",
        "⚠": "!",
        "▲": "^",
        "▼": "v",
        "▏": "|",
        "▕": "|",
        "▎": "|",
        "▌": "|",
        "▊": "|",
        "▐": "|",
        "▔": "-",
        "●": "*",
        "╭": "+",
        "╮": "+",
        "╰": "+",
        "╯": "+",
        "▁": "_",
        "▂": "_",
        "▃": "=",
        "▄": "=",
        "▅": "=",
        "▆": "#",
        "▇": "#",
        "█": "#",
        "▀": "-",
        "—": "-",
        "–": "-",
        "“": '"',
        "”": '"',
        "‘": "'",
        "’": "'",
        "␛": "^",
        "␇": "^",
    }
)


def console_text(text: str) -> str:
    """``text`` with each character a console's font lacks replaced by one it has."""
    return text.translate(_CONSOLE)
