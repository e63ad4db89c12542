"""The store: one class over its parts, each kind of record in a module of its own (:mod:`.latest`,
:mod:`.snapshots`, :mod:`.reviews`, :mod:`.trail`, the campaigns in :mod:`.campaigns`), all
over one engine and its public transaction (:mod:`.base`); opening a store, and its upkeep."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from hubtui.core.files import check_existing, make_private
from hubtui.core.store.base import StoreBase, read_errors
from hubtui.core.store.engines import (
    SQLiteEngine,
    StoreError,
    engine_words,
    store_refusal,
)
from hubtui.core.store.latest import LatestLists
from hubtui.core.store.records import (
    POINTER,
    StoreInfo,
)
from hubtui.core.store.reviews import Reviews
from hubtui.core.store.schema import (
    migrate,
)
from hubtui.core.store.snapshots import Snapshots
from hubtui.core.store.trail import Trail


class Store(Snapshots, LatestLists, Reviews, Trail, StoreBase):
    """An open store; use as a context manager, or :meth:`close`."""

    # Opening ----------------------------------------------------------------------------------

    @classmethod
    def open(cls, path: Path, *, read_only: bool = False) -> Store:
        """Open (or create) the store; :class:`StoreError` says, naming the file, why it cannot
        be: a symbolic link, a corrupt file, a newer schema, a folder that cannot be written."""
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
                raise store_refusal(path, error) from None
            raise

    @classmethod
    def open_url(cls, url: str, *, read_only: bool = False) -> Store:
        """Open a team's store on PostgreSQL (``store_url``), migrating it unless ``read_only``;
        :class:`StoreError` names the store (never a password) and why it cannot be used."""
        from hubtui.core.store.postgres import connect

        engine = connect(url, read_only=read_only)
        try:
            migrate(engine, read_only=read_only)
            return cls(engine)
        except BaseException as error:
            engine.close()
            if isinstance(error, engine.errors):
                words = engine_words(engine, "cannot be used", error)
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
        return engine_words(self.engine, what, error)

    # Upkeep -----------------------------------------------------------------------------------

    @read_errors
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
            count("records WHERE length(hash) = 16"),  # a record's key, not a pack's
            count("lists"),
            count("reviews"),
            count("audit"),
        )

    @read_errors
    def prune(self, before: str) -> int:
        """Forget the snapshots taken before this time (ISO), and what only they held; how many
        snapshots were forgotten."""
        with self.writing() as db:
            gone = db.run("DELETE FROM snapshots WHERE taken < ?", (before,)).rowcount
            oldest = db.run("SELECT min(id) FROM snapshots").fetchone()[0]
            if oldest is None:
                db.run("DELETE FROM members")
            else:
                db.run("DELETE FROM members WHERE until IS NOT NULL AND until < ?", (oldest,))
            db.run(
                "DELETE FROM records WHERE length(hash) = 16 AND "
                "hash NOT IN (SELECT record FROM members)"
            )
            # A pack no record points into any more (a record's key is 16 bytes, a pack's 17).
            db.run(
                "DELETE FROM records WHERE length(hash) <> 16 AND hash NOT IN (SELECT "
                "substr(body, 2, 17) FROM records WHERE length(hash) = 16 AND "
                "substr(body, 1, 1) = ?)",
                (POINTER,),
            )
        return int(gone)

    @read_errors
    def vacuum(self) -> None:
        """Give the space of what was forgotten back to the disk."""
        self.engine.vacuum()
