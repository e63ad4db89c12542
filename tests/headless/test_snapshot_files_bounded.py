"""Snapshot files are read a list at a time and within stated bounds: a file that breaks one is
refused by name, with exit status 2 and no traceback, and the diff stays within 1 GB of memory
(run with the address space limited to 1 GB, as a small machine or a cron job's limits would)."""

from __future__ import annotations

import json
import os
import resource
import subprocess
from pathlib import Path

import pytest

from tests.harness.harness import hubtui_command
from tests.harness.stores import snapshot_file

GIB = 1 << 30


def write(path: Path, lines: list[bytes]) -> Path:
    """A snapshot file of a configured server, as hubtui writes one."""
    return snapshot_file(path, lines, server="https://hub.example")


def users(hub: str, project: str, records: list[dict[str, object]]) -> bytes:
    item = {"hub": hub, "kind": "users", "ok": True, "project": project, "records": records}
    return json.dumps({**item, "why": ""}, sort_keys=True).encode()


def diff_within_a_gib(
    tmp_path: Path, first: Path, second: Path
) -> subprocess.CompletedProcess[str]:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (GIB, GIB))

    env = {**os.environ, "HUBTUI_DATA_DIR": str(tmp_path / "data"), "HUBTUI_CONFIG": "/none"}
    return subprocess.run(
        [*hubtui_command(), "diff", str(first), str(second)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=limit,  # noqa: PLW1509 (the child alone is limited)
    )


def test_a_line_past_its_bound_is_refused_within_a_gib(tmp_path: Path) -> None:
    huge = "x" * (100 * 1024 * 1024)  # one 100 MB string in one record
    first = write(tmp_path / "a.json", [users("h", "1", [{"User": {"Email": huge}}])])
    second = write(tmp_path / "b.json", [users("h", "1", [])])
    done = diff_within_a_gib(tmp_path, first, second)
    assert done.returncode == 2, done.stderr
    assert f"{first}, line 2: longer than 67 MB, the most hubtui reads of one list" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.slow
def test_records_past_the_stated_bound_are_refused_within_a_gib(tmp_path: Path) -> None:
    lines = [
        users(
            "h",
            str(project),
            [{"User": {"Id": n, "Email": f"p{n}@x.example"}} for n in range(10_000)],
        )
        for project in range(51)
    ]  # 510,000 records, past the bound of 500,000
    first = write(tmp_path / "a.json", lines)
    second = write(tmp_path / "b.json", lines[:1])
    done = diff_within_a_gib(tmp_path, first, second)
    assert done.returncode == 2, done.stderr
    assert f"{first} holds more than 200,000 lists or 500,000 records" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.slow
def test_two_files_within_the_bounds_are_compared_within_a_gib(tmp_path: Path) -> None:
    before = [
        users(
            "h",
            str(p),
            [
                {"User": {"Id": n, "Email": f"p{n}@x.example"}, "Role": "Reader"}
                for n in range(5_000)
            ],
        )
        for p in range(20)
    ]
    after = list(before)
    after[3] = users("h", "3", [{"User": {"Id": 0, "Email": "p0@x.example"}, "Role": "Admin"}])
    done = diff_within_a_gib(
        tmp_path, write(tmp_path / "a.json", before), write(tmp_path / "b.json", after)
    )
    assert done.returncode == 1, done.stderr  # differences found: something to say
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert {"p0@x.example": "Role: Reader → Admin"}.items() <= {
        row["person"]: row["what"] for row in rows
    }.items()
    assert "5,000 differences" in done.stderr  # one changed, 4,999 removed from project 3
