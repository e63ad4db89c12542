"""What every part of the store stands on: one engine, its public transaction
(:meth:`StoreBase.writing`), and the records kept once (compressed, read back within bounds);
each kind of record kept has a module of its own over it."""

from __future__ import annotations

import functools
import json
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

from hubtui.core.store.engines import (
    Engine,
    StoreError,
    engine_words,
    first_line,
)
from hubtui.core.store.records import (
    PACK_BYTES,
    POINTER,
    ListKey,
    inflate,
    pointed_at,
)
from hubtui.core.store.schema import (
    RECORDS_A_QUERY,
    STORED_DEPTH,
    STORED_RECORD_BYTES,
    ZDICT,
)
from hubtui.text import nesting

_F = TypeVar("_F", bound=Callable[..., Any])


#: A record's compression window: 4 KB, as large as the store's dictionary needs (1.1 KB).
PACK_WINDOW_BITS = 12


def read_errors(method: _F) -> _F:
    """A query that fails (a store whose tables are not what they say, a team store gone) raises
    :class:`StoreError` naming the store, never the engine's own error."""

    @functools.wraps(method)
    def guarded(self: StoreBase, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except self.engine.errors as error:
            raise StoreError(self.engine_words("cannot be read", error)) from None

    return guarded  # type: ignore[return-value]


class StoreBase:
    """The engine, its transaction and the records: what each part of the store uses."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        #: What a message names: the file, or the team store's address.
        self.where = engine.where
        found = engine.run("SELECT value FROM meta WHERE key = 'zdict'").fetchone()
        self._zdict: bytes = bytes(found[0]) if found else ZDICT
        #: zlib's compressor, given the dictionary (:meth:`_pack`).
        self._packer: zlib._Compress | None = None

    def engine_words(self, what: str, error: BaseException) -> str:
        return engine_words(self.engine, what, error)

    @contextmanager
    def writing(self) -> Iterator[Engine]:
        """One transaction, taken at once (no other writer meanwhile); undone whole on error."""
        try:
            with self.engine.writing():
                yield self.engine
        except self.engine.errors as error:
            raise StoreError(
                f"Could not write to the store {self.where}: {first_line(error)}."
            ) from None

    # Records ----------------------------------------------------------------------------------

    def _pack(self, body: bytes) -> bytes:
        """A record's canonical JSON, compressed against the store's dictionary."""
        # A record is a few hundred bytes: a copy of one compressor given the dictionary once,
        # the least memory for its state and a window as large as the dictionary needs (its
        # default state, 256 KB for each record, cost up to 50 µs a record; the dictionary
        # given each record, a fifth of what is left). Any zlib reads it back as before.
        packer = self._packer
        if packer is None:
            packer = self._packer = zlib.compressobj(
                6, zlib.DEFLATED, PACK_WINDOW_BITS, 1, zdict=self._zdict
            )
        each = packer.copy()
        return each.compress(body) + each.flush()

    @read_errors
    def _held(self, origin: str, profile: str, keys: Sequence[ListKey]) -> set[bytes]:
        """The records these lists hold as of their latest snapshots: each is in the store (a
        record is pruned only when no list holds it)."""
        wanted = set(keys)
        ids = [
            int(row[0])
            for row in self.engine.run(
                "SELECT id, kind, hub, project FROM lists WHERE origin=? AND profile=?",
                (origin, profile),
            )
            if ListKey(row[1], row[2], row[3]) in wanted
        ]
        return set().union(*self._present(self.engine, ids).values())

    def record(self, key: bytes) -> dict[str, Any]:
        """One stored record, as the server sent it."""
        return self.records([key])[0]

    @read_errors
    def records(self, keys: Iterable[bytes]) -> list[dict[str, Any]]:
        """Stored records, as the server sent them, in the order of ``keys``: read a few hundred
        a query (a team store's round trips, not one a record)."""
        wanted = list(keys)
        query = "SELECT hash, body FROM records WHERE hash IN ({})"
        rows = {bytes(key): body for key, body in in_parts(self.engine, query, wanted)}
        # A record compressed with others (schema step 8) is a pointer into its pack: each pack
        # is read and inflated once, however many of its records are asked for.
        pointers = {}
        for key, body in rows.items():
            if isinstance(body, bytes | memoryview) and bytes(body[:1]) == POINTER:
                try:
                    pointers[key] = pointed_at(bytes(body))
                except ValueError as error:
                    raise StoreError(
                        f"A record kept in {self.where} cannot be read back ({error})."
                    ) from None
        packs = {
            bytes(key): self._inflated(body, "a pack of records", 2 * PACK_BYTES)
            for key, body in in_parts(
                self.engine, query, sorted({pack for pack, _, _ in pointers.values()})
            )
        }
        found: dict[bytes, dict[str, Any]] = {}
        for key, body in rows.items():
            if key in pointers:
                pack, offset, size = pointers[key]
                text = packs.get(pack, b"")[offset : offset + size]
                if len(text) != size:
                    raise StoreError(f"The store {self.where} lacks a record it refers to.")
                decoded = self._decoded(text, "a record")
            else:
                decoded = self._decode(body, "a record", STORED_RECORD_BYTES)
            if not isinstance(decoded, dict):
                raise StoreError(f"A record kept in {self.where} is not an object.")
            found[key] = decoded
        if len(found) < len(set(wanted)):
            raise StoreError(f"The store {self.where} lacks a record it refers to.")
        return [found[key] for key in wanted]

    def _inflated(self, body: object, what: str, limit: int, zdict: bytes | None = None) -> bytes:
        """What the store kept, inflated within ``limit`` (StoreError as :meth:`_decode`)."""
        try:
            return inflate(bytes(body) if isinstance(body, memoryview) else body, limit, zdict)
        except ValueError as error:
            raise StoreError(
                f"{what.capitalize()} kept in {self.where} cannot be read back ({error})."
            ) from None

    def _decoded(self, text: bytes, what: str) -> Any:
        """JSON the store kept, once inflated, checked in depth (StoreError as :meth:`_decode`)."""
        try:
            if nesting(text) > STORED_DEPTH:
                raise ValueError(f"it nests deeper than {STORED_DEPTH} levels, as no record does")
            return json.loads(text)
        except ValueError as error:
            raise StoreError(
                f"{what.capitalize()} kept in {self.where} cannot be read back ({error})."
            ) from None

    def _decode(self, body: object, what: str, limit: int) -> Any:
        """What the store kept, checked as it is read back: bounded when inflated and in depth,
        and JSON; :class:`StoreError` names the store and the bound broken."""
        zdict = self._zdict if what == "a record" else None
        return self._decoded(self._inflated(body, what, limit, zdict), what)

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

    def _present(self, db: Engine, list_ids: Sequence[int]) -> dict[int, set[bytes]]:
        """The records each list holds as of its latest snapshot."""
        found: dict[int, set[bytes]] = {}
        query = "SELECT list, record FROM members WHERE list IN ({}) AND until IS NULL"
        for list_id, record in in_parts(db, query, list_ids):
            found.setdefault(int(list_id), set()).add(bytes(record))
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


def in_parts(
    db: Engine, query: str, values: Sequence[Any], more: Sequence[Any] = ()
) -> Iterator[Any]:
    """The rows of ``query`` whose ``IN ({})`` is each part of ``values`` in turn (a few hundred
    a query: SQLite's bound on values, a team store's round trips), ``more`` bound after."""
    for at in range(0, len(values), RECORDS_A_QUERY):
        part = values[at : at + RECORDS_A_QUERY]
        yield from db.run(query.format(",".join("?" * len(part))), [*part, *more])
