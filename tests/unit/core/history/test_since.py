"""Since when a person's access to a project is what it is now, from the snapshots kept."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hubtui.core.history.since import since_words
from hubtui.core.store import ListKey, Snapshot, Store

GRACE = "grace.osei@northwind-eng.com"
USERS = ListKey("users", "h1", "1001")


def member(role: str, *, limited: bool = False, email: str = GRACE) -> dict[str, Any]:
    return {"User": {"Id": 8, "Email": email}, "Role": role, "IsLimited": limited}


def kept(path: Path, *states: list[dict[str, Any]] | None) -> Store:
    """A store holding one snapshot a day of project 1001's users (None: not read that day)."""
    store = Store.open(path)
    for day, records in enumerate(states, start=17):
        lists = {USERS: (False, "503", []) if records is None else (True, "", records)}
        store.write_snapshot(Snapshot("demo", "", "all hubs", f"2026-11-{day}T14:02:00Z", lists))
    return store


def test_a_limited_reader_since_the_snapshot_that_first_showed_it_and_what_before(
    tmp_path: Path,
) -> None:
    store = kept(
        tmp_path / "s.sqlite3",
        [member("Editor")],
        [member("Reader", limited=True)],
        None,  # not read that day: it says nothing, either way
        [member("Reader", limited=True), member("Editor", email="x@acme-build.com")],
    )
    with store:
        words = since_words(store, "demo", None, "h1", "1001", GRACE, "a limited reader")
    assert words == "a limited reader since snapshot #2 (2026-11-18 14:02); Editor before"


def test_the_same_in_every_snapshot_and_a_change_after_the_latest(tmp_path: Path) -> None:
    with kept(tmp_path / "s.sqlite3", [member("Reader")], [member("Reader")]) as store:
        same = since_words(store, "demo", None, "h1", "1001", GRACE.upper(), "Reader")
        changed = since_words(store, "demo", None, "h1", "1001", GRACE, "Editor")
        gone = since_words(store, "demo", None, "h1", "1001", GRACE, "not in the project")
    assert same == "Reader in every snapshot kept of it, since snapshot #1 (2026-11-17 14:02)"
    assert changed == (
        "Editor now; Reader at snapshot #2 (2026-11-18 14:02), the latest kept: changed since"
    )
    assert gone is not None
    assert gone.startswith("not in the project now; Reader at snapshot #2")


def test_nothing_is_said_where_no_snapshot_read_the_project(tmp_path: Path) -> None:
    with kept(tmp_path / "s.sqlite3", None) as store:
        assert since_words(store, "demo", None, "h1", "1001", GRACE, "Reader") is None
        assert since_words(store, "other", None, "h1", "1001", GRACE, "Reader") is None
