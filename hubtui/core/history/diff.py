"""What changed in access between two reads of a server: per person and project, per project,
per hub.

One idea: the three levels (hubs, projects, people, and a hub's users) are compared by one
walk each over the same two sides, and said in one set of words.

Each side is what a snapshot read (from the store, from an exported file, or read now): its lists
and their records as sent. Records are compared by hash first, so the unchanged ones are never
decoded; a list read on one side only, or not read on either, is "not compared", never "everyone
removed". Standard library only.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from hubtui.core.access import access_words, person_key, sent_field
from hubtui.core.store import (
    ListKey,
    ListRead,
    Snapshot,
    Store,
    body_hash,
    canonical,
    record_hash,
)

__all__ = ["Difference", "Kind", "Side", "compare"]

Record = Mapping[str, Any]


class Kind(StrEnum):
    ADDED = "added"
    REMOVED = "removed"
    CHANGED = "changed"
    NOT_COMPARED = "not compared"

    @property
    def mark(self) -> str:
        return {"added": "+", "removed": "−", "changed": "→", "not compared": "?"}[self.value]


@dataclass(frozen=True)
class Side:
    """One side of a comparison: the lists read, and how to read a record by its hash."""

    label: str
    reads: Mapping[ListKey, ListRead]
    decode: Callable[[bytes], Record]
    decode_many: Callable[[Iterable[bytes]], Sequence[Record]] | None = None
    """Many records at once (a team store answers them in one query, not one each)."""

    @classmethod
    def from_store(cls, store: Store, snapshot_id: int) -> Side:
        info = store.snapshot(snapshot_id)
        return cls(info.short, store.reads(snapshot_id), store.record, store.records)

    def decoded(self, hashes: Iterable[bytes]) -> Sequence[Record]:
        """The records of these hashes."""
        if self.decode_many is not None:
            return self.decode_many(hashes)
        return [self.decode(h) for h in hashes]

    @classmethod
    def from_snapshot(cls, snapshot: Snapshot, label: str) -> Side:
        """A snapshot not stored (read now, or from a file)."""
        records: dict[bytes, Record] = {}
        reads: dict[ListKey, ListRead] = {}
        for key, (ok, why, listed) in snapshot.lists.items():
            hashes = set()
            for record in listed:
                digest = record_hash(record)
                records[digest] = record
                hashes.add(digest)
            reads[key] = ListRead(ok, why, frozenset(hashes))
        return cls(label, reads, records.__getitem__)

    @classmethod
    def from_lists(
        cls,
        label: str,
        lists: Iterable[tuple[ListKey, bool, str, Sequence[Record | bytes]]],
        bodies: dict[bytes, bytes] | None = None,
    ) -> Side:
        """A snapshot read a list at a time (a file): each record kept as its canonical JSON
        (given so, or made here), read back only when it differs, so that two large files
        compared stay small; two sides given one ``bodies`` keep a record both hold once."""
        bodies = {} if bodies is None else bodies
        reads: dict[ListKey, ListRead] = {}
        for key, ok, why, listed in lists:
            hashes = set()
            for record in listed:
                body = record if isinstance(record, bytes) else canonical(record)
                digest = body_hash(body)
                bodies.setdefault(digest, body)
                hashes.add(digest)
            reads[key] = ListRead(ok, why, frozenset(hashes))
        return cls(label, reads, lambda digest: json.loads(bodies[digest]))

    def records(self, key: ListKey) -> Iterator[Record]:
        read = self.reads.get(key)
        if read is not None and read.ok:
            yield from self.decoded(read.hashes)

    def hub_records(self) -> dict[str, Record]:
        """Every hub read, by Id (from the list of all hubs, or each hub chosen)."""
        found: dict[str, Record] = {}
        for key in self.reads:
            if key.kind in ("hubs", "hub"):
                found.update(_by(self.records(key), _id))
        return found

    def project_names(self) -> dict[tuple[str, str], str]:
        """Each project's Name, by (hub Id, project Id), from the projects lists read."""
        return {
            (key.hub, _id(record)): str(record.get("Name", ""))
            for key in self.reads
            if key.kind == "projects"
            for record in self.records(key)
        }


@dataclass(frozen=True)
class Difference:
    """One thing that changed, said for a person, a ticket or a spreadsheet."""

    level: str
    """``hub``, ``project`` or ``user``."""
    kind: Kind
    hub_id: str
    hub_name: str
    project_id: str = ""
    project_name: str = ""
    who: str = ""
    """The person (email, else name, else id) of a user difference."""
    user_id: str = ""
    what: str = ""
    """``Role: Reader → Editor``, ``limited reader → direct member``, why not compared …"""
    tags: frozenset[str] = frozenset()
    """``admin``: an admin appeared (added as one, or made one); ``limited``: a limited
    reader came, went or changed. What ``hubtui diff --only`` chooses by, beside the kind."""

    def chosen(self, only: Iterable[str]) -> bool:
        """Whether ``--only`` (kinds and tags: added, removed, changed, admin, limited) keeps
        it; a list not compared is always kept (the answer would be incomplete without it)."""
        wanted = set(only)
        return (
            self.kind is Kind.NOT_COMPARED or self.kind.value in wanted or bool(self.tags & wanted)
        )

    def as_record(self) -> dict[str, str]:
        return {
            "level": self.level,
            "change": self.kind.value,
            "hub": self.hub_name,
            "hub_id": self.hub_id,
            "project": self.project_name,
            "project_id": self.project_id,
            "person": self.who,
            "user_id": self.user_id,
            "what": self.what,
        }


def _text(value: object) -> str:
    if value is None:
        return "(none)"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _arrow(field: str, before: Record, after: Record) -> str | None:
    if field not in before and field not in after:
        return None
    old, new = before.get(field), after.get(field)
    if old == new and (field in before) == (field in after):
        return None
    said_old = _text(old) if field in before else "(not sent)"
    said_new = _text(new) if field in after else "(not sent)"
    return f"{field}: {said_old} → {said_new}"


def _access(user: Record) -> str:
    return access_words(sent_field(user, "IsLimited"))


def _teams(user: Record) -> str:
    teams = user.get("Teams") or []
    names = sorted(str(t.get("Name") or t.get("Id") or "?") for t in teams if isinstance(t, dict))
    return ", ".join(names) or "(none)"


def _user_key(user: Record) -> str:
    """A person is their Id and their address together: a server that gives a new person the Id
    a removed one had (or an Id a new address) makes two people, never one changed."""
    person = _person(user)
    person_id = sent_field(person, "Id")
    email = person_key(str(sent_field(person, "Email") or ""))
    return f"id:{'' if person_id is None else person_id}|email:{email}"


def _id_of(user: Record) -> str:
    person_id = sent_field(_person(user), "Id")
    return "" if person_id is None else str(person_id)


def _who(user: Record) -> tuple[str, str]:
    person = _person(user)
    names = ("Email", "FullName", "UserName")
    shown = next((v for v in (sent_field(person, n) for n in names) if v), "?")
    person_id = sent_field(person, "Id")
    return str(shown), "" if person_id is None else str(person_id)


def _person(user: Record) -> Record:
    """The person a project user's record names (empty when it names none)."""
    person = sent_field(user, "User")
    return person if isinstance(person, dict) else {}


def _user_changes(before: Record, after: Record) -> list[str]:
    said = []
    for field in ("Role", "IsReviewer"):
        arrow = _arrow(field, before, after)
        if arrow:
            said.append(arrow)
    if _access(before) != _access(after):
        said.append(f"{_access(before)} → {_access(after)}")
    if _teams(before) != _teams(after):
        said.append(f"Teams: {_teams(before)} → {_teams(after)}")
    return said


def _by(records: Iterable[Record], key: Callable[[Record], str]) -> dict[str, Record]:
    return {key(record): record for record in records}


def _id(record: Record) -> str:
    return str(record.get("Id", ""))


def compare(old: Side, new: Side, *, hub: str | None = None) -> list[Difference]:
    """Every difference from ``old`` to ``new`` (only hub ``hub``'s, an id, when given): hubs,
    then projects, then people, then the hub's users, each in a stable order."""
    hubs_old, hubs_new = old.hub_records(), new.hub_records()
    names = {k: str(v.get("Name", k)) for k, v in {**hubs_old, **hubs_new}.items()}
    project_names = {**old.project_names(), **new.project_names()}

    def hub_name(hub_id: str) -> str:
        return names.get(hub_id, hub_id)

    return [
        *_hub_differences(old, new, hub, hub_name),
        *_project_differences(old, new, hub, hub_name, project_names),
        *_people_differences(old, new, hub, hub_name, project_names),
        *_hub_user_differences(old, new, hub, hub_name),
    ]


def _hub_differences(
    old: Side, new: Side, hub: str | None, hub_name: Callable[[str], str]
) -> Iterator[Difference]:
    """Hubs added or removed (only when both sides read every hub), or renamed."""
    hubs_old, hubs_new = old.hub_records(), new.hub_records()
    both_listed = ListKey("hubs") in _ok(old) and ListKey("hubs") in _ok(new)
    for hub_id in sorted(hubs_old.keys() | hubs_new.keys()):
        if hub is not None and hub_id != hub:
            continue
        before, after = hubs_old.get(hub_id), hubs_new.get(hub_id)
        if before is None or after is None:
            if both_listed:
                kind = Kind.ADDED if before is None else Kind.REMOVED
                yield Difference("hub", kind, hub_id, hub_name(hub_id))
            continue
        said = [line for f in ("Name", "DisplayName") if (line := _arrow(f, before, after))]
        if said:
            yield Difference("hub", Kind.CHANGED, hub_id, hub_name(hub_id), what="; ".join(said))


def _project_differences(
    old: Side,
    new: Side,
    hub: str | None,
    hub_name: Callable[[str], str],
    project_names: Mapping[tuple[str, str], str],
) -> Iterator[Difference]:
    """Projects added, removed or changed, hub by hub (a list not read on a side: said)."""
    for key in sorted(_keys(old, new, "projects")):
        if hub is not None and key.hub != hub:
            continue
        a, b = old.reads.get(key), new.reads.get(key)
        if a is None or b is None or not (a.ok and b.ok):
            why = _not_compared(a, b, old.label, new.label)
            yield Difference(
                "project", Kind.NOT_COMPARED, key.hub, hub_name(key.hub),
                what=f"its projects: {why}",
            )  # fmt: skip
            continue
        if a.hashes == b.hashes:
            continue
        before_all = _by(old.records(key), _id)
        after_all = _by(new.records(key), _id)
        for project_id in sorted(before_all.keys() | after_all.keys(), key=_number_first):
            before, after = before_all.get(project_id), after_all.get(project_id)
            name = project_names.get((key.hub, project_id), "")
            where = (key.hub, hub_name(key.hub), project_id, name)
            if before is None or after is None:
                kind = Kind.ADDED if before is None else Kind.REMOVED
                yield Difference("project", kind, *where)
                continue
            said = [
                line
                for f in ("Name", "ProjectAccess", "ProjectStatus")
                if (line := _arrow(f, before, after))
            ]
            if "ProjectAccess" in " ".join(said) and "Limited" in (
                str(before.get("ProjectAccess")) + str(after.get("ProjectAccess"))
            ):
                said.append("this changes who reads it as a limited reader")
            if said:
                yield Difference("project", Kind.CHANGED, *where, what="; ".join(said))


def _people_differences(
    old: Side,
    new: Side,
    hub: str | None,
    hub_name: Callable[[str], str],
    project_names: Mapping[tuple[str, str], str],
) -> Iterator[Difference]:
    """People who came, left or changed, project by project (a list not read: said)."""
    for key in sorted(_keys(old, new, "users"), key=lambda k: (k.hub, _number_first(k.project))):
        if hub is not None and key.hub != hub:
            continue
        a, b = old.reads.get(key), new.reads.get(key)
        where = (
            key.hub,
            hub_name(key.hub),
            key.project,
            project_names.get((key.hub, key.project), ""),
        )
        if a is None or b is None or not (a.ok and b.ok):
            why = _not_compared(a, b, old.label, new.label)
            yield Difference("project", Kind.NOT_COMPARED, *where, what=f"its users: {why}")
            continue
        earlier = list(old.decoded(a.hashes - b.hashes))
        for before, after, shown, user_id in _people_changed(earlier, new, a, b):
            if before is None or after is None:
                kind = Kind.ADDED if before is None else Kind.REMOVED
                record = after or before or {}
                what = f"{record.get('Role', '?')}, {_access(record)}"
                what += _id_moved(before, after, earlier)
                tags = _tags(before, after)
                yield Difference(
                    "user", kind, *where, who=shown, user_id=user_id, what=what, tags=tags
                )
                continue
            said = _user_changes(before, after)
            if said:
                yield Difference(
                    "user", Kind.CHANGED, *where, who=shown, user_id=user_id,
                    what="; ".join(said), tags=_tags(before, after),
                )  # fmt: skip


def _people_changed(
    earlier: Sequence[Record], new: Side, a: ListRead, b: ListRead
) -> Iterator[tuple[Record | None, Record | None, str, str]]:
    """Each person of a list read on both sides whose record differs: (before or None, after
    or None, who, user id), by who they are; nothing when the two reads are the same."""
    if a.hashes == b.hashes:
        return
    gone = _by(earlier, _user_key)  # the earlier side's records not in the later, decoded once
    came = _by(new.decoded(b.hashes - a.hashes), _user_key)
    both = {**gone, **came}
    for user_key in sorted(both, key=lambda k: _who(both[k])[0].lower()):
        before, after = gone.get(user_key), came.get(user_key)
        yield (before, after, *_who(after or before or {}))


def _id_moved(before: Record | None, after: Record | None, old: Iterable[Record]) -> str:
    """`` (Id 9 was ulla.berg@… before)`` when a person who came holds an Id another address
    held in the earlier read: said, never taken for the same person."""
    if before is not None or after is None or not _id_of(after):
        return ""
    held = next((r for r in old if _id_of(r) == _id_of(after)), None)
    if held is None:
        return ""
    return f" (Id {_id_of(after)} was {_who(held)[0]} before)"


def _is_admin(user: Record | None) -> bool:
    return (
        user is not None
        and user.get("Role") == "Admin"
        and sent_field(user, "IsLimited") is not True
    )


def _is_limited(user: Record | None) -> bool:
    return user is not None and sent_field(user, "IsLimited") is True


def _tags(before: Record | None, after: Record | None) -> frozenset[str]:
    """``admin`` when an admin appeared; ``limited`` when a limited reader came, went or
    changed."""
    tags = set()
    if _is_admin(after) and not _is_admin(before):
        tags.add("admin")
    if _is_limited(before) or _is_limited(after):
        tags.add("limited")
    return frozenset(tags)


def _hub_user_differences(
    old: Side, new: Side, hub: str | None, hub_name: Callable[[str], str]
) -> list[Difference]:
    """Each hub's users: a person added to or removed from the hub, or their hub role changed
    (a new hub admin is tagged ``admin``). A snapshot that did not keep the list (older ones
    did not) has nothing to compare, and says nothing."""
    found: list[Difference] = []
    for key in sorted(_keys(old, new, "hub_users"), key=lambda k: k.hub):
        if hub is not None and key.hub != hub:
            continue
        a, b = old.reads.get(key), new.reads.get(key)
        if a is None or b is None or not (a.ok and b.ok):
            continue
        where = (key.hub, hub_name(key.hub), "", "the hub")
        earlier = list(old.decoded(a.hashes - b.hashes))
        for before, after, shown, user_id in _people_changed(earlier, new, a, b):
            if before is not None and after is not None:
                what = _arrow("Role", before, after)
                if not what:
                    continue  # a sign-in or an invitation accepted: not a change of access
                kind = Kind.CHANGED
            else:
                kind = Kind.ADDED if before is None else Kind.REMOVED
                what = f"hub {(after or before or {}).get('Role', '?')}"
                what += _id_moved(before, after, earlier)
            found.append(
                Difference(
                    "hub user",
                    kind,
                    *where,
                    who=shown,
                    user_id=user_id,
                    what=what,
                    tags=_tags(before, after),
                )
            )
    return found


def _ok(side: Side) -> set[ListKey]:
    return {key for key, read in side.reads.items() if read.ok}


def _keys(old: Side, new: Side, kind: str) -> set[ListKey]:
    return {k for k in old.reads.keys() | new.reads.keys() if k.kind == kind}


def _not_compared(a: ListRead | None, b: ListRead | None, old: str, new: str) -> str:
    """Why a list is not compared, in words."""
    if a is not None and b is not None and not a.ok and not b.ok:
        return f"not read in either ({b.why})"
    parts = []
    for read, label in ((a, old), (b, new)):
        if read is None:
            parts.append(f"not asked in {label}")
        elif not read.ok:
            parts.append(f"not read in {label} ({read.why})")
    return "; ".join(parts) or "not compared"


def _number_first(text: str) -> tuple[int, str]:
    return (int(text), "") if text.isdigit() else (1 << 62, text)
