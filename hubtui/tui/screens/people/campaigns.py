"""Review campaigns in the app (the palette's "Campaigns"): the campaigns of this server, a
campaign's packets with their progress, and a packet's people with the review keys — ``k``
keep, ``r`` Reader, ``x`` remove (with its reason), marks with space as on ``P``. Each decision
is recorded by the campaign's use case (:mod:`hubtui.core.workflows.campaign`, as ``hubtui
campaign decide``): nothing is sent until the campaign is closed."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.binding import Binding, BindingType
from textual.content import Content

from hubtui.core.clock import minute
from hubtui.core.people.campaign_record import Campaign, RowState
from hubtui.core.people.review import Decision, decision_named
from hubtui.core.workflows import campaign as use
from hubtui.core.workflows import team
from hubtui.core.workflows.kept import StoreError
from hubtui.core.workflows.team import RosterEntry
from hubtui.core.workspace import StoreOff
from hubtui.text import inert
from hubtui.tui.messages import CloseCampaign
from hubtui.tui.present import amount
from hubtui.tui.record_view import Row, cell_indexes
from hubtui.tui.screens.base import ListScreen
from hubtui.tui.screens.changes.marking import MARK_KEYS, MarkKeys
from hubtui.tui.screens.dialogs.reason_prompt import ReasonPromptScreen
from hubtui.tui.widgets.chrome import AccessPanel, Breadcrumb, Summary
from hubtui.tui.widgets.record_table import Column, RecordTable

if TYPE_CHECKING:
    from textual.app import ComposeResult

    from hubtui.api import HubClient
    from hubtui.core.clock import minute
from hubtui.core.people.campaign_record import Packet

CAMPAIGN_COLUMNS = (
    Column("number", "#", width=4, priority=0, keep=True, numeric=True),
    Column("hub", "Hub", min_width=10, priority=0, keep=True),
    Column("state", "State", width=8, priority=0),
    Column("progress", "Decided", min_width=12, priority=0, meaning=True),
    Column("name", "Name", min_width=10, priority=1),
)
PACKET_COLUMNS = (
    Column("id", "Id", min_width=4, priority=0, keep=True),
    Column("project", "Project", min_width=12, priority=0),
    Column("rows", "Rows", width=6, priority=0, numeric=True),
    Column("decided", "Decided", width=7, priority=0, numeric=True),
    Column("left", "Left", width=6, priority=0, numeric=True),
    Column("reviewers", "Reviewers", min_width=16, priority=1, keep=True, meaning=True),
)
ROW_COLUMNS = (
    Column("email", "Email", min_width=18, priority=0, keep=True),
    Column("access", "Access", width=8, priority=0),
    Column("decision", "Decision", min_width=14, priority=0, meaning=True),
    Column("advice", "Advised", width=7, priority=1, keep=True),
    Column("seen", "Last seen", width=10, priority=2),
    Column("by", "By", min_width=6, priority=3, keep=True),
    Column("name", "Name", min_width=8, priority=5),
)


ROSTER_COLUMNS = (
    Column("role", "Role", min_width=10, priority=0, keep=True),
    Column("email", "Account", min_width=18, priority=0, keep=True, meaning=True),
    Column("account", "Id", min_width=4, priority=1, keep=True),
    Column("name", "Name", min_width=8, priority=2),
    Column("added", "Added by", min_width=10, priority=3, keep=True),
)


class Loaded:
    """A campaign read from the store, or why it could not be."""

    def __init__(self, campaigns: list[Campaign], problem: str = "") -> None:
        self.campaigns, self.problem = campaigns, problem


async def _read(screen: ListScreen[Loaded], number: int | None) -> Loaded:
    try:
        server_store = screen.workspace.review_store()
        if number is None:
            return Loaded(await use.campaigns_kept(server_store))
        return Loaded([await use.open_campaign(server_store, number)])
    except (StoreOff, StoreError, use.Refused) as error:
        return Loaded([], inert(str(error), limit=None))


def _state(campaign: Campaign) -> str:
    if campaign.interrupted:
        return "closing: interrupted"
    return "closed" if campaign.closed is not None else "open"


class CampaignsScreen(ListScreen[Loaded]):
    """The campaigns of this server; ``enter`` opens one's packets."""

    NOUN = "campaign"
    LEGEND = (
        "The review campaigns of this server (hubtui campaign start begins one): its hub, "
        "whether it is open, and how many of its memberships are decided. enter shows its "
        "packets, one per project.",
    )

    def compose_body(self) -> ComposeResult:
        yield RecordTable(
            CAMPAIGN_COLUMNS,
            id="records",
            empty_text="No campaign of this server yet: hubtui campaign start HUB begins one.",
        )

    def start(self) -> None:
        self.query_one(Breadcrumb).show_path("Campaigns")
        self.load()

    async def fetch(self, client: HubClient) -> Loaded:
        return await _read(self, None)

    def show_loaded(self, loaded: Loaded) -> None:
        if loaded.problem:
            self.show_problem(loaded.problem, hint="")
            return
        self.table.set_records(
            list(reversed(loaded.campaigns)),
            lambda c: Row(
                cells=(
                    str(c.number),
                    inert(c.head.hub_name),
                    _state(c),
                    f"{len(c.rows) - len(c.left_of(c.states)):,} of {len(c.rows):,}",
                    inert(c.head.name),
                )
            ),
            key=lambda c: str(c.number),
        )
        self.query_one(Summary).say(f"{amount(len(loaded.campaigns), 'campaign')} of this server")

    @on(RecordTable.Selected, "#records")
    def _open(self, event: RecordTable.Selected) -> None:
        if isinstance(event.record, Campaign):
            self.app.push_screen(PacketsScreen(event.record.number))


MINE_COLUMNS = (
    Column("number", "#", width=4, priority=0, keep=True, numeric=True),
    Column("id", "Id", min_width=4, priority=0, keep=True),
    Column("packet", "Packet", min_width=12, priority=0, meaning=True),
    Column("left", "Left", width=6, priority=0, numeric=True),
    Column("due", "Due", width=10, priority=1, keep=True),
    Column("hub", "Hub", min_width=10, priority=2, keep=True),
)


class Mine:
    """What waits on the person at the store, or why it could not be read."""

    def __init__(self, waiting: list[use.Waiting], who: str, problem: str = "") -> None:
        self.waiting, self.who, self.problem = waiting, who, problem


class MyPacketsScreen(ListScreen[Mine]):
    """The packets and rows waiting on the person at the store (``hubtui campaign mine``):
    the account the database role acts for on the team store, else the operator; ``enter``
    opens one to decide."""

    NOUN = "packet"
    LEGEND = (
        "The packets of the open campaigns with rows left for you to decide (on the team "
        "store, the account your database role acts for; never your own access), with what is "
        "left and when it is due. enter opens one: k, r, x decide, R takes the recommendations.",
    )

    def compose_body(self) -> ComposeResult:
        yield RecordTable(MINE_COLUMNS, id="records", empty_text="Nothing waits on you.")

    def start(self) -> None:
        self.query_one(Breadcrumb).show_path("Campaigns › My packets")
        self.load()

    async def fetch(self, client: HubClient) -> Mine:
        try:
            server_store = self.workspace.review_store()
            decider = await use.decider(server_store, self.workspace.change_log.operator)
            if decider.team and not decider.accounts:
                return Mine([], "", inert(decider.refusal(), limit=None))
            waiting = use.waiting_on(await use.campaigns_kept(server_store), decider)
            return Mine(waiting, decider.role or decider.operator)
        except (StoreOff, StoreError, use.Refused) as error:
            return Mine([], "", inert(str(error), limit=None))

    def show_loaded(self, loaded: Mine) -> None:
        if loaded.problem:
            self.show_problem(loaded.problem, hint="")
            return
        self.table.set_records(
            loaded.waiting,
            lambda w: Row(
                cells=(
                    str(w.campaign.number),
                    inert(w.project),
                    inert(w.name),
                    f"{w.left:,}",
                    inert(w.campaign.head.due),
                    inert(w.campaign.head.hub_name),
                )
            ),
            key=lambda w: f"{w.campaign.number}/{w.project}",
        )
        left = sum(w.left for w in loaded.waiting)
        self.query_one(Summary).say(
            f"{amount(left, 'row')} in {amount(len(loaded.waiting), 'packet')} wait on "
            f"{inert(loaded.who)}"
        )

    @on(RecordTable.Selected, "#records")
    def _open(self, event: RecordTable.Selected) -> None:
        waiting = event.record
        if isinstance(waiting, use.Waiting):
            self.app.push_screen(
                PacketScreen(waiting.campaign.number, waiting.project, waiting.name)
            )


class Roster:
    """The team roster as read, or why it could not be."""

    def __init__(self, entries: list[RosterEntry], problem: str = "") -> None:
        self.entries, self.problem = entries, problem


class RosterScreen(ListScreen[Roster]):
    """The team roster, read only: each database role and the account it acts for. Its owner
    keeps it with ``hubtui team add | remove``."""

    NOUN = "role"
    LEGEND = (
        "Who decides in a campaign on the team store: each database role and the hub account "
        "it acts for (a role never decides its own account's rows). The store's owner keeps "
        "it: hubtui team add ROLE --account EMAIL, hubtui team remove ROLE.",
    )

    def compose_body(self) -> ComposeResult:
        yield RecordTable(
            ROSTER_COLUMNS,
            id="records",
            empty_text=(
                "Nobody in the team roster of this server: on a team store nobody decides until "
                "its owner adds them (hubtui team add ROLE --account EMAIL)."
            ),
        )

    def start(self) -> None:
        self.query_one(Breadcrumb).show_path("Team roster")
        self.load()

    async def fetch(self, client: HubClient) -> Roster:
        try:
            server_store = self.workspace.review_store()
            if server_store.team is None:
                return Roster(
                    [],
                    "The team roster lives in a team store (store_url): alone, on this "
                    "machine's file, the operator setting names who decides.",
                )
            return Roster(await team.roster_of(server_store))
        except (StoreOff, StoreError) as error:
            return Roster([], inert(str(error), limit=None))

    def show_loaded(self, loaded: Roster) -> None:
        if loaded.problem:
            self.show_problem(loaded.problem, hint="")
            return
        self.table.set_records(
            loaded.entries,
            lambda e: Row(
                cells=(
                    inert(e.role),
                    inert(e.email),
                    inert(e.account),
                    inert(e.name),
                    inert(e.db_role),
                )
            ),
            key=lambda e: f"{e.role} {e.account}",
        )
        roles = amount(len({e.role for e in loaded.entries}), "role")
        self.query_one(Summary).say(
            f"Who decides in this server's campaigns: {roles} of the team store (read only)"
        )


class PacketsScreen(ListScreen[Loaded]):
    """A campaign's packets, each with its progress; ``enter`` opens one, ``C`` closes the
    campaign (or finishes its interrupted close)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "C",
            "close_campaign",
            "Close",
            tooltip="the undecided take the default; the rest previewed, asked, sent, read back",
        ),
    ]

    NOUN = "packet"
    LEGEND = (
        "One packet a project: its memberships, how many are decided and left, and its "
        "reviewers (the project's Admins, else the hub's, else those named). Nobody decides "
        "on their own access: their row is another reviewer's.",
        "C closes the campaign: the undecided take its default, the rest is previewed against "
        "a fresh read (a change that would leave a project or the hub without an Admin is not "
        "sent), asked, sent, read back and kept. Interrupted, C again finishes it.",
    )

    def __init__(self, number: int) -> None:
        super().__init__()
        self.number = number
        self.campaign: Campaign | None = None

    def compose_body(self) -> ComposeResult:
        yield RecordTable(PACKET_COLUMNS, id="records", empty_text="No packet.")

    def start(self) -> None:
        self.query_one(Breadcrumb).show_path(f"Campaigns › #{self.number}")
        self.load()

    def resumed(self) -> None:
        self.load()  # decisions made in a packet: the progress again

    async def fetch(self, client: HubClient) -> Loaded:
        return await _read(self, self.number)

    def show_loaded(self, loaded: Loaded) -> None:
        if loaded.problem:
            self.show_problem(loaded.problem, hint="")
            return
        campaign = self.campaign = loaded.campaigns[0]

        def row(packet: Packet) -> Row:
            left = len(campaign.left_of(packet.positions))
            return Row(
                cells=(
                    inert(packet.project),
                    inert(packet.name),
                    f"{len(packet.positions):,}",
                    f"{len(packet.positions) - left:,}",
                    f"{left:,}",
                    inert(", ".join(packet.reviewers)),
                ),
            )

        self.table.set_records(campaign.packets, row, key=lambda p: p.project)
        left = len(campaign.left_of(campaign.states))
        conflicts = len(campaign.conflicts())
        due = f" · due {inert(campaign.head.due)}" if campaign.head.due else ""
        self.query_one(Summary).say(
            f"Campaign {campaign.number} · {_state(campaign)}{due} · "
            f"{len(campaign.rows):,} memberships · {len(campaign.rows) - left:,} decided · "
            f"{left:,} left · {amount(conflicts, 'conflict')}"
        )

    def action_close_campaign(self) -> None:
        campaign = self.campaign
        if campaign is None:
            return
        if campaign.closed is not None:
            self.notify(f"Campaign {campaign.number} is closed already.", markup=False)
            return
        self.post_message(CloseCampaign(campaign.number, self.load))

    @on(RecordTable.Selected, "#records")
    def _open(self, event: RecordTable.Selected) -> None:
        record = event.record
        if self.campaign is not None and record is not None:
            self.app.push_screen(PacketScreen(self.number, record.project, record.name))


class PacketTable(RecordTable[RowState]):
    """The packet's table: ``k`` keeps (not the cursor's vim key here, as the review asks)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("k", "screen.decide('keep')", "Keep", tooltip="keep their access"),
    ]


NONE: frozenset[int] = frozenset()


def _decision_words(campaign: Campaign, state: RowState) -> str:
    if state.conflict:
        return f"CONFLICT: {state.conflict}"  # said whole in the panel below
    if state.decision is None:
        return "(undecided)"
    reason = f" ({state.reason})" if state.reason else ""
    return f"{state.decision.value}{reason}"


class PacketScreen(MarkKeys, ListScreen[Loaded]):
    """A packet's people: ``k`` keep, ``r`` Reader, ``x`` remove (asked why), for the marked
    rows or the highlighted one; each recorded at once, nothing sent."""

    NOUN = "membership"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "k", "decide('keep')", "Keep", tooltip="keep their access (marked rows, or this one)"
        ),
        Binding("r", "decide('reader')", "Reader", tooltip="Reader in this project"),
        Binding(
            "x", "decide('remove')", "Remove", tooltip="out of the hub (asked why): at the close"
        ),
        Binding(
            "R",
            "accept",
            "Advised",
            tooltip="take why's recommendation for the marked rows, or this one (one bulk act)",
        ),
        *MARK_KEYS,
        Binding("ctrl+r", "reload", "Reload", show=False, tooltip="read the campaign again"),
    ]
    LEGEND = (
        "k keeps, r makes Reader in this project, x removes from the hub (asked why): for the "
        "marked rows (space, *), else the highlighted one. Many rows at once are recorded as "
        "one bulk act, with the filter if one is set. Nothing is sent until the campaign is "
        "closed (C on the packets, or hubtui campaign close), and a decision can be changed "
        "until then.",
        "Advised: why's recommendation from the facts read at the start (the panel says "
        "why); R takes it, as one act that says so.",
    )

    def __init__(self, number: int, project: str, name: str) -> None:
        super().__init__()
        self.number, self.project, self.name_shown = number, project, name
        self.campaign: Campaign | None = None

    def compose_body(self) -> ComposeResult:
        yield PacketTable(ROW_COLUMNS, id="records", empty_text="No membership in this packet.")
        yield AccessPanel(id="said")

    @on(RecordTable.Highlighted, "#records")
    def _highlighted(self, event: RecordTable.Highlighted) -> None:
        self._explain(event.record)

    def _explain(self, state: RowState | None) -> None:
        """The highlighted row in full: its conflict, then every word said of it, in order."""
        panel = self.query_one(AccessPanel)
        if state is None:
            panel.explain("")
            return
        lines = []
        if state.conflict:
            lines.append(
                Content.assemble((" CONFLICT ", "bold reverse"), f" {inert(state.conflict)}")
            )
        for event in state.said:
            reason = f" ({inert(event.reason)})" if event.reason else ""
            lines.append(
                Content(
                    f"{minute(inert(event.moment))} {inert(event.operator)}: {event.kind} "
                    f"{inert(event.decision)}{reason}"
                )
            )
        if not lines:
            lines.append(
                Content(f"{inert(state.row.email)}: undecided; {inert(state.row.reviewer)} decides")
            )
        panel.explain(Content("\n").join([*_facts_lines(state), *lines]))

    def start(self) -> None:
        self.table.can_open = False  # a row is decided here, not opened
        self.query_one(Breadcrumb).show_path(f"Campaigns › #{self.number} › {self.name_shown}")
        self.load()

    async def fetch(self, client: HubClient) -> Loaded:
        return await _read(self, self.number)

    def show_loaded(self, loaded: Loaded) -> None:
        if loaded.problem:
            self.show_problem(loaded.problem, hint="")
            return
        campaign = self.campaign = loaded.campaigns[0]
        states = [s for s in campaign.states.values() if s.row.project == self.project]
        self.table.set_records(
            states,
            lambda s: Row(
                cells=(
                    inert(s.row.email),
                    inert(s.row.access),
                    inert(_decision_words(campaign, s), limit=200),
                    inert(s.row.advice),
                    inert(_seen_short(s.row.seen)),
                    inert(s.by),
                    inert(s.row.name),
                ),
                # LIMITED keeps its one tone; a conflict is loud; undecided is hubtui's word.
                tone="failed" if s.conflict else ("limited" if s.row.access == "LIMITED" else None),
                placeholders=cell_indexes(2) if s.decision is None and not s.conflict else NONE,
            ),
            key=lambda s: str(s.row.position),
        )
        self.refresh_summary()

    def refresh_summary(self) -> None:
        campaign = self.campaign
        if campaign is None:
            return
        positions = [
            s.row.position for s in campaign.states.values() if s.row.project == self.project
        ]
        left = len(campaign.left_of(positions))
        marked = len(self.table.marks)
        self.query_one(Summary).say(
            f"{inert(self.name_shown)} · {len(positions):,} memberships · {left:,} left"
            + (f" · {marked:,} marked" if marked else "")
            + (" · closed: no decision is taken" if campaign.closed else "")
        )

    def action_decide(self, word: str) -> None:
        campaign = self.campaign
        if campaign is None:
            return
        chosen: list[RowState] = self.table.marked_records() or [
            r for r in [self.table.highlighted_record] if r is not None
        ]
        if not chosen:
            return
        decision = {"keep": Decision.KEEP, "reader": Decision.READER}.get(word, Decision.REMOVE)
        if decision is Decision.REMOVE:
            who = chosen[0].row.email if len(chosen) == 1 else f"{len(chosen):,} people"

            def answered(reason: str | None) -> None:
                if reason:
                    self._record(campaign, chosen, decision, reason)

            self.app.push_screen(
                ReasonPromptScreen(
                    who,
                    "Remove from the hub ",
                    "Why? Kept with the decision. Nothing is sent until the campaign is closed.",
                    required="A removal needs a reason: type it, or escape to go back.",
                ),
                answered,
            )
            return
        self._record(campaign, chosen, decision, "")

    def action_accept(self) -> None:
        """Why's recommendation taken for the marked rows (or the highlighted one), each with
        its reason, as one act recorded as such; a row with none is left, and said."""
        campaign = self.campaign
        if campaign is None:
            return
        chosen: list[RowState] = self.table.marked_records() or [
            r for r in [self.table.highlighted_record] if r is not None
        ]
        advised = [s for s in chosen if decision_named(s.row.advice) is not None]
        if len(advised) < len(chosen):
            self.notify(
                f"{amount(len(chosen) - len(advised), 'row')} with no recommendation left as "
                "it is (a limited reader: the domain gives the access).",
                markup=False,
            )
        if advised:
            self.run_worker(
                self._recording(campaign, advised, None, ""),
                group="decide",
                exclusive=True,
                exit_on_error=False,
            )

    def _record(
        self, campaign: Campaign, chosen: list[RowState], decision: Decision, reason: str
    ) -> None:
        self.run_worker(
            self._recording(campaign, chosen, decision, reason),
            group="decide",
            exclusive=True,
            exit_on_error=False,
        )

    async def _recording(
        self, campaign: Campaign, chosen: list[RowState], decision: Decision | None, reason: str
    ) -> None:
        """``decision`` for each row of ``chosen`` with ``reason`` (None: each row's
        recommendation, with its reason), recorded as one act when many."""
        operator = self.workspace.change_log.operator
        try:
            decider = await use.decider(self.workspace.review_store(), operator)
        except (StoreOff, StoreError) as error:
            self.notify(
                f"Nothing recorded: {inert(str(error), limit=None)}", severity="error", markup=False
            )
            return
        if decider.team and not decider.accounts:
            self.notify(
                f"Nothing recorded: {inert(decider.refusal())}", severity="error", markup=False
            )
            return
        if decision is None:
            events = [
                event
                for s in chosen
                if (advised := decision_named(s.row.advice)) is not None
                for event in use.events_of(
                    campaign, [s.row.position], advised, s.row.advice_reason, decider
                )
            ]
        else:
            events = use.events_of(
                campaign, [s.row.position for s in chosen], decision, reason, decider
            )
        taken = {e.position for e in events}
        left_out = [
            words
            for s in chosen
            if s.row.position not in taken
            and (words := use.may_not_decide(campaign, decider, s.row))
        ]
        if left_out:
            self.notify(
                f"{amount(len(left_out), 'row')} not yours to decide: {inert(left_out[0])}",
                severity="warning",
                markup=False,
            )
        if not events:
            return
        filtered = self.table.filter_text
        bulk = f"{amount(len(events), 'row')} marked" + (f", filter {filtered}" if filtered else "")
        if decision is None:
            bulk = f"accepted the recommendation: {bulk}"
        try:
            await use.decide(
                self.workspace.review_store(), campaign, events, bulk=bulk, one_act=decision is None
            )
        except (use.Closed, use.Refused, StoreOff, StoreError) as error:
            self.notify(
                f"Nothing recorded: {inert(str(error), limit=None)}", severity="error", markup=False
            )
            return
        self.table.clear_marks()
        said = "as recommended" if decision is None else decision.value
        self.notify(
            f"{amount(len(events), 'decision')} recorded ({said}); nothing was sent.",
            markup=False,
        )
        self.load()


def _seen_short(seen: str) -> str:
    """``2025-07-18``, ``never``, ``unknown`` (empty: not read at the start)."""
    return seen.rsplit(", ", 1)[-1]


def _facts_lines(state: RowState) -> list[Content]:
    """What the reviewer decides on, as read at the start, and why's recommendation."""
    row = state.row
    if not (row.seen or row.advice or row.advice_reason):
        return []  # a campaign started before hubtui kept them
    facts = [
        f"reviewer {row.reviewer}",
        f"hub role {row.hub_role or 'none'}",
        f"last seen: {row.seen or 'not read'}",
    ]
    if row.invitation:
        facts.append(f"invitation {row.invitation}")
    if row.projects.isdigit():
        facts.append(f"in {amount(int(row.projects), 'project')} of the hub")
    if row.through:
        facts.append(f"a limited reader through @{row.through}")
    if row.outside:
        facts.append(f"outside the hub's SSO tenant {row.outside}")
    advised = (
        Content.assemble(("Advised: ", "bold"), f"{inert(row.advice)}: {inert(row.advice_reason)}")
        if row.advice
        else Content(f"Advised: nothing to decide here ({inert(row.advice_reason)})")
        if row.advice_reason
        else Content("Advised: no recommendation (the hub's record of them was not read)")
    )
    return [Content(inert(" · ".join(facts), limit=None)), advised]
