"""``W``: why this person can, or cannot, get into this project (or any of the hub's), as
``hubtui why`` answers it: the verdict, the facts behind it, each from the record that said it,
and the next step where the facts support one. ``y`` copies the answer whole, for a ticket."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static
from textual.worker import Worker

from hubtui.api.errors import HubError
from hubtui.core.people import (
    LIMITED,
    NOT_IN_YET,
    Answer,
    ProjectNamed,
    answers_text,
    offline_note,
    shown,
)
from hubtui.core.people.why import BY_ID
from hubtui.core.workflows.why import answer_ticket
from hubtui.text import inert
from hubtui.tui.messages import PrepareFix
from hubtui.tui.present import copy_lines_for_a_ticket
from hubtui.tui.screens.recovering import RecoveringScreen
from hubtui.tui.session import session_of, workspace_of
from hubtui.tui.widgets.chrome import KeyFooter

if TYPE_CHECKING:
    from hubtui.api import Hub
    from hubtui.core.people.advice import NextStep


def clock() -> datetime:
    """Now, in UTC: what "23 days ago" counts to (a test holds it still)."""
    return datetime.now(UTC)


#: ``W`` on every row that is a person: the project users, a search's results, the hub's people.
WHY_BINDING = Binding(
    "W",
    "why",
    "Why?",
    show=False,
    tooltip="why the highlighted person can, or cannot, get in: the verdict, the facts behind "
    "it and the next step (y copies it for a ticket)",
)


class WhyScreen(ModalScreen[None], RecoveringScreen[None]):
    """The answer for one person and one project, or every project where they have access."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "dismiss", "Close"),
        Binding("y", "copy", "Copy for a ticket", tooltip="copy the whole answer, as text"),
        Binding(
            "1",
            "fix(1)",
            "Fix [1]",
            tooltip="prepare the next step marked [1] (2 to 9: the others): its preview, read "
            "again; nothing is sent before you confirm it there",
        ),
        *(Binding(str(n), f"fix({n})", f"Fix [{n}]", show=False) for n in range(2, 10)),
        # While the answer is read its box is loading and takes no key: a move typed then is
        # the screen's, and made once the answer shows.
        *(
            Binding(key, f"move('{how}')", show=False)
            for key, how in (
                ("end", "scroll_end"),
                ("home", "scroll_home"),
                ("pagedown", "page_down"),
                ("pageup", "page_up"),
            )
        ),
    ]

    def __init__(
        self,
        email: str,
        hubs: Sequence[Hub] | None,
        project: str | None = None,
        account: str | None = None,
    ) -> None:
        """``hubs``: where to look (``None``: every hub the token sees). ``project``: an Id or
        part of a name; ``None``, every project of the hubs where the person has any access
        (and each hub where they are a user in none). ``account``: the Id of the row's account,
        whose answers lead when several accounts have this address."""
        super().__init__()
        self.email = email
        self.account = account
        self.hubs = None if hubs is None else list(hubs)
        self.project = project
        self.answers: list[Answer] = []
        #: The next steps a key prepares, in the order shown ([1], [2], …).
        self.fixes: list[tuple[Answer, NextStep]] = []

    def compose(self) -> ComposeResult:
        with _WhyBox(classes="dialog-box", id="why-box"):
            yield Static(Content.styled(self._title(), "bold"), id="why-title")
            yield Static(self._reading_words(), id="why-text")
        yield KeyFooter(compact=True)

    def on_mount(self) -> None:
        self._explain()

    def _title(self) -> str:
        return f"Why can {inert(self.email)} get in, or not?"

    def _reading_words(self) -> str:
        if self.project:
            return "Reading the project's users, the hub's users and the hub's projects…"
        hubs = self.hubs
        scope = f"hub {inert(hubs[0].name)}" if hubs and len(hubs) == 1 else "every hub"
        return f"Searching the projects of {scope} for them, as w searches…"

    def _say(self, text: Content | str) -> None:
        self.query_one("#why-text", Static).update(text)

    @work(exclusive=True, group="why", exit_on_error=False)
    async def _explain(self) -> None:
        workspace = workspace_of(self.app)
        box = self.query_one("#why-box")
        box.loading = True
        try:
            client = await workspace.client()
            # The one use case: the scope, the project named, the answers, since when.
            ticket = await answer_ticket(
                workspace,
                client,
                session_of(self.app).front(choose=self.several_projects),
                self.email,
                hubs=self.hubs,
                project=self.project,
                account=self.account,
                now=clock(),
            )
            if ticket.refused is not None:
                self._say(ticket.refused)
                return
            self.answers, note = ticket.answers, ticket.offline
        except HubError as error:
            self._say(f"Could not be answered: {inert(str(error), limit=None)}")
            return
        finally:
            box.loading = False
        if workspace.offline is None and not workspace.read_only:
            self.fixes = [(a, s) for a in self.answers for s in a.steps if s.fixable]
        self._say(describe(self.answers, self.email, note, self.fixes, self.account))
        self.refresh_bindings()
        self.call_after_refresh(self.query_one(_WhyBox).moved_while_reading)

    def several_projects(self, named: ProjectNamed) -> None:
        self.call_later(self._choose_project, named)

    def _choose_project(self, named: ProjectNamed) -> None:
        """Several projects have the name typed: each listed to choose from (their Ids and
        hubs said); the one chosen is answered for, by its Id."""
        from hubtui.tui.screens.people.project_choice import ProjectChoiceScreen

        def chosen(picked: tuple[Hub, str, str | None] | None) -> None:
            if picked is None:
                return  # the list of them stays said
            self.hubs, self.project = [picked[0]], f"{BY_ID}{picked[1]}"
            self._say(self._reading_words())
            self._explain()

        self.app.push_screen(ProjectChoiceScreen(named.typed, named.found), chosen)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "fix":
            number = parameters[0] if parameters else 0
            return isinstance(number, int) and 0 < number <= len(self.fixes)
        return True

    def action_move(self, how: str) -> None:
        self.query_one(_WhyBox).move(how)

    def action_fix(self, number: int) -> None:
        """Prepare the step marked ``[number]``: the app opens its preview (staged and read
        again, an invitation asked, a revert's preview); nothing is sent from here."""
        if not 0 < number <= len(self.fixes):
            return
        answer, step = self.fixes[number - 1]
        self.dismiss()
        self.app.post_message(PrepareFix(answer, step))

    def action_copy(self) -> None:
        if not self.answers:
            self.notify("Nothing to copy yet: no answer.", severity="warning", markup=False)
            return
        lines = answers_text(self.answers).splitlines()
        offline = workspace_of(self.app).offline
        if offline is not None:  # a ticket never takes stored data for the server's now
            lines.insert(0, offline_note(offline.last_words))
        copy_lines_for_a_ticket(self.app, lines, "answer")

    def recover(self, worker: Worker[Any], sentence: str) -> None:
        self.query_one("#why-box").loading = False
        self._say(sentence)
        super().recover(worker, sentence)


class _WhyBox(VerticalScroll):
    """The answer's box: a move asked while the answer is read (``End`` typed as the dialog
    opened, which the screen takes while the box is loading) is made once it is shown, never
    lost on an empty box."""

    asked: str | None = None

    def move(self, how: str) -> None:
        if self.loading:
            self.asked = how
            return
        {
            "scroll_end": self.scroll_end,
            "scroll_home": self.scroll_home,
            "page_down": self.scroll_page_down,
            "page_up": self.scroll_page_up,
        }[how](animate=False)

    def moved_while_reading(self) -> None:
        """The move asked while the answer was read, now that it is shown."""
        asked, self.asked = self.asked, None
        if asked is not None:
            self.move(asked)


def describe(
    answers: Sequence[Answer],
    email: str,
    note: str | None,
    fixes: Sequence[tuple[Answer, NextStep]] = (),
    account: str | None = None,
) -> Content:
    """The answers as a person reads them: each verdict in bold (a limited reader's marked),
    its facts, what could not be read and the next steps. ``account``: the row's account; an
    answer for another account of the address is marked as the other one."""
    lines: list[Content | str] = []
    if note:
        lines += [Content.styled(inert(note), "italic"), ""]
    if not answers:
        lines.append(f"{inert(email)} is neither a user nor in a project of these hubs.")
    nowhere, answers = shown(answers)
    if nowhere is not None:
        lines += [Content.styled(inert(nowhere, limit=None), "bold"), ""]
    for number, answer in enumerate(answers):
        if number:
            lines.append("")
        other = account is not None and answer.user_id not in (None, account)
        account_words = (
            ""
            if answer.user_id is None
            else f", {'the other ' if other else ''}account Id {answer.user_id} "
            f"{answer.account or '(no email)'}"
        )
        head = f"{answer.where} ({answer.hub.name}){account_words}: {answer.verdict}."
        warn = answer.verdict.startswith(LIMITED) or answer.verdict.startswith(NOT_IN_YET)
        style = "bold $warning" if warn else "bold"
        lines.append(Content.styled(inert(head, limit=None), style))
        lines += [
            f"  {inert(f.what)}: {inert(f.says, limit=None)}  ({inert(f.source)})"
            for f in answer.facts
        ]
        lines += [f"  Not read: {inert(why, limit=None)}" for why in answer.not_read]
        numbered = {id(step): n for n, (_, step) in enumerate(fixes, start=1)}
        for step in answer.steps:
            key = numbered.get(id(step))
            lines.append(
                Content.assemble(
                    ("  Next: ", "bold"),
                    (f"[{key}] ", "bold $accent") if key else "",
                    inert(step.text(), limit=None),
                )
            )
    fixing = " · 1 prepares the step marked [1] (2 to 9 the others)" if fixes else ""
    lines += ["", f"y copies the answer for a ticket{fixing} · escape closes."]
    return Content("\n").join(
        line if isinstance(line, Content) else Content(line) for line in lines
    )
