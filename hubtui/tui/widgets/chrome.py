"""The lines every screen shares: where you are, what went wrong, which server."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, NamedTuple

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Footer, Input, Static
from textual.widgets._footer import FooterKey

from hubtui.text import inert
from hubtui.tui.glyphs import SEPARATOR, WARNING

#: The footer's order, by use: what a person reaches for first on any screen stays on it at 80
#: columns; keys not named here follow, as bound.
FOOTER_ORDER = (
    "help",
    "change_marked",
    "select",
    "save",
    "stage",
    "apply",
    "filter",
    "who",
    "people",
    "go_to_hub",
    "edit",
    "add",
    "add_people",
    "staged",
    "changes_since",
    "reload",
    "copy",
    "export",
    "back",
    "cancel",
)


def _rank(action: str) -> int:
    name = action.rpartition(".")[2].split("(", 1)[0]
    return FOOTER_ORDER.index(name) if name in FOOTER_ORDER else len(FOOTER_ORDER)


class KeyFooter(Footer):
    """Textual's footer, without its leak: each recompose (every change of the keys shown, so
    every load) binds its new keys to the footer's ``compact``, and the old keys' bindings were
    dropped only when ``compact`` changed, which it never does. An open app kept ~10 dead key
    widgets per reload; they are let go here as soon as they are removed.

    In the compact style the palette key, docked right, kept the right margin of every key:
    the last column showed a letter of the keys running on beneath it (``^p paletteo``)."""

    DEFAULT_CSS = """
    KeyFooter.-compact FooterKey.-command-palette {
        margin-right: 0;
        padding-right: 1;
    }
    """

    def __init__(
        self, *args: Any, words: Callable[[str], str | None] | None = None, **kwargs: Any
    ) -> None:
        """``words``: what a key says now, for an action whose words change (``3 marked``);
        None keeps the binding's own."""
        super().__init__(*args, **kwargs)
        self._words = words
        #: What was composed last (None: nothing yet).
        self._shown: _Plan | None = None

    async def recompose(self) -> None:
        # Textual recomposes the footer at every change that may change the keys (a focus, a
        # load, a check of an action): the same keys are not built again.
        if not self.is_attached or self._pruning:
            return  # its screen is gone (as Textual's own recompose says)
        plan = self._plan()
        if plan == self._shown:
            return
        self._shown = plan  # compose shows it
        await super().recompose()
        for watchers in getattr(self, "__watchers", {}).values():
            watchers[:] = [(node, call) for node, call in watchers if node.is_attached]

    def _plan(self) -> _Plan | None:
        """The keys to show, ``?`` first (it finds every other key, so it is never the one cut
        at 80 columns), then in the order of :data:`FOOTER_ORDER` (by how often each is used),
        then the rest as bound; and the palette's key (None: the bindings are not ready)."""
        if not self._bindings_ready:
            return None
        active = self.screen.active_bindings
        by_action: dict[str, tuple[Binding, bool, str]] = {}
        for _, binding, enabled, tooltip in active.values():
            if binding.show:
                by_action.setdefault(binding.action, (binding, enabled, tooltip))
        ranked = sorted(by_action.items(), key=lambda item: _rank(item[0]))
        palette = active.get(self.app.COMMAND_PALETTE_BINDING)
        show_palette = bool(
            self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE and palette
        )
        # A key is shown whole or not at all (``?`` lists every one): never "l M" at the edge.
        # Fitted when composed (each screen, each change of its keys); recomposing on every
        # resize as well moved a resumed screen's scroll under load.
        width = self.size.width or self.app.size.width
        room = width - (_key_width(self, "^p", "palette") + 1 if show_palette else 0)
        keys: list[_Key] = []
        for action, (binding, enabled, tooltip) in ranked:
            said = self._words(action) if self._words is not None else None
            display = self.app.get_key_display(binding)
            description = said or binding.description
            need = _key_width(self, display, description)
            if need > room:
                continue
            room -= need
            keys.append(_Key(binding.key, display, description, action, not enabled, tooltip))
        last = None
        if show_palette:
            assert palette is not None
            _, binding, enabled, _ = palette
            last = _Key(
                binding.key,
                self.app.get_key_display(binding),
                binding.description,
                binding.action,
                not enabled,
                binding.tooltip or binding.description,
            )
        return _Plan(tuple(keys), last, self.compact)

    def compose(self) -> ComposeResult:
        """The keys of :meth:`_plan` (the one :meth:`recompose` just made, or made now at the
        first mount); the palette's key docked right, as Textual does."""
        if self._shown is None:
            self._shown = self._plan()
        plan = self._shown
        if plan is None:
            return
        self.styles.grid_size_columns = len(plan.keys)
        for key in plan.keys:
            yield key.widget().data_bind(compact=Footer.compact)
        if plan.palette is not None:
            yield plan.palette.widget(classes="-command-palette")


class _Key(NamedTuple):
    key: str
    display: str
    description: str
    action: str
    disabled: bool
    tooltip: str

    def widget(self, classes: str = "") -> FooterKey:
        return FooterKey(
            self.key,
            self.display,
            self.description,
            self.action,
            classes=classes,
            disabled=self.disabled,
            tooltip=self.tooltip,
        )


class _Plan(NamedTuple):
    """What a footer shows: its keys, the palette's key, and whether it is compact."""

    keys: tuple[_Key, ...]
    palette: _Key | None
    compact: bool


def _key_width(footer: Footer, display: str, description: str) -> int:
    """The cells one key takes in ``footer``: the key, a space, its words and the gap after
    (the full style pads the key on both sides)."""
    return cell_len(display) + cell_len(description) + (2 if footer.compact else 3)


class Breadcrumb(Static):
    """Hubs › hub › project: where the person is."""

    DEFAULT_CSS = """
    Breadcrumb {
        height: auto;
        max-height: 2;
        padding: 0 1;
        background: $primary-muted;
        color: $text;
        text-style: bold;
    }
    """

    def show_path(self, *parts: str) -> None:
        """Show the path; each part is server data and is shown literally."""
        self.update(Content(f" {SEPARATOR} ".join(inert(p, limit=120) for p in ("Hubs", *parts))))


class Summary(Static):
    """One line of counts and state above a list."""

    DEFAULT_CSS = """
    Summary {
        height: auto;
        max-height: 3;
        overflow-y: auto;
        scrollbar-size-vertical: 1;
        padding: 0 1;
        color: $text-muted;
    }
    """

    #: Whether the line shown last fit the width it was laid out at (one line high).
    _one_line = False

    def say(self, text: str) -> None:
        """Show one line; it may hold what a person typed or a server sent, so it is inert.

        A line that fits after one that fit is drawn without laying the screen out again: its
        height is the same. A load's progress says itself ten times a second, and each layout
        of the screen was 5 ms of a firm's `P` (0.4 s of it)."""
        shown = inert(text, limit=400)
        fits = 0 < cell_len(shown) <= self.content_region.width
        self.update(Content(shown), layout=not (fits and self._one_line))
        self._one_line = fits


class StatusLine(Static):
    """Server, API version and read-only state, always visible."""

    DEFAULT_CSS = """
    StatusLine {
        height: auto;
        max-height: 2;  /* offline at 80 columns, the server's name and the API: wrapped, whole */
        padding: 0 1;
        background: $panel;
        color: $text-muted;
    }
    """

    def show_status(
        self,
        *,
        server: str,
        api_version: str,
        read_only: bool,
        profile: str | None = None,
        note: str | None = None,
    ) -> None:
        where = f"server {inert(server, limit=60)}"
        if profile:
            where = f"profile {inert(profile, limit=30)} · {where}"
        # Read-only first: on a narrow terminal that says the most, whatever follows.
        parts = ["READ-ONLY (no changes)"] if read_only else []
        if note:
            parts.append(note)
        parts += [where, f"API {api_version}"]
        if not read_only:
            parts.append("changes allowed")
        self.update(Content(" · ".join(parts)))


class ProblemPanel(Static):
    """What went wrong, in words, on the screen that asked; hidden when all is well."""

    DEFAULT_CSS = """
    ProblemPanel {
        display: none;
        height: auto;
        max-height: 6;
        padding: 0 1;
        background: $error-muted;
        color: $text;
        border-left: thick $error;
    }
    """

    def show_problem(self, message: str, *, hint: str = "Press r to try again.") -> None:
        self.update(
            Content.assemble((f"{WARNING} ", "bold"), inert(message, limit=600), "\n", hint)
        )
        self.display = True

    def clear(self) -> None:
        self.update("")
        self.display = False


class AccessPanel(VerticalScroll):
    """Why the highlighted person can do what they can, in words, under the list.

    Its height never changes, and the words are only sent again when they differ: moving the
    cursor costs the terminal the panel's text, never a repaint of the list or of the rule above.
    Words that do not fit (80×24) are never cut: the panel scrolls, its scroll bar saying there
    is more (the wheel, or tab to it and the arrows).
    """

    # A fixed height: moving between rows never resizes the list above (which would repaint it).
    DEFAULT_CSS = """
    AccessPanel {
        height: 5;
        padding: 0 1;
        border-top: solid $primary;
        scrollbar-size-vertical: 1;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._shown: Content | str = ""

    def compose(self) -> ComposeResult:
        yield Static()

    def explain(self, text: Content | str) -> None:
        """Show ``text`` (hubtui's words around inert server data)."""
        if text != self._shown:
            self._shown = text
            self.query_one(Static).update(text)

    @property
    def text(self) -> str:
        return self._shown.plain if isinstance(self._shown, Content) else self._shown


class FilterBar(Input):
    """The `/` filter: hidden until asked for."""

    DEFAULT_CSS = """
    FilterBar {
        display: none;
        height: 3;
    }
    """

    # In the filter box, escape clears it (backspace edits the text): the footer says so.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "screen.back", "Clear filter", key_display="esc")
    ]
