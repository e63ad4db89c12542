"""How the app ends for certain: a terminal closed under it (SSH hang-up), SIGTERM or SIGHUP
end it like a quit (the change log completed, the terminal restored), and a watchdog ends the
process when Textual's shutdown waits on output nobody reads any more."""

from __future__ import annotations

import asyncio
import os
import select
import signal
import threading
import time
from collections.abc import Callable
from typing import Any

#: After SIGTERM or SIGHUP, how long the orderly shutdown may take before the process ends
#: anyway: with the terminal gone, Textual's shutdown can wait forever on output nobody reads.
EXIT_WATCHDOG_SECONDS = 3.0


class Ending:
    """The signals and the terminal's hang-up, for one app: ``exit`` ends it in order."""

    def __init__(self, abandon: Callable[[str], None], exit: Callable[[int], None]) -> None:
        #: What is in flight logged unknown, with why (every change log of the workspace).
        self._abandon = abandon
        self._exit = exit
        self._watchdog_armed = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._before: dict[int, Any] = {}

    def install(self) -> None:
        """On the app's loop: SIGTERM and SIGHUP end it. The handler is Python's own, not the
        event loop's: it runs even when the loop is stuck writing to a terminal that is gone,
        and arms a watchdog that ends the process for certain."""
        loop = self._loop = asyncio.get_running_loop()

        def handler(number: int, frame: object) -> None:
            self._arm_watchdog(number)
            loop.call_soon_threadsafe(self.signalled, number)

        for number in (signal.SIGTERM, signal.SIGHUP):
            self._before[number] = signal.signal(number, handler)

    def uninstall(self) -> None:
        """The process may go on (a test run, an embedding program): its own handlers return."""
        for number, before in self._before.items():
            signal.signal(number, before)
        self._before.clear()

    def watch_terminal(self) -> None:
        """From before the app starts until the process ends: a terminal can go without a
        SIGHUP reaching hubtui (it is not the terminal's controlling process, or SIGHUP is
        ignored), and its input then reads nothing for ever. Its hang-up is seen here and ends
        hubtui as SIGHUP would."""

        def watch() -> None:
            poll = select.poll()
            poll.register(0, 0)  # hang-up and error are always reported; no input is taken
            gone = select.POLLHUP | select.POLLERR | select.POLLNVAL
            while not any(mask & gone for _, mask in poll.poll()):
                pass
            self._arm_watchdog(signal.SIGHUP)
            if self._loop is not None:
                self._loop.call_soon_threadsafe(self.signalled, signal.SIGHUP)

        threading.Thread(target=watch, name="hubtui-terminal-watch", daemon=True).start()

    def _arm_watchdog(self, number: int) -> None:
        """End the process within :data:`EXIT_WATCHDOG_SECONDS`, whatever the shutdown does;
        the change log's in-flight lines are written first if the loop did not get to it."""
        if self._watchdog_armed:
            return
        self._watchdog_armed = True
        why = f"hubtui was stopped ({signal.Signals(number).name}) before the answer came."

        def watch() -> None:
            time.sleep(EXIT_WATCHDOG_SECONDS)
            try:
                self._abandon(why)
            finally:
                os._exit(128 + number)

        threading.Thread(target=watch, name="hubtui-exit-watchdog", daemon=True).start()

    def signalled(self, number: int) -> None:
        name = signal.Signals(number).name
        self._abandon(f"hubtui was stopped ({name}) before the answer came.")
        self._exit(128 + number)
