"""The store's schema as named steps, applied in order, each in one transaction and recorded as
the store's version (``PRAGMA user_version`` in a file, a ``hubtui_schema`` row on PostgreSQL):
:func:`applied` and :func:`pending` say which, :func:`migrate` applies what is pending, and a store
of a newer schema is refused naming both versions."""

from __future__ import annotations

import json
import re
import sqlite3
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from hubtui.core.files import check_existing
from hubtui.core.store.engines import Engine, StoreError, engine_words, store_refusal, user_version

#: Words a record's JSON is made of, for compressing each record alone (stored in the file, so
#: a file always decodes with the dictionary it was written with).
ZDICT = b"".join(
    json.dumps(sample, sort_keys=True, separators=(",", ":")).encode()
    for sample in (
        {
            "Id": "",
            "Name": "",
            "DisplayName": "",
            "NumberOfProjects": 0,
            "NumberOfUsers": 0,
            "IsUserEntraIdSsoRestricted": False,
            "RestrictedTenantDomain": None,
            "RestrictedTenantId": None,
            "RequestingUserPermissions": {"Role": "Admin"},
            "RegionSummary": {"ApiRegionalUrl": "https://", "Location": "", "Name": "US"},
        },
        {
            "Id": 1,
            "Name": "",
            "Number": "",
            "ProjectAccess": "Private",
            "ProjectStatus": "Active",
            "Author": {"Id": 1, "FullName": ""},
            "Image": None,
            "CreatedDate": "2026-01-01T00:00:00Z",
            "StartDate": None,
            "EndDate": None,
        },
        {"ProjectAccess": "Limited", "Role": "Editor", "IsReviewer": True, "IsLimited": True},
        {
            "DefaultFilterTemplateId": None,
            "IsLimited": False,
            "IsReviewer": False,
            "Role": "Reader",
            "Teams": [{"Id": 1, "Name": ""}],
            "User": {
                "AvatarUrl": "https://avatars./.png",
                "Email": "@.com",
                "FirstName": "",
                "Id": 1,
                "LastName": "",
                "UserName": "00000000-0000-4000-8000-000000000000",
            },
        },
        {
            "DefaultFilterTemplateId": None,
            "IsLimited": False,
            "IsReviewer": False,
            "Role": "Admin",
            "Teams": None,
            "User": {
                "AvatarUrl": "https://avatars.example/00000000-0000-4000-8000-000000000000.png",
                "Email": "@.example",
                "FirstName": "",
                "Id": 1,
                "LastName": "",
                "UserName": "00000000-0000-4000-8000-000000000000",
            },
        },
    )
)


@dataclass(frozen=True)
class Migration:
    """One step of the schema: applied in one transaction, after the steps before it, and
    recorded as the store's schema version (``PRAGMA user_version``) in that same transaction."""

    version: int
    what: str
    statements: str
    """SQL statements separated by ``;`` (none holds a ``;`` of its own)."""

    def each(self) -> list[str]:
        return [s.strip() for s in self.statements.split(";") if s.strip()]


_FIRST = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value BLOB);
CREATE TABLE IF NOT EXISTS records (hash BLOB PRIMARY KEY, body BLOB NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS lists (
    id INTEGER PRIMARY KEY,
    origin TEXT NOT NULL, profile TEXT NOT NULL,
    kind TEXT NOT NULL, hub TEXT NOT NULL, project TEXT NOT NULL,
    UNIQUE (origin, profile, kind, hub, project)
);
CREATE TABLE IF NOT EXISTS snapshots (
    id INTEGER PRIMARY KEY,
    taken TEXT NOT NULL, origin TEXT NOT NULL, profile TEXT NOT NULL,
    scope TEXT NOT NULL, counts TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS reads (
    snapshot INTEGER NOT NULL REFERENCES snapshots (id) ON DELETE CASCADE,
    list INTEGER NOT NULL REFERENCES lists (id),
    ok INTEGER NOT NULL, why TEXT NOT NULL,
    PRIMARY KEY (snapshot, list)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS reads_of_list ON reads (list, snapshot);
CREATE TABLE IF NOT EXISTS members (
    list INTEGER NOT NULL, since INTEGER NOT NULL, record BLOB NOT NULL, until INTEGER,
    PRIMARY KEY (list, since, record)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS latest (
    list INTEGER PRIMARY KEY REFERENCES lists (id), read_at TEXT NOT NULL, body BLOB NOT NULL
);
"""

_REVIEWS = """
CREATE TABLE IF NOT EXISTS reviews (
    id INTEGER PRIMARY KEY,
    origin TEXT NOT NULL, profile TEXT NOT NULL,
    hub TEXT NOT NULL, hub_name TEXT NOT NULL, reviewer TEXT NOT NULL,
    started TEXT NOT NULL, ended TEXT NOT NULL, batch TEXT NOT NULL, criteria TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS review_rows (
    review INTEGER NOT NULL REFERENCES reviews (id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    email TEXT NOT NULL, name TEXT NOT NULL, decision TEXT NOT NULL, reason TEXT NOT NULL,
    seen TEXT NOT NULL, marks TEXT NOT NULL, access TEXT NOT NULL, outcome TEXT NOT NULL,
    PRIMARY KEY (review, position)
) WITHOUT ROWID
"""

_AUDIT = """
CREATE TABLE IF NOT EXISTS audit (
    id INTEGER PRIMARY KEY,
    line_hash BLOB NOT NULL UNIQUE,
    server TEXT NOT NULL, profile TEXT NOT NULL, change_id TEXT NOT NULL,
    hub TEXT NOT NULL, project TEXT NOT NULL, what TEXT NOT NULL,
    operator TEXT NOT NULL, moment TEXT NOT NULL, line TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS audit_of_server ON audit (server, profile, id);
CREATE INDEX IF NOT EXISTS audit_of_project ON audit (hub, project, what)
"""

_TRAIL = """
ALTER TABLE audit ADD COLUMN db_role TEXT NOT NULL DEFAULT '';
ALTER TABLE audit ADD COLUMN chain BLOB;
ALTER TABLE reviews ADD COLUMN db_role TEXT NOT NULL DEFAULT ''
"""

_CAMPAIGNS = """
CREATE TABLE IF NOT EXISTS campaigns (
    id INTEGER PRIMARY KEY,
    origin TEXT NOT NULL, profile TEXT NOT NULL, hub TEXT NOT NULL, hub_name TEXT NOT NULL,
    name TEXT NOT NULL, owner TEXT NOT NULL, started TEXT NOT NULL, read_at TEXT NOT NULL,
    due TEXT NOT NULL, if_no_answer TEXT NOT NULL, scope TEXT NOT NULL,
    counts TEXT NOT NULL, sha256 TEXT NOT NULL, not_read TEXT NOT NULL,
    db_role TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS campaign_rows (
    campaign INTEGER NOT NULL REFERENCES campaigns (id),
    position INTEGER NOT NULL,
    project TEXT NOT NULL, project_name TEXT NOT NULL, user_id TEXT NOT NULL,
    email TEXT NOT NULL, name TEXT NOT NULL, role TEXT NOT NULL, hub_role TEXT NOT NULL,
    access TEXT NOT NULL, reviewer TEXT NOT NULL, earlier TEXT NOT NULL,
    PRIMARY KEY (campaign, position)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS campaign_events (
    id INTEGER PRIMARY KEY,
    campaign INTEGER NOT NULL REFERENCES campaigns (id),
    position INTEGER NOT NULL, kind TEXT NOT NULL, decision TEXT NOT NULL,
    reason TEXT NOT NULL, operator TEXT NOT NULL, moment TEXT NOT NULL,
    act INTEGER NOT NULL, detail TEXT NOT NULL, db_role TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS campaign_events_of_row ON campaign_events (campaign, position, id);
CREATE UNIQUE INDEX IF NOT EXISTS campaign_closed ON campaign_events (campaign)
    WHERE kind = 'close'
"""

_LATEST_NAMED = """
ALTER TABLE latest ADD COLUMN records_digest BLOB
"""

_LATEST_READ_BY = """
ALTER TABLE latest ADD COLUMN read_by INTEGER
"""

_ROSTER = """
CREATE TABLE IF NOT EXISTS team_roster (
    role TEXT NOT NULL, origin TEXT NOT NULL, account TEXT NOT NULL,
    email TEXT NOT NULL, name TEXT NOT NULL, added TEXT NOT NULL,
    db_role TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (role, origin, account)
) WITHOUT ROWID;
ALTER TABLE campaign_rows ADD COLUMN reviewer_id TEXT NOT NULL DEFAULT '';
ALTER TABLE campaign_events ADD COLUMN chain BLOB;
CREATE UNIQUE INDEX IF NOT EXISTS campaign_closing ON campaign_events (campaign)
    WHERE kind = 'closing';
CREATE INDEX IF NOT EXISTS campaign_events_in_order ON campaign_events (campaign, id);
CREATE INDEX IF NOT EXISTS campaign_delegations ON campaign_events (campaign, reason, decision)
    WHERE kind = 'delegate'
"""

_ROW_FACTS = """
ALTER TABLE campaign_rows ADD COLUMN seen TEXT NOT NULL DEFAULT '';
ALTER TABLE campaign_rows ADD COLUMN invitation TEXT NOT NULL DEFAULT '';
ALTER TABLE campaign_rows ADD COLUMN through TEXT NOT NULL DEFAULT '';
ALTER TABLE campaign_rows ADD COLUMN projects TEXT NOT NULL DEFAULT '';
ALTER TABLE campaign_rows ADD COLUMN outside TEXT NOT NULL DEFAULT '';
ALTER TABLE campaign_rows ADD COLUMN advice TEXT NOT NULL DEFAULT '';
ALTER TABLE campaign_rows ADD COLUMN advice_reason TEXT NOT NULL DEFAULT ''
"""

#: The schema as ordered steps (sqlite-utils' migrations are the anchor): a new table or column
#: is a new step at the end, never an edit of a step a store may already have applied. Each
#: step is written once, in the SQL both engines speak; :meth:`Engine.ddl` says it in an
#: engine's own words where they differ (a byte type, a key column).
MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "records, lists, snapshots, reads, members, the latest lists", _FIRST),
    Migration(2, "access reviews: who reviewed, when, each decision and its outcome", _REVIEWS),
    Migration(3, "the audit trail: every change line of every operator, each once", _AUDIT),
    Migration(
        4,
        "the trail and the reviews attributed by the database (its role), each trail line "
        "chained to the one before, and append-only for the team",
        _TRAIL,
    ),
    Migration(
        5,
        "review campaigns: a frozen population, each decision and its maker kept, closed once",
        _CAMPAIGNS,
    ),
    Migration(
        6,
        "each list's latest state named by its records in their order: a snapshot that finds a "
        "list as it was does not write it again",
        _LATEST_NAMED,
    ),
    Migration(
        7,
        "each list's latest state says which snapshot read it: a list found as that snapshot "
        "read it is not hashed again",
        _LATEST_READ_BY,
    ),
    Migration(
        8,
        "a snapshot's new records compressed many together, each record's row pointing into "
        "its pack (an older hubtui cannot read them, and refuses the store in words)",
        "",
    ),
    Migration(
        9,
        "the team roster (each database role and the accounts it acts for), each campaign "
        "row's reviewer by account, each campaign event chained to the one before; on "
        "PostgreSQL the campaign's rules kept by the database itself",
        _ROSTER,
    ),
    Migration(
        10,
        "each campaign row's facts as read at the start (last sign-in, invitation, the domain "
        "a limited reader reads through, how many projects, outside the SSO tenant) and the "
        "recommendation why's table gives, with its reason",
        _ROW_FACTS,
    ),
)
#: The step from which the trail is attributed by the database and append-only for the team.
TRAIL_SEALED = 4
#: The columns of a review's kept row, in order.
REVIEW_COLUMNS = ("email", "name", "decision", "reason", "seen", "marks", "access", "outcome")
#: The columns of a review itself, as :meth:`Store.save_review` takes them.
REVIEW_HEAD = ("hub", "hub_name", "reviewer", "started", "ended", "batch", "criteria")
#: The schema this version writes; a store of a newer one is refused, an older one migrated.
SCHEMA = MIGRATIONS[-1].version


#: Records read in one query (SQLite takes up to 32,766 values a statement).
RECORDS_A_QUERY = 500
#: The most a kept list or record inflates to when read back, and how deep it may nest.
STORED_LIST_BYTES = 128 * 1024 * 1024
STORED_RECORD_BYTES = 16 * 1024 * 1024
STORED_DEPTH = 64


#: Every table and index the schema makes: a store that says it is of the schema but lacks one
#: is refused as it is opened, not when a query fails later.
_NAMES = frozenset(
    re.findall(
        r"CREATE (?:TABLE|INDEX|UNIQUE INDEX) IF NOT EXISTS (\w+)",
        " ".join(m.statements for m in MIGRATIONS),
    )
)


def migrate(engine: Engine, *, read_only: bool) -> None:
    """Bring the schema to :data:`SCHEMA`, one step at a time, each in one transaction; refuse
    a newer one. Another process migrating at the same moment is waited for (SQLite's busy
    timeout, PostgreSQL's lock), and a step it applied meanwhile is not applied again: the
    version is read again inside the step's transaction."""
    version = engine.version()
    if version > SCHEMA:
        raise _newer(engine.where, version)
    if version == SCHEMA:
        _check_tables(engine, version)
        return
    if read_only:
        raise StoreError(
            f"The store {engine.where} is empty or of an old schema (schema {version}; this "
            f"hubtui reads {SCHEMA}); open it to write, or run hubtui store migrate."
        )
    for step in MIGRATIONS:
        if step.version <= version:
            continue
        with engine.migrating() as now_at:
            if now_at > SCHEMA:
                raise _newer(engine.where, now_at)
            if now_at < step.version:
                for statement in step.each():
                    engine.run(engine.ddl(statement))
                if step.version >= TRAIL_SEALED:
                    engine.seal_trail()
                engine.set_version(step.version)
                if step.version == 1:
                    engine.run(
                        "INSERT INTO meta (key, value) VALUES ('zdict', ?) ON CONFLICT DO NOTHING",
                        (ZDICT,),
                    )
        version = step.version


def schema_of(where: Path | str) -> int:
    """The schema a store is of now (0: none yet), read without changing it: a file, or a team
    store's address."""
    if isinstance(where, str):
        from hubtui.core.store.postgres import connect

        engine = connect(where, read_only=True)
        try:
            return engine.version()
        except engine.errors as error:
            raise StoreError(engine_words(engine, "cannot be read", error)) from None
        finally:
            engine.close()
    if not where.exists():
        return 0
    check_existing(where)
    try:
        with closing(sqlite3.connect(f"file:{where}?mode=ro", uri=True)) as db:
            return user_version(db)
    except sqlite3.Error as error:
        raise store_refusal(where, error) from None


def _newer(where: str | Path, version: int) -> StoreError:
    return StoreError(
        f"The store {where} was written by a newer hubtui (schema {version}; this one "
        f"reads {SCHEMA}). Upgrade hubtui, or move the file away."
    )


def _check_tables(engine: Engine, version: int) -> None:
    if lacking := sorted(_NAMES - engine.names()):
        raise StoreError(
            f"The store {engine.where} says it is of schema {version} but lacks "
            f"{', '.join(lacking)}. Move the file away to start a new one."
        )


def applied(engine: Engine) -> list[Migration]:
    """The steps this store holds already."""
    version = engine.version()
    return [step for step in MIGRATIONS if step.version <= version]


def pending(engine: Engine) -> list[Migration]:
    """The steps :func:`migrate` would apply to this store (none when it is newer)."""
    version = engine.version()
    return [step for step in MIGRATIONS if step.version > version]
