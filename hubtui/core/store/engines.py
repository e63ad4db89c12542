"""What the store's engines share and the file's own: the error every failure becomes, what a
query answers, what an engine says of itself (:class:`Engine`), SQLite's engine, and the words of
a refusal. PostgreSQL's engine is :mod:`hubtui.core.store.postgres`."""

from __future__ import annotations

import errno
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, closing, contextmanager
from pathlib import Path
from typing import Any, Protocol

from hubtui.core.files import FileRefused

__all__ = ["Engine", "Rows", "SQLiteEngine", "StoreError"]


class StoreError(Exception):
    """The store cannot be used; the message names the file and why."""


class StoreOff(Exception):
    """Snapshots and reviews cannot be kept or read now: the store is off (by the settings or
    this run), or the workspace is offline; the message says which."""


class Rows(Protocol):
    """What a query answers, in either engine (a DB-API cursor)."""

    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...
    def fetchall(self) -> list[Any]: ...
    def __iter__(self) -> Iterator[Any]: ...


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
        self,
        table: str,
        columns: Sequence[str],
        rows: Iterable[Sequence[Any]],
        *,
        keep: bool,
        first: int | None = None,
    ) -> None:
        """Add many rows to a table at once; with ``keep``, a row whose key is there already is
        left as it is (``ON CONFLICT DO NOTHING``). ``first``: the number the first of
        ``columns`` holds in every row, the rows holding the rest (a campaign's 100,000 rows
        not made again, each with its campaign's number in front)."""
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

    def role(self) -> str:
        """The database role this connection writes under (``session_user``; ``""``: an engine
        that has none)."""
        ...

    def seal_trail(self) -> None:
        """Make the trail and the reviews append-only for everyone but their owner, and the
        database attribute each row to its role (a team store's; nothing for a file)."""
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
        self,
        table: str,
        columns: Sequence[str],
        rows: Iterable[Sequence[Any]],
        *,
        keep: bool,
        first: int | None = None,
    ) -> None:
        marks = ",".join("?" * len(columns))
        if first is not None:  # a number, written as one: never a text in the statement
            marks = ",".join([str(int(first)), *"?" * (len(columns) - 1)])
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
        return user_version(self.db)

    def ddl(self, statement: str) -> str:
        return statement

    def names(self) -> set[str]:
        return {row[0] for row in self.db.execute("SELECT name FROM sqlite_master")}

    def role(self) -> str:
        return ""  # a file is the person's alone: their operator setting names them

    def seal_trail(self) -> None:
        return None

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


def first_line(error: BaseException) -> str:
    """An engine's error in one line, without its trailing full stop."""
    text = str(error).strip().splitlines()
    return (text[0] if text else type(error).__name__).rstrip(".")


def engine_words(engine: Engine, what: str, error: BaseException) -> str:
    return f"The store {engine.where} {what} ({first_line(error)})." + (
        " Move the file away to start a new one." if isinstance(engine, SQLiteEngine) else ""
    )


def store_refusal(path: Path, error: BaseException) -> StoreError:
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
    if isinstance(error, sqlite3.DatabaseError) and "malformed" in str(error):
        return StoreError(
            f"The store {path} is damaged: it cannot be read ({error}). Move the file away to "
            "start a new one."
        )
    return StoreError(
        f"The store {path} cannot be used ({error}). Move the file away to start a new one."
    )


def user_version(db: sqlite3.Connection) -> int:
    with closing(db.cursor()) as cursor:
        return int(cursor.execute("PRAGMA user_version").fetchone()[0])
