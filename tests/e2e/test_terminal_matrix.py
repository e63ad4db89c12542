"""The installed command in the terminals support people have: small windows, TERM variants,
NO_COLOR, and over a real SSH connection. Each run reads where you are, both names, the LIMITED
word and the counts, and quits with status 0."""

from __future__ import annotations

import getpass
import os
import re
import shlex
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.harness.harness import free_port, hubtui_command, wait_for_port
from tests.harness.tmux import Terminal

pytestmark = pytest.mark.e2e

#: What a console's font holds: Latin-1 and the box lines.
CONSOLE_FONT = re.compile(r"[^\x00-\xff─│┌┐└┘├┤┬┴┼]")


def sgr_colours(screen: str) -> Iterator[str]:
    """Every colour set by the screen's SGR sequences (39 and 49, the defaults, are none)."""
    for params in re.findall(r"\x1b\[([0-9;]*)m", screen):
        for param in params.split(";"):
            if param and (30 <= int(param) <= 38 or 40 <= int(param) <= 48 or int(param) >= 90):
                yield param


def walk(terminal: Terminal) -> dict[str, str]:
    """hubs → hub detail → project users (end of the list) → quit; the screen at each step."""
    screens = {"hubs": terminal.wait_for("Hubs", "acme-build", "8 hubs", timeout=30)}
    terminal.send("Enter")
    screens["hub"] = terminal.wait_for("Hubs ", "acme-build", "ACME", "3 projects", " Open ")
    terminal.send("Enter")
    screens["users"] = terminal.wait_for("Harbour Bridge", "12 users", "limited")
    terminal.send("End")
    screens["limited"] = terminal.wait_for("LIMITED", "Kai Nakamura")
    terminal.send("q")
    assert terminal.exit_status() == 0
    return screens


@pytest.mark.parametrize(
    ("width", "height", "term", "no_color"),
    [
        (80, 24, "xterm-256color", False),
        (60, 16, "xterm-256color", False),
        (200, 60, "xterm-256color", False),
        (80, 24, "screen", False),
        (80, 24, "linux", False),
        (80, 24, "xterm-256color", True),
    ],
    ids=["80x24", "60x16", "200x60", "screen", "linux", "no-color"],
)
def test_the_walk_reads_right(width: int, height: int, term: str, no_color: bool) -> None:
    env = [f"TERM={term}"] + (["NO_COLOR=1"] if no_color else [])
    terminal = Terminal(["env", *env, *hubtui_command(), "--demo"], width=width, height=height)
    try:
        if no_color:
            terminal.wait_for("acme-build", timeout=30)
            colours = set(sgr_colours(terminal.screen_with_attributes()))
            assert not colours, f"colour sent under NO_COLOR: {colours}"
        screens = walk(terminal)
    finally:
        terminal.close()
    hub = screens["hub"].splitlines()
    assert hub[0].startswith(" Hubs ")
    assert "Name" in screens["hub"]
    assert "DisplayName" in screens["hub"]
    if term == "linux":
        for name, screen in screens.items():
            odd = set(CONSOLE_FONT.findall(screen))
            assert not odd, f"{name}: {odd} are not in a console font"
        assert "!=" in screens["hubs"]
        assert "enter Open" in screens["hub"]


@pytest.fixture
def loopback_sshd(tmp_path: Path) -> Iterator[tuple[int, Path]]:
    """An sshd on a free loopback port that lets this user in with a key made for the test."""
    sshd = shutil.which("sshd") or "/usr/sbin/sshd"
    if not Path(sshd).exists() or not shutil.which("ssh"):
        pytest.fail("sshd and ssh are needed for this test: apt-get install openssh-server")
    keys = tmp_path / "keys"
    keys.mkdir(mode=0o700)
    for name in ("host", "client"):
        subprocess.run(
            ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(keys / name)], check=True
        )
    authorized = keys / "authorized_keys"
    authorized.write_text((keys / "client.pub").read_text())
    authorized.chmod(0o600)
    port = free_port()
    config = tmp_path / "sshd_config"
    config.write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {keys / 'host'}\n"
        f"AuthorizedKeysFile {authorized}\nPasswordAuthentication no\nUsePAM no\n"
        "PermitRootLogin prohibit-password\nStrictModes no\n"
        f"PidFile {tmp_path / 'sshd.pid'}\nAcceptEnv LANG LC_*\n"
    )
    Path("/run/sshd").mkdir(exist_ok=True)
    process = subprocess.Popen([sshd, "-D", "-e", "-f", str(config)], stderr=subprocess.PIPE)
    try:
        wait_for_port(port, process)
        if process.poll() is not None:
            pytest.fail(f"sshd did not start: {process.stderr.read().decode()}")  # type: ignore[union-attr]
        yield port, keys / "client"
    finally:
        process.terminate()
        process.wait(timeout=10)
        process.stderr.close()  # type: ignore[union-attr]


def test_the_walk_over_ssh(loopback_sshd: tuple[int, Path], tmp_path: Path) -> None:
    port, key = loopback_sshd
    remote = " ".join(
        [
            f"cd {shlex.quote(os.getcwd())} &&",
            f"HOME={shlex.quote(str(tmp_path))}",
            "TERM=xterm-256color",
            shlex.join([*hubtui_command(), "--demo"]),
        ]
    )
    command = [
        "ssh",
        "-tt",
        "-p",
        str(port),
        "-i",
        str(key),
        "-o",
        "StrictHostKeyChecking=no",
        "-o",
        f"UserKnownHostsFile={tmp_path / 'known_hosts'}",
        "-o",
        "LogLevel=ERROR",
        f"{getpass.getuser()}@127.0.0.1",
        remote,
    ]
    terminal = Terminal(command, width=80, height=24)
    try:
        screens = walk(terminal)
    finally:
        terminal.close()
    assert screens["hub"].splitlines()[0].startswith(" Hubs ")
    assert "Grace Osei" in screens["users"] or "LIMITED" in screens["limited"]
