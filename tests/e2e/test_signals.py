"""A kill or an SSH hang-up mid-change: the terminal is restored and the change log completed."""

from __future__ import annotations

import json
import os
import shlex
import signal
import time
import uuid
from pathlib import Path

import pytest

from bench.tmux import Terminal
from tests.conftest import hubtui_command, running_demo_server

pytestmark = pytest.mark.e2e


def pid_with_marker(marker: str, timeout: float = 10.0) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                environ = (entry / "environ").read_bytes()
                command = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if marker.encode() in environ and b"hubtui" in command and b"sh\x00-c" not in command:
                return int(entry.name)
        time.sleep(0.1)
    raise AssertionError("hubtui's process was not found")


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_signal_mid_change_restores_the_terminal_and_logs_unknown(
    number: signal.Signals, tmp_path: Path
) -> None:
    marker = f"HUBTUI_TEST_MARK={uuid.uuid4().hex}"
    code, tty = tmp_path / "code", tmp_path / "stty"
    with running_demo_server("--change-latency", "30") as url:
        app = shlex.join(
            ["env", marker, "HUBTUI_TOKEN=demo-token", f"HUBTUI_DATA_DIR={tmp_path}"]
            + [*hubtui_command(), "--base-url", url]
        )
        line = f"{app}; echo $? > {code}; stty -a > {tty}; sleep 60"
        terminal = Terminal(["sh", "-c", line], width=100, height=30)
        try:
            terminal.wait_for("acme-build", "8 hubs")
            terminal.send("Enter")
            terminal.wait_for("Harbour Bridge Retrofit")
            terminal.send("Enter")
            terminal.wait_for("12 users")
            terminal.send("a")
            terminal.wait_for("Add a user to")
            time.sleep(0.3)  # at a person's pace: the form takes a moment to focus its field
            terminal.type("hangup@acme-build.com")
            terminal.wait_for("hangup@acme-build.com")
            time.sleep(0.3)
            terminal.send("C-s")
            terminal.wait_for("Sending", timeout=30)
            os.kill(pid_with_marker(marker), number)
            deadline = time.monotonic() + 15
            while not (code.exists() and tty.exists() and tty.read_text()):
                assert time.monotonic() < deadline, terminal.screen()
                time.sleep(0.1)
            state = terminal._tmux(
                "display-message", "-p", "-t", "main", "#{alternate_on} #{mouse_any_flag}"
            )
        finally:
            terminal.close()
    assert int(code.read_text()) == 128 + number
    settings = tty.read_text().split()
    assert "icanon" in settings  # cooked mode again, not raw
    assert "echo" in settings
    assert state.split() == ["0", "0"]  # off the alternate screen, mouse tracking off
    lines = [json.loads(x) for x in (tmp_path / "changes.jsonl").read_text().splitlines()]
    assert [x["outcome"] for x in lines] == ["pending", "unknown"]
    assert signal.Signals(number).name in lines[-1]["detail"]
    assert lines[-1]["server"].startswith("127.0.0.1:")
