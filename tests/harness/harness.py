"""Running hubtui and its demo server as separate processes, for benchmarks and tests."""

from __future__ import annotations

import glob
import os
import re
import select
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from hubtui.demo import DEMO_TOKEN


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def hubtui_command() -> list[str]:
    """The installed command, beside this interpreter."""
    script = Path(sys.executable).with_name("hubtui")
    return [str(script)] if script.exists() else [sys.executable, "-m", "hubtui"]


def wait_for_port(
    port: int,
    process: subprocess.Popen[bytes] | None = None,
    timeout: float = 20.0,
    host: str = "127.0.0.1",
) -> None:
    """Wait until a server listens on the loopback port (or its process has exited)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"demo-server exited with {process.returncode}")
        try:
            with socket.create_connection((host, port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listened on port {port} in time")


@contextmanager
def running_demo_server(
    *flags: str, host: str = "127.0.0.1", port: int | None = None, own_core: bool = False
) -> Iterator[str]:
    """Run `hubtui demo-server` with these flags on a loopback address and port (by default one
    it picks itself); yield its URL. ``own_core``: as :func:`server_process`.

    The URL is the one its banner names, printed once it listens: a port picked here and
    handed over could be taken by another test's server in between, and this server's
    requests would then reach that one."""
    command = [*hubtui_command(), "demo-server", "--host", host, "--port", str(port or 0), *flags]
    with server_process(command, own_core=own_core, banner=True) as process:
        yield _banner_url(process)


def _banner_url(process: subprocess.Popen[bytes], timeout: float = 20.0) -> str:
    """The URL a demo server's banner names (it prints it once it listens)."""
    assert process.stdout is not None
    ready, _, _ = select.select([process.stdout], [], [], timeout)
    line = process.stdout.readline().decode(errors="replace") if ready else ""
    found = re.search(r"http://\S+:\d+", line)
    if found is None:
        errors = process.stderr if process.poll() is not None else None
        why = errors.read().decode(errors="replace") if errors is not None else ""
        raise RuntimeError(f"demo-server named no address: {line!r} {why}".strip())
    return found.group()


@contextmanager
def server_process(
    command: list[str], *, own_core: bool = False, banner: bool = False
) -> Iterator[subprocess.Popen[bytes]]:
    """``command`` run as a server (its output thrown away, or kept in a pipe with ``banner``,
    its errors kept in a pipe) until the block ends. ``own_core``: where this process may run
    on two cores or more, the server runs on one of them and this process on the others, until
    the server ends."""
    ours = os.sched_getaffinity(0)
    server_core = {max(ours)} if own_core and len(ours) >= 2 else None
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE if banner else subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=None if server_core is None else lambda: os.sched_setaffinity(0, server_core),
    )
    if server_core is not None:
        os.sched_setaffinity(0, ours - server_core)
    try:
        yield process
    finally:
        if server_core is not None:
            os.sched_setaffinity(0, ours)
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        for pipe in (process.stdout, process.stderr):
            if pipe:
                pipe.close()


def wait_in_flight(url: str, count: int, timeout: float = 30.0) -> None:
    """Until the demo server holds ``count`` requests unanswered: the changes have left."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        stats = httpx.get(f"{url}/_demo/stats", headers={"Authorization": f"Bearer {DEMO_TOKEN}"})
        if stats.json()["in_flight"] >= count:
            return
        time.sleep(0.05)
    raise AssertionError(f"{count} requests never reached the server together")


def idle_cores(interval: float = 0.3) -> int:
    """How many of the cores this process may run on were idle over the next ``interval``
    seconds, from /proc/stat (all of them where it cannot be read)."""
    cores = os.sched_getaffinity(0)

    def idle_and_total() -> tuple[int, int]:
        idle = total = 0
        for line in Path("/proc/stat").read_text().splitlines():
            name, *ticks = line.split()
            if name.startswith("cpu") and name[3:].isdigit() and int(name[3:]) in cores:
                numbers = [int(t) for t in ticks[:8]]  # user … steal (guest is within user)
                idle += numbers[3] + numbers[4]  # idle, iowait
                total += sum(numbers)
        return idle, total

    try:
        idle_before, total_before = idle_and_total()
        time.sleep(interval)
        idle_after, total_after = idle_and_total()
    except (OSError, ValueError, IndexError):
        return len(cores)
    spent = total_after - total_before
    if spent <= 0:
        return len(cores)
    return round(len(cores) * (idle_after - idle_before) / spent)


@contextmanager
def every_core_busy() -> Iterator[int]:
    """Every core kept busy while the block runs: a spinning process for each core idle now
    (yielded: how many). Alone that is every core; in a run of the suite the other test workers
    keep most of them busy already, and burning them twice over would only slow the run."""
    burners = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(idle_cores())
    ]
    try:
        yield len(burners)
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()


def loopback_socket() -> socket.socket:
    """A TCP socket bound to a free loopback port, for a server run in this process: bound here
    and handed to the server, no other test's server can take its port in between."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    return sock


def start_in_thread(server: uvicorn.Server, sock: socket.socket) -> threading.Thread:
    """``server`` run in a thread on ``sock``, once it accepts connections."""
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the server did not start")
        time.sleep(0.01)
    return thread


@contextmanager
def serving(app: Any) -> Iterator[str]:
    """``app`` over real HTTP on a free loopback port, in a thread; its URL."""
    sock = loopback_socket()
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = start_in_thread(server, sock)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


#: What the real-terminal, SSH, browser and team-store tests drive, by the Debian package that
#: brings it.
SYSTEM_PACKAGES = {
    "tmux": "tmux",
    "openssh-server": "/usr/sbin/sshd",
    "openssh-client": "ssh",
    "chromium": "chromium",
    "postgresql": "/usr/lib/postgresql/*/bin/initdb",
}


def missing_packages() -> list[str]:
    return [
        name
        for name, command in SYSTEM_PACKAGES.items()
        if not (glob.glob(command) if command.startswith("/") else shutil.which(command))
    ]
