"""Drive a command in a real terminal: tmux on a private socket, keys in, screen text out."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import time
import uuid
from collections.abc import Callable
from pathlib import Path


def _terminal_env() -> dict[str, str]:
    # COLUMNS and LINES would override the real terminal size, so the app must not inherit them.
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "TMUX")}
    env["TERM"] = "xterm-256color"
    return env


class Terminal:
    def __init__(self, command: list[str], *, width: int = 100, height: int = 30) -> None:
        tmux = shutil.which("tmux")
        if tmux is None:
            raise RuntimeError("the real-terminal tests need tmux (apt-get install tmux)")
        self.tmux = tmux
        self.socket = f"hubtui-test-{uuid.uuid4().hex[:8]}"
        self.status_file = Path(f"/tmp/{self.socket}.status")
        shell_line = f"{shlex.join(command)}; echo $? > {shlex.quote(str(self.status_file))}"
        self._tmux(
            "new-session", "-d", "-s", "main", "-x", str(width), "-y", str(height), shell_line
        )

    def _tmux(self, *args: str) -> str:
        done = subprocess.run(
            [self.tmux, "-L", self.socket, "-f", "/dev/null", *args],
            capture_output=True,
            text=True,
            check=False,
            env=_terminal_env(),
        )
        return done.stdout

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", "main")

    def text(self) -> str:
        """Everything the terminal showed, its scrollback too, each wrapped line joined again."""
        return self._tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "main")

    def screen_with_attributes(self) -> str:
        """The screen with its colours and styles as escape sequences (capture-pane -e)."""
        return self._tmux("capture-pane", "-p", "-e", "-t", "main")

    def send(self, *keys: str) -> None:
        self._tmux("send-keys", "-t", "main", *keys)

    def type(self, text: str) -> None:
        self._tmux("send-keys", "-t", "main", "-l", text)

    def wait_for(self, *texts: str, timeout: float = 20.0, poll: float = 0.02) -> str:
        return self.wait_until(
            lambda screen: all(t in screen for t in texts), timeout, texts, poll=poll
        )

    def wait_until(
        self,
        ready: Callable[[str], bool],
        timeout: float = 20.0,
        what: object = None,
        poll: float = 0.02,
    ) -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if ready(screen):
                return screen
            time.sleep(poll)
        raise AssertionError(f"the terminal never showed {what!r}; it shows:\n{screen}")

    def exit_status(self, timeout: float = 15.0) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.status_file.exists() and self.status_file.read_text().strip():
                return int(self.status_file.read_text())
            time.sleep(0.1)
        raise AssertionError(f"the command did not exit; the terminal shows:\n{self.screen()}")

    def peak_memory_mb(self) -> float:
        """Peak resident memory (VmHWM) of the command running in the pane, in MB."""
        shell = self._tmux("display-message", "-p", "-t", "main", "#{pane_pid}").strip()
        children = Path(f"/proc/{shell}/task/{shell}/children").read_text().split()
        for line in Path(f"/proc/{children[0]}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        raise AssertionError("no VmHWM for the command")

    def close(self) -> None:
        self._tmux("kill-server")
        self.status_file.unlink(missing_ok=True)
