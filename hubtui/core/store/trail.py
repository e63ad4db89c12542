"""The audit trail: every change line of every operator, each once, chained to the one before."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from hubtui.core.store.base import StoreBase, in_parts, read_errors
from hubtui.core.store.records import (
    body_digest,
    kept_text,
)


class Trail(StoreBase):
    # The audit trail --------------------------------------------------------------------------

    def add_audit_lines(self, lines: Sequence[str]) -> int:
        """Keep change-log lines in the audit trail, each once whatever how often it is given
        (keyed by the line's hash), in one transaction; how many were new. A line that is not a
        change is not kept."""
        rows: list[tuple[Any, ...]] = []
        for line in lines:
            fields = _audit_fields(line)
            if fields is not None:
                rows.append((body_digest(line.encode()), *fields, line))
        if not rows:
            return 0
        fresh = list({row[0]: row for row in rows}.values())  # a line given twice, once
        with self.writing() as db:  # the sole writer: what is there now stays so until done
            query = "SELECT line_hash FROM audit WHERE line_hash IN ({})"
            there = {bytes(h) for (h,) in in_parts(db, query, [row[0] for row in fresh])}
            new = [row for row in fresh if row[0] not in there]
            # Each line chained to the one before it (its hash over the last one's, its own and
            # the role it is written under): an edit or a deletion is found as the trail is read.
            role = db.role()
            last = db.run(
                "SELECT chain FROM audit WHERE chain IS NOT NULL ORDER BY id DESC LIMIT 1"
            ).fetchone()
            chain = b"" if last is None else bytes(last[0])
            chained = []
            for row in new:
                chain = trail_link(chain, row[0], role)
                chained.append((*row, role, chain))
            db.run_many(
                "INSERT INTO audit (line_hash, server, profile, change_id, hub, project, what, "
                "operator, moment, line, db_role, chain) VALUES (?,?,?,?,?,?,?,?,?,?,?,?) "
                "ON CONFLICT DO NOTHING",
                chained,
            )
        return len(new)

    def seal_trail(self) -> None:
        """The trail and the reviews append-only for every role but the owner's, each row
        attributed by the database (``store migrate`` sets it again each time: a grant given
        since is taken back). StoreError when this role may not (only the owner may)."""
        with self.writing() as db:
            db.seal_trail()

    @read_errors
    def audit_check(self) -> str | None:
        """Whether the trail is as it was written: each line's hash and chain read again in
        order. None: it is; else where it was changed (an edit or a deletion by whoever could),
        in words. Lines kept before the chain began (schema 3) are not checked."""
        chain = b""
        last_good = 0
        for number, line_hash, role, link, line in self.engine.run(
            "SELECT id, line_hash, db_role, chain, line FROM audit WHERE chain IS NOT NULL "
            "ORDER BY id"
        ):
            said = kept_text(line)
            if body_digest(said.encode()) != bytes(line_hash):
                return (
                    f"the team trail was changed after line {last_good}: line {number} is not "
                    "as written"
                )
            chain = trail_link(chain, bytes(line_hash), str(role))
            if chain != bytes(link):
                return (
                    f"the team trail was changed after line {last_good}: line {number} does not "
                    "follow the one before it (a line edited or deleted)"
                )
            last_good = int(number)
        return None

    @read_errors
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
        query = f"SELECT line, db_role FROM audit WHERE server IN ({','.join('?' * len(servers))})"
        args: list[str] = list(servers)
        for column, value in (("hub", hub), ("project", project), ("what", what)):
            if value is not None:
                query += f" AND {column} = ?"
                args.append(value)
        return [
            _with_role(kept_text(line), str(role or ""))
            for line, role in self.engine.run(query + " ORDER BY id", args)
        ]


def _audit_fields(line: str) -> tuple[str, ...] | None:
    """What the audit trail is searched by, from a change line: server, profile, change id,
    hub, project, action, operator and time (None: not a change line, as the change log reads
    it: :func:`~hubtui.core.changes.record.parse_line`; or of the demo API, whose history is its
    own and never a team's)."""
    from hubtui.core.changes.record import parse_line  # when audit lines are copied, not at start

    change = parse_line(line)
    if change is None or change.server == "demo":
        return None
    return (
        change.server, change.profile or "", change.id, change.hub_id, change.project_id,
        change.action, change.operator, change.time,
    )  # fmt: skip


def trail_link(before: bytes, line_hash: bytes, role: str) -> bytes:
    """A trail line's chain: over the one before it, its line's hash and its database role."""
    import hashlib  # when a trail is written or checked, not at start

    return hashlib.sha256(before + line_hash + role.encode()).digest()


def _with_role(line: str, role: str) -> str:
    """A trail line as read back, with the database role it was written under (``db_role``),
    where the engine has one: what the database says, beside what the line says (a role the
    line itself names is dropped)."""
    if not role and '"db_role"' not in line:
        return line
    try:
        fields = json.loads(line)
    except ValueError:
        return line  # not a change line: shown as it is, never dropped
    if not isinstance(fields, dict):
        return line
    fields.pop("db_role", None)  # a line's own claim is not the database's word
    return json.dumps({**fields, "db_role": role} if role else fields, ensure_ascii=True)
