"""What was read from a server, kept: the last hub list (for an instant start) and snapshots.

Over 400 lines: the store whole: its migrations, records kept once, lists, snapshots, reviews,
the audit trail and the port, with each query written once for both engines (the SQLite one
here; PostgreSQL's differences alone in :mod:`hubtui.core.store_pg`).

One SQLite file (``store.sqlite3`` in the user data directory, or ``HUBTUI_DATA_DIR``), the
person's alone (file 0600, folder 0700, a symbolic link refused), in WAL mode with a busy timeout
so that the app and a headless command use it at once. Standard library only: the app reads its
last hub list from here before httpx and pydantic are imported.

What is kept is each record as the server sent it (unknown fields kept, an absent field absent),
keyed by the server's origin and the profile, with when it was read; never the token.

- A **record** is stored once, by the hash of its canonical JSON, compressed against a dictionary
  of the contract's field names: the same user in ten projects, or unchanged across a hundred
  snapshots, costs its bytes once.
- A **list** is one thing read: the hubs, a hub's projects, a project's users.
- A **snapshot** reads lists in one transaction; a list's membership is kept as intervals
  (``members``: present from snapshot ``since`` to ``until``), so a snapshot where little changed
  costs the changes, not a copy.
- The **latest** state of a list (the hub list by default) is kept whole, for the start.

Two engines keep it, with one schema, one set of queries and one list of migration steps: this
file's SQLite (the default, nothing to set up) and a team's PostgreSQL
(:mod:`hubtui.core.store_pg`, the ``store_url`` setting). The queries are written once in the
SQL both speak (``ON CONFLICT``, no engine's own words); an engine (:class:`Engine`) says only
what differs: its placeholder, its byte and key types, where the schema's version is kept, how a
writer takes the store to itself, and its errors.
"""

from __future__ import annotations

import errno
import functools
import hashlib
import json
import re
import sqlite3
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, closing, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, Self, TypeVar

from hubtui.core.changes.log import now, parse_line
from hubtui.core.files import FileRefused, check_existing, make_private
from hubtui.core.places import default_store_path
from hubtui.core.store_engine import Rows, StoreError
from hubtui.hosts import server_identity
from hubtui.text import nesting

__all__ = [
    "MIGRATIONS",
    "SCHEMA",
    "Engine",
    "Migration",
    "StorePort",
    "schema_of",
    "ListKey",
    "ListRead",
    "Snapshot",
    "SnapshotInfo",
    "Store",
    "StoreError",
    "StoreInfo",
    "ReviewInfo",
    "REVIEW_COLUMNS",
    "REVIEW_HEAD",
    "default_store_path",
    "now",
    "origin_of",
    "store_key",
    "record_hash",
]

#: Words a record's JSON is made of, for compressing each record alone (stored in the file, so
#: a file always decodes with the dictionary it was written with).
_ZDICT = b"".join(
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

#: The schema as ordered steps (sqlite-utils' migrations are the anchor): a new table or column
#: is a new step at the end, never an edit of a step a store may already have applied. Each
#: step is written once, in the SQL both engines speak; :meth:`Engine.ddl` says it in an
#: engine's own words where they differ (a byte type, a key column).
MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "records, lists, snapshots, reads, members, the latest lists", _FIRST),
    Migration(2, "access reviews: who reviewed, when, each decision and its outcome", _REVIEWS),
    Migration(3, "the audit trail: every change line of every operator, each once", _AUDIT),
)
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
        r"CREATE (?:TABLE|INDEX) IF NOT EXISTS (\w+)", " ".join(m.statements for m in MIGRATIONS)
    )
)


@dataclass(frozen=True, order=True)
class ListKey:
    """Which list: ``hubs`` (hub and project empty), ``hub`` (one hub), ``projects`` (a hub's),
    ``users`` (a project's)."""

    kind: str
    hub: str = ""
    project: str = ""


@dataclass(frozen=True)
class ListRead:
    """One list in a snapshot: read (``ok``) with these records, or not, and why."""

    ok: bool
    why: str = ""
    hashes: frozenset[bytes] = frozenset()


@dataclass(frozen=True)
class Snapshot:
    """What a snapshot read, before it is written: every list, read or not."""

    origin: str
    profile: str
    scope: str
    """``all hubs`` or the hubs named."""
    taken: str
    lists: Mapping[ListKey, tuple[bool, str, Sequence[Mapping[str, Any]]]]
    """Each list: whether it was read, why not, and its records as sent."""

    def counts(self) -> dict[str, int]:
        """Hubs whose projects were asked for, projects whose users were, lists not read, and
        users read (one a project they are in)."""
        return {
            "hubs": sum(1 for key in self.lists if key.kind == "projects"),
            "projects": sum(1 for key in self.lists if key.kind == "users"),
            "not_read": sum(1 for ok, _, _ in self.lists.values() if not ok),
            "users": sum(len(r) for k, (_, _, r) in self.lists.items() if k.kind == "users"),
        }


@dataclass(frozen=True)
class SnapshotInfo:
    id: int
    taken: str
    origin: str
    profile: str
    scope: str
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def short(self) -> str:
        """``#3 (2026-11-17 14:02)``."""
        return f"#{self.id} ({self.taken.replace('T', ' ')[:16]})"

    @property
    def label(self) -> str:
        """``#3 2026-11-17 14:02 UTC, all hubs (1,204 users, 2 projects not read)``."""
        when = self.taken.replace("T", " ")[:16] + " UTC"
        users = self.counts.get("users", 0)
        missing = self.counts.get("not_read", 0)
        lost = f", {missing} not read" if missing else ""
        return f"#{self.id} {when}, {self.scope} ({users:,} users{lost})"


@dataclass(frozen=True)
class StoreInfo:
    where: str
    size: int
    snapshots: int
    records: int
    lists: int
    reviews: int = 0
    audit: int = 0


@dataclass(frozen=True)
class ReviewInfo:
    """A kept review, without its rows (:meth:`Store.review_rows`)."""

    hub: str
    hub_name: str
    reviewer: str
    started: str
    ended: str
    batch: str
    criteria: str
    id: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    """How many rows of each decision."""
    origin: str = ""
    profile: str = ""


#: The demo's own store, apart from the person's.
def store_key(
    base_url: str | None, profile: str | None, *, demo: bool
) -> tuple[Path, str, str | None]:
    """The store file of a server, and the server's and profile's key in it (the demo API: its
    own file, and no profile)."""
    if demo:
        return default_store_path(demo=True), origin_of(None), None
    return default_store_path(), origin_of(base_url), profile


def origin_of(base_url: str | None) -> str:
    """A server's key in the store: its whole normalised base URL (no server: the demo API)."""
    return server_identity(base_url)


def canonical(record: Mapping[str, Any]) -> bytes:
    return json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def record_hash(record: Mapping[str, Any]) -> bytes:
    """The identity of a record: a hash of its canonical JSON (16 bytes)."""
    return _digest(canonical(record))


def body_hash(body: bytes) -> bytes:
    """:func:`record_hash` of a record's canonical JSON, already made."""
    return _digest(body)


def _digest(body: bytes) -> bytes:
    return hashlib.blake2b(body, digest_size=16).digest()


_F = TypeVar("_F", bound=Callable[..., Any])


class Engine(Protocol):
    """What differs between the engines that keep a store; the queries are the store's.

    A query is written once with ``?`` placeholders in the SQL both engines speak; an engine
    runs it. Every failure is one of :attr:`errors`, which the store words as
    :class:`StoreError` naming :attr:`where`.
    """

    where: str
    """What a message names: the file, or the team store's address (never a password)."""
    errors: tuple[type[Exception], ...]

    def run(self, sql: str, args: Sequence[Any] = ()) -> Rows: ...
    def run_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None: ...
    def insert(self, sql: str, args: Sequence[Any]) -> int:
        """Run an INSERT into a table with an ``id`` key; the new row's id."""
        ...

    def add_rows(
        self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]], *, keep: bool
    ) -> None:
        """Add many rows to a table at once; with ``keep``, a row whose key is there already is
        left as it is (``ON CONFLICT DO NOTHING``)."""
        ...

    def writing(self) -> AbstractContextManager[None]:
        """One transaction, the store's sole writer meanwhile; undone whole on error."""
        ...

    def migrating(self) -> AbstractContextManager[int]:
        """One transaction holding the store's migration to itself: the version read inside."""
        ...

    def set_version(self, version: int) -> None: ...
    def version(self) -> int: ...
    def ddl(self, statement: str) -> str:
        """A statement of :data:`MIGRATIONS` in this engine's words."""
        ...

    def names(self) -> set[str]:
        """The tables and indexes there are."""
        ...

    def size(self) -> int: ...
    def vacuum(self) -> None: ...
    def close(self) -> None: ...


class SQLiteEngine:
    """The default engine: one file, the person's alone, in WAL mode."""

    errors: tuple[type[Exception], ...] = (sqlite3.Error,)

    def __init__(self, path: Path, connection: sqlite3.Connection) -> None:
        self.path = path
        self.where = str(path)
        self.db = connection

    def run(self, sql: str, args: Sequence[Any] = ()) -> Rows:
        return self.db.execute(sql, args)

    def run_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        self.db.executemany(sql, rows)

    def insert(self, sql: str, args: Sequence[Any]) -> int:
        return int(self.db.execute(sql, args).lastrowid or 0)

    def add_rows(
        self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]], *, keep: bool
    ) -> None:
        marks = ",".join("?" * len(columns))
        conflict = " ON CONFLICT DO NOTHING" if keep else ""
        self.db.executemany(
            f"INSERT INTO {table} ({','.join(columns)}) VALUES ({marks}){conflict}", rows
        )

    @contextmanager
    def writing(self) -> Iterator[None]:
        self.db.execute("BEGIN IMMEDIATE")  # the write lock at once: no other writer meanwhile
        try:
            yield
        except BaseException:
            self.db.rollback()
            raise
        self.db.commit()

    @contextmanager
    def migrating(self) -> Iterator[int]:
        with self.writing():
            yield self.version()

    def set_version(self, version: int) -> None:
        self.db.execute(f"PRAGMA user_version = {int(version)}")

    def version(self) -> int:
        return _version(self.db)

    def ddl(self, statement: str) -> str:
        return statement

    def names(self) -> set[str]:
        return {row[0] for row in self.db.execute("SELECT name FROM sqlite_master")}

    def size(self) -> int:
        return sum(
            p.stat().st_size
            for p in (self.path, Path(f"{self.path}-wal"), Path(f"{self.path}-shm"))
            if p.exists()
        )

    def vacuum(self) -> None:
        self.db.execute("VACUUM")

    def close(self) -> None:
        self.db.close()


def _read_errors(method: _F) -> _F:
    """A query that fails (a store whose tables are not what they say, a team store gone) raises
    :class:`StoreError` naming the store, never the engine's own error."""

    @functools.wraps(method)
    def guarded(self: Store, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except self.engine.errors as error:
            raise StoreError(self.engine_words("cannot be read", error)) from None

    return guarded  # type: ignore[return-value]


class Store:
    """An open store; use as a context manager, or :meth:`close`."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        #: What a message names: the file, or the team store's address.
        self.where = engine.where
        found = engine.run("SELECT value FROM meta WHERE key = 'zdict'").fetchone()
        self._zdict: bytes = bytes(found[0]) if found else _ZDICT

    # Opening ----------------------------------------------------------------------------------

    @classmethod
    def open(cls, path: Path | None = None, *, read_only: bool = False) -> Store:
        """Open (or create) the store; :class:`StoreError` says, naming the file, why it cannot
        be: a symbolic link, a corrupt file, a newer schema, a folder that cannot be written."""
        path = path or default_store_path()
        connection: sqlite3.Connection | None = None
        try:
            check_existing(path)  # no link followed, no file of another's or others can write
            if read_only:
                if not path.exists():
                    raise StoreError(f"There is no store at {path} yet: nothing was kept.")
                target, uri = f"file:{path}?mode=ro", True
            else:
                make_private(path)  # the person's alone, no descriptor of it opened and closed
                target, uri = str(path), False
            connection = sqlite3.connect(
                target, uri=uri, timeout=5.0, check_same_thread=False, isolation_level=None
            )
            connection.execute("PRAGMA foreign_keys = ON")
            connection.execute("PRAGMA busy_timeout = 5000")
            if not read_only:
                connection.execute("PRAGMA journal_mode = WAL")
            engine = SQLiteEngine(path, connection)
            migrate(engine, read_only=read_only)
            return cls(engine)
        except BaseException as error:
            if connection is not None:
                connection.close()
            if isinstance(error, StoreError | sqlite3.DatabaseError | OSError):
                raise _refusal(path, error) from None
            raise

    @classmethod
    def open_url(cls, url: str, *, read_only: bool = False) -> Store:
        """Open a team's store on PostgreSQL (``store_url``), migrating it unless ``read_only``;
        :class:`StoreError` names the store (never a password) and why it cannot be used."""
        from hubtui.core.store_pg import connect

        engine = connect(url, read_only=read_only)
        try:
            migrate(engine, read_only=read_only)
            return cls(engine)
        except BaseException as error:
            engine.close()
            if isinstance(error, engine.errors):
                words = _engine_words(engine, "cannot be used", error)
                if getattr(error, "sqlstate", None) == "42501":  # insufficient privilege
                    words += (
                        " Its schema's steps are applied by the role that owns it: hubtui store "
                        "migrate --store-url with the owner's role."
                    )
                raise StoreError(words) from None
            raise

    def close(self) -> None:
        self.engine.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def engine_words(self, what: str, error: BaseException) -> str:
        return _engine_words(self.engine, what, error)

    @contextmanager
    def _writing(self) -> Iterator[Engine]:
        """One transaction, taken at once (no other writer meanwhile); undone whole on error."""
        try:
            with self.engine.writing():
                yield self.engine
        except self.engine.errors as error:
            raise StoreError(
                f"Could not write to the store {self.where}: {_first_line(error)}."
            ) from None

    # Records ----------------------------------------------------------------------------------

    def _encode(self, record: Mapping[str, Any]) -> tuple[bytes, bytes]:
        body = canonical(record)
        packer = zlib.compressobj(9, zdict=self._zdict)
        return _digest(body), packer.compress(body) + packer.flush()

    def record(self, key: bytes) -> dict[str, Any]:
        """One stored record, as the server sent it."""
        return self.records([key])[0]

    @_read_errors
    def records(self, keys: Iterable[bytes]) -> list[dict[str, Any]]:
        """Stored records, as the server sent them, in the order of ``keys``: read a few hundred
        a query (a team store's round trips, not one a record)."""
        wanted = list(keys)
        found: dict[bytes, dict[str, Any]] = {}
        for key, body in _in_parts(
            self.engine, "SELECT hash, body FROM records WHERE hash IN ({})", wanted
        ):
            decoded = self._decode(body, "a record", STORED_RECORD_BYTES)
            if not isinstance(decoded, dict):
                raise StoreError(f"A record kept in {self.where} is not an object.")
            found[bytes(key)] = decoded
        if len(found) < len(set(wanted)):
            raise StoreError(f"The store {self.where} lacks a record it refers to.")
        return [found[key] for key in wanted]

    def _decode(self, body: object, what: str, limit: int) -> Any:
        """What the store kept, checked as it is read back: bounded when inflated and in depth,
        and JSON; :class:`StoreError` names the store and the bound broken."""
        try:
            inflated = _inflate(body, limit, self._zdict if what == "a record" else None)
            if nesting(inflated) > STORED_DEPTH:
                raise ValueError(f"it nests deeper than {STORED_DEPTH} levels, as no record does")
            return json.loads(inflated)
        except ValueError as error:
            raise StoreError(
                f"{what.capitalize()} kept in {self.where} cannot be read back ({error})."
            ) from None

    def _list_id(self, db: Engine, origin: str, profile: str, key: ListKey) -> int:
        db.run(
            "INSERT INTO lists (origin, profile, kind, hub, project) VALUES (?,?,?,?,?) "
            "ON CONFLICT DO NOTHING",
            (origin, profile, key.kind, key.hub, key.project),
        )
        row = db.run(
            "SELECT id FROM lists WHERE origin=? AND profile=? AND kind=? AND hub=? AND project=?",
            (origin, profile, key.kind, key.hub, key.project),
        ).fetchone()
        return int(row[0])

    # The latest state of a list ---------------------------------------------------------------

    def save_latest(
        self,
        origin: str,
        profile: str | None,
        key: ListKey,
        records: Sequence[Mapping[str, Any]],
        read_at: str | None = None,
    ) -> None:
        """Keep this list as last read (replacing what was kept)."""
        body = zlib.compress(json.dumps(list(records), ensure_ascii=False).encode(), 6)
        with self._writing() as db:
            list_id = self._list_id(db, origin, profile or "", key)
            db.run(
                "INSERT INTO latest (list, read_at, body) VALUES (?,?,?) ON CONFLICT (list) "
                "DO UPDATE SET read_at = excluded.read_at, body = excluded.body",
                (list_id, read_at or now(), body),
            )

    @_read_errors
    def latest(
        self, origin: str, profile: str | None, key: ListKey
    ) -> tuple[list[dict[str, Any]], str] | None:
        """The list as last read, and when; None if it was never kept."""
        row = self.engine.run(
            "SELECT latest.body, latest.read_at FROM latest JOIN lists ON lists.id = latest.list "
            "WHERE origin=? AND profile=? AND kind=? AND hub=? AND project=?",
            (origin, profile or "", key.kind, key.hub, key.project),
        ).fetchone()
        if row is None:
            return None
        records = self._decode(row[0], "the list", STORED_LIST_BYTES)
        if not isinstance(records, list):
            raise StoreError(f"The list kept in {self.where} is not a list.")
        return records, str(row[1])

    @_read_errors
    def last_known(
        self, origin: str, profile: str | None, key: ListKey
    ) -> tuple[list[dict[str, Any]], str] | None:
        """The list as last read, from its latest state or the newest snapshot that read it,
        whichever is newer, and when; None if it was never read."""
        kept = self.latest(origin, profile, key)
        row = self.engine.run(
            "SELECT reads.snapshot, snapshots.taken, lists.id FROM reads "
            "JOIN lists ON lists.id = reads.list JOIN snapshots ON snapshots.id = reads.snapshot "
            "WHERE lists.origin=? AND lists.profile=? AND kind=? AND hub=? AND project=? AND ok=1 "
            "ORDER BY reads.snapshot DESC LIMIT 1",
            (origin, profile or "", key.kind, key.hub, key.project),
        ).fetchone()
        if row is None or (kept is not None and kept[1] >= row[1]):
            return kept
        snapshot_id, taken, list_id = row
        return self.records(self._members(list_id, snapshot_id)), str(taken)

    @_read_errors
    def kept_hubs(self, origin: str, profile: str | None) -> list[str]:
        """The Ids of the hubs kept one by one (a snapshot of chosen hubs keeps each hub it
        read): what names a hub offline when the hub list was never read."""
        rows = self.engine.run(
            "SELECT DISTINCT hub FROM lists WHERE origin=? AND profile=? AND kind='hub' "
            "ORDER BY hub",
            (origin, profile or ""),
        )
        return [_text(row[0]) for row in rows]

    # Snapshots --------------------------------------------------------------------------------

    def write_snapshot(self, snapshot: Snapshot) -> SnapshotInfo:
        """Record a snapshot in one transaction: seen whole, or not at all. Its records are
        encoded before the transaction begins, and each step writes every list at once (a team
        store's round trips a snapshot, not a list), so the store is held the least time."""
        counts = snapshot.counts()
        lists = sorted(snapshot.lists.items())
        # Each list read, its records by hash, and its latest state in the order sent (a
        # snapshot keeps a set): what is read offline is the list as the server sent it.
        encoded = {key: dict(map(self._encode, records)) for key, (ok, _, records) in lists if ok}
        bodies = {
            key: zlib.compress(json.dumps(list(records), ensure_ascii=False).encode(), 6)
            for key, (ok, _, records) in lists
            if ok
        }
        every_record = {h: body for kept in encoded.values() for h, body in kept.items()}
        with self._writing() as db:
            snapshot_id = db.insert(
                "INSERT INTO snapshots (taken, origin, profile, scope, counts) VALUES (?,?,?,?,?)",
                (
                    snapshot.taken,
                    snapshot.origin,
                    snapshot.profile,
                    snapshot.scope,
                    json.dumps(counts),
                ),
            )
            ids = {
                key: self._list_id(db, snapshot.origin, snapshot.profile, key) for key, _ in lists
            }
            db.add_rows(
                "reads",
                ("snapshot", "list", "ok", "why"),
                [(snapshot_id, ids[key], int(ok), why) for key, (ok, why, _) in lists],
                keep=False,
            )
            # In key order: the pages of the tables fill up instead of splitting half-empty.
            db.add_rows("records", ("hash", "body"), sorted(every_record.items()), keep=True)
            read = [ids[key] for key in encoded]
            present, previous = self._present(db, read), self._previous(db, read, snapshot_id)
            gone, came = [], []
            for key, kept in encoded.items():
                list_id = ids[key]
                now_in = present.get(list_id, set())
                gone += [(previous.get(list_id), list_id, h) for h in sorted(now_in - kept.keys())]
                came += [(list_id, snapshot_id, h) for h in sorted(kept.keys() - now_in)]
            if gone:
                db.run_many(
                    "UPDATE members SET until = ? WHERE list = ? AND record = ? AND until IS NULL",
                    gone,
                )
            db.add_rows("members", ("list", "since", "record"), came, keep=False)
            db.run_many(
                "INSERT INTO latest (list, read_at, body) VALUES (?,?,?) "
                "ON CONFLICT (list) DO UPDATE SET read_at = excluded.read_at, "
                "body = excluded.body WHERE excluded.read_at >= latest.read_at",
                [(ids[key], snapshot.taken, body) for key, body in bodies.items()],
            )
        return SnapshotInfo(
            snapshot_id, snapshot.taken, snapshot.origin, snapshot.profile, snapshot.scope, counts
        )

    def _present(self, db: Engine, list_ids: Sequence[int]) -> dict[int, set[bytes]]:
        """The records each list holds as of its latest snapshot."""
        found: dict[int, set[bytes]] = {}
        query = "SELECT list, record FROM members WHERE list IN ({}) AND until IS NULL"
        for list_id, record in _in_parts(db, query, list_ids):
            found.setdefault(int(list_id), set()).add(bytes(record))
        return found

    def _previous(
        self, db: Engine, list_ids: Sequence[int], snapshot_id: int
    ) -> dict[int, int | None]:
        """The snapshot before this one that read each list."""
        query = (
            "SELECT list, max(snapshot) FROM reads WHERE list IN ({}) AND ok = 1 "
            "AND snapshot < ? GROUP BY list"
        )
        return {
            int(list_id): None if before is None else int(before)
            for list_id, before in _in_parts(db, query, list_ids, (snapshot_id,))
        }

    @_read_errors
    def snapshots(
        self, origin: str | None = None, profile: str | None = None
    ) -> list[SnapshotInfo]:
        """The snapshots kept (of this server and profile, when given), oldest first."""
        query = "SELECT id, taken, origin, profile, scope, counts FROM snapshots"
        args: tuple[str, ...] = ()
        if origin is not None:
            query += " WHERE origin = ? AND profile = ?"
            args = (origin, profile or "")
        return [
            SnapshotInfo(row[0], row[1], row[2], row[3], row[4], json.loads(row[5]))
            for row in self.engine.run(query + " ORDER BY id", args)
        ]

    @_read_errors
    def snapshot(self, snapshot_id: int) -> SnapshotInfo:
        for info in self.engine.run(
            "SELECT id, taken, origin, profile, scope, counts FROM snapshots WHERE id = ?",
            (snapshot_id,),
        ):
            return SnapshotInfo(info[0], info[1], info[2], info[3], info[4], json.loads(info[5]))
        raise StoreError(f"There is no snapshot #{snapshot_id} in {self.where}.")

    @_read_errors
    def reads(self, snapshot_id: int) -> dict[ListKey, ListRead]:
        """Every list the snapshot read (or tried to), with its records' hashes."""
        found: dict[ListKey, ListRead] = {}
        rows = self.engine.run(
            "SELECT lists.id, kind, hub, project, ok, why FROM reads "
            "JOIN lists ON lists.id = reads.list WHERE reads.snapshot = ?",
            (snapshot_id,),
        ).fetchall()
        for list_id, kind, hub, project, ok, why in rows:
            hashes = self._members(list_id, snapshot_id) if ok else frozenset()
            found[ListKey(kind, hub, project)] = ListRead(bool(ok), why, hashes)
        return found

    def _members(self, list_id: int, snapshot_id: int) -> frozenset[bytes]:
        """The records of a list as a snapshot read it."""
        return frozenset(
            bytes(row[0])
            for row in self.engine.run(
                "SELECT record FROM members WHERE list = ? AND since <= ? "
                "AND (until IS NULL OR until >= ?)",
                (list_id, snapshot_id, snapshot_id),
            )
        )

    # Reviews ----------------------------------------------------------------------------------

    def save_review(
        self,
        origin: str,
        profile: str | None,
        head: Mapping[str, str],
        rows: Sequence[Mapping[str, str]],
    ) -> int:
        """Keep a review (its :data:`REVIEW_HEAD` values) and its rows (:data:`REVIEW_COLUMNS`),
        whole or not at all; its number."""
        with self._writing() as db:
            number = db.insert(
                "INSERT INTO reviews (origin, profile, hub, hub_name, reviewer, started, ended, "
                "batch, criteria) VALUES (?,?,?,?,?,?,?,?,?)",
                (origin, profile or "", *(str(head.get(c, "")) for c in REVIEW_HEAD)),
            )
            db.run_many(
                "INSERT INTO review_rows (review, position, email, name, decision, reason, seen, "
                "marks, access, outcome) VALUES (?,?,?,?,?,?,?,?,?,?)",
                [
                    (number, position, *(str(row.get(c, "")) for c in REVIEW_COLUMNS))
                    for position, row in enumerate(rows)
                ],
            )
        return number

    @_read_errors
    def reviews(self, origin: str | None, profile: str | None) -> list[ReviewInfo]:
        """The reviews kept of this server and profile (None: of every server), oldest first,
        with their decisions counted."""
        found = []
        query = (
            "SELECT id, hub, hub_name, reviewer, started, ended, batch, criteria, origin, "
            "profile FROM reviews"
        )
        args: tuple[str, ...] = ()
        if origin is not None:
            query, args = query + " WHERE origin = ? AND profile = ?", (origin, profile or "")
        for row in self.engine.run(query + " ORDER BY id", args).fetchall():
            counts = {
                _text(decision): int(count)
                for decision, count in self.engine.run(
                    "SELECT decision, count(*) FROM review_rows WHERE review = ? "
                    "GROUP BY decision ORDER BY decision",
                    (row[0],),
                )
            }
            hub, hub_name, reviewer, started, ended, batch, criteria, at, as_ = map(_text, row[1:])
            found.append(
                ReviewInfo(
                    hub,
                    hub_name,
                    reviewer,
                    started,
                    ended,
                    batch,
                    criteria,
                    int(row[0]),
                    counts,
                    at,
                    as_,
                )
            )
        return found

    @_read_errors
    def review_rows(self, review_id: int) -> list[dict[str, str]]:
        """A kept review's rows, in the order decided (each value text, as kept)."""
        return [
            dict(zip(REVIEW_COLUMNS, (_text(v) for v in row), strict=True))
            for row in self.engine.run(
                f"SELECT {', '.join(REVIEW_COLUMNS)} FROM review_rows "  # noqa: S608
                "WHERE review = ? ORDER BY position",
                (review_id,),
            )
        ]

    # The audit trail --------------------------------------------------------------------------

    def add_audit_lines(self, lines: Sequence[str]) -> int:
        """Keep change-log lines in the audit trail, each once whatever how often it is given
        (keyed by the line's hash), in one transaction; how many were new. A line that is not a
        change is not kept."""
        rows = []
        for line in lines:
            fields = _audit_fields(line)
            if fields is not None:
                rows.append((_digest(line.encode()), *fields, line))
        if not rows:
            return 0
        fresh = list({row[0]: row for row in rows}.values())  # a line given twice, once
        with self._writing() as db:  # the sole writer: what is there now stays so until done
            query = "SELECT count(*) FROM audit WHERE line_hash IN ({})"
            there = sum(int(n) for (n,) in _in_parts(db, query, [row[0] for row in fresh]))
            db.run_many(
                "INSERT INTO audit (line_hash, server, profile, change_id, hub, project, what, "
                "operator, moment, line) VALUES (?,?,?,?,?,?,?,?,?,?) ON CONFLICT DO NOTHING",
                fresh,
            )
        return len(fresh) - there

    @_read_errors
    def audit_lines(
        self,
        servers: Sequence[str],
        *,
        hub: str | None = None,
        project: str | None = None,
        what: str | None = None,
    ) -> list[str]:
        """The change-log lines of these servers (a server and its older names) in the order
        they were kept, of one project's changes of one kind when asked."""
        if not servers:
            return []
        query = f"SELECT line FROM audit WHERE server IN ({','.join('?' * len(servers))})"
        args: list[str] = list(servers)
        for column, value in (("hub", hub), ("project", project), ("what", what)):
            if value is not None:
                query += f" AND {column} = ?"
                args.append(value)
        return [_text(row[0]) for row in self.engine.run(query + " ORDER BY id", args)]

    # Upkeep -----------------------------------------------------------------------------------

    @_read_errors
    def check(self) -> None:
        """Read the whole store once (SQLite's ``quick_check``): :class:`StoreError` naming
        the file when a page of it is damaged, never an answer read from what is left."""
        if not isinstance(self.engine, SQLiteEngine):
            return  # the PostgreSQL server answers for its own pages
        try:
            said = [str(row[0]) for row in self.engine.run("PRAGMA quick_check(5)").fetchall()]
        except self.engine.errors as error:
            raise StoreError(self.engine_words("is damaged", error)) from None
        if said != ["ok"]:
            lines = [x for row in said for x in row.splitlines() if x and not x.startswith("***")]
            raise StoreError(
                f"The store {self.where} is damaged ({'; '.join(lines[:2]) or 'not whole'}). "
                "Move the file away to start a new one."
            )

    def info(self) -> StoreInfo:
        def count(table: str) -> int:
            return int(self.engine.run(f"SELECT count(*) FROM {table}").fetchone()[0])  # noqa: S608

        return StoreInfo(
            self.where,
            self.engine.size(),
            count("snapshots"),
            count("records"),
            count("lists"),
            count("reviews"),
            count("audit"),
        )

    @_read_errors
    def prune(self, before: str) -> int:
        """Forget the snapshots taken before this time (ISO), and what only they held; how many
        snapshots were forgotten."""
        with self._writing() as db:
            gone = db.run("DELETE FROM snapshots WHERE taken < ?", (before,)).rowcount
            oldest = db.run("SELECT min(id) FROM snapshots").fetchone()[0]
            if oldest is None:
                db.run("DELETE FROM members")
            else:
                db.run("DELETE FROM members WHERE until IS NOT NULL AND until < ?", (oldest,))
            db.run("DELETE FROM records WHERE hash NOT IN (SELECT record FROM members)")
        return int(gone)

    @_read_errors
    def vacuum(self) -> None:
        """Give the space of what was forgotten back to the disk."""
        self.engine.vacuum()


def _in_parts(
    db: Engine, query: str, values: Sequence[Any], more: Sequence[Any] = ()
) -> Iterator[Any]:
    """The rows of ``query`` whose ``IN ({})`` is each part of ``values`` in turn (a few hundred
    a query: SQLite's bound on values, a team store's round trips), ``more`` bound after."""
    for at in range(0, len(values), RECORDS_A_QUERY):
        part = values[at : at + RECORDS_A_QUERY]
        yield from db.run(query.format(",".join("?" * len(part))), [*part, *more])


def _audit_fields(line: str) -> tuple[str, ...] | None:
    """What the audit trail is searched by, from a change line: server, profile, change id,
    hub, project, action, operator and time (None: not a change line, as the change log reads
    it: :func:`~hubtui.core.changes.log.parse_line`; or of the demo API, whose history is its
    own and never a team's)."""
    change = parse_line(line)
    if change is None or change.server == "demo":
        return None
    return (
        change.server, change.profile or "", change.id, change.hub_id, change.project_id,
        change.action, change.operator, change.time,
    )  # fmt: skip


def _first_line(error: BaseException) -> str:
    """An engine's error in one line, without its trailing full stop."""
    text = str(error).strip().splitlines()
    return (text[0] if text else type(error).__name__).rstrip(".")


def _engine_words(engine: Engine, what: str, error: BaseException) -> str:
    return f"The store {engine.where} {what} ({_first_line(error)})." + (
        " Move the file away to start a new one." if isinstance(engine, SQLiteEngine) else ""
    )


def _text(value: object) -> str:
    """A kept value read back as text, whatever the file holds (a number, bytes, nothing)."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return "" if value is None else str(value)


def _inflate(body: object, limit: int, zdict: bytes | None = None) -> bytes:
    """``body`` decompressed; ValueError says why not: larger than ``limit`` once inflated (a
    kept list never inflates without bound), or not what the store writes."""
    if not isinstance(body, bytes):
        raise ValueError("it is not compressed data")
    unpacker = zlib.decompressobj(zdict=zdict) if zdict is not None else zlib.decompressobj()
    try:
        inflated = unpacker.decompress(body, limit + 1)
    except zlib.error as error:
        raise ValueError(f"it cannot be decompressed: {error}") from None
    if len(inflated) > limit or unpacker.unconsumed_tail:
        raise ValueError(f"it inflates past {limit / 1e6:,.0f} MB, the most hubtui reads back")
    return inflated


def _refusal(path: Path, error: BaseException) -> StoreError:
    """Why the store at ``path`` cannot be used, naming the file."""
    if isinstance(error, StoreError):
        return error
    if isinstance(error, FileRefused):
        return StoreError(f"The store cannot be used: {error.strerror}.")
    if isinstance(error, OSError):
        why = error.strerror or str(error)
        if error.errno == errno.ELOOP:
            why = "it is a symbolic link, which hubtui does not follow"
        return StoreError(f"The store {path} cannot be opened ({why}).")
    return StoreError(
        f"The store {path} cannot be used ({error}). Move the file away to start a new one."
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
                engine.set_version(step.version)
                if step.version == 1:
                    engine.run(
                        "INSERT INTO meta (key, value) VALUES ('zdict', ?) ON CONFLICT DO NOTHING",
                        (_ZDICT,),
                    )
        version = step.version


def schema_of(where: Path | str) -> int:
    """The schema a store is of now (0: none yet), read without changing it: a file, or a team
    store's address."""
    if isinstance(where, str):
        from hubtui.core.store_pg import connect

        engine = connect(where, read_only=True)
        try:
            return engine.version()
        except engine.errors as error:
            raise StoreError(_engine_words(engine, "cannot be read", error)) from None
        finally:
            engine.close()
    if not where.exists():
        return 0
    check_existing(where)
    try:
        with closing(sqlite3.connect(f"file:{where}?mode=ro", uri=True)) as db:
            return _version(db)
    except sqlite3.Error as error:
        raise _refusal(where, error) from None


def _version(db: sqlite3.Connection) -> int:
    with closing(db.cursor()) as cursor:
        return int(cursor.execute("PRAGMA user_version").fetchone()[0])


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


class StorePort(Protocol):
    """What hubtui asks of a store, whatever engine keeps it: the Workspace, the offline
    transport and the commands use a store through this alone. :class:`Store` implements it on
    either :class:`Engine` (SQLite, one file, the default; PostgreSQL, a team's), holding the
    same steps of :data:`MIGRATIONS` and answering :class:`StoreError` for every failure."""

    where: str

    def close(self) -> None: ...
    def __enter__(self) -> Self: ...
    def __exit__(self, *exc: object) -> None: ...
    def record(self, key: bytes) -> dict[str, Any]: ...
    def records(self, keys: Iterable[bytes]) -> list[dict[str, Any]]: ...
    def save_latest(
        self,
        origin: str,
        profile: str | None,
        key: ListKey,
        records: Sequence[Mapping[str, Any]],
        read_at: str | None = None,
    ) -> None: ...
    def latest(
        self, origin: str, profile: str | None, key: ListKey
    ) -> tuple[list[dict[str, Any]], str] | None: ...
    def last_known(
        self, origin: str, profile: str | None, key: ListKey
    ) -> tuple[list[dict[str, Any]], str] | None: ...
    def kept_hubs(self, origin: str, profile: str | None) -> list[str]: ...
    def write_snapshot(self, snapshot: Snapshot) -> SnapshotInfo: ...
    def snapshots(
        self, origin: str | None = None, profile: str | None = None
    ) -> list[SnapshotInfo]: ...
    def snapshot(self, snapshot_id: int) -> SnapshotInfo: ...
    def reads(self, snapshot_id: int) -> dict[ListKey, ListRead]: ...
    def info(self) -> StoreInfo: ...
    def save_review(
        self,
        origin: str,
        profile: str | None,
        head: Mapping[str, str],
        rows: Sequence[Mapping[str, str]],
    ) -> int: ...
    def reviews(self, origin: str | None, profile: str | None) -> list[ReviewInfo]: ...
    def review_rows(self, review_id: int) -> list[dict[str, str]]: ...
    def add_audit_lines(self, lines: Sequence[str]) -> int: ...
    def audit_lines(
        self,
        servers: Sequence[str],
        *,
        hub: str | None = None,
        project: str | None = None,
        what: str | None = None,
    ) -> list[str]: ...
    def prune(self, before: str) -> int: ...
    def vacuum(self) -> None: ...


def _implements_the_port(store: Store) -> StorePort:
    """Checked by mypy only: the SQLite store is a :class:`StorePort`."""
    return store
