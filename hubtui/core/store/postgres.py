"""The store on a team's PostgreSQL: the same schema, queries and migration steps as the
SQLite file (:mod:`hubtui.core.store`), on a server a support team already runs.

Imported only when ``store_url`` is set (psycopg is the ``team`` extra). The address is a libpq
connection string or URL (``postgresql://db.example/hubtui?sslmode=verify-full``, or
``service=team``); the password comes from libpq's own sources (``~/.pgpass``, ``PGPASSWORD``,
the service file) and an address holding one is refused, so hubtui never prints, logs or keeps
it. What differs from SQLite is said here once: ``%s`` for ``?``, ``BYTEA`` for ``BLOB``, an
identity column for SQLite's integer key, the schema's version in a table of its own, and a
writer's transaction taking an advisory lock, so that writers come one at a time as on SQLite
(snapshots whole and in order) while readers never wait.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from hubtui.core.store.engines import Rows, StoreError
from hubtui.store_address import PASSWORD_HELD, store_url_problem

if TYPE_CHECKING:
    import psycopg


__all__ = ["TEAM_EXTRA", "PostgresEngine", "connect"]

#: The extra that installs the PostgreSQL driver.
TEAM_EXTRA = "team"

#: The advisory locks' first key (``hubtui`` on a phone keypad); the second is the schema's, so
#: two stores in two schemas of one database never wait for each other.
_LOCK_SPACE = 482_884
_WRITE, _MIGRATE = "hashtext(current_schema())", "hashtext(current_schema() || ' migrate')"
#: The seconds a connection may take when the address does not say (libpq waits for ever).
CONNECT_TIMEOUT = 10


class PostgresEngine:
    """One connection to a team store (autocommit; a transaction only where the store takes
    one)."""

    def __init__(self, where: str, connection: psycopg.Connection[Any]) -> None:
        import psycopg

        self.where = where
        self.errors: tuple[type[Exception], ...] = (psycopg.Error,)
        self.db = connection

    def run(self, sql: str, args: Sequence[Any] = ()) -> Rows:
        return self.db.execute(_pg(sql), _params(args))

    def run_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if rows:
            with self.db.cursor() as cursor:
                cursor.executemany(_pg(sql), [_params(row) for row in rows])

    def add_rows(
        self,
        table: str,
        columns: Sequence[str],
        rows: Iterable[Sequence[Any]],
        *,
        keep: bool,
        first: int | None = None,
    ) -> None:
        """By ``COPY`` (many times faster than one INSERT a row); with ``keep``, into a
        temporary table first, then the rows not there yet."""
        remaining = iter(rows if first is None else ((first, *row) for row in rows))
        head = next(remaining, None)
        if head is None:
            return
        named = ", ".join(columns)
        target = table
        if keep:
            target = f"incoming_{table}"
            self.db.execute(
                f"CREATE TEMP TABLE IF NOT EXISTS {target} ON COMMIT DELETE ROWS AS "
                f"SELECT {named} FROM {table} WITH NO DATA"
            )
        with self.db.cursor() as cursor, cursor.copy(f"COPY {target} ({named}) FROM STDIN") as copy:
            copy.write_row(_params(head))
            for row in remaining:
                copy.write_row(_params(row))
        if keep:
            self.db.execute(
                f"INSERT INTO {table} ({named}) SELECT {named} FROM {target} ON CONFLICT DO NOTHING"
            )
            self.db.execute(f"TRUNCATE {target}")

    def insert(self, sql: str, args: Sequence[Any]) -> int:
        found = self.db.execute(_pg(sql) + " RETURNING id", _params(args)).fetchone()
        assert found is not None
        return int(found[0])

    @contextmanager
    def writing(self) -> Iterator[None]:
        with self.db.transaction():
            self.db.execute(f"SELECT pg_advisory_xact_lock({_LOCK_SPACE}, {_WRITE})")
            yield

    @contextmanager
    def migrating(self) -> Iterator[int]:
        with self.db.transaction():
            self.db.execute(f"SELECT pg_advisory_xact_lock({_LOCK_SPACE}, {_MIGRATE})")
            self.db.execute(
                "CREATE TABLE IF NOT EXISTS hubtui_schema (one BOOLEAN PRIMARY KEY DEFAULT TRUE "
                "CHECK (one), version INTEGER NOT NULL)"
            )
            yield self.version()

    def set_version(self, version: int) -> None:
        self.db.execute(
            "INSERT INTO hubtui_schema (one, version) VALUES (TRUE, %s) "
            "ON CONFLICT (one) DO UPDATE SET version = excluded.version",
            (version,),
        )

    def version(self) -> int:
        kept = self.db.execute("SELECT to_regclass('hubtui_schema') IS NOT NULL").fetchone()
        if not kept or not kept[0]:
            return 0
        row = self.db.execute("SELECT version FROM hubtui_schema").fetchone()
        return 0 if row is None else int(row[0])

    def ddl(self, statement: str) -> str:
        return _ddl(statement)

    def names(self) -> set[str]:
        return {
            str(row[0])
            for row in self.db.execute(
                "SELECT relname FROM pg_class WHERE relnamespace = current_schema()::regnamespace "
                "AND relkind IN ('r', 'i', 'p')"
            )
        }

    def role(self) -> str:
        found = self.db.execute("SELECT session_user").fetchone()
        return "" if found is None else str(found[0])

    def seal_trail(self) -> None:
        """The owner's: a trigger sets each trail and review row's role to the session's (a
        row cannot name another), and every other role may add and read those rows, never
        change or delete them (revoked from each role granted it, and from PUBLIC)."""
        for statement in _seal(self.names()):
            self.db.execute(statement)

    def size(self) -> int:
        row = self.db.execute(
            "SELECT coalesce(sum(pg_total_relation_size(oid)), 0) FROM pg_class "
            "WHERE relnamespace = current_schema()::regnamespace AND relkind = 'r'"
        ).fetchone()
        return int(row[0]) if row else 0

    def vacuum(self) -> None:
        """The server's autovacuum gives space back; nothing to do from here."""

    def close(self) -> None:
        self.db.close()


def connect(url: str, *, read_only: bool = False) -> PostgresEngine:
    """A connection to the team store at ``url``; :class:`StoreError` names the store (never a
    password) and why it cannot be reached."""
    if problem := store_url_problem(url):
        raise StoreError(problem)
    try:
        import psycopg
        from psycopg.conninfo import conninfo_to_dict
    except ImportError:
        raise StoreError(
            f"The team store {url} needs the PostgreSQL driver, psycopg: pip install "
            f"'hubtui[{TEAM_EXTRA}]'."
        ) from None
    try:
        given = conninfo_to_dict(url)
    except psycopg.Error as error:
        raise StoreError(f"The team store address {url} cannot be read: {error}.") from None
    if any(key in given for key in ("password", "sslpassword")):  # libpq's own reading
        raise StoreError(PASSWORD_HELD)
    extra: dict[str, Any] = {"application_name": "hubtui"}
    if "connect_timeout" not in given:
        extra["connect_timeout"] = CONNECT_TIMEOUT
    try:
        connection = psycopg.connect(url, autocommit=True, **extra)
    except psycopg.Error as error:
        raise StoreError(f"The team store {url} cannot be reached ({_words(error)}).") from None
    if read_only:
        connection.execute("SET default_transaction_read_only = on")
    return PostgresEngine(url, connection)


def _words(error: BaseException) -> str:
    """libpq's reason in one line (it names the host and port, never a password)."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return "; ".join(lines[-2:]).rstrip(".") if lines else type(error).__name__


@lru_cache(maxsize=256)
def _pg(sql: str) -> str:
    """A query of the store with PostgreSQL's placeholders (none of the store's queries holds a
    ``?`` or ``%`` of its own)."""
    return sql.replace("%", "%%").replace("?", "%s")


def _params(args: Sequence[Any]) -> tuple[Any, ...]:
    """The values as PostgreSQL takes them: its text holds no NUL, so one a server sent is kept
    as U+FFFD (shown as it would be anyway) rather than costing the whole write."""
    return tuple(v.replace("\x00", "\ufffd") if isinstance(v, str) else v for v in args)


def _ddl(statement: str) -> str:
    """A schema statement in PostgreSQL's words: ``BYTEA`` for ``BLOB``, 64-bit integers, an
    identity column for an ``id INTEGER PRIMARY KEY``, and no ``WITHOUT ROWID``."""
    said = re.sub(r"\)\s*WITHOUT ROWID\s*$", ")", statement.strip())
    identity = "id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"
    said = re.sub(r"\bid INTEGER PRIMARY KEY\b", identity, said)
    said = re.sub(r"\bINTEGER\b", "BIGINT", said)
    return re.sub(r"\bBLOB\b", "BYTEA", said)


#: The tables append-only for every role but the owner's, and those whose rows the database
#: attributes (their ``db_role`` set to the session's role by a trigger).
SEALED = (
    "audit",
    "reviews",
    "review_rows",
    "campaigns",
    "campaign_rows",
    "campaign_events",
    "team_roster",
)
ATTRIBUTED = ("audit", "reviews", "campaigns", "campaign_events", "team_roster")
#: The tables only the owner's role writes at all: the roster says who may decide.
OWNERS_ONLY = ("team_roster",)

#: The SQLSTATE of every refusal of the campaign's rules (insufficient privilege), so hubtui
#: and a member's own psql are told alike.
REFUSED = "42501"

#: A campaign's population rows come only in the transaction, and from the role, that made
#: the campaign: the start that froze it. Checked once a statement (a firm's 100,000 rows come
#: by one COPY).
_SEALED_POPULATION = (
    "CREATE OR REPLACE FUNCTION hubtui_population_sealed() RETURNS trigger LANGUAGE plpgsql AS "
    "$body$ BEGIN IF EXISTS (SELECT 1 FROM hubtui_added a LEFT JOIN campaigns c "
    "ON c.id = a.campaign WHERE c.id IS NULL OR c.db_role <> session_user OR c.xmin::text <> "
    "(pg_current_xact_id()::text::numeric % 4294967296)::text) THEN RAISE EXCEPTION USING "
    f"ERRCODE = '{REFUSED}', MESSAGE = 'hubtui: a campaign''s population is sealed: its rows "
    "come only with the start that froze it'; END IF; RETURN NULL; END $body$"
)

#: Who may append what to a campaign, as hubtui itself decides it: the owner's role alone
#: resolves, delegates, closes and records outcomes; a decision only from a role of the team
#: roster acting for the row's reviewer of record (or given its packet), never for the row's
#: own account; a closed campaign takes only its close's outcomes. Each event is numbered,
#: attributed and chained to the one before under a lock, so the chain follows the numbers.
_CAMPAIGN_RULES = (
    "CREATE OR REPLACE FUNCTION hubtui_campaign_event() RETURNS trigger LANGUAGE plpgsql AS "
    "$body$ DECLARE c record; r record; closer text; accounts text[]; before bytea; "
    "BEGIN "
    "PERFORM pg_advisory_xact_lock(482884, hashtext(current_schema() || ' campaign events')); "
    "NEW.id := nextval(pg_get_serial_sequence(format('%I.campaign_events', current_schema()), "
    "'id')); "
    "NEW.db_role := session_user; "
    "SELECT id, origin, db_role INTO c FROM campaigns WHERE id = NEW.campaign; "
    "IF NOT FOUND THEN RAISE EXCEPTION USING ERRCODE = '23503', MESSAGE = "
    "format('hubtui: there is no campaign %s', NEW.campaign); END IF; "
    "IF EXISTS (SELECT 1 FROM campaign_events WHERE campaign = NEW.campaign AND kind = "
    f"'close') THEN RAISE EXCEPTION USING ERRCODE = '{REFUSED}', MESSAGE = format('hubtui: "
    "campaign %s is closed: it takes nothing more', NEW.campaign); END IF; "
    "SELECT db_role INTO closer FROM campaign_events WHERE campaign = NEW.campaign "
    "AND kind = 'closing'; "
    "IF closer IS NOT NULL AND NOT (NEW.kind IN ('outcome', 'close') AND closer = session_user) "
    f"THEN RAISE EXCEPTION USING ERRCODE = '{REFUSED}', MESSAGE = format('hubtui: campaign %s "
    "is being closed: it takes nothing but its close''s outcomes', NEW.campaign); END IF; "
    "IF NEW.kind IN ('resolve', 'closing', 'close', 'outcome', 'delegate', 'reassign') THEN "
    "IF session_user <> c.db_role THEN "
    f"RAISE EXCEPTION USING ERRCODE = '{REFUSED}', MESSAGE = format('hubtui: only the "
    "campaign''s owner (%s) records a %s in campaign %s, not %s', c.db_role, NEW.kind, "
    "NEW.campaign, session_user); END IF; "
    "ELSIF NEW.kind IN ('decide', 'bulk') THEN "
    "SELECT array_agg(account) INTO accounts FROM team_roster WHERE role = session_user "
    "AND origin = c.origin; "
    f"IF accounts IS NULL THEN RAISE EXCEPTION USING ERRCODE = '{REFUSED}', MESSAGE = "
    "format('hubtui: the role %s is not in the team roster: it decides nothing', "
    "session_user); END IF; "
    "IF NEW.kind = 'decide' THEN "
    "SELECT user_id, reviewer_id, project INTO r FROM campaign_rows WHERE campaign = "
    "NEW.campaign AND position = NEW.position; "
    "IF NOT FOUND THEN RAISE EXCEPTION USING ERRCODE = '23503', MESSAGE = format('hubtui: "
    "campaign %s has no row %s', NEW.campaign, NEW.position); END IF; "
    f"IF r.user_id = ANY (accounts) THEN RAISE EXCEPTION USING ERRCODE = '{REFUSED}', "
    "MESSAGE = format('hubtui: the role %s acts for account %s: it never decides its own "
    "access', session_user, r.user_id); END IF; "
    "IF NOT (coalesce((SELECT a.decision FROM campaign_events a WHERE a.campaign = "
    "NEW.campaign AND a.kind = 'reassign' AND a.reason = r.project AND a.decision <> r.user_id "
    "ORDER BY a.id DESC LIMIT 1), r.reviewer_id) = ANY (accounts) OR EXISTS (SELECT 1 FROM "
    "campaign_events d "
    "WHERE d.campaign = NEW.campaign AND d.kind = 'delegate' AND d.reason = r.project AND "
    f"d.decision = session_user)) THEN RAISE EXCEPTION USING ERRCODE = '{REFUSED}', "
    "MESSAGE = format('hubtui: row %s of campaign %s is its reviewer of record''s "
    "(account %s) to decide, not the role %s''s', NEW.position, NEW.campaign, r.reviewer_id, "
    "session_user); END IF; "
    "END IF; "
    f"ELSE RAISE EXCEPTION USING ERRCODE = '{REFUSED}', MESSAGE = format('hubtui: %s is not "
    "an event of a campaign', NEW.kind); END IF; "
    "SELECT chain INTO before FROM campaign_events WHERE campaign = NEW.campaign AND chain "
    "IS NOT NULL ORDER BY id DESC LIMIT 1; "
    "NEW.chain := sha256(coalesce(before, ''::bytea) || convert_to(concat_ws(E'\\x1f', "
    "NEW.campaign, NEW.position, NEW.kind, NEW.decision, NEW.reason, NEW.operator, "
    "NEW.moment, NEW.act, NEW.detail, NEW.db_role), 'UTF8')); "
    "RETURN NEW; END $body$"
)


def _campaign_rules(present: set[str]) -> list[str]:
    """The statements that install the campaign's rules (once its tables are there)."""
    if not {"team_roster", "campaign_events", "campaign_rows"} <= present:
        return []
    return [
        _SEALED_POPULATION,
        "DROP TRIGGER IF EXISTS campaign_rows_sealed ON campaign_rows",
        "CREATE TRIGGER campaign_rows_sealed AFTER INSERT ON campaign_rows REFERENCING NEW "
        "TABLE AS hubtui_added FOR EACH STATEMENT EXECUTE FUNCTION hubtui_population_sealed()",
        _CAMPAIGN_RULES,
        "DROP TRIGGER IF EXISTS campaign_events_rules ON campaign_events",
        "CREATE TRIGGER campaign_events_rules BEFORE INSERT ON campaign_events FOR EACH ROW "
        "EXECUTE FUNCTION hubtui_campaign_event()",
    ]


def _seal(present: set[str]) -> list[str]:
    """What :meth:`PostgresEngine.seal_trail` runs, in order, for the tables the store has now
    (each statement whole: a function's body holds ``;`` of its own)."""
    sealed = [t for t in SEALED if t in present]
    said = [
        "CREATE OR REPLACE FUNCTION hubtui_attributed() RETURNS trigger LANGUAGE plpgsql AS "
        "$body$ BEGIN NEW.db_role := session_user; RETURN NEW; END $body$"
    ]
    for table in (t for t in ATTRIBUTED if t in present):
        said += [
            f"DROP TRIGGER IF EXISTS {table}_attributed ON {table}",
            f"CREATE TRIGGER {table}_attributed BEFORE INSERT OR UPDATE ON {table} FOR EACH ROW "
            "EXECUTE FUNCTION hubtui_attributed()",
        ]
    tables = ", ".join(sealed)
    names = ", ".join(f"'{t}'" for t in sealed)
    owners = [t for t in OWNERS_ONLY if t in present]
    if owners:
        only = ", ".join(owners)
        said += [
            f"REVOKE INSERT ON {only} FROM PUBLIC",
            "DO $body$ DECLARE r record; BEGIN FOR r IN SELECT DISTINCT grantee FROM "
            "information_schema.role_table_grants WHERE table_schema = current_schema() AND "
            f"table_name IN ({', '.join(repr(t) for t in owners)}) AND privilege_type = 'INSERT' "
            f"AND grantee <> current_user LOOP EXECUTE format('REVOKE INSERT ON {only} FROM %I', "
            "r.grantee); END LOOP; END $body$",
        ]
    return [
        *said,
        *_campaign_rules(present),
        f"REVOKE UPDATE, DELETE, TRUNCATE ON {tables} FROM PUBLIC",
        "DO $body$ DECLARE r record; BEGIN FOR r IN SELECT DISTINCT grantee FROM "
        "information_schema.role_table_grants WHERE table_schema = current_schema() AND "
        f"table_name IN ({names}) AND privilege_type IN ('UPDATE', "
        "'DELETE', 'TRUNCATE') AND grantee <> current_user LOOP EXECUTE format('REVOKE UPDATE, "
        f"DELETE, TRUNCATE ON {tables} FROM %I', r.grantee); END LOOP; END "
        "$body$",
    ]
