"""Server strings made safe to show, and folded for matching.

Everything from a server is data: it reaches the screen only through :func:`inert` and never
as markup, so ``[bold]x`` shows those characters and an escape sequence is shown, not obeyed.
"""

from __future__ import annotations

import re
import unicodedata

_CONTROL_PICTURES = {code: chr(0x2400 + code) for code in range(0x20)} | {0x7F: "\u2421"}
_FOLD_EXTRA = str.maketrans({"ł": "l", "Ł": "l", "ø": "o", "Ø": "o", "đ": "d", "Đ": "d", "ß": "ss"})
_COMBINING = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]+")
#: The longest a single value is shown before it is cut (with its full length said).
LONG_VALUE = 300


def inert(text: object, *, limit: int | None = LONG_VALUE) -> str:
    """``text`` with every control, bidi and invisible character made visible and harmless.

    C0 controls become their Unicode control pictures (ESC shows as ␛); other non-printing
    characters (C1 controls, bidi overrides, zero-width characters) show as ``<U+XXXX>``.
    A value longer than ``limit`` is cut, and says how long it was.
    """
    if text is None:
        return ""
    value = text if isinstance(text, str) else str(text)
    if not value.isprintable():
        value = "".join(_visible(ch) for ch in value)
    if limit is not None and len(value) > limit:
        value = f"{value[: limit - 1]}… ({len(value):,} characters)"
    return value


def _visible(ch: str) -> str:
    if ch.isprintable():
        return ch
    code = ord(ch)
    if code in _CONTROL_PICTURES:
        return _CONTROL_PICTURES[code]
    return f"<U+{code:04X}>"


def fold(text: str) -> str:
    """Lowercase without accents, so that ``quebec`` matches ``Québec``."""
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text.translate(_FOLD_EXTRA))
    return _COMBINING.sub("", decomposed).casefold()
