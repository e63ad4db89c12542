"""Server strings made safe to show, copy and log, and folded for matching.

Everything from a server is data: it reaches the screen, a notification, an Input, a log line
or an export only through :func:`inert` and never as markup, so ``[bold]x`` shows those
characters and an escape sequence is shown, not obeyed. The clipboard takes one value only when
:func:`copy_problem` passes it, and several lines only as :func:`copy_lines` makes them.
:func:`lookalike` says when a name only looks like another.
"""

from __future__ import annotations

import re
import shlex
import unicodedata
from collections.abc import Sequence
from itertools import accumulate

_CONTROL_PICTURES = {code: chr(0x2400 + code) for code in range(0x20)} | {0x7F: "\u2421"}
#: Letters no decomposition takes the accent off, and what each folds to.
_FOLD_EXTRA = {"ł": "l", "Ł": "l", "ø": "o", "Ø": "o", "đ": "d", "Đ": "d", "ß": "ss"}
#: Found by a search, not ``str.translate``, which looks each character of a long value up
#: (2 s for 20 MB, against 0.1 s).
_FOLD_EXTRA_FOUND = re.compile(f"[{''.join(_FOLD_EXTRA)}]")
_COMBINING = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]+")
#: Characters a font draws as nothing (or as a blank as wide as two letters) though Unicode calls
#: them printable: the Hangul fillers, the braille blank, the combining grapheme joiner, two
#: Khmer vowels. Shown as ``<U+3164>``, like the zero-width ones, so nothing shifts or hides.
_BLANK_PRINTABLES = frozenset("\u115f\u1160\u3164\uffa0\u2800\u034f\u17b4\u17b5")
_BLANK_FOUND = re.compile(f"[{''.join(sorted(_BLANK_PRINTABLES))}]")
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
    if not already_inert(value):
        value = "".join(_visible(ch) for ch in value)
    if limit is not None and len(value) > limit:
        value = f"{value[: limit - 1]}… ({len(value):,} characters)"
    return value


def already_inert(value: str) -> bool:
    """Whether :func:`inert` leaves ``value`` as it is (uncut): nothing in it to make visible.
    Asked of many values joined as one text, it answers for each of them at once."""
    return value.isprintable() and (value.isascii() or _BLANK_FOUND.search(value) is None)


def command_line(*words: object) -> str:
    """``hubtui WORDS…`` as a person pastes it into a shell: each word quoted for the shell
    (``acme$(id)`` stays one word, never run), then made inert. The one way every command
    hubtui prints or copies for a person to run is written."""
    return inert(shlex.join(["hubtui", *(str(word) for word in words)]), limit=None)


def _visible(ch: str) -> str:
    if ch.isprintable() and ch not in _BLANK_PRINTABLES:
        return ch
    code = ord(ch)
    if code in _CONTROL_PICTURES:
        return _CONTROL_PICTURES[code]
    return f"<U+{code:04X}>"


def fold(text: str) -> str:
    """Lowercase without accents, so that ``quebec`` matches ``Québec``."""
    if text.isascii():
        return text.lower()
    plain = _FOLD_EXTRA_FOUND.sub(lambda found: _FOLD_EXTRA[found.group()], text)
    decomposed = unicodedata.normalize("NFKD", plain)
    return _COMBINING.sub("", decomposed).casefold()


def copy_lines(lines: Sequence[object]) -> str:
    """Lines for the clipboard or a file header, each made inert: whatever a line was built
    from, no control, bidi or invisible character survives (a newline inside a value shows as
    ␊), so a paste cannot end a bracketed paste, run a command or show other text."""
    return "\n".join(inert(line, limit=None) for line in lines)


def copy_problem(value: str) -> str | None:
    """Why ``value`` must not go to the clipboard, or None when a person could have typed it.

    A control or bidi character in a pasted value can run a command (a newline, or the end of
    a bracketed paste) or show something other than what is pasted.
    """
    if not value:
        return "it is empty"
    hidden = hidden_character(value)
    if hidden is not None:
        return f"it holds the invisible or control character U+{ord(hidden):04X}"
    return None


def hidden_character(value: str) -> str | None:
    """The first character of ``value`` a person could not have typed: a control, a bidi or
    invisible format character, or a letter a font draws as nothing (:data:`_BLANK_PRINTABLES`)."""
    for ch in value:
        if not ch.isprintable() or unicodedata.category(ch) == "Cf" or ch in _BLANK_PRINTABLES:
            return ch
    return None


#: Scripts whose letters cannot pass for Latin, Cyrillic or Greek ones: mixing them is normal
#: (``ACME 東京支社``).
_DISTINCT_SCRIPTS = frozenset({"CJK", "HIRAGANA", "KATAKANA", "KATAKANA-HIRAGANA", "HANGUL"})


def _script(ch: str) -> str | None:
    if not ch.isalpha():
        return None
    name = unicodedata.name(ch, "")
    word = name.split(" ", 1)[0] if name else "UNKNOWN"
    return None if word in _DISTINCT_SCRIPTS else word


#: The invisible characters of ASCII: its controls.
_ASCII_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def lookalike(
    text: str, *, ascii_only: bool = False, placeholders: tuple[str, ...] = ()
) -> str | None:
    """Why ``text`` may be mistaken for another name, or None.

    Letters of two scripts (``аcme`` with a Cyrillic ``а``), invisible characters, anything
    but ASCII where only ASCII belongs (a URL name), or the very words hubtui shows for a
    missing value.
    """
    if text in placeholders:
        return "it is the same text hubtui shows for a missing value"
    if text.isascii():  # most names: one pass in C, not a call a character
        return "it holds invisible characters" if _ASCII_CONTROL.search(text) else None
    if any(
        unicodedata.category(ch) in ("Cf", "Cc", "Zl", "Zp") or ch in _BLANK_PRINTABLES
        for ch in text
    ):
        return "it holds invisible characters"
    if ascii_only:
        return "it holds characters that are not plain ASCII, as a URL name should be"
    scripts = sorted({s for s in map(_script, text) if s})
    if len(scripts) > 1:
        return f"it mixes {' and '.join(s.title() for s in scripts)} letters"
    return None


def log_safe(text: str) -> str:
    """A log line with every control, bidi and invisible character escaped (lines kept)."""
    return "\n".join(inert(line, limit=None) for line in text.split("\n"))


def skipped_words(count: int, examples: Sequence[object]) -> str:
    """A sentence for records a server sent that could not be read and are left out."""
    first = f" The first: {inert(examples[0])}." if examples else ""
    noun = "record" if count == 1 else "records"
    return f"{count:,} {noun} the server sent could not be read and are not shown.{first}"


_NOT_STRUCTURE = bytes(b for b in range(256) if b not in b'[]{}"')
_PIECE = 1 << 16
_STEP = [0] * 256
_STEP[ord("[")] = _STEP[ord("{")] = 1
_STEP[ord("]")] = _STEP[ord("}")] = -1


def nesting(body: bytes | str) -> int:
    """How deep a JSON text nests (brackets inside strings not counted), read without
    parsing it: what a parser's recursion would reach."""
    data = body.encode("utf-8", "surrogatepass") if isinstance(body, str) else body
    if b"[" not in data and b"{" not in data:
        return 0
    # The escaped backslashes and quotes dropped, then all but brackets and quotes (another
    # escape loses its backslash), then what is between quotes: bytes' own operations on a
    # text that shrinks at each step, quick and small on a list of many records.
    if b"\\" in data:
        data = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    data = data.translate(None, _NOT_STRUCTURE)
    depth = deepest = 0
    inside = False  # within a string, where brackets do not count
    for start in range(0, len(data), _PIECE):  # in pieces: a list of many records stays small
        parts = data[start : start + _PIECE].split(b'"')
        outside = b"".join(parts[1 if inside else 0 :: 2])
        inside ^= len(parts) % 2 == 0  # an odd count of quotes in the piece
        levels = list(accumulate((_STEP[b] for b in outside), initial=depth))
        deepest, depth = max(deepest, *levels), levels[-1]
    return deepest
