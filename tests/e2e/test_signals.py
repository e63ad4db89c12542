"""A kill or an SSH hang-up mid-change: the terminal is restored and the change log completed."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import time
import uuid
from pathlib import Path

import httpx
import pytest

from tests.harness.harness import (
    every_core_busy,
    hubtui_command,
    running_demo_server,
    wait_in_flight,
)
from tests.harness.pty_terminal import PtyTerminal
from tests.harness.tmux import Terminal

pytestmark = pytest.mark.e2e


def marked_processes(marker: str) -> list[tuple[int, bytes]]:
    """(pid, command line) of every live process (no zombie) whose environment holds
    ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            command = (entry / "cmdline").read_bytes()
            status = (entry / "status").read_text()
        except OSError:
            continue
        if marker.encode() in environ and "State:\tZ" not in status:
            found.append((int(entry.name), command))
    return found


def pid_with_marker(marker: str, timeout: float = 10.0) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for pid, command in marked_processes(marker):
            if b"hubtui" in command and b"sh\x00-c" not in command:
                return pid
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
            terminal.wait_for("Confirm: add hangup@acme-build.com", timeout=30)
            terminal.send("y")
            terminal.wait_for("Sending", timeout=30)
            wait_in_flight(url, 1)  # its pending line is down and the request has left
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
    assert lines[-1]["server"].startswith("http://127.0.0.1:")  # the whole base URL


@pytest.mark.slow
def test_a_hang_up_mid_batch_logs_every_row_sent_and_restores_the_terminal(
    tmp_path: Path,
) -> None:
    """SIGHUP while a batch is sent: every row that left has its pending line and its outcome
    (unknown), no row was sent unlogged, and the terminal is itself again."""
    marker = f"HUBTUI_TEST_MARK={uuid.uuid4().hex}"
    code, tty = tmp_path / "code", tmp_path / "stty"
    with running_demo_server("--change-latency", "30") as url:
        app = shlex.join(
            ["env", marker, "HUBTUI_TOKEN=demo-token", f"HUBTUI_DATA_DIR={tmp_path}"]
            + [*hubtui_command(), "--base-url", url]
        )
        line = f"{app}; echo $? > {code}; stty -a > {tty}; sleep 60"
        terminal = Terminal(["sh", "-c", line], width=80, height=24)
        try:
            terminal.wait_for("acme-build", "8 hubs")
            terminal.send("Enter")
            terminal.wait_for("Harbour Bridge Retrofit")
            terminal.send("Enter")
            terminal.wait_for("12 users")
            terminal.send("*")
            terminal.wait_for("12 marked")
            terminal.send("m")
            terminal.wait_for("Set role: Editor")
            terminal.send("Down")
            time.sleep(0.2)
            terminal.send("Enter")
            terminal.wait_for("12 staged")
            terminal.send("b")
            terminal.wait_for("to send (0 adds")
            terminal.send("a")
            terminal.wait_for("changes?")
            terminal.send("y")
            terminal.wait_for("Sending batch", timeout=30)
            wait_in_flight(url, 4)
            os.kill(pid_with_marker(marker), signal.SIGHUP)
            deadline = time.monotonic() + 15
            while not (code.exists() and tty.exists() and tty.read_text()):
                assert time.monotonic() < deadline, terminal.screen()
                time.sleep(0.1)
        finally:
            terminal.close()
    assert int(code.read_text()) == 128 + signal.SIGHUP
    settings = tty.read_text().split()
    assert "icanon" in settings
    assert "echo" in settings
    lines = [json.loads(x) for x in (tmp_path / "changes.jsonl").read_text().splitlines()]
    pending = {x["id"] for x in lines if x["outcome"] == "pending"}
    assert len(pending) == 4  # the four members to change, all in flight (concurrency 8)
    ended = {x["id"]: x for x in lines if x["outcome"] != "pending"}
    assert set(ended) == pending  # each row that left has its outcome
    assert {x["outcome"] for x in ended.values()} == {"unknown"}
    assert len({x["batch"] for x in lines}) == 1


def test_no_hang_up_leaves_a_process_behind(tmp_path: Path) -> None:
    """Terminals closed at many points of start-up and of a screen load, under CPU load: with
    SIGHUP (tmux, the terminal's own process) and without it (a terminal hubtui does not
    control): every hubtui ends, none is left with parent 1."""
    marker = f"HUBTUI_TEST_MARK={uuid.uuid4().hex}"
    env = {**os.environ, "HUBTUI_DATA_DIR": str(tmp_path), marker.split("=")[0]: marker}
    closed: list[subprocess.Popen[bytes]] = []
    with every_core_busy():
        for n in range(8):
            terminal = PtyTerminal([*hubtui_command(), "--demo"], width=80, height=24, env=env)
            closed.append(terminal.process)
            ends = time.monotonic() + n * 0.3  # from before the first frame to a loaded list
            while time.monotonic() < ends:
                os.write(terminal.master, b"\x1b[B\r\x1b")  # open a hub, come back: loads
                terminal.read_until_quiet(quiet=0.01, timeout=0.03)
            os.close(terminal.master)  # the terminal goes; no SIGHUP reaches hubtui
        for n in range(5):
            app = shlex.join(["env", marker, f"HUBTUI_DATA_DIR={tmp_path}", *hubtui_command()])
            tmux = Terminal(["sh", "-c", f"exec {app} --demo"], width=80, height=24)
            time.sleep(n * 0.5)
            tmux.send("Enter")
            tmux.close()  # the tmux server and its terminals go: SIGHUP
        deadline = time.monotonic() + 15
        while marked_processes(marker) and time.monotonic() < deadline:
            time.sleep(0.2)
        survivors = [pid for pid, _ in marked_processes(marker)]
    for pid in survivors:
        os.kill(pid, signal.SIGKILL)
    for process in closed:
        process.wait()
    assert survivors == []


def test_a_signal_ends_hubtui_even_when_its_output_is_stuck(tmp_path: Path) -> None:
    """Nobody reads the terminal (a frozen SSH link): Textual's output queue fills and its
    orderly shutdown would wait for ever. SIGTERM still ends hubtui, within seconds."""
    env = {**os.environ, "HUBTUI_DATA_DIR": str(tmp_path)}
    terminal = PtyTerminal([*hubtui_command(), "--demo"], width=200, height=60, env=env)
    try:
        terminal.wait_for(b"acme-build")
        for _ in range(300):  # repaints that nobody reads
            os.write(terminal.master, b"\x1b[B\x1b[A/x\x1b")
        time.sleep(1)
        terminal.process.send_signal(signal.SIGTERM)
        assert terminal.process.wait(timeout=10) == 128 + signal.SIGTERM
    finally:
        terminal.close()


def test_ctrl_c_and_no_at_the_question_send_nothing(tmp_path: Path) -> None:
    with running_demo_server() as url:
        command = shlex.join(
            ["env", "HUBTUI_TOKEN=demo-token", f"HUBTUI_DATA_DIR={tmp_path}"]
            + [*hubtui_command(), "--base-url", url, "add-user", "acme-build", "1002"]
        )
        for answer, status in (("C-c", 130), ("n", 2)):
            terminal = Terminal(
                ["sh", "-c", f"exec {command} asked-{status}@acme-build.com Editor"], width=100
            )
            try:
                terminal.wait_for("Send this change? [y/N]")
                terminal.send(answer)
                if answer == "n":
                    terminal.send("Enter")
                assert terminal.exit_status(timeout=5) == status
            finally:
                terminal.close()
        stats = httpx.get(f"{url}/_demo/stats", headers={"Authorization": "Bearer demo-token"})
        assert stats.json()["creates"] == 0
    assert not (tmp_path / "changes.jsonl").exists()  # nothing was about to be sent
