"""Keys typed ahead land where they were typed for.

Over SSH, from a paste or from a fast typist, keys arrive in bursts: ``wpriya`` is one read of
the terminal. Textual hands every key to what has focus *when the key is handled*, and the
dialog ``w`` opens is pushed only after the keys behind it were handled by the list below it
(``r`` reloaded, ``y`` opened the copy dialog under the search); ``space m`` opened nothing,
the ``m`` read before the ``space`` had marked a row.

:class:`TypeAhead` hands the keys of a burst on one at a time, as a person typing them would:
each after what the key before it set going has happened (a dialog opened and took focus, a
row was marked). A character typed into a field is handed on at once: it cannot change where
the next key goes. No key is dropped, and none waits longer than :data:`LONGEST_HOLD`.

The command palette searches as it is typed into, and shows the hits of the text before the
last key until the search of all of it ends: Enter typed behind ``Team roster`` ran the first
line shown for ``Team rost``. A key that is not typed into the palette's field waits, itself,
until the palette has searched what was typed.
"""

from __future__ import annotations

import sys
from functools import partial
from typing import TYPE_CHECKING

from textual import events
from textual.command import CommandPalette
from textual.widgets import Input

if TYPE_CHECKING:
    from textual.app import App
    from textual.message_pump import MessagePump
    from textual.timer import Timer

__all__ = ["TypeAhead"]

#: The longest keys wait for what the key before them set going.
LONGEST_HOLD = 5.0
#: How often a hold looks again whether what its key set going has happened.
SETTLING = 0.01
#: How many times a hold looks for the focus of a screen just opened before it lets keys go.
FOCUS_WAITS = 50
#: How often, after a key's trail ends, the app looks whether the screen that was on top (and
#: was to say when it had painted) closed before it did: six frames at Textual's 60 a second.
PAINTED = 0.1

Held = events.Key | events.Paste


class TypeAhead:
    """The app's key gate: see the module's words. The app calls :meth:`intercept` for each
    event before handling it, and :meth:`handled` once a key from the terminal was."""

    def __init__(self, app: App[object]) -> None:
        self.app = app
        self._held: list[Held] | None = None
        self._key: events.Key | None = None
        self._timer: Timer | None = None
        #: The screen shown when the held key was pressed, and how often focus was awaited.
        self._screen: object | None = None
        self._waits = 0
        #: Which hold this is (each key that holds the others begins one), and whether the
        #: look at what its key set going has begun.
        self._hold = 0
        self._settling = False

    @property
    def holding(self) -> bool:
        return self._held is not None

    def intercept(self, event: events.Event) -> bool:
        """True when ``event`` (a key or paste from the terminal) is held for later."""
        if not isinstance(event, events.Key | events.Paste) or event.is_forwarded:
            return False
        if self._held is not None:
            self._held.append(event)
            return True
        typed = _takes_text(self.app.focused) and (
            isinstance(event, events.Paste) or event.is_printable
        )
        if isinstance(event, events.Key) and not typed:
            if isinstance(self.app.screen, CommandPalette) and not self._quiet():
                # The key itself waits for the palette's hits of what was typed.
                self._held, self._key = [event], None
                self._begin()
                self._settle()
                return True
            self._held, self._key = [], event
            self._begin()
        return False

    def _begin(self) -> None:
        """A hold begins: keys wait until what was on the screen now has settled."""
        self._screen, self._waits = self.app.screen, 0
        self._hold += 1
        self._timer = self.app.set_timer(LONGEST_HOLD, self._give_up)

    def handled(self, event: events.Event) -> None:
        """The app handled ``event`` from the terminal (forwarded it to what has focus, or ran
        a priority binding). For the key that holds the others: follow it up the way it
        bubbles, each node's callback queued behind it, so that once the trail is back at the
        app its binding has run wherever it did, or it was stopped on the way."""
        if event is self._key and self.app.screen_stack:
            self._trail(self.app.focused or self.app.screen, first=True)

    def _trail(self, node: MessagePump, *, first: bool = False) -> None:
        at: MessagePump | None = node if first else getattr(node, "parent", None)
        while at is not None and at is not self.app:
            if at.call_later(self._trail, at):
                return
            at = getattr(at, "parent", None)  # removed on the way (a dialog closed): go on up
        self._key = None
        self._settling = False
        # After what the binding posted, once the screen on top has painted. That screen runs
        # the callback after its next paint; one that closes before it paints never runs it
        # (the dialog its own key dismissed: the keys behind it then waited the whole
        # LONGEST_HOLD). So the app looks again every PAINTED, and looks for itself once that
        # screen is gone and its look never began.
        on_top = self.app.screen
        self.app.call_after_refresh(self._settle)
        self.app.set_timer(PAINTED, partial(self._unless_begun, self._hold, on_top))

    def _unless_begun(self, hold: int, on_top: object) -> None:
        if hold != self._hold or self._settling or self._held is None:
            return  # the look began, the keys went on, or another key holds them now
        if on_top in self.app.screen_stack:
            self.app.set_timer(PAINTED, partial(self._unless_begun, hold, on_top))
        else:
            self._settle()

    def _quiet(self) -> bool:
        """Whether the app, the screen on top and the one below it (a dialog being dismissed)
        have nothing left to handle: what the key set going has happened."""
        nodes: list[MessagePump] = [self.app]
        for screen in self.app.screen_stack[-2:]:
            nodes += [screen, *screen.walk_children()]
        if getattr(self.app.screen, "focus_pending", False):
            return False  # focus is promised to a list still loading: the keys are for it
        if _searching(self.app.screen):
            return False  # the palette's hits are of the text before the last key
        return all(node.message_queue_size == 0 for node in nodes)

    def _settle(self) -> None:
        self._settling = True
        if self._held is None or self._key is not None:
            return
        if not self.app.screen_stack or not self.app.is_running:
            self._held = None  # the app is ending: nothing is left to type into
            return
        if not self._quiet():
            self.app.set_timer(SETTLING, self._settle)
            return
        screen = self.app.screen
        opened = screen is not self._screen and self.app.focused is None and screen.focus_chain
        if opened and self._waits < FOCUS_WAITS:  # a screen just opened, its focus on its way
            self._waits += 1
            self.app.set_timer(SETTLING, self._settle)
            return
        self.app.call_later(self.release)

    def _give_up(self) -> None:
        self.app.call_later(self.release)

    async def release(self) -> None:
        """Hand the held keys on, in order, as if they came now: the first that is not typed
        into a field holds the rest again, until what it set going has happened."""
        held, self._held = self._held, None
        self._key = None
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        for event in held or ():
            await self.app.on_event(event)


def _searching(screen: object) -> bool:
    """Whether ``screen`` is the command palette searching what was typed into it (its one
    kind of worker)."""
    if not isinstance(screen, CommandPalette):
        return False
    return any(worker.node is screen and not worker.is_finished for worker in screen.app.workers)


def _takes_text(widget: object) -> bool:
    """Whether ``widget`` is a field a character is typed into. A ``TextArea`` is looked for
    only once its module is loaded (a dialog that pastes emails loads it): importing it for
    this check alone cost every start its module."""
    if isinstance(widget, Input):
        return True
    text_area = sys.modules.get("textual.widgets._text_area")
    return text_area is not None and isinstance(widget, text_area.TextArea)
