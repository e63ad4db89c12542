"""The layers hold: the contracts in pyproject.toml ([tool.importlinter]), checked statically."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_import_contracts_are_kept() -> None:
    lint_imports = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run(
        [str(lint_imports), "--no-cache"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    with (ROOT / "pyproject.toml").open("rb") as file:
        contracts = tomllib.load(file)["tool"]["importlinter"]["contracts"]
    # Every contract was checked (a contract that names no module would be skipped silently).
    assert f"{len(contracts)} kept, 0 broken" in done.stdout


def test_every_api_and_core_module_imports_with_textual_absent() -> None:
    """At run time too: every module of the client and the core imported in a fresh
    interpreter where Textual cannot be imported at all (an import inside a function is the
    contracts' to check, statically, above)."""
    modules = sorted(
        ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for layer in ("api", "core")
        for path in (ROOT / "hubtui" / layer).rglob("*.py")
    )
    assert len(modules) > 50  # every module and package of both layers, found
    code = (
        "import importlib, sys\n"
        "class NoTextual:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] == 'textual':\n"
        "            raise ImportError(f'{name} imported')\n"
        "sys.meta_path.insert(0, NoTextual())\n"
        "failed = []\n"
        "for name in sys.argv[1:]:\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except ImportError as error:\n"
        "        failed.append(f'{name}: {error}')\n"
        "assert not failed, failed\n"
        "assert not [m for m in sys.modules if m.split('.')[0] == 'textual']\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, *modules], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr


def test_tests_share_one_harness_and_conftests_hold_only_fixtures() -> None:
    """What the tests and the benchmarks share is ``tests/harness``: no test imports a conftest
    as a module or a benchmark, and a conftest defines fixtures and pytest's hooks, nothing a
    test would need to import from it."""
    import ast

    wrong = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            modules = []
            if isinstance(node, ast.ImportFrom) and node.module:
                modules = [node.module]
            elif isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            for module in modules:
                if module.endswith("conftest") or module.split(".")[0] == "bench":
                    line = getattr(node, "lineno", 0)
                    wrong.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
        if path.name != "conftest.py":
            continue
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                decorated = any("fixture" in ast.unparse(d) for d in node.decorator_list)
                if not decorated and not node.name.startswith("pytest_"):
                    wrong.append(f"{path.relative_to(ROOT)}: {node.name} is not a fixture")
            elif isinstance(node, ast.ClassDef):
                wrong.append(f"{path.relative_to(ROOT)}: class {node.name}")
    assert wrong == []
