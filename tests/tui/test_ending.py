"""The app's SIGTERM and SIGHUP handlers are its own while it runs, and given back after."""

from __future__ import annotations

import signal

from tests.harness.app import running


async def test_the_signal_handlers_are_the_apps_while_it_runs_and_given_back_after() -> None:
    before = {number: signal.getsignal(number) for number in (signal.SIGTERM, signal.SIGHUP)}
    async with running() as pilot:
        during = {number: signal.getsignal(number) for number in before}
        assert all(handler is not before[number] for number, handler in during.items())
        assert pilot.app.is_running
    # A process that goes on after the app (a test run) is not ended 3 s after a later SIGTERM.
    assert {number: signal.getsignal(number) for number in before} == before
