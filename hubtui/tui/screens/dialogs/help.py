"""`?`: every key of the screen below, and what its badges and markers mean."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from hubtui.tui.widgets.chrome import KeyFooter

if TYPE_CHECKING:
    from textual.binding import ActiveBinding

GLOBAL_KEYS = (
    ("enter", "open the selected row"),
    ("escape backspace ← h", "clear the filter; otherwise back one screen"),
    ("/", "filter the list (case and accents ignored)"),
    ("↑ ↓ pgup pgdn home end", "move in the list"),
    ("s / S", "sort by the next column / reverse the order"),
    ("ctrl+p", "jump to any loaded hub, project or user"),
    ("tab shift+tab", "move to the next / the previous field"),
    ("q ctrl+q", "quit"),
)
#: The keys GLOBAL_KEYS already tells of, as bindings name them.
GLOBAL_KEY_NAMES = frozenset(
    {
        "enter",
        "escape",
        "backspace",
        "left",
        "h",
        "slash",
        "up",
        "down",
        "j",
        "k",
        "pageup",
        "pagedown",
        "home",
        "end",
        "s",
        "S",
        "ctrl+p",
        "q",
        "ctrl+q",
        "ctrl+c",
        "tab",
        "shift+tab",
        "super+c",
    }
)
#: The vim cursor keys, which a screen may take for its own (``k`` keeps in a campaign's
#: packet): then its help lists them as the screen's.
SCREENS_MAY_TAKE = frozenset({"j", "k"})
KEY_NAMES = {
    "slash": "/",
    "question_mark": "?",
    "backspace": "⌫",
    "asterisk": "*",
    "minus": "-",
}


def key_name(key: str) -> str:
    """A binding's key as the help and the README write it: ``/``, ``*``, ``ctrl+l``."""
    return KEY_NAMES.get(key, key)


def screen_keys(
    bindings: Mapping[str, ActiveBinding], also: Iterable[Binding] = ()
) -> list[tuple[str, str]]:
    """(keys, what they do) of every binding a screen takes now (its focused widget's, its own
    and the app's), the keys of one action together: shared keys first, then the others; then
    ``also``, the screen's keys that are off now (``m`` before a row is marked), said so."""
    keys: list[tuple[str, str]] = list(GLOBAL_KEYS)
    by_action: dict[str, tuple[list[str], str]] = {}
    for key, active in bindings.items():
        binding = active.binding
        taken = key in SCREENS_MAY_TAKE and binding.action.startswith("screen.")
        if key in GLOBAL_KEY_NAMES and not taken:
            continue  # told above
        words = active.tooltip or binding.tooltip or binding.description
        if not active.enabled:
            words = f"{words} (not now)"
        found = by_action.setdefault(binding.action, ([], words))
        found[0].append(key_name(key))
    for binding in also:
        if binding.action in by_action:
            continue
        names = [
            k for k in binding.key.split(",") if k not in GLOBAL_KEY_NAMES and k not in bindings
        ]
        words = binding.tooltip or binding.description
        if names and words:
            by_action[binding.action] = ([key_name(k) for k in names], f"{words} (not now)")
    keys += [(" ".join(names), words) for names, words in by_action.values()]
    return keys


class HelpScreen(ModalScreen[None]):
    """Keys and legend for one screen: each key with a sentence that wraps beside it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,q", "dismiss", "Close help"),
    ]

    def __init__(
        self,
        legend: Sequence[str],
        bindings: Mapping[str, ActiveBinding],
        also: Iterable[Binding] = (),
    ) -> None:
        super().__init__()
        #: What each mark of the screen below means (its ``LEGEND``).
        self.legend = tuple(legend)
        self.also = list(also)
        #: Every binding the screen below takes, as it was when ? was pressed.
        self.bindings = dict(bindings)

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog-box"):
            yield Static(Content.styled("Keys", "bold"), classes="help-heading")
            for key, sentence in self.keys():
                with Horizontal(classes="help-row"):
                    yield Static(Content.styled(key, "bold"), classes="help-key")
                    yield Static(sentence, classes="help-what")
            if self.legend:
                yield Static(Content.styled("What the marks mean", "bold"), classes="help-heading")
                for line in self.legend:
                    yield Static(line, classes="help-legend")
            yield Static("escape or ? closes this help.", classes="help-heading")
        yield KeyFooter(compact=True)

    def keys(self) -> list[tuple[str, str]]:
        return screen_keys(self.bindings, self.also)
