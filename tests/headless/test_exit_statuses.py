"""One exit-status table for every command, a closed pipe that ends quietly, and the app that
refuses at once without a terminal."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from hubtui.cli import build_parser
from hubtui.headless import EXIT_TABLE
from tests.harness.commands import run
from tests.harness.harness import hubtui_command

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def server(shared_server: str) -> str:
    """The module's one server: its tests change nothing, or count what they change."""
    return shared_server


def test_help_and_readme_give_one_exit_status_table() -> None:
    help_text = " ".join(build_parser().format_help().split())
    readme = (ROOT / "README.md").read_text()
    for code, words in EXIT_TABLE:
        assert f"{code} {words}" in help_text
        assert f"| {code} | {words} |" in readme


@pytest.mark.parametrize(
    ("argv", "status", "says"),
    [
        (("hub", "no-such-hub"), 1, "No hub has the URL name or id"),
        (("projects", "no-such-hub"), 1, "No hub has the URL name or id"),
        (("users", "acme-build", "9999"), 1, "not found"),
        (("users", "acme-build", "1002", "--limited"), 1, "no limited readers in project 1002"),
        (("who", "nobody.at.all@nowhere.example", "--hub", "acme-build"), 1, "absent from"),
        (("who", "priya.patel@northwind-eng.com", "--hub", "nordic-rail"), 3, "not be read"),
    ],
    ids=["hub", "projects", "users-404", "users-empty", "who-nobody", "who-incomplete"],
)
def test_not_found_is_1_and_incomplete_is_3_for_every_reading_command(
    server: str,
    capsys: pytest.CaptureFixture[str],
    argv: tuple[str, ...],
    status: int,
    says: str,
) -> None:
    got, out, err = run(capsys, "--base-url", server, *argv, "--format", "table")
    assert got == status, err
    assert says in err
    if status == 1:
        assert out == ""  # for pipes: nothing on stdout, the words on stderr


def test_a_closed_pipe_ends_quietly() -> None:
    process = subprocess.Popen(
        [*hubtui_command(), "--demo", "who", "@northwind-eng.com", "--format", "jsonl"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "HUBTUI_CONFIG": "/nonexistent.toml"},
    )
    assert process.stdout is not None
    process.stdout.close()  # the reader is gone before anything is written (`| head -0`)
    _, errors = process.communicate(timeout=60)
    err = errors.decode()
    assert process.returncode == 141
    assert "Traceback" not in err
    assert "BrokenPipeError" not in err


@pytest.mark.parametrize("not_a_terminal", ["stdin", "stdout"])
def test_the_app_refuses_at_once_without_a_terminal(not_a_terminal: str) -> None:
    """Input from /dev/null, or output into a pipe: no escape codes into it, no spin, exit 2."""
    master, terminal = os.openpty()
    try:
        started = time.monotonic()
        finished = subprocess.run(
            [*hubtui_command(), "--demo"],
            stdin=subprocess.DEVNULL if not_a_terminal == "stdin" else terminal,
            stdout=subprocess.PIPE if not_a_terminal == "stdout" else terminal,
            stderr=subprocess.PIPE,
            timeout=30,
            env={**os.environ, "TERM": "xterm-256color", "HUBTUI_CONFIG": "/nonexistent.toml"},
        )
        os.set_blocking(master, False)
        try:
            on_terminal = os.read(master, 65536)
        except BlockingIOError:
            on_terminal = b""
    finally:
        os.close(master)
        os.close(terminal)
    assert finished.returncode == 2
    assert time.monotonic() - started < 20
    assert b"\x1b" not in (finished.stdout or b"") + on_terminal  # no escape codes anywhere
    said = " ".join(finished.stderr.decode().split())
    assert f"standard {'input' if not_a_terminal == 'stdin' else 'output'} is not one" in said
    assert "hubtui hubs, hub, projects, users, who" in said
