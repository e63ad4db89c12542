"""What a store keeps, as values: which list (:class:`ListKey`), what a snapshot read, what the
store says of itself and of a review, and a record's identity (the hash of its canonical JSON)."""

from __future__ import annotations

import json
import marshal
import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from itertools import islice
from typing import TYPE_CHECKING, Any

from hubtui.core.clock import minute

if TYPE_CHECKING:
    from hashlib import blake2b


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
    unread: str | None = None
    """Why its counts could not be read back (None: they were)."""

    @property
    def short(self) -> str:
        """``#3 (2026-11-17 14:02)``."""
        return f"#{self.id} ({minute(self.taken)})"

    @property
    def label(self) -> str:
        """``#3 2026-11-17 14:02 UTC, all hubs (1,204 users, 2 projects not read)``."""
        when = minute(self.taken) + " UTC"
        users = self.counts.get("users", 0)
        missing = self.counts.get("not_read", 0)
        lost = f", {missing} not read" if missing else ""
        if self.unread is not None:
            return f"#{self.id} {when}, {self.scope} (counts not read: {self.unread})"
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
    db_role: str = ""
    """The database role it was kept under, as the database attributed it (``""``: a file)."""


#: One encoder for every record (``json.dumps`` with these options builds one a call: 1.3× the
#: time of a record's canonical JSON, paid for each record of a list kept or a snapshot read).
_CANONICAL_OPTIONS = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
#: The same encoder's C part, made once: ``encode`` makes it again for each record (a quarter
#: of a record's time: 0.32 → 0.24 s for 100,000). It does not look for a record that holds
#: itself: what JSON gives never does.
_MAKE_ENCODER = getattr(json.encoder, "c_make_encoder", None)
_CANONICAL_PARTS = (
    None
    if _MAKE_ENCODER is None
    else _MAKE_ENCODER(
        None,  # markers: no check for a record that holds itself
        _CANONICAL_OPTIONS.default,
        json.encoder.encode_basestring,
        None,  # indent
        ":",
        ",",
        True,  # sort_keys
        False,  # skipkeys
        True,  # allow_nan, as json.dumps
    )
)


def canonical(record: Mapping[str, Any]) -> bytes:
    """A record's canonical JSON: keys sorted, no spaces, its text as it is (the same as
    ``json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)``)."""
    if _CANONICAL_PARTS is None:
        return _CANONICAL_OPTIONS.encode(record).encode()
    return "".join(_CANONICAL_PARTS(record, 0)).encode()


#: A list's latest state: its records as sent, in the order sent, as ``json.dumps`` writes them.
_AS_SENT = json.JSONEncoder(ensure_ascii=False).encode
#: How many records of a list are written out at a time (:func:`list_body`).
LIST_BODY_RECORDS = 200
#: How hard a list's latest state is compressed (:func:`list_body`).
LIST_BODY_LEVEL = 1


def list_body(records: Iterable[Mapping[str, Any]]) -> bytes:
    """A list's records as one JSON array, compressed: the latest state a store keeps.

    Written 200 records at a time (a short hold of the interpreter each), so neither the list's
    text nor (given a generator) its records are ever held whole. Keeping what ``P`` read of
    20,000 people that way held 48 MB less at its peak. The text is the same as ``json.dumps``
    of the whole list.

    Compressed at zlib's level 1: a firm's 100,000 hub users in 0.12 s instead of 0.30, and 6.2
    MB instead of 4.9 (a list's text is mostly field names, which any level finds)."""
    packer = zlib.compressobj(LIST_BODY_LEVEL)
    parts = [packer.compress(b"[")]
    remaining = iter(records)
    separator = ""
    while chunk := list(islice(remaining, LIST_BODY_RECORDS)):
        parts.append(packer.compress(f"{separator}{_AS_SENT(chunk)[1:-1]}".encode()))
        separator = ", "
    parts.append(packer.compress(b"]"))
    parts.append(packer.flush())
    return b"".join(parts)


def list_fingerprint(records: Iterable[Mapping[str, Any]]) -> bytes | None:
    """A list's records as sent, in their order, named by one digest (16 bytes); None when a
    record is not plain JSON values (the list is then named by its records' hashes).

    Each record as :mod:`marshal`'s version 0 writes it: the same values, in the same order,
    are the same bytes in any process (no references between objects, no interned strings),
    and a record's bytes end where they begin to say so. Ten times as fast as the canonical
    JSON of each record, so a snapshot that finds a list as its last snapshot read it skips
    that: 100,000 records are named in 0.15 s. Two lists with one digest are the same list."""
    hasher = _blake2b()(digest_size=16)
    try:
        for record in records:
            if not isinstance(record, dict):
                return None
            hasher.update(marshal.dumps(record, 0))
    except ValueError:  # a value marshal does not write (none that JSON reads gives)
        return None
    return hasher.digest()


#: A pack of a snapshot's new records: their canonical JSON one after another, compressed as
#: one (a record alone compresses poorly and costs a compressor's set-up: 10 µs a record).
PACK_BYTES = 64 * 1024
#: How hard a pack is compressed: many records together compress well at any level.
PACK_LEVEL = 1
#: The first byte of a record's row that points into a pack: no zlib stream starts with it.
POINTER = b"\x00"
#: A pack's own key in the records table: 17 bytes, never a record's 16.
PACK_KEY = b"P"
#: A pointer: the zero byte, the pack's key, the record's offset in the pack and its length
#: (four bytes each, big-endian).
POINTER_BYTES = 1 + 17 + 4 + 4


class Packer:
    """A snapshot's new records gathered into packs, as the rows of the records table: each
    pack's row (its key, its compressed records) and each record's (its hash, a pointer: the
    pack's key, where the record starts in it and how long it is). A record larger than a
    pack is kept alone by ``alone``."""

    def __init__(self, alone: Callable[[bytes], bytes]) -> None:
        self.rows: list[tuple[bytes, bytes]] = []
        self._alone = alone
        self._hashes: list[bytes] = []
        self._bodies: list[bytes] = []
        self._size = 0

    def add(self, digest: bytes, body: bytes) -> None:
        if len(body) > PACK_BYTES:
            self.rows.append((digest, self._alone(body)))
            return
        self._hashes.append(digest)
        self._bodies.append(body)
        self._size += len(body)
        if self._size >= PACK_BYTES:
            self.close()

    def close(self) -> None:
        """The pack being filled, made (nothing when it is empty)."""
        if not self._bodies:
            return
        packed = zlib.compress(b"".join(self._bodies), PACK_LEVEL)
        key = PACK_KEY + body_digest(packed)
        self.rows.append((key, packed))
        offset = 0
        for digest, body in zip(self._hashes, self._bodies, strict=True):
            where = offset.to_bytes(4, "big") + len(body).to_bytes(4, "big")
            self.rows.append((digest, POINTER + key + where))
            offset += len(body)
        self._hashes, self._bodies, self._size = [], [], 0


def pointed_at(pointer: bytes) -> tuple[bytes, int, int]:
    """The pack a record's row points into, where the record starts and how long it is;
    ValueError when the row is no pointer hubtui writes."""
    if len(pointer) != POINTER_BYTES or not pointer.startswith(POINTER + PACK_KEY):
        raise ValueError("its row points nowhere hubtui writes")
    return pointer[1:18], int.from_bytes(pointer[18:22], "big"), int.from_bytes(pointer[22:], "big")


def record_hash(record: Mapping[str, Any]) -> bytes:
    """The identity of a record: a hash of its canonical JSON (16 bytes)."""
    return body_digest(canonical(record))


def body_hash(body: bytes) -> bytes:
    """:func:`record_hash` of a record's canonical JSON, already made."""
    return body_digest(body)


def body_digest(body: bytes) -> bytes:
    return _blake2b()(body, digest_size=16).digest()


@cache
def _blake2b() -> type[blake2b]:
    """hashlib's BLAKE2b, imported at the first hash: the app's first frame hashes nothing,
    and hashlib (with OpenSSL's) is 1.4 ms of its start."""
    from hashlib import blake2b as hasher

    return hasher


def kept_text(value: object) -> str:
    """A kept value read back as text, whatever the file holds (a number, bytes, nothing)."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return "" if value is None else str(value)


def inflate(body: object, limit: int, zdict: bytes | None = None) -> bytes:
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
