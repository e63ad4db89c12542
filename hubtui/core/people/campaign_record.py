"""A review campaign as a team runs it, decided from what the store holds: its frozen
population (one row a membership, each with its reviewer of record), the packets (one a
project, with its reviewers), and the events appended as people decide. What each row comes to
is worked out here, by one rule for every command and screen:

- a row's decision is each decider's latest word on it; two deciders who disagree are a
  conflict, never settled by whoever wrote last; the owner's ``resolve`` settles it;
- ``remove`` takes the person out of the hub, so a removal decided in one packet while another
  keeps the person is a conflict too;
- an undecided row takes the campaign's no-answer default at the close, said as such, and a
  default never takes a role from an Admin (of the project or of the hub).

Textual-free; the store's rows are data (:func:`hubtui.text.inert` wherever shown).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from json.encoder import encode_basestring
from typing import TYPE_CHECKING, Any

from hubtui.core.access import LIMITED_CELL, person_key
from hubtui.core.people.review import Decision, decision_named, disagreeing
from hubtui.core.store.campaigns import Kind, chain_broken

if TYPE_CHECKING:
    from hubtui.core.store.campaigns import CampaignEvent, CampaignHead, CampaignRow

__all__ = [
    "DEFAULTS",
    "Campaign",
    "Packet",
    "RowState",
    "population_sha256",
]

#: What an undecided row becomes at the close (``--if-no-answer``): never a removal.
DEFAULTS = {"keep": Decision.KEEP, "reader": Decision.READER}


def population_sha256(rows: Sequence[CampaignRow]) -> str:
    """The sha256 of the population's content: each membership as read, in a canonical order
    (an auditor recomputes it from the report): the lines, sorted and joined by a newline, of
    ``json.dumps([project, user_id, email, role, hub_role, access], ensure_ascii=False,
    separators=(",", ":"))``, encoded as UTF-8."""
    try:  # every field a text, as a row is made: its encoder straight
        lines = _lines(rows, encode_basestring)
    except TypeError:  # a row the store holds otherwise
        lines = _lines(rows, quote)
    return hashlib.sha256("\n".join(sorted(lines)).encode()).hexdigest()


def _lines(rows: Sequence[CampaignRow], q: Callable[[Any], str]) -> list[str]:
    return [
        f"[{q(r.project)},{q(r.user_id)},{q(r.email)},{q(r.role)},{q(r.hub_role)},{q(r.access)}]"
        for r in rows
    ]


def quote(value: str) -> str:
    """A text as ``json.dumps(value, ensure_ascii=False)`` writes it (its encoder, without
    the call's set-up: a firm's 100,000 rows in a tenth of the time); anything else as
    ``json.dumps`` writes it."""
    return encode_basestring(value) if type(value) is str else json.dumps(value)


@dataclass(frozen=True)
class Packet:
    """One project's memberships, for its reviewers."""

    project: str
    name: str
    reviewers: tuple[str, ...]
    positions: tuple[int, ...]


@dataclass(slots=True)
class RowState:
    """What a row has come to: its decision (None: none yet, or a conflict), who said it, and
    every word said of it."""

    row: CampaignRow
    decision: Decision | None = None
    reason: str = ""
    by: str = ""
    when: str = ""
    bulk: bool = False
    conflict: str = ""
    """Why the owner must resolve it (empty: no conflict)."""
    said: list[CampaignEvent] = field(default_factory=list)
    outcome: str = ""
    verified: str = ""
    outcome_role: str = ""
    """The database role that recorded the outcome (empty on a file)."""
    chosen: CampaignEvent | None = None
    """The word that decided it (a decision, or the owner's resolution)."""


class Campaign:
    """A campaign read back whole: its head, rows, packets and events."""

    def __init__(
        self, head: CampaignHead, rows: Sequence[CampaignRow], events: Sequence[CampaignEvent]
    ) -> None:
        self.head, self.rows, self.events = head, list(rows), list(events)
        try:
            self.counts = json.loads(head.counts)
        except ValueError:
            self.counts = {}
        self.closed = next((e for e in events if e.kind == Kind.CLOSE), None)
        self.claimed = next((e for e in events if e.kind == Kind.CLOSING), None)
        """The close's claim: its batch (``reason``), made before anything was sent."""
        self._default = DEFAULTS.get(head.if_no_answer, Decision.KEEP)
        #: Each packet's reviewer of record given by the owner since the start: the latest
        #: reassignment's event, by project.
        self.reassigned: dict[str, CampaignEvent] = {
            e.reason: e for e in events if e.kind == Kind.REASSIGN
        }
        #: The reviewer of record each row had before its packet was reassigned.
        self.reviewer_before: dict[int, tuple[str, str]] = {}
        if self.reassigned:
            self.rows = [self._reassigned(row) for row in self.rows]
        self.packets = self._packets()

    @cached_property
    def states(self) -> dict[int, RowState]:
        """Each row's state by its position, made when first asked (a start asks for none of
        a firm's 100,000)."""
        return self._states()

    @property
    def number(self) -> int:
        return self.head.id

    @property
    def interrupted(self) -> str:
        """The batch of a close claimed and not finished (empty: none): the campaign is
        "closing: interrupted" until the same close, run again, finishes it."""
        if self.claimed is None or self.closed is not None:
            return ""
        return self.claimed.reason or "?"

    def state(self, today: str) -> str:
        """``open``, ``OVERDUE`` (``today``, YYYY-MM-DD, past its due date), ``closed``, or
        ``closing: interrupted`` with the command that finishes it."""
        if self.closed is not None:
            return "closed"
        if self.interrupted:
            return (
                f"closing: interrupted (batch {self.interrupted}); hubtui campaign close "
                f"{self.number} finishes it"
            )
        if self.head.due and today > self.head.due:
            return "OVERDUE"
        return "open"

    def takes_no_decision(self) -> str:
        """Why the campaign takes no decision now, in words (empty: it takes them)."""
        if self.closed is not None:
            return f"campaign {self.number} is closed: it takes no decision."
        if self.claimed is not None:
            return (
                f"campaign {self.number} is being closed (batch {self.interrupted}): it takes no "
                "decision."
            )
        return ""

    def record_changed(self) -> str:
        """Empty while the record holds as written: its population as frozen and each event
        chained to the one before; else what was changed, in words said before anything else
        (a close refuses)."""
        return self.population_changed() or self.chain_changed()

    def chain_changed(self) -> str:
        """Empty while each event follows the one before it; else where the record was changed
        (worked out once: a campaign read back does not change)."""
        return self._chain_words

    @cached_property
    def _chain_words(self) -> str:
        return chain_broken(self.number, self.events)

    def population_changed(self) -> str:
        """Empty while the population read back is the one frozen (its count and its sha256,
        recomputed from the rows, once: a campaign read back does not change); else what
        differs, in words said before anything else."""
        return self._population_words

    @cached_property
    def _population_words(self) -> str:
        frozen = self.counts.get("memberships") if isinstance(self.counts, dict) else None
        if isinstance(frozen, int) and frozen != len(self.rows):
            return (
                f"the population of campaign {self.number} changed after it was frozen: "
                f"{len(self.rows):,} rows, the freeze had {frozen:,}"
            )
        positions = [row.position for row in self.rows]
        if positions != list(range(len(positions))):
            return (
                f"the population of campaign {self.number} changed after it was frozen: its "
                "rows are not the freeze's places 0, 1, 2, … in order"
            )
        now_sha = population_sha256(self.rows)
        if now_sha != self.head.sha256:
            return (
                f"the population of campaign {self.number} changed after it was frozen: its "
                f"rows hash to sha256 {now_sha}, the freeze's was {self.head.sha256}"
            )
        return ""

    def _reassigned(self, row: CampaignRow) -> CampaignRow:
        """``row`` with its packet's reviewer of record now (never the person themselves:
        their own row stays with the reviewer it had)."""
        event = self.reassigned.get(row.project)
        if event is None:
            return row
        email, _ = reassignment(event)
        if event.decision == row.user_id or person_key(email) == person_key(row.email):
            return row
        self.reviewer_before[row.position] = (row.reviewer, row.reviewer_id)
        return row._replace(reviewer=email, reviewer_id=event.decision)

    def reviewer_at(self, row: CampaignRow, event_id: int) -> tuple[str, str]:
        """The reviewer of record (address, account) ``row`` had when event ``event_id`` was
        recorded: before its packet's reassignment, the one it had then."""
        event = self.reassigned.get(row.project)
        before = self.reviewer_before.get(row.position)
        if event is not None and before is not None and event_id < event.id:
            return before
        return row.reviewer, row.reviewer_id

    def _packets(self) -> list[Packet]:
        by_project: dict[str, list[int]] = defaultdict(list)
        for row in self.rows:
            by_project[row.project].append(row.position)
        said = self.counts.get("packets", {}) if isinstance(self.counts, dict) else {}
        packets = []
        for project, kept in said.items() if isinstance(said, dict) else []:
            kept = kept if isinstance(kept, dict) else {}
            reviewers = tuple(str(r) for r in kept.get("reviewers", []) if isinstance(r, str))
            if (event := self.reassigned.get(str(project))) is not None:
                reviewers = (reassignment(event)[0],)
            packets.append(
                Packet(
                    str(project),
                    str(kept.get("name", "")),
                    reviewers,
                    tuple(by_project.get(str(project), [])),
                )
            )
        return packets

    def _states(self) -> dict[int, RowState]:
        states = {row.position: RowState(row) for row in self.rows}
        bulk_acts = {e.id for e in self.events if e.kind == Kind.BULK}
        latest: dict[int, dict[str, CampaignEvent]] = defaultdict(dict)
        resolved: dict[int, CampaignEvent] = {}
        for event in self.events:
            state = states.get(event.position)
            if state is None:
                continue
            if event.kind == Kind.DECIDE:
                state.said.append(event)
                latest[event.position][event.operator.casefold()] = event
            elif event.kind == Kind.RESOLVE:
                state.said.append(event)
                resolved[event.position] = event
            elif event.kind == Kind.OUTCOME:
                state.outcome, state.verified = event.decision, event.detail
                state.outcome_role = event.db_role
        for position in latest.keys() | resolved.keys():  # a row nobody spoke of stays as made
            state = states[position]
            chosen = resolved.get(position)
            words = latest.get(position, {})
            if chosen is None and words:
                said = [(position, decision_named(e.decision)) for e in words.values()]
                if disagreeing([(where, d) for where, d in said if d is not None]):
                    names = ", ".join(
                        f"{e.operator}: {e.decision}" for e in sorted(words.values(), key=_order)
                    )
                    state.conflict = f"deciders disagree ({names})"
                    continue
                chosen = max(words.values(), key=_order)
            if chosen is not None:
                state.decision = decision_named(chosen.decision)
                state.reason, state.by, state.when = chosen.reason, chosen.operator, chosen.moment
                state.bulk = chosen.act in bulk_acts
                state.chosen = chosen
        self._cross_packet(states, resolved)
        return states

    @staticmethod
    def _cross_packet(states: dict[int, RowState], resolved: dict[int, CampaignEvent]) -> None:
        """A removal decided in one packet while another keeps the person: the owner's to
        resolve (the API removes no one from one project alone). Only the people someone
        removes are looked at."""
        removed = {
            s.row.user_id or person_key(s.row.email)
            for s in states.values()
            if s.decision is Decision.REMOVE
        }
        if not removed:
            return
        by_person: dict[str, list[RowState]] = defaultdict(list)
        for state in states.values():
            who = state.row.user_id or person_key(state.row.email)
            if who in removed:
                by_person[who].append(state)
        for held in by_person.values():
            decided = [(s.row.project, s.decision) for s in held if s.decision is not None]
            if disagreeing(decided) is None:
                continue
            removing = [s for s in held if s.decision is Decision.REMOVE]
            keeping = [s for s in held if s.decision in (Decision.KEEP, Decision.READER)]
            where = ", ".join(s.row.project_name or s.row.project for s in keeping)
            for state in removing:
                if state.row.position not in resolved:
                    state.conflict = f"removed here, kept in {where}"

    # What is asked of a campaign ----------------------------------------------------------------

    def left_of(self, positions: Iterable[int]) -> list[RowState]:
        """The rows not decided yet: one rule for every count, a conflict (in one packet or
        across packets) is not decided until the owner resolves it."""
        return [s for p in positions if not _decided(s := self.states[p])]

    def recommended(self) -> str:
        """``12 remove, 40 keep, 3 with no recommendation (…)``: how many rows each of why's
        recommendations covers."""
        counted = Counter(row.advice for row in self.rows)
        words = [f"{counted[key]:,} {key}" for key in ("remove", "reader", "keep") if counted[key]]
        if counted[""]:
            words.append(
                f"{counted['']:,} with no recommendation (limited readers, the hub's record not "
                "read)"
            )
        return ", ".join(words) or "none"

    def conflicts(self) -> list[RowState]:
        return [s for s in self.states.values() if s.conflict]

    def by_reviewer(self) -> dict[str, tuple[int, int]]:
        """Each reviewer of record: (assigned, decided)."""
        assigned: Counter[str] = Counter()
        decided: Counter[str] = Counter()
        for state in self.states.values():
            assigned[state.row.reviewer] += 1
            if _decided(state):
                decided[state.row.reviewer] += 1
        return {who: (assigned[who], decided[who]) for who in sorted(assigned)}

    def default(self) -> Decision:
        return self._default

    def at_close(self, state: RowState) -> tuple[Decision, str]:
        """What a row comes to at the close, and the words that say why: its decision, or the
        no-answer default (never a role taken from an Admin)."""
        if state.conflict:
            return Decision.KEEP, f"a conflict not resolved ({state.conflict}): kept"
        if state.decision is not None:
            return state.decision, state.reason
        default = self.default()
        if default is Decision.READER and (
            state.row.role == "Admin" or state.row.hub_role == "Admin"
        ):
            return (
                Decision.KEEP,
                "no answer: an Admin keeps their access (a default takes no Admin's role)",
            )
        if default is Decision.READER and state.row.access == LIMITED_CELL:
            return (
                Decision.KEEP,
                "no answer: a limited reader reads through the hub's domain, not as a member "
                "(a default makes no one a member)",
            )
        return default, f"no answer: the campaign's default ({self.head.if_no_answer})"


def _decided(state: RowState) -> bool:
    """Whether a row is decided: a word on it, and no conflict the owner has to resolve."""
    return state.decision is not None and not state.conflict


def _order(event: CampaignEvent) -> int:
    return event.id


def reassignment(event: CampaignEvent) -> tuple[str, str]:
    """A reassignment's new reviewer's address and the owner's note."""
    email, _, note = event.detail.partition(" · ")
    return email, note
