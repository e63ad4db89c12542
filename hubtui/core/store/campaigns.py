"""Review campaigns as the store keeps them: the campaign (its frozen population's counts and
sha256), its rows (each membership as read, with its reviewer of record) and its events (each
decision, resolution, bulk act, close and outcome, appended, never changed). Rows are the
store's values read back: every text is data, made inert wherever it is shown.

Both engines: on the team's PostgreSQL the database attributes each campaign and event to the
session's role, and no role but the owner's may change or delete one (``store migrate``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from enum import StrEnum
from typing import TYPE_CHECKING, Any, NamedTuple

from hubtui.core.store.engines import StoreError
from hubtui.core.store.records import kept_text

if TYPE_CHECKING:
    from hubtui.core.store.engines import Engine
    from hubtui.core.store.repository import Store

__all__ = [
    "CampaignEvent",
    "CampaignHead",
    "CampaignRow",
    "Kind",
    "Closed",
    "RosterEntry",
    "add_events",
    "append_after_close",
    "campaign_events",
    "campaign_head",
    "campaign_rows",
    "campaigns_of",
    "chain_broken",
    "claim_close",
    "finish_close",
    "event_link",
    "roster",
    "roster_add",
    "roster_remove",
    "save_campaign",
]


class Closed(Exception):
    """The campaign is closed: it takes no decision, and it is not closed twice."""


@dataclass(frozen=True)
class CampaignHead:
    """A campaign: who started it, of which hub, when its population was read, and how."""

    id: int
    origin: str
    profile: str
    hub: str
    hub_name: str
    name: str
    owner: str
    started: str
    read_at: str
    due: str
    if_no_answer: str
    scope: str
    counts: str
    """JSON: memberships, people and projects of the population, per project too."""
    sha256: str
    not_read: str
    """What could not be read (``--allow-incomplete`` only; empty: the population is whole)."""
    db_role: str = ""


class CampaignRow(NamedTuple):
    """One membership of the frozen population: a person's access to one project (a tuple: a
    firm's 100,000 are made and read back at a tuple's cost)."""

    position: int
    project: str
    project_name: str
    user_id: str
    email: str
    name: str
    role: str
    hub_role: str
    access: str
    reviewer: str
    """Who decides it: a reviewer of its packet, never the person themselves."""
    earlier: str
    """``kept in campaign N by X`` (``--since-last``), else empty."""
    reviewer_id: str = ""
    """The reviewer of record's account Id (empty: known only by address)."""
    seen: str = ""
    """When last seen, as read at the start (``their last web sign-in, 2026-05-01``,
    ``never``, ``unknown``; empty: not a user of the hub, or a campaign started before)."""
    invitation: str = ""
    """``accepted``, ``not accepted`` (empty: not sent, or not known)."""
    through: str = ""
    """The domain a limited reader reads through (``partner.example``)."""
    projects: str = ""
    """How many projects of the hub the person was in at the start (empty: not kept)."""
    outside: str = ""
    """The tenant the hub restricts sign-in to, when the address is outside it."""
    advice: str = ""
    """What why's table recommends: ``keep``, ``reader``, ``remove`` (empty: nothing)."""
    advice_reason: str = ""
    """Why, in words (``last seen 200 days ago (over 90)``)."""


class Kind(StrEnum):
    """The kinds of a campaign's events (a kind the store holds otherwise is kept as text and
    counts as none of these)."""

    DECIDE = "decide"
    RESOLVE = "resolve"
    """The owner's word on a row in conflict: it settles it."""
    BULK = "bulk"
    """Many decided at once: its size and filter or source in ``detail``."""
    DELEGATE = "delegate"
    REASSIGN = "reassign"
    """The owner's: a packet's reviewer of record changed (``decision``: the account's Id,
    ``reason``: the project, ``detail``: ``address · note``)."""
    """A packet (``reason``: its project) given to a role (``decision``) by the owner."""
    CLOSING = "closing"
    """The close claimed before anything is sent: its batch in ``reason``."""
    OUTCOME = "outcome"
    """What the close did to a row, in ``detail``."""
    CLOSE = "close"
    """The close finished: every row's outcome is kept."""


@dataclass(frozen=True, kw_only=True)
class CampaignEvent:
    """An act on a campaign, appended and never changed (:class:`Kind`)."""

    id: int = 0
    position: int = -1
    """The row it is about (-1: the campaign)."""
    kind: str
    decision: str = ""
    reason: str = ""
    operator: str
    moment: str
    act: int = 0
    """The bulk act it was part of (0: decided on its own)."""
    detail: str = ""
    db_role: str = ""
    chain: bytes | None = None
    """Its link to the event before it (:func:`event_link`; None: kept before the chain)."""


_HEAD = [f.name for f in fields(CampaignHead)][1:-1]
_ROW = list(CampaignRow._fields)
_EVENT = [f.name for f in fields(CampaignEvent)][1:-2]
#: An event appended: the campaign's number, then the event's fields, then its chain (set by
#: the database itself on a team store, whatever a writer gives).
_INSERT_EVENT = (
    f"INSERT INTO campaign_events (campaign, {', '.join(_EVENT)}, chain) "
    f"VALUES (?, {', '.join('?' * len(_EVENT))}, ?)"
)


def save_campaign(store: Store, head: dict[str, str], rows: Sequence[CampaignRow]) -> int:
    """A campaign and its population, whole or not at all; its number."""
    with store.writing() as db:
        number = db.insert(
            f"INSERT INTO campaigns ({', '.join(_HEAD)}) VALUES ({', '.join('?' * len(_HEAD))})",
            tuple(head.get(c, "") for c in _HEAD),
        )
        # COPY on PostgreSQL: a firm's 100,000 rows at once, not an INSERT each.
        db.add_rows(
            "campaign_rows",
            ["campaign", *_ROW],
            # each row a plain tuple in _ROW's order, made as it is written: SQLite reads a
            # plain tuple's values faster than a named one's, and no second list is held
            map(tuple, rows),
            keep=False,
            first=number,
        )
    return number


def campaign_head(store: Store, number: int) -> CampaignHead | None:
    found = store.engine.run(
        f"SELECT id, {', '.join(_HEAD)}, db_role FROM campaigns WHERE id = ?", (number,)
    ).fetchone()
    return None if found is None else _head(found)


def campaigns_of(store: Store, origin: str, profile: str) -> list[CampaignHead]:
    """The campaigns of this server and profile, oldest first."""
    return [
        _head(found)
        for found in store.engine.run(
            f"SELECT id, {', '.join(_HEAD)}, db_role FROM campaigns WHERE origin = ? AND "
            "profile = ? ORDER BY id",
            (origin, profile),
        ).fetchall()
    ]


def campaign_rows(store: Store, number: int) -> list[CampaignRow]:
    """The campaign's population in its order. A row as written (a number and texts) is taken
    as it is; one the store holds otherwise is read as text, never an error. Each text is held
    once, however many rows hold it (a firm's 100,000 rows repeat their projects, roles,
    reviewers and facts: 116 MB held as read, 46 MB so)."""
    held: dict[str, str] = {}
    once = held.setdefault
    return [
        _make_row([r[0], *[once(v, v) for v in r[1:]]])
        if type(r[0]) is int and all(map(_is_text, r[1:]))
        else _row_kept(r)
        for r in store.engine.run(
            f"SELECT {', '.join(_ROW)} FROM campaign_rows WHERE campaign = ? ORDER BY position",
            (number,),
        )
    ]


_make_row = CampaignRow._make
_is_text = str.__instancecheck__


def _row_kept(found: Sequence[object]) -> CampaignRow:
    position = found[0]
    try:
        place = int(position)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        place = -1  # no place in the population: a row no packet holds
    return CampaignRow._make((place, *map(kept_text, found[1:])))


def campaign_events(store: Store, number: int) -> list[CampaignEvent]:
    """Every event of the campaign, in the order the store took them."""
    return [
        CampaignEvent(
            id=int(r[0]),
            position=int(r[1]),
            kind=kept_text(r[2]),
            decision=kept_text(r[3]),
            reason=kept_text(r[4]),
            operator=kept_text(r[5]),
            moment=kept_text(r[6]),
            act=int(r[7]),
            detail=kept_text(r[8]),
            db_role=kept_text(r[9]),
            chain=None if r[10] is None else bytes(r[10]),
        )
        for r in store.engine.run(
            f"SELECT id, {', '.join(_EVENT)}, db_role, chain FROM campaign_events "
            "WHERE campaign = ? ORDER BY id",
            (number,),
        )
    ]


def event_link(before: bytes, number: int, event: CampaignEvent) -> bytes:
    """An event's chain: the sha256 over the one before it and the event's fields as text
    joined by U+001F (its campaign, position, kind, decision, reason, operator, moment, act,
    detail and database role), as the team store's own trigger computes it."""
    import hashlib  # when a campaign is written or checked, not at start

    said = (number, *(getattr(event, name) for name in _EVENT), event.db_role)
    return hashlib.sha256(before + "\x1f".join(map(str, said)).encode()).digest()


def chain_broken(number: int, events: Sequence[CampaignEvent]) -> str:
    """Empty while each event follows the one before it; else where the record was changed
    (an event edited or deleted, by whoever could), in words. Events kept before the chain
    began are not checked."""
    before = b""
    last_good = 0
    for event in events:
        if event.chain is None:
            continue
        before = event_link(before, number, event)
        if before != event.chain:
            return (
                f"the events of campaign {number} were changed after event {last_good}: event "
                f"{event.id} does not follow the one before it (an event edited or deleted)"
            )
        last_good = event.id
    return ""


def add_events(
    store: Store, number: int, events: Sequence[CampaignEvent], *, bulk: str | None = None
) -> int:
    """The events appended in one transaction, refused whole (:class:`Closed`) once the campaign
    is closed. ``bulk``: they are one act of deciding many (its filter or source, in words),
    recorded first with its size. The number of events appended."""
    with store.writing() as db:
        if _is_closed(db, number):
            raise Closed(f"campaign {number} is closed: it takes no decision.")
        act = 0
        if bulk is not None and events:
            first = events[0]
            act = _append_one(
                db,
                number,
                CampaignEvent(
                    kind=Kind.BULK,
                    operator=first.operator,
                    moment=first.moment,
                    detail=f"{len(events):,} row{'s' if len(events) != 1 else ''} · {bulk}",
                ),
            )
        _insert(db, number, events, act)
    return len(events)


def claim_close(
    store: Store, number: int, operator: str, moment: str, batch: str, detail: str
) -> None:
    """The close claimed before anything is sent, naming its batch (``closing``): claimed or
    closed already (this process or another), it is refused with :class:`Closed` before
    anything is sent."""
    try:
        with store.writing() as db:
            if _is_closed(db, number):
                raise Closed(f"campaign {number} is closed already: nothing is sent twice.")
            _append_one(
                db,
                number,
                CampaignEvent(
                    kind=Kind.CLOSING, reason=batch, operator=operator, moment=moment, detail=detail
                ),
            )
    except StoreError:  # the unique index: another process claimed it meanwhile
        if _is_closed(store.engine, number):
            raise Closed(f"campaign {number} is closed already: nothing is sent twice.") from None
        raise


def finish_close(store: Store, number: int, operator: str, moment: str, detail: str) -> None:
    """The close recorded, once every row's outcome is (the claim's journal ends here)."""
    with store.writing() as db:
        _append_one(
            db,
            number,
            CampaignEvent(kind=Kind.CLOSE, operator=operator, moment=moment, detail=detail),
        )


def _is_closed(db: Engine, number: int) -> bool:
    """Whether the campaign is closed or its close claimed: it takes no decision."""
    return (
        db.run(
            "SELECT 1 FROM campaign_events WHERE campaign = ? AND kind IN ('close', 'closing')",
            (number,),
        ).fetchone()
        is not None
    )


def _head(found: Sequence[object]) -> CampaignHead:
    return CampaignHead(int(str(found[0])), *(kept_text(v) for v in found[1:]))


def append_after_close(store: Store, number: int, events: Sequence[CampaignEvent]) -> None:
    """Outcomes of a closed campaign's batch, appended after its close."""
    with store.writing() as db:
        _insert(db, number, events, 0)


def _last_link(db: Engine, number: int) -> bytes:
    found = db.run(
        "SELECT chain FROM campaign_events WHERE campaign = ? AND chain IS NOT NULL "
        "ORDER BY id DESC LIMIT 1",
        (number,),
    ).fetchone()
    return b"" if found is None else bytes(found[0])


def _chained(db: Engine, number: int, events: Sequence[CampaignEvent]) -> list[tuple[Any, ...]]:
    """The events as rows to insert, each with its chain where hubtui computes it (a file;
    a team store's trigger computes its own over the role it writes under)."""
    role = db.role()
    before = _last_link(db, number) if not role else b""
    rows = []
    for e in events:
        link = None
        if not role:
            before = link = event_link(before, number, e)
        rows.append(
            (
                number,
                e.position,
                e.kind,
                e.decision,
                e.reason,
                e.operator,
                e.moment,
                e.act,
                e.detail,
                link,
            )
        )
    return rows


def _append_one(db: Engine, number: int, event: CampaignEvent) -> int:
    return db.insert(_INSERT_EVENT, _chained(db, number, [event])[0])


def _insert(db: Engine, number: int, events: Sequence[CampaignEvent], act: int) -> None:
    """The events appended as they are (``act``: the bulk act they belong to, else their own)."""
    if act:
        events = [replace(e, act=act) for e in events]
    db.run_many(_INSERT_EVENT, _chained(db, number, events))


# The team roster --------------------------------------------------------------------------------


class RosterEntry(NamedTuple):
    """A database role of the team and one account it acts for on a server."""

    role: str
    origin: str
    account: str
    email: str
    name: str
    added: str
    db_role: str
    """The role that added it (the database's word)."""


def roster(store: Store, origin: str | None = None) -> list[RosterEntry]:
    """The team roster (of one server, when named), by role."""
    where, args = ("WHERE origin = ?", (origin,)) if origin is not None else ("", ())
    return [
        RosterEntry(*(kept_text(v) for v in found))
        for found in store.engine.run(
            "SELECT role, origin, account, email, name, added, db_role FROM team_roster "
            f"{where} ORDER BY role, origin, account",
            args,
        )
    ]


def roster_add(store: Store, entry: RosterEntry) -> None:
    """A role and an account it acts for added (again: its address and name brought up to
    date); on a team store only its owner's role may (the database refuses any other)."""
    with store.writing() as db:
        db.run(
            "DELETE FROM team_roster WHERE role = ? AND origin = ? AND account = ?",
            (entry.role, entry.origin, entry.account),
        )
        db.run(
            "INSERT INTO team_roster (role, origin, account, email, name, added) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            entry[:6],
        )


def roster_remove(store: Store, role: str) -> int:
    """The role taken out of the roster (every account it acted for); how many rows went."""
    with store.writing() as db:
        there = len(db.run("SELECT account FROM team_roster WHERE role = ?", (role,)).fetchall())
        db.run("DELETE FROM team_roster WHERE role = ?", (role,))
    return there
