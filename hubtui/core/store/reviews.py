"""Access reviews: who reviewed, when, each decision and its outcome."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from hubtui.core.store.base import StoreBase, read_errors
from hubtui.core.store.records import (
    ReviewInfo,
    kept_text,
)
from hubtui.core.store.schema import (
    REVIEW_COLUMNS,
    REVIEW_HEAD,
)


class Reviews(StoreBase):
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
        with self.writing() as db:
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

    @read_errors
    def reviews(self, origin: str | None, profile: str | None) -> list[ReviewInfo]:
        """The reviews kept of this server and profile (None: of every server), oldest first,
        with their decisions counted."""
        found = []
        query = (
            "SELECT id, hub, hub_name, reviewer, started, ended, batch, criteria, origin, "
            "profile, db_role FROM reviews"
        )
        args: tuple[str, ...] = ()
        if origin is not None:
            query, args = query + " WHERE origin = ? AND profile = ?", (origin, profile or "")
        for row in self.engine.run(query + " ORDER BY id", args).fetchall():
            counts = {
                kept_text(decision): int(count)
                for decision, count in self.engine.run(
                    "SELECT decision, count(*) FROM review_rows WHERE review = ? "
                    "GROUP BY decision ORDER BY decision",
                    (row[0],),
                )
            }
            hub, hub_name, reviewer, started, ended, batch, criteria, at, as_, role = map(
                kept_text, row[1:]
            )
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
                    role,
                )
            )
        return found

    @read_errors
    def review_rows(self, review_id: int) -> list[dict[str, str]]:
        """A kept review's rows, in the order decided (each value text, as kept)."""
        return [
            dict(zip(REVIEW_COLUMNS, (kept_text(v) for v in row), strict=True))
            for row in self.engine.run(
                f"SELECT {', '.join(REVIEW_COLUMNS)} FROM review_rows "  # noqa: S608
                "WHERE review = ? ORDER BY position",
                (review_id,),
            )
        ]
