"""`P` on a hub: every person with access to the hub or any of its projects, with when each was
last seen and what needs a reviewer's look (``core.people.hub`` reads and judges; this shows)."""

from __future__ import annotations

from contextlib import ExitStack
from datetime import UTC, datetime
from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.binding import Binding, BindingType
from textual.content import Content

from hubtui.core.people import HubPeople, HubPerson, ReviewRow, read_hub_people
from hubtui.core.presenting import seen_words, when_both
from hubtui.text import LONG_VALUE, already_inert, inert
from hubtui.tui.collection import collected_rarely_then_frozen
from hubtui.tui.messages import FindPerson, HubPeopleLoaded
from hubtui.tui.present import amount
from hubtui.tui.screens.base import FanOutScreen
from hubtui.tui.screens.changes.marking import MarkKeys
from hubtui.tui.screens.people.reviewing import OFFBOARD_BINDING, Reviewing
from hubtui.tui.screens.people.why import WHY_BINDING, WhyScreen
from hubtui.tui.widgets.chrome import AccessPanel, Breadcrumb, Summary
from hubtui.tui.widgets.record_table import Column, RecordTable, Row, cell_indexes

if TYPE_CHECKING:
    from hubtui.api import Hub, HubClient, HubError
    from hubtui.core.people import Progress

PEOPLE_COLUMNS = (
    Column("email", "Email", min_width=18, priority=0, keep=True),
    Column("name", "Name", min_width=10, priority=3),
    Column("role", "Hub role", min_width=8, priority=2),  # the label whole, never "Hub …"
    # Whole, as an identifier is: "12 mon…" would say nothing.
    Column("seen", "Last sign-in", min_width=13, priority=0, keep=True),
    Column("projects", "Projects", min_width=8, priority=1),
    Column("marks", "Needs a look", min_width=16, priority=0, meaning=True),
)
NOTHING_MARKED = "—"


#: A row's placeholders: the "needs a look" cell when nothing is marked, or none.
_NOTHING_MARKED_CELL = cell_indexes(5)
_NO_PLACEHOLDERS = cell_indexes()


def person_row(
    person: HubPerson, now: datetime, inactive_after: int, decided: ReviewRow | None = None
) -> Row:
    domain = person.limited_domain
    marks = person.marks(now, inactive_after, domain=domain)
    texts = [
        person.email,
        person.name,
        person.hub_role or "—",
        person.projects_words(short=True),
        ", ".join(marks) if marks else NOTHING_MARKED,
    ]
    # Nearly every row's texts are plain and short: asked of them joined, once (a firm's hub
    # builds 100,000 rows), and made inert one by one only where one is not.
    if max(map(len, texts)) > LONG_VALUE or not already_inert("".join(texts)):
        texts = [inert(text) for text in texts]
    email, name, role, projects, said = texts
    if decided is not None:  # the decision first: what the review will do to them
        said = f"▸ {decided.decision.value.upper()} · {said}"
    return Row(
        cells=(email, name, role, seen_words(person.seen, now), projects, said),
        tone="limited" if domain is not None else None,
        placeholders=_NO_PLACEHOLDERS if marks else _NOTHING_MARKED_CELL,
        group="needs" if marks else "fine",
    )


def clock() -> datetime:
    """Now, in UTC: what "3 months ago" and "inactive N days" are counted to."""
    return datetime.now(UTC)


class HubPeopleScreen(MarkKeys, Reviewing, FanOutScreen[HubPeople]):
    """A hub's people: hub users and project users joined by person."""

    COLUMNS = PEOPLE_COLUMNS
    EMPTY = "Nobody has access."

    NOUN = "person"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("M", "matrix", "Matrix", tooltip="people × projects: each cell the role"),
        Binding(
            "i",
            "resend",
            "Resend invite",
            tooltip="send the hub's invitation again to the marked people (or the highlighted "
            "one) who never accepted it: each gets an email",
        ),
        Binding(
            "space",
            "mark",
            "Mark",
            show=False,
            tooltip="mark the highlighted person (or unmark them) and move down to the next",
        ),
        Binding("asterisk", "mark_shown", "Mark shown", show=False, tooltip="mark everyone shown"),
        Binding("minus", "clear_marks", "Clear marks", show=False, tooltip="clear every mark"),
        Binding(
            "d",
            "decide",
            "Decide",
            tooltip="a review's decision for the marked people (or the highlighted one): keep, "
            "set Reader, remove from the hub; with a reason. Nothing is sent yet",
        ),
        Binding(
            "v",
            "review",
            "Review",
            tooltip="the decisions as one preview, read again now; a applies them and keeps "
            "the review in the store (hubtui reviews)",
        ),
        OFFBOARD_BINDING,
        WHY_BINDING,
        Binding(
            "l",
            "needs_a_look",
            "Needs a look",
            tooltip="everyone / only those with something to look at (inactive, never signed "
            "in, invitation not accepted, limited readers, hub admins)",
        ),
    ]
    LEGEND = (
        "Everyone with access to the hub or any of its projects: the hub's users and every "
        "project's users, one row a person (the same email, in any case, is one person).",
        "Last sign-in: the latest of the web sign-in, the add-in sign-in and the last project "
        "activity the server sent, counted in whole days to now (UTC). 'never': the server sent "
        "none; 'unknown': it sent a date that cannot be read (then never 'inactive').",
        "Needs a look: never signed in · invitation not accepted · inactive N days (N is the "
        "inactive_after setting, 90 by default) · limited reader @domain · hub admin.",
        "Projects: how many, and as what (LIMITED: a limited reader there).",
        "enter: this person in every project of the hub; M: the access matrix.",
        "i sends the invitation again to the marked people (space marks one, * everyone shown) "
        "who never accepted it; each is read again first.",
        "A review: d decides for the marked people (keep, set Reader, remove from the hub, with "
        "a reason; shown ▸ first in Needs a look); v previews the decisions, read again, and a "
        "applies them: the review (who, when, each decision, reason and outcome) is kept in "
        "the store. Removing a person from one project is not in the API: Reader is offered.",
        "O offboards the highlighted person: every hub they are in, one preview; a removal is "
        "reverted by an invitation (they get an email), then each project's role.",
    )

    def __init__(self, hub: Hub) -> None:
        super().__init__()
        self.hub = hub
        self.answer: HubPeople | None = None
        #: What is shown while the projects are read, in words ("the first 200 hub users…").
        self._shown_before_projects: str | None = None
        self.only_needs = False
        self.now = clock()
        self._counted: tuple[HubPeople, tuple[str, ...]] | None = None
        self._matrix_asked = False
        #: The review's decisions so far, by person (kept across a reload).
        self.decisions: dict[str, ReviewRow] = {}
        self.review_started = ""
        #: What a load holds until it ends (the collector's pause, for a large hub).
        self._load_pauses = ExitStack()

    @property
    def scope_hub(self) -> Hub | None:
        return self.hub

    @property
    def highlighted_email(self) -> str | None:
        person: HubPerson | None = self.table.highlighted_record
        return None if person is None else person.email

    def start(self) -> None:
        self.query_one(Breadcrumb).show_path(f"{self.hub.name} › people")
        self.load()

    def loading_words(self) -> str:
        return f"Reading the people of hub {inert(self.hub.name)}…"

    async def fetch(self, client: HubClient) -> HubPeople:
        workspace = self.workspace
        self.now = clock()
        return await read_hub_people(
            client,
            self.hub,
            concurrency=workspace.concurrency,
            deadline=workspace.search_deadline,
            on_progress=self._progressed,
            on_first=self._first_people,
            on_so_far=self._people_so_far,
            so_far_wanted=self._so_far_taken_in,
        )

    def _so_far_taken_in(self) -> bool:
        """Whether the people told so far are taken in: shown, and searched where a filter or
        a group asks (the next telling waits for that search, not for one nobody asked for)."""
        view = self.table.view
        return view.indexed or not view.choosing

    def load_ended(self) -> None:
        self._load_pauses.close()
        super().load_ended()

    def _first_people(self, people: list[HubPerson]) -> None:
        """A large hub's first users, shown while the rest and every project are read. The
        collector runs rarely meanwhile (see core/collection.py): a firm's hub is millions of
        objects read, each scanned again at every collection at Python's default thresholds;
        what was read is frozen as the load ends (see tui/collection.py)."""
        self._load_pauses.enter_context(collected_rarely_then_frozen())
        self._show_meanwhile(
            people,
            f"the first {len(people):,} hub users are shown; their projects and the counts follow",
        )

    def _people_so_far(self, people: list[HubPerson], progress: Progress | None) -> None:
        """Every hub user, with the projects read so far, shown while the others are read."""
        if progress is not None and progress.projects_done:
            self._show_meanwhile(
                people,
                f"{amount(len(people), 'person', 'people')} so far, with their projects in the "
                f"{progress.projects_done:,} of {progress.projects_total:,} projects read; the "
                "rest and the counts follow",
            )
        else:
            self._show_meanwhile(
                people,
                f"its {amount(len(people), 'hub user')} are shown; their projects and the "
                "counts follow",
            )

    def _show_meanwhile(self, people: list[HubPerson], words: str) -> None:
        """People shown while the read goes on, the summary saying what is still to come (what
        needs a look and the counts follow with the whole answer)."""
        self._shown_before_projects = words
        self.table.loading = False  # the rows show; the summary says the rest is on its way
        self._show_people(people, index=False)  # replaced soon: searched only if asked
        self.refresh_summary()

    def _show_people(self, people: list[HubPerson], *, index: bool = True) -> None:
        days = self.workspace.settings.inactive_after
        self.table.set_records(
            people,
            lambda person: person_row(person, self.now, days, self.decisions.get(person.key)),
            key=lambda person: person.key,
            index=index,
        )

    def show_failed(self, error: HubError) -> None:
        if self._shown_before_projects is not None:  # not kept from a read that failed
            self._shown_before_projects = None
            self._show_people(self.answer.people if self.answer is not None else [])
        super().show_failed(error)

    def _progressed(self, progress: Progress) -> None:
        self.progressed(progress, f"Reading the people of {inert(self.hub.name)}")

    def show_loaded(self, loaded: HubPeople) -> None:
        self._shown_before_projects = None
        self.answer = loaded
        if self.workspace.offline is None:
            self.post_message(HubPeopleLoaded(loaded))
        self._show_people(loaded.people)
        self.table.show_group("needs" if self.only_needs else None)
        if self._matrix_asked:
            self._matrix_asked = False
            self.call_after_refresh(self.action_matrix)

    def action_needs_a_look(self) -> None:
        self.only_needs = not self.only_needs
        self.table.show_group("needs" if self.only_needs else None)
        self.refresh_summary()

    def refresh_summary(self) -> None:
        if self._shown_before_projects is not None:
            self.query_one(Summary).say(
                f"Reading the people of {inert(self.hub.name)}… {self._shown_before_projects}."
            )
            return
        answer = self.answer
        if self.is_loading or answer is None:
            return
        parts = list(self._counts(answer))
        marked = len(self.table.marks)
        if marked:
            parts.append(f"{marked:,} marked")
        if self.decisions:
            parts.append(f"{len(self.decisions):,} decided (v previews)")
        if self.only_needs:
            parts.append(f"{self.table.visible_count:,} shown: those that need a look (l)")
        if self.table.filter_text:
            parts.append(
                f"{amount(self.table.visible_count, 'row')} shown matching "
                f"“{self.table.filter_text}”"
            )
        if not answer.complete:
            parts.append(f"INCOMPLETE: {answer.incomplete_words()}")
        self.query_one(Summary).say(" · ".join(parts))
        self._explain(self.table.highlighted_record)

    def _counts(self, answer: HubPeople) -> tuple[str, ...]:
        """The counts of everyone read, made once a load (a keystroke of the filter does not
        count 20,000 people again)."""
        if self._counted is not None and self._counted[0] is answer:
            return self._counted[1]
        people = answer.people
        days = self.workspace.settings.inactive_after
        inactive = sum(1 for p in people if p.is_inactive(self.now, days))
        pending = sum(1 for p in people if p.hub_user is not None and not p.hub_user.is_activated)
        limited = sum(1 for p in people if p.limited_domain is not None)
        words = (
            amount(len(people), "person", "people"),
            f"{inactive:,} inactive or never signed in (over {days} days)",
            f"{amount(pending, 'invitation')} not accepted",
            amount(limited, "limited reader"),
        )
        self._counted = (answer, words)
        return words

    @on(RecordTable.Highlighted, "#records")
    def _highlighted(self, event: RecordTable.Highlighted) -> None:
        self._explain(event.record)

    def _explain(self, person: HubPerson | None) -> None:
        """The highlighted person's dates in local time and UTC, and each mark in full."""
        panel = self.query_one(AccessPanel)
        if person is None:
            panel.explain("")
            return
        lines: list[Content | str] = [
            Content.assemble((inert(person.email or person.name), "bold"), f" · {_hub(person)}")
        ]
        marks = person.marks(self.now, self.workspace.settings.inactive_after)
        if marks:
            lines.append("Needs a look: " + inert(", ".join(marks)))
        decided = self.decisions.get(person.key)
        if decided is not None:
            reason = f" ({inert(decided.reason)})" if decided.reason else " (no reason given)"
            lines.append(Content.assemble(("Decided: ", "bold"), decided.decision.value, reason))
        user = person.hub_user
        if user is not None:
            web, addin, activity = (
                _moment_words(value)
                for value in (
                    user.last_web_login,
                    user.last_addin_login,
                    user.last_hub_project_activity,
                )
            )
            lines.append(f"Last web sign-in: {web} · add-in sign-in: {addin}")
            lines.append(f"Last project activity: {activity}")
        lines.append(f"Projects: {inert(person.projects_words(), limit=None)}")
        panel.explain(Content("\n").join(Content(x) if isinstance(x, str) else x for x in lines))

    def action_open(self) -> None:
        person = self.table.highlighted_record
        if person is None:
            return
        self.post_message(
            FindPerson([self.hub], f"hub {self.hub.name}", person.email or person.name)
        )

    @on(RecordTable.Selected, "#records")
    def _selected(self) -> None:
        self.action_open()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("resend", "offboard") and self.workspace.read_only:
            return False
        return super().check_action(action, parameters)

    def action_why(self) -> None:
        """Why the highlighted person can, or cannot, get into each of the hub's projects."""
        person: HubPerson | None = self.table.highlighted_record
        if person is None or not person.email:
            self.notify("No person with an email is highlighted.", markup=False)
            return
        self.app.push_screen(WhyScreen(person.email, [self.hub]))

    def action_matrix(self) -> None:
        """The access matrix; typed while the people are read, it opens once they are."""
        if self.answer is None or self.is_loading:
            self._matrix_asked = True
            self.notify("The matrix opens once the people are read.", markup=False)
            return
        from hubtui.tui.screens.browsing.access_matrix import AccessMatrixScreen

        self.app.push_screen(AccessMatrixScreen(self.answer, self.now))

    def export_what(self) -> str:
        return f"people of {self.hub.name}"

    def export_context(self) -> dict[str, str]:
        return {
            "hub Name": self.hub.name,
            "inactive after (days)": str(self.workspace.settings.inactive_after),
            "counted to (UTC)": f"{self.now:%Y-%m-%d %H:%M}",
        }


def _hub(person: HubPerson) -> str:
    user = person.hub_user
    if user is None:
        return "not among the hub's users read"
    accepted = {True: "invitation accepted", False: "invitation NOT accepted", None: ""}
    words = [f"hub {inert(user.role or 'role not sent')}", accepted[user.is_activated]]
    return ", ".join(w for w in words if w)


def _moment_words(value: object) -> str:
    """A hub user's date in local time and UTC; ``never`` (not sent, or null); the text sent
    when it is no date."""
    if isinstance(value, datetime):
        return when_both(value)
    if value is not None:
        return f"unknown (the server sent {inert(str(value), limit=60)!r})"
    return "never"
