"""Reviews kept in the store: a store of the first schema is migrated step by step (once, with
another process opening it at the same moment), a review is kept whole and read back only by its
own server and profile, and what a tampered file holds reads back as text. On both engines."""

from __future__ import annotations

import multiprocessing
import os
import sqlite3
from pathlib import Path

from hubtui.core.store import MIGRATIONS, SCHEMA, ListKey, Snapshot, Store, now, schema_of
from hubtui.core.store.campaigns import CampaignRow, campaign_rows, save_campaign
from tests.harness.stores import StoreAt, open_target

SERVER = "https://api.example.com:443"
ROWS = [
    {
        "email": "bjorn@acme-build.com",
        "name": "Björn",
        "decision": "remove from hub",
        "reason": "left the company",
        "seen": "2026-03-01T00:00:00Z",
        "marks": "inactive 208 days",
        "access": "Editor in Harbour Bridge Retrofit",
        "outcome": "done",
    },
    {"email": "dana@acme-build.com", "decision": "keep", "outcome": "kept"},
]
HEAD = {"hub": "h1", "hub_name": "acme-build", "reviewer": "ann@desk", "started": now()}


def a_first_schema_store(store_at: StoreAt) -> None:
    """A store as the first schema wrote it, with a snapshot in it."""
    if store_at.engine == "sqlite":  # the first step alone, as an older hubtui made it
        db = sqlite3.connect(store_at.target, isolation_level=None)
        for statement in MIGRATIONS[0].each():
            db.execute(statement)
        db.execute("PRAGMA user_version = 1")
        db.close()
        os.chmod(store_at.target, 0o600)
    with store_at.open() as store:  # migrates; the snapshot below is then written
        store.write_snapshot(
            Snapshot(SERVER, "", "all hubs", now(), {ListKey("users", "h1", "1"): (True, "", [])})
        )
    later = (
        "DROP TABLE audit; DROP TABLE review_rows; DROP TABLE reviews; "
        "ALTER TABLE latest DROP COLUMN records_digest; ALTER TABLE latest DROP COLUMN read_by; "
        "DROP TABLE team_roster; ALTER TABLE campaign_rows DROP COLUMN reviewer_id; "
        "ALTER TABLE campaign_events DROP COLUMN chain; "
        + "; ".join(
            f"ALTER TABLE campaign_rows DROP COLUMN {column}"
            for column in (
                "seen",
                "invitation",
                "through",
                "projects",
                "outside",
                "advice",
                "advice_reason",
            )
        )  # fmt: skip
    )
    if store_at.engine == "sqlite":
        store_at.run_as_owner(f"{later}; PRAGMA user_version = 1")
    else:
        store_at.run_as_owner(f"{later}; UPDATE hubtui_schema SET version = 1")


def _open(target: str) -> None:
    open_target(target).close()


def test_a_first_schema_store_is_migrated_once_while_another_process_opens_it(
    store_at: StoreAt,
) -> None:
    a_first_schema_store(store_at)
    target = store_at.target if store_at.engine == "postgresql" else Path(store_at.target)
    assert schema_of(target) == 1
    context = multiprocessing.get_context("spawn")
    others = [context.Process(target=_open, args=(store_at.target,)) for _ in range(2)]
    for other in others:
        other.start()
    with store_at.open() as store:
        assert len(store.snapshots()) == 1  # what was kept stays
        number = store.save_review(SERVER, None, HEAD, ROWS)
        assert store.reviews(SERVER, None)[0].id == number
    for other in others:
        other.join()
        assert other.exitcode == 0
    assert schema_of(target) == SCHEMA == 10


def test_a_review_is_kept_whole_and_read_back_only_by_its_server_and_profile(
    store_at: StoreAt,
) -> None:
    with store_at.open() as store:
        first = store.save_review(SERVER, None, HEAD, ROWS)
        store.save_review(SERVER, "night-shift", HEAD, ROWS[:1])
        store.save_review("https://other.example.com:443", None, HEAD, ROWS)
        (kept,) = store.reviews(SERVER, None)
        assert (kept.id, kept.hub_name, kept.reviewer) == (first, "acme-build", "ann@desk")
        assert kept.counts == {"keep": 1, "remove from hub": 1}
        assert [r.counts for r in store.reviews(SERVER, "night-shift")] == [{"remove from hub": 1}]
        assert {(r.origin, r.profile) for r in store.reviews(None, None)} == {
            (SERVER, ""),
            (SERVER, "night-shift"),
            ("https://other.example.com:443", ""),
        }
        rows = store.review_rows(first)
        assert [r["email"] for r in rows] == ["bjorn@acme-build.com", "dana@acme-build.com"]
        assert rows[0]["reason"] == "left the company"
        assert rows[1]["reason"] == ""  # not given: empty, as kept


def test_what_a_tampered_store_holds_reads_back_as_text(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    with Store.open(path) as store:
        number = store.save_review(SERVER, None, HEAD, ROWS)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE review_rows SET reason = x'ff00e2', outcome = 42 WHERE position = 0")
        db.execute("UPDATE reviews SET reviewer = 7")
    with Store.open(path) as store:
        (kept,) = store.reviews(SERVER, None)
        assert kept.reviewer == "7"
        row = store.review_rows(number)[0]
        assert row["reason"] == "\ufffd\x00\ufffd"
        assert row["outcome"] == "42"


def test_a_campaign_s_population_reads_back_as_written_and_a_tampered_row_as_text(
    tmp_path: Path,
) -> None:
    path = tmp_path / "store.sqlite3"
    rows = [
        CampaignRow(
            n,
            "1001",
            "Bridge",
            str(n),
            f"p{n}@x.example",
            "",
            "Editor",
            "",
            "Editor",
            "dana@x.example",
            "",
        )
        for n in range(3)
    ]
    with Store.open(path) as store:
        number = save_campaign(store, {"origin": SERVER, "hub": "h1"}, rows)
        assert campaign_rows(store, number) == rows
    with sqlite3.connect(path) as db:
        db.execute("UPDATE campaign_rows SET email = x'ff00e2' WHERE position = 1")
        db.execute("UPDATE campaign_rows SET position = 'two' WHERE position = 2")
    with Store.open(path) as store:
        kept = campaign_rows(store, number)
    assert kept[0] == rows[0]
    assert {r.email for r in kept} == {"p0@x.example", "\ufffd\x00\ufffd", "p2@x.example"}
    assert sorted(r.position for r in kept) == [-1, 0, 1]  # no place: in no packet
