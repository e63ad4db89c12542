"""A command in a pseudo-terminal of a given size: keys in, every byte it writes counted.

What the app writes to its terminal is what crosses an SSH connection, so bytes per keystroke
here are the bytes a support person's link carries.
"""

from __future__ import annotations

import fcntl
import os
import select
import signal
import struct
import subprocess
import termios
import time
from collections.abc import Mapping, Sequence

KEYS = {
    "down": b"\x1b[B",
    "up": b"\x1b[A",
    "enter": b"\r",
    "escape": b"\x1b",
    "backspace": b"\x7f",
}


class PtyTerminal:
    def __init__(
        self,
        command: Sequence[str],
        *,
        width: int,
        height: int,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", height, width, 0, 0))
        environment = {
            k: v for k, v in (env or os.environ).items() if k not in ("COLUMNS", "LINES")
        }
        environment.setdefault("TERM", "xterm-256color")
        self.process = subprocess.Popen(
            list(command),
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=environment,
            start_new_session=True,
        )
        os.close(slave)
        self.screen_bytes = bytearray()

    def read_until_quiet(self, quiet: float = 0.25, timeout: float = 30.0) -> bytes:
        """Everything written until nothing more came for ``quiet`` seconds."""
        out = bytearray()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.master], [], [], quiet)
            if not ready:
                break
            try:
                chunk = os.read(self.master, 65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        self.screen_bytes += out
        return bytes(out)

    def wait_for(self, text: bytes, timeout: float = 30.0, *, since: int = 0) -> None:
        """Read until ``text`` has been written (anywhere since start-up, or since the app's
        first ``since`` bytes)."""
        deadline = time.monotonic() + timeout
        while self.screen_bytes.find(text, since) < 0:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{text!r} never appeared")
            self.read_until_quiet(quiet=0.05, timeout=1)

    def key(self, name: str, *, until: bytes | None = None) -> bytes:
        """Send a key and return what the app wrote in answer: until it was quiet,
        or, with ``until``, until it wrote ``until`` and was quiet after it (a screen that
        loads can pause longer than a quiet gap on a busy machine, its loading indicator
        still turning)."""
        start = len(self.screen_bytes)
        os.write(self.master, KEYS.get(name, name.encode()))
        if until is not None:
            self.wait_for(until, since=start)
        self.read_until_quiet()
        return bytes(self.screen_bytes[start:])

    def close(self) -> None:
        try:
            os.killpg(self.process.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        os.close(self.master)
