"""Imports at the top by default: an import inside a function is a deferral that start-up pays for.

Two starts are measured in a fresh interpreter each: a headless command against the demo server
over HTTP, and the app on the in-process demo API up to its first frame, painted from the hub
list an earlier start kept (the client's code held back until the modules are counted); the
hubtui modules that first frame loads are pinned (``THE_FIRST_FRAME_LOADS``).
Every import inside a function of ``hubtui`` (outside ``TYPE_CHECKING`` and ``ImportError``
guards) must name a module one of those starts would not otherwise load where the importing
module is loaded, and the modules each start is known to leave out stay out.

A module neither start loads (a screen opened later, a command other than ``hub``) is judged
too: it is loaded after a start (the app's first frame for the app's modules, a command's start
for the commands', both for the rest), and with what its own top-level imports load; a deferral
of one of those defers nothing. No module imports another module's private name.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from hubtui.demo import DEMO_TOKEN

ROOT = Path(__file__).resolve().parents[1]

#: Imports inside a function that start-up loads anyway, each kept for a reason of its own.
KEPT: dict[tuple[str, str], str] = {
    # ``main`` blocks httpx's own command-line client (click and pygments) before httpx loads.
    ("hubtui.cli", "hubtui.core.workspace"): "loads httpx: after sys.modules['httpx._main']",
    ("hubtui.cli", "httpx"): "loaded after sys.modules['httpx._main'] is set",
    (
        "hubtui.cli",
        "hubtui.core.workspace.connection",
    ): "loads httpx: after sys.modules['httpx._main']",
}

#: Left out of a headless command (``hub``, ``users``) against a server.
NOT_IN_A_COMMAND = [
    "textual",
    "hubtui.tui",
    "hubtui.demo",
    "httpx._main",
    "click",
    "hubtui.core.store.records",
    "hubtui.core.store.server_store",
    "hubtui.core.batches",
    "hubtui.core.history",
    "hubtui.core.people",
    "hubtui.core.workspace.offline",
    "psycopg",
    "uvicorn",
]

#: Left out of the app's first frame (the hub list kept in the store, painted): the client, the
#: models, the batch engine and the change log load after it.
NOT_IN_THE_FIRST_FRAME = [
    "httpx",
    "pydantic",
    "hubtui.api.client",
    "hubtui.api.models",
    "hubtui.core.batches",
    "hubtui.core.changes.log",
    "hubtui.headless",
    "hubtui.core.history",
    "hubtui.core.workspace.offline",
    "hubtui.core.store.team",
    "hubtui.core.people",
    "hubtui.web",
    "psycopg",
    "uvicorn",
    "hubtui.tui.screens.browsing.hub_detail",
    "hubtui.tui.screens.browsing.project_users",
    "hubtui.tui.screens.people.why",
    "hubtui.tui.screens.browsing.who",
    "hubtui.tui.screens.changes.change_log",
    "hubtui.tui.screens.dialogs.help",
    "email.utils",  # a Retry-After date's parser: 4 ms
    "csv",  # the exports'
    "hashlib",  # a record's hash (with OpenSSL's): 1.4 ms; the first frame hashes nothing
    "tomllib",  # the config file's parser: 2.5 ms, where there is no config file
]

#: Every module of hubtui loaded when the app's first frame is painted from the kept hub list: a
#: change that loads another before the first paint extends this list on purpose.
THE_FIRST_FRAME_LOADS = [
    "hubtui",
    "hubtui.api",
    "hubtui.api.errors",
    "hubtui.api.memory",  # giving back what a load freed (core.collection's, since a parse's too)
    "hubtui.api.retries",
    "hubtui.api.versions",
    "hubtui.cli",
    "hubtui.config",
    "hubtui.core",
    "hubtui.core.clock",
    "hubtui.core.collection",  # the collector's thresholds and giving back what a load freed
    "hubtui.core.files",
    "hubtui.core.places",
    "hubtui.core.presenting",
    "hubtui.core.presenting.layout",
    "hubtui.core.presenting.names",
    "hubtui.core.presenting.words",
    "hubtui.core.store",
    "hubtui.core.store.base",
    "hubtui.core.store.engines",
    "hubtui.core.store.latest",
    "hubtui.core.store.records",
    "hubtui.core.store.repository",
    "hubtui.core.store.reviews",
    "hubtui.core.store.schema",
    "hubtui.core.store.server_store",
    "hubtui.core.store.snapshots",
    "hubtui.core.store.trail",
    "hubtui.core.workflows",  # the fronts reach the store through it (its facade, lazy)
    "hubtui.core.workflows.kept",
    "hubtui.core.workflows.ports",  # NotSent, what a workflow's question answered no raises
    "hubtui.core.workspace",
    "hubtui.core.workspace.connection",
    "hubtui.core.workspace.identity",
    "hubtui.core.workspace.opening",
    "hubtui.core.workspace.workspace",
    "hubtui.hosts",
    "hubtui.lazy",
    "hubtui.text",
    "hubtui.tui",
    "hubtui.tui.app",
    "hubtui.tui.catalog",
    "hubtui.tui.collection",
    "hubtui.tui.commands",
    "hubtui.tui.ending",
    "hubtui.tui.front",
    "hubtui.tui.glyphs",
    "hubtui.tui.messages",
    "hubtui.tui.present",
    "hubtui.tui.record_view",
    "hubtui.tui.screens",
    "hubtui.tui.screens.base",
    "hubtui.tui.screens.browsing",
    "hubtui.tui.screens.browsing.hubs",
    "hubtui.tui.screens.recovering",
    "hubtui.tui.session",
    "hubtui.tui.textual_patches",
    "hubtui.tui.typeahead",
    "hubtui.tui.widgets",
    "hubtui.tui.widgets.chrome",
    "hubtui.tui.widgets.record_table",
]

A_COMMAND = """
import json, sys
from hubtui.cli import main
for argv in (["hub", "acme-build"], ["users", "acme-build", "1001", "--format", "json"]):
    assert main(argv) == 0, argv
with open(sys.argv[1], "w") as out:
    json.dump(sorted(m for m, v in sys.modules.items() if v is not None), out)
"""

THE_FIRST_FRAME = """
import asyncio, json, sys, threading
from hubtui.cli import demo_connector
from hubtui.config import Settings
from hubtui.core.workspace import open_workspace
from hubtui.tui.app import HubTuiApp

async def first_frame(out: str, hold: bool) -> None:
    workspace = open_workspace(Settings(), demo=demo_connector)
    client_may_load = threading.Event()
    if hold:  # the client's code loads only once the modules are counted
        connect = workspace.connect

        def held():
            client_may_load.wait(30)
            return connect()

        workspace.connect = held
    app = HubTuiApp(workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(1500):  # the hubs listed (the stored list, at the second start)
            if any(table.total_count for table in app.screen.query("RecordTable")):
                break
            await pilot.pause(0.02)
        with open(out, "w") as written:
            json.dump(sorted(m for m, v in sys.modules.items() if v is not None), written)
        client_may_load.set()
        await app.workspace.all_kept()

# The first start reads the hub list and keeps it; the second paints the kept list first.
asyncio.run(first_frame(sys.argv[1], hold=sys.argv[2] == "measure"))
"""


def loaded_after(code: str, tmp_path: Path, *args: str, **env: str) -> set[str]:
    out = tmp_path / "modules.json"
    done = subprocess.run(
        [sys.executable, "-c", code, str(out), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={
            **os.environ,
            "HUBTUI_DATA_DIR": str(tmp_path / "data"),
            "HUBTUI_CONFIG": str(tmp_path / "none.toml"),
            **env,
        },
    )
    assert done.returncode == 0, done.stderr
    return set(json.loads(out.read_text()))


@pytest.fixture(scope="module")
def starts(shared_server: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, set[str]]:
    """The modules loaded by each start."""
    return {
        "a headless command": loaded_after(
            A_COMMAND,
            tmp_path_factory.mktemp("command"),
            HUBTUI_BASE_URL=shared_server,
            HUBTUI_TOKEN=DEMO_TOKEN,
            HUBTUI_ALLOW_INSECURE_HTTP="1",
        ),
        "the app's first frame": second_start(tmp_path_factory.mktemp("app")),
    }


def second_start(tmp_path: Path) -> set[str]:
    """The modules loaded when the app's first frame is painted from the hub list the store
    kept (the second start, as a person starts it every day), the client's code held back."""
    loaded_after(THE_FIRST_FRAME, tmp_path, "keep")
    return loaded_after(THE_FIRST_FRAME, tmp_path, "measure")


def _module_of(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def _target(package: str, name: str) -> str:
    """The module ``from package import name`` loads: a submodule, the module a lazy package
    maps the name to, or the package itself."""
    if importlib.util.find_spec(package) is None:
        return package
    loaded = importlib.import_module(package)
    if hasattr(loaded, "__path__") and importlib.util.find_spec(f"{package}.{name}"):
        return f"{package}.{name}"
    exports = getattr(loaded, "_EXPORTS", {})
    return str(exports.get(name, package))


def _guarded(parents: list[ast.AST]) -> bool:
    for node in parents:
        if isinstance(node, ast.Try) and any(
            "ImportError" in ast.unparse(handler.type or ast.Name("")) for handler in node.handlers
        ):
            return True
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return True
    return False


def imports_inside_functions() -> Iterator[tuple[str, int, str]]:
    """(importing module, line, imported module) of every import inside a function."""
    for path in sorted((ROOT / "hubtui").rglob("*.py")):
        module = _module_of(path)

        def visit(node: ast.AST, parents: list[ast.AST], in_function: bool) -> Iterator[ast.AST]:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.Import | ast.ImportFrom):
                    if in_function and not _guarded(parents):
                        yield child
                    continue
                inside = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
                yield from visit(child, [*parents, child], inside)

        for found in visit(ast.parse(path.read_text()), [], False):
            if isinstance(found, ast.Import):
                for alias in found.names:
                    yield module, found.lineno, alias.name
            elif isinstance(found, ast.ImportFrom) and found.module and not found.level:
                for alias in found.names:
                    yield module, found.lineno, _target(found.module, alias.name)


def test_every_import_inside_a_function_defers_what_a_start_would_not_load(
    starts: dict[str, set[str]],
) -> None:
    found = list(imports_inside_functions())
    assert len(found) > 20  # the walk found the deferrals there are
    needless = set()
    for module, line, imported in found:
        loading = [loaded for loaded in starts.values() if module in loaded]
        if loading and all(imported in loaded for loaded in loading):
            if (module, imported) not in KEPT:
                needless.add(f"{module}:{line} imports {imported}, loaded at start anyway")
    assert not needless, "\n".join(sorted(needless))


@pytest.mark.parametrize(
    ("start", "left_out"),
    [("a headless command", NOT_IN_A_COMMAND), ("the app's first frame", NOT_IN_THE_FIRST_FRAME)],
)
def test_each_start_leaves_out_what_it_does_not_use(
    starts: dict[str, set[str]], start: str, left_out: list[str]
) -> None:
    loaded = starts[start]
    # The command read from a server; the app painted the list the store kept.
    read = (
        "hubtui.api.client" if start == "a headless command" else "hubtui.core.store.server_store"
    )
    assert read in loaded
    assert not [m for m in loaded if any(m == o or m.startswith(f"{o}.") for o in left_out)]


def _top_level_imports(module: str, paths: dict[str, Path]) -> set[str]:
    """The modules ``module``'s own top-level imports load (its packages' included)."""
    path = paths.get(module)
    if path is None:
        return set()
    found: set[str] = set()

    def visit(node: ast.AST, parents: list[ast.AST]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                continue
            if isinstance(child, ast.Import | ast.ImportFrom):
                if _guarded(parents):
                    continue
                if isinstance(child, ast.Import):
                    found.update(alias.name for alias in child.names)
                elif child.module and not child.level:
                    found.add(child.module)
                    found.update(_target(child.module, alias.name) for alias in child.names)
                continue
            visit(child, [*parents, child])

    visit(ast.parse(path.read_text()), [])
    return {".".join(name.split(".")[:i]) for name in found for i in range(1, name.count(".") + 2)}


def _loaded_with(module: str, paths: dict[str, Path]) -> set[str]:
    """Every module loading ``module`` loads by its top-level imports, transitively."""
    parts = module.split(".")
    seen: set[str] = set()
    waiting = [".".join(parts[:i]) for i in range(1, len(parts) + 1)]
    while waiting:
        name = waiting.pop()
        if name not in seen:
            seen.add(name)
            waiting.extend(_top_level_imports(name, paths))
    return seen


def test_a_module_no_start_loads_defers_only_what_is_not_loaded_already(
    starts: dict[str, set[str]],
) -> None:
    command, app = starts["a headless command"], starts["the app's first frame"]
    paths = {_module_of(path): path for path in (ROOT / "hubtui").rglob("*.py")}
    judged, needless = 0, set()
    for module, line, imported in imports_inside_functions():
        if module in command or module in app:
            continue  # judged by the test above
        judged += 1
        if module.startswith("hubtui.tui"):
            after = app
        elif module.startswith("hubtui.headless"):
            after = command
        else:
            after = app & command
        if imported in after or imported in _loaded_with(module, paths):
            needless.add(f"{module}:{line} imports {imported}, loaded with it anyway")
    assert judged > 10  # the walk reached the modules loaded late
    assert not needless, "\n".join(sorted(needless))


def test_no_module_imports_another_modules_private_name() -> None:
    private = []
    for path in sorted((ROOT / "hubtui").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        private.append(f"{_module_of(path)}:{node.lineno} {alias.name}")
    assert private == []


def test_the_first_frame_loads_only_the_modules_pinned(starts: dict[str, set[str]]) -> None:
    """What the first paint waits for is a short list, extended on purpose: a module that
    joins it shows here, by name."""
    loaded = sorted(m for m in starts["the app's first frame"] if m.split(".")[0] == "hubtui")
    assert loaded == THE_FIRST_FRAME_LOADS
