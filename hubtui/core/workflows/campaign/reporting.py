"""A campaign's report, the record an auditor reads, assembled once for the JSON and the CSV:
the population (every field its sha256 is computed from, how to recompute it, and whether it
and the events' chain still hold), who closed it and its batch, each bulk act, each delegation,
each conflict and its resolution, every event with the database role it was written under, and
a row per membership: what was decided, by whom, whether by its reviewer of record, and what
happened to it at the close."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from hubtui.core.access import person_key
from hubtui.core.people.campaign_record import reassignment
from hubtui.core.people.review import Decision, decision_named
from hubtui.core.store.campaigns import Kind
from hubtui.core.workflows.campaign.deciding import ROW_FACTS, delegated, row_facts

if TYPE_CHECKING:
    from hubtui.core.people.campaign_record import Campaign, RowState
    from hubtui.core.store.campaigns import CampaignEvent, RosterEntry

__all__ = [
    "REPORT_COLUMNS",
    "SHA256_RECIPE",
    "by_reviewer",
    "report_context",
    "report_of",
    "report_rows",
]

#: How an auditor recomputes the population's sha256 from the report's rows (as
#: :func:`~hubtui.core.people.campaign_record.population_sha256` computes it).
SHA256_RECIPE = (
    "for each row, json.dumps([project, user_id, email, role, hub_role, access], "
    'ensure_ascii=False, separators=(",", ":")); sort those lines, join them with a newline, '
    "encode as UTF-8, sha256"
)

#: The columns of a report's row, one a membership.
REPORT_COLUMNS = (
    "project",
    "project_name",
    "user_id",
    "email",
    "role",
    "hub_role",
    "access",
    "reviewer",
    "decided_by",
    "db_role",
    "when",
    "decision",
    "reason",
    "bulk",
    "default",
    "by_reviewer_of_record",
    "outcome",
    "verified",
    "outcome_db_role",
    *(column for column in ROW_FACTS if column != "hub_role"),
    "followed",
)


def by_reviewer(campaign: Campaign, state: RowState, accounts: dict[str, set[str]]) -> str:
    """Whether the row was decided by its reviewer of record: ``yes``, ``delegated`` (the
    owner gave the packet to the deciding role), ``resolved by the owner``, ``NO``, or empty
    (not decided). On a team store by the deciding role's accounts (``accounts``: the roster,
    by role), on a file by the operator's address."""
    chosen = state.chosen
    if chosen is None:
        return ""
    if chosen.kind == Kind.RESOLVE:
        return "resolved by the owner"
    reviewer, reviewer_id = campaign.reviewer_at(state.row, chosen.id)
    if chosen.db_role:
        if reviewer_id and reviewer_id in accounts.get(chosen.db_role, set()):
            return "yes"
        if state.row.project in delegated(campaign, chosen.db_role):
            return "delegated"
        return "NO"
    return "yes" if person_key(chosen.operator) == person_key(reviewer) else "NO"


def report_rows(campaign: Campaign, roster: Sequence[RosterEntry]) -> list[list[str]]:
    """A row a membership, in :data:`REPORT_COLUMNS`' order."""
    accounts: dict[str, set[str]] = defaultdict(set)
    for entry in roster:
        accounts[entry.role].add(entry.account)
    rows = []
    for s in campaign.states.values():
        decision, why = campaign.at_close(s)
        by_default = s.decision is None
        r = s.row
        rows.append(
            [
                r.project,
                r.project_name,
                r.user_id,
                r.email,
                r.role,
                r.hub_role,
                r.access,
                r.reviewer,
                s.by,
                "" if s.chosen is None else s.chosen.db_role,
                s.when,
                decision.value,
                why if by_default else s.reason,
                "yes" if s.bulk else "no",
                "yes" if by_default else "no",
                by_reviewer(campaign, s, accounts),
                s.outcome,
                s.verified,
                s.outcome_role,
                *row_facts(r)[1:],
                followed(r.advice, decision, by_default=by_default),
            ]
        )
    return rows


def followed(advice: str, decision: Decision, *, by_default: bool) -> str:
    """Whether the decision followed why's recommendation: ``yes``, ``no``, ``default`` (no
    one decided), or empty (there was none)."""
    if not advice:
        return ""
    if by_default:
        return "default"
    return "yes" if decision_named(advice) is decision else "no"


def report_of(
    campaign: Campaign, roster: Sequence[RosterEntry], since: dict[str, int]
) -> dict[str, Any]:
    """The whole record, as the JSON report prints it (the CSV's header block says the same)."""
    head = campaign.head
    rows = report_rows(campaign, roster)
    totals: dict[str, int] = {}
    for row in rows:
        totals[row[11]] = totals.get(row[11], 0) + 1
    return {
        "campaign": head.id,
        "name": head.name,
        "hub": head.hub,
        "hub_name": head.hub_name,
        "owner": head.owner,
        "owner_db_role": head.db_role,
        "population": _population(campaign),
        **_close(campaign),
        **_acts(campaign),
        "totals": totals,
        "since_previous_campaign": since or None,
        "rows": [dict(zip(REPORT_COLUMNS, r, strict=True)) for r in rows],
    }


def _population(campaign: Campaign) -> dict[str, Any]:
    """The population as frozen, whether it and the events still hold, how to recompute it."""
    head = campaign.head
    return {
        "read_at": head.read_at,
        "sha256": head.sha256,
        "count": len(campaign.rows),
        "frozen_count": campaign.counts.get("memberships"),
        "not_read": head.not_read,
        "check": campaign.population_changed() or "as frozen",
        "events_check": (campaign.chain_changed() or "each follows the one before"),
        "how_to_recompute": SHA256_RECIPE,
    }


def _close(campaign: Campaign) -> dict[str, Any]:
    """When and by whom it was closed, its batch, and whether its close was interrupted."""
    closed = campaign.closed
    return {
        "closed": None if closed is None else closed.moment,
        "closed_by": None
        if closed is None
        else {"operator": closed.operator, "db_role": closed.db_role, "detail": closed.detail},
        "batch": None if campaign.claimed is None else campaign.claimed.reason,
        "closing_interrupted": bool(campaign.interrupted),
    }


def _acts(campaign: Campaign) -> dict[str, Any]:
    """Every act on the campaign: its bulk acts (with their rows), delegations, open conflicts,
    resolutions, and every event with the database role it was written under."""
    where = {r.position: r for r in campaign.rows}

    def about(position: int) -> dict[str, str]:
        row = where.get(position)
        if row is None:
            return {}
        return {"project": row.project, "user_id": row.user_id, "email": row.email}

    def said(e: CampaignEvent, **more: Any) -> dict[str, Any]:
        return {**more, "by": e.operator, "db_role": e.db_role, "when": e.moment}

    events = campaign.events
    in_act: dict[int, list[CampaignEvent]] = defaultdict(list)
    for event in events:
        if event.act and event.kind in (Kind.DECIDE, Kind.RESOLVE):
            in_act[event.act].append(event)
    return {
        "bulk_acts": [
            said(
                e,
                act=e.id,
                what=e.detail,
                rows=[about(d.position) for d in in_act.get(e.id, [])],
            )
            for e in events
            if e.kind == Kind.BULK
        ],
        "delegations": [
            said(e, packet=e.reason, to=e.decision) for e in events if e.kind == Kind.DELEGATE
        ],
        "reassignments": [
            said(
                e,
                packet=e.reason,
                to=reassignment(e)[0],
                account=e.decision,
                note=reassignment(e)[1],
            )
            for e in events
            if e.kind == Kind.REASSIGN
        ],
        "conflicts_open": [
            {**about(s.row.position), "conflict": s.conflict} for s in campaign.conflicts()
        ],
        "resolutions": [
            said(e, **about(e.position), decision=e.decision)
            for e in events
            if e.kind == Kind.RESOLVE
        ],
        "events": [
            {
                "id": e.id,
                "kind": e.kind,
                **about(e.position),
                "decision": e.decision,
                "reason": e.reason,
                "operator": e.operator,
                "db_role": e.db_role,
                "when": e.moment,
                "act": e.act,
                "detail": e.detail,
            }
            for e in events
        ],
    }


def report_context(record: dict[str, Any]) -> dict[str, str]:
    """The CSV report's header block: the record's facts above its rows, a line each."""
    population = record["population"]
    closed_by = record["closed_by"]
    context = {
        "campaign": str(record["campaign"]),
        "hub": record["hub_name"],
        "owner": f"{record['owner']} (database role {record['owner_db_role'] or 'none'})",
        "population sha256": population["sha256"],
        "population check": population["check"],
        "events check": population["events_check"],
        "how to recompute it": SHA256_RECIPE,
        "read at": population["read_at"],
        "closed": (
            "closing: interrupted"
            if record["closing_interrupted"]
            else "no"
            if closed_by is None
            else f"{record['closed']} by {closed_by['operator']} (database role "
            f"{closed_by['db_role'] or 'none'}): {closed_by['detail']}"
        ),
        "batch": record["batch"] or "none",
    }
    for act in record["bulk_acts"]:
        context[f"bulk act {act['act']}"] = (
            f"{act['by']} (database role {act['db_role'] or 'none'}) at {act['when']}: "
            f"{act['what']}"
        )
    for given in record["delegations"]:
        context[f"packet {given['packet']}"] = (
            f"given to {given['to']} by {given['by']} at {given['when']}"
        )
    for n, said in enumerate(record["resolutions"], 1):
        context[f"resolution {n}"] = (
            f"{said.get('email', '?')} in {said.get('project', '?')}: {said['decision']} by "
            f"{said['by']} (database role {said['db_role'] or 'none'})"
        )
    context["conflicts open"] = str(len(record["conflicts_open"]))
    context["totals"] = ", ".join(f"{d} {n}" for d, n in sorted(record["totals"].items()))
    since = record["since_previous_campaign"]
    context["since the previous campaign"] = (
        ", ".join(f"{k} {v}" for k, v in since.items()) if since else "none before"
    )
    return context
