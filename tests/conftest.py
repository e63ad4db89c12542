"""Shared fixtures: the demo API in-process and over real HTTP, and clients of both."""

from __future__ import annotations

import gc
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest

from hubtui.api import HubClient
from hubtui.demo import DEMO_TOKEN, DemoStore, Faults, create_app
from tests.harness.demo_api import DEMO_URL, SleepRecorder
from tests.harness.harness import missing_packages, running_demo_server
from tests.harness.postgres import PostgresServer
from tests.harness.stores import StoreAt

os.environ["TZ"] = "UTC"
# Hypothesis keeps what it learns outside the checkout (it would leave `.hypothesis/` there).
os.environ.setdefault(
    "HYPOTHESIS_STORAGE_DIRECTORY",
    os.path.join(tempfile.gettempdir(), f"hubtui-tests-hypothesis-{os.getuid()}"),
)

time.tzset()


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


@pytest.fixture(autouse=True)
def _own_data_folder(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each test's change log and store (and the commands it starts) live in a folder of its
    own, never in the person's data folder: a test sees no list kept by another."""
    monkeypatch.setenv("HUBTUI_DATA_DIR", str(tmp_path_factory.mktemp("data")))


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


@pytest.fixture(params=["sqlite", "postgresql"])
def store_at(request: pytest.FixtureRequest, tmp_path: Path) -> StoreAt:
    """The same store tests on both engines: the local file, and a team's PostgreSQL."""
    if request.param == "sqlite":
        return StoreAt("sqlite", str(tmp_path / "store.sqlite3"))
    server: PostgresServer = request.getfixturevalue("pg_env")
    return StoreAt("postgresql", server.url(schema=server.new_schema()), server)
