"""Shared fixtures: the demo API in-process and over real HTTP, and clients of both."""

from __future__ import annotations

import gc
import glob
import json
import os
import shutil
import sqlite3
import subprocess
import threading
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import trustme
import uvicorn
from starlette.types import ASGIApp, Receive, Scope, Send

from hubtui.api import HubClient
from hubtui.core.store import SCHEMA, Store
from hubtui.demo import DEMO_TOKEN, DemoStore, Faults, create_app
from tests.harness.fronts import answer_rewritten
from tests.harness.harness import free_port as free_port
from tests.harness.harness import hubtui_command as hubtui_command
from tests.harness.harness import running_demo_server as running_demo_server
from tests.harness.harness import serving as serving
from tests.harness.harness import wait_for_port as wait_for_port
from tests.harness.postgres import PostgresServer

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


def pytest_configure(config: pytest.Config) -> None:
    """The one test command brings what its real-terminal, SSH and browser tests need: where a
    package is missing and this is root with apt-get (a fresh machine, CI), it is installed
    once, before the workers start; elsewhere the tests that need it say which to install."""
    if hasattr(config, "workerinput") or os.environ.get("HUBTUI_NO_INSTALL"):
        return
    missing = missing_packages()
    if not missing or os.geteuid() != 0 or shutil.which("apt-get") is None:
        return
    print(
        f"\n== installing {' '.join(missing)} for the real-terminal, browser and team-store tests",
        flush=True,
    )
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for command in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", *missing]):
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            print(f"   {' '.join(command)} failed: {done.stderr.strip()[-500:]}", flush=True)
            return


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto`` (the default): two test workers a core. Much of the suite waits on other
    processes (a demo server, a terminal, PostgreSQL, a browser): one worker a core left the
    cores idle a quarter of a run. ``PYTEST_XDIST_AUTO_NUM_WORKERS`` still sets the number."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # pytest-xdist's own hook reads it
    return 2 * len(os.sched_getaffinity(0))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The ``slow`` tests first, each part in its own order: the workers share them out early,
    and a run ends on short tests, not on one long test while the other workers wait. The
    ``e2e`` tests stay spread among the rest: real terminals all at once starve each other."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection loaded (hubtui, Textual, the test modules) lives for the whole run:
    frozen out of the collector's reach, as the app freezes a large list it has built
    (``hubtui/tui/collection.py``), so that the collections each app test's objects set off
    do not walk it again and again (the app tests: 4 % less CPU, ``pytest -n 2 tests/tui``)."""
    gc.collect()
    gc.freeze()


@pytest.fixture(autouse=True)
def _no_bug_goes_unseen(
    request: pytest.FixtureRequest, caplog: pytest.LogCaptureFixture
) -> Iterator[None]:
    """An app's worker failing in a way nobody expected is told by the app, and the app goes
    on: the test fails on it all the same, unless it raises that bug on purpose
    (``bug_on_purpose``)."""
    yield
    if request.node.get_closest_marker("bug_on_purpose"):
        return
    failed = [
        record.getMessage()
        for record in [*caplog.get_records("setup"), *caplog.get_records("call")]
        if record.name == "hubtui.tui" and record.getMessage().startswith("worker ")
    ]
    assert not failed, f"a worker failed: {failed}"


# Dates are shown in local time: pin it so pictures and texts are the same everywhere.
os.environ["TZ"] = "UTC"
time.tzset()

DEMO_URL = "http://localhost"


@pytest.fixture(autouse=True)
def _own_data_folder(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each test's change log and store (and the commands it starts) live in a folder of its
    own, never in the person's data folder: a test sees no list kept by another."""
    monkeypatch.setenv("HUBTUI_DATA_DIR", str(tmp_path_factory.mktemp("data")))


class SleepRecorder:
    """Stands in for asyncio.sleep: records each wait, takes no time."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


@pytest.fixture
def sleeps() -> SleepRecorder:
    return SleepRecorder()


@pytest.fixture
def demo_store() -> DemoStore:
    return DemoStore()


@pytest.fixture
def faults() -> Faults:
    return Faults()


@pytest.fixture
async def client(
    demo_store: DemoStore, faults: Faults, sleeps: SleepRecorder
) -> AsyncIterator[HubClient]:
    transport = httpx.ASGITransport(app=create_app(demo_store, faults))
    async with HubClient(DEMO_URL, token=DEMO_TOKEN, transport=transport, sleep=sleeps) as c:
        yield c


@pytest.fixture
async def raw(demo_store: DemoStore, faults: Faults) -> AsyncIterator[httpx.AsyncClient]:
    """A plain HTTP client of the demo API, sharing no code with hubtui.api."""
    transport = httpx.ASGITransport(app=create_app(demo_store, faults))
    headers = {"Authorization": f"Bearer {DEMO_TOKEN}"}
    async with httpx.AsyncClient(transport=transport, base_url=DEMO_URL, headers=headers) as c:
        yield c


@pytest.fixture
def server(request: pytest.FixtureRequest) -> Iterator[str]:
    """`hubtui demo-server` over real HTTP on a free loopback port, for this test alone; yields
    its URL. The one demo-server fixture (with :func:`shared_server`). A test marked
    ``reads_only`` changes nothing on the server: it gets its module's :func:`shared_server`."""
    if request.node.get_closest_marker("reads_only") is not None:
        yield request.getfixturevalue("shared_server")
        return
    with running_demo_server() as url:
        yield url


@pytest.fixture(scope="module")
def shared_server() -> Iterator[str]:
    """One `hubtui demo-server` for a module's tests that change nothing, or count what they
    change."""
    with running_demo_server() as url:
        yield url


def run_main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``hubtui ARGV`` run in this process: its exit status, stdout and stderr."""
    from hubtui.cli import main

    try:
        status = main(list(argv))
    except SystemExit as stop:  # a usage error, as the shell sees it
        status = stop.code if isinstance(stop.code, int) else 2
    out, err = capsys.readouterr()
    return status, out, err


def change_line(change_id: str, server: str = "https://a:443", **fields: object) -> str:
    """A change log's line, whole (as the change log writes one): an add to project 1001."""
    import json

    change = {
        "time": "2026-11-25T09:00:00Z", "action": "add", "hub_id": "h1",
        "hub_name": "acme-build", "project_id": "1001", "project_name": None, "user_id": None,
        "email": "chloe.moreau@acme-build.com", "before": None, "after": {"Role": "Reader"},
        "outcome": "done", "server": server, "id": change_id, **fields,
    }  # fmt: skip
    return json.dumps(change)


# A team store: a real PostgreSQL -----------------------------------------------------------


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    """A PostgreSQL server of this test process's own (started once, when first asked for),
    with the owner's and a member's roles, TLS on and passwords from a password file."""
    from tests.harness.postgres import find_postgres, running_postgres

    if find_postgres() is None:
        pytest.fail("PostgreSQL is needed for the team-store tests: apt-get install postgresql")
    with running_postgres() as server:
        yield server


@pytest.fixture
def pg_env(postgres: PostgresServer, monkeypatch: pytest.MonkeyPatch) -> PostgresServer:
    """This test's environment signs in to the server as libpq does (the password file)."""
    for key, value in postgres.environment().items():
        monkeypatch.setenv(key, value)
    return postgres


@dataclass
class StoreAt:
    """Where one test's store is, on one engine: a file, or a schema of its own on the team
    server."""

    engine: str
    target: str
    """The file's path or the team store's address, as a process of its own takes it."""
    server: PostgresServer | None = None

    def open(self, *, read_only: bool = False) -> Store:
        return open_target(self.target, read_only=read_only)

    @property
    def named(self) -> str:
        """What the store's messages name it by."""
        return self.target

    def run_as_owner(self, statement: str) -> None:
        """Change the store behind hubtui's back (a tampering, a fault)."""
        if self.server is None:
            with sqlite3.connect(self.target) as db:
                db.executescript(statement)
        else:
            schema = self.target.split("search_path%3D", 1)[1].split("&", 1)[0]
            self.server.sql(f"SET search_path = {schema}; {statement}")


def open_target(target: str, *, read_only: bool = False) -> Store:
    """A store by its file or its team address (what a process of its own is given), opened
    as hubtui opens it."""
    from hubtui.core.store import open_store

    where = target if target.startswith("postgresql://") else Path(target)
    return open_store(where, read_only=read_only)


@pytest.fixture(params=["sqlite", "postgresql"])
def store_at(request: pytest.FixtureRequest, tmp_path: Path) -> StoreAt:
    """The same store tests on both engines: the local file, and a team's PostgreSQL."""
    if request.param == "sqlite":
        return StoreAt("sqlite", str(tmp_path / "store.sqlite3"))
    server: PostgresServer = request.getfixturevalue("pg_env")
    return StoreAt("postgresql", server.url(schema=server.new_schema()), server)


# A server whose answers carry a value at or past its limits -----------------------------------

EARLIEST = "0001-01-01T00:00:00+14:00"
LATEST = "9999-12-31T23:59:59-14:00"


def _is(kind: str, path: str) -> bool:
    if kind == "hubs":  # the list, a hub by id and a hub by name
        return path.startswith("/v3/hubs") and path.count("/") <= 4 and "/projects" not in path
    if kind == "projects":
        return path.endswith("/projects")
    return path.endswith("/users")


def changing(kind: str, field: str, value: Any) -> ASGIApp:
    """The demo API, with ``field`` of every record of each ``kind`` answer set to ``value``
    (``Outer.Inner`` for a field of a nested object)."""
    inner = create_app(DemoStore(), Faults())

    async def server(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not _is(kind, scope["path"]):
            await inner(scope, receive, send)
            return

        def set_field(status: int, body: Any) -> tuple[int, Any]:
            records = body if isinstance(body, list) else body.get("results", [body])
            outer, _, name = field.rpartition(".")
            for record in records:
                target = record.get(outer) if outer else record
                if isinstance(target, dict):
                    target[name or field] = value
            return status, body

        await answer_rewritten(inner, scope, receive, send, set_field)

    return server


def serve_tls(
    cert_dir: Path, ca: trustme.CA, app: Any = None, host: str = "localhost"
) -> tuple[str, uvicorn.Server, threading.Thread]:
    """``app`` (the demo API by default) over TLS on a free loopback port, its certificate for
    ``host`` issued by ``ca``; its URL, server and thread."""
    certificate = ca.issue_cert(host)
    key_file, cert_file = cert_dir / "key.pem", cert_dir / "cert.pem"
    certificate.private_key_pem.write_to_path(str(key_file))
    certificate.cert_chain_pems[0].write_to_path(str(cert_file))
    port = free_port()
    config = uvicorn.Config(
        app if app is not None else create_app(),
        host="127.0.0.1",
        port=port,
        ssl_keyfile=str(key_file),
        ssl_certfile=str(cert_file),
        log_level="warning",
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    wait_for_port(port)
    return f"https://{host}:{port}", server, thread


async def no_wait(seconds: float) -> None:
    """Retries without their pauses."""


def own_settings(tmp_path: Path) -> list[str]:
    """``env`` assignments for a hubtui a test launches: the demo's token, no config file and a
    data folder of the test's own."""
    return [
        f"HUBTUI_TOKEN={DEMO_TOKEN}",
        f"HUBTUI_DATA_DIR={tmp_path / 'data'}",
        f"HUBTUI_CONFIG={tmp_path / 'none.toml'}",
    ]


def lying_store(path: Path) -> None:
    """A store file that says it is of this schema and holds none of its tables."""
    with sqlite3.connect(path) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA}")
    path.chmod(0o600)


def snapshot_file(
    path: Path, lines: Sequence[dict[str, Any] | str | bytes], server: str = "demo"
) -> Path:
    """A snapshot file as hubtui writes one, of ``server``, holding ``lines`` (records, or text
    or bytes as they are) after its manifest (with the sha256 of the rest); private."""
    import hashlib

    body = b"".join(
        (x if isinstance(x, bytes) else (x if isinstance(x, str) else json.dumps(x)).encode())
        + b"\n"
        for x in lines
    )
    manifest = {
        "hubtui_snapshot": 1,
        "server": server,
        "profile": "",
        "scope": "all hubs",
        "taken": "2026-11-25T09:00:00Z",
        "sha256": hashlib.sha256(body).hexdigest(),
    }
    path.write_bytes(json.dumps(manifest).encode() + b"\n" + body)
    path.chmod(0o600)
    return path


def users_list(records: Any, project: str = "1001") -> dict[str, Any]:
    """A snapshot file's line: a project's users read."""
    return {
        "kind": "users",
        "hub": "h",
        "project": project,
        "ok": True,
        "why": "",
        "records": records,
    }
