"""Add a user to a project, or change a member's role, explicitly and recoverably.

One idea: the form is one state machine (editing, confirming, sending, outcome unknown,
checking) whose keys follow its state.

Nothing is sent until ctrl+s; an edit is shown as a difference and confirmed first; a failure
keeps everything typed with the server's reason; a create whose outcome is unknown is never sent
again until the list has been checked.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.reactive import reactive
from textual.screen import ModalScreen
from textual.widgets import Checkbox, Input, RadioSet, Static
from textual.worker import Worker

from hubtui.api.errors import HubError
from hubtui.core.access import ROLES, email_problem, find_person
from hubtui.core.workflows.engine import (
    ChangedSinceRead,
    ChangeLogError,
    EarlierAddUnknown,
    Intent,
    Outcome,
    Sent,
    Wanted,
)
from hubtui.core.workflows.one_change import ReadOnly, one_change
from hubtui.text import inert
from hubtui.tui.glyphs import WARNING
from hubtui.tui.present import user_name
from hubtui.tui.screens.dialogs.confirm import ConfirmScreen
from hubtui.tui.screens.recovering import RecoveringScreen
from hubtui.tui.session import workspace_of
from hubtui.tui.widgets.choices import Choice, Tick
from hubtui.tui.widgets.chrome import KeyFooter

if TYPE_CHECKING:
    from hubtui.api import ApiVersion, Hub, Project, ProjectUser

#: The roles offered, in order of growing rights (the first is preselected).


class Mode(Enum):
    ADD = "add"
    EDIT = "edit"
    PROMOTE = "promote"
    """Add a limited reader as a direct member (a create with their email, never an update)."""


class State(Enum):
    """Where the form is; it moves only through :meth:`UserFormScreen._enter`. Each key's
    meaning follows from it (``check_action``: ctrl+s is gone while a change is on its way),
    and the fields are editable in every state but SENDING (``watch_state``); the questions
    (save this change? discard what was typed?) are dialogs above the form."""

    EDITING = "editing"
    SENDING = "sending"
    MAY_HAVE_ADDED = "may have added"
    """An add may have reached the server: nothing is sent again until the list is checked."""
    CHECKING = "checking"


@dataclass(frozen=True)
class FormResult:
    """What the form did: the user as the server now has them, and a sentence saying so.

    ``user`` is None when the change was made but the user could not be read back: the list
    is then reloaded.
    """

    user: ProjectUser | None
    message: str


class UserFormScreen(ModalScreen[FormResult | None], RecoveringScreen[FormResult | None]):
    """The add, edit and promote form."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save", priority=True),
        Binding("escape", "cancel", "Cancel", priority=True),
        Binding("ctrl+r", "check", "Check list", priority=True),
    ]

    state: reactive[State] = reactive(State.EDITING, bindings=True, init=False)

    def __init__(
        self,
        *,
        mode: Mode,
        hub: Hub,
        project: Project | None,
        project_id: str,
        api_version: ApiVersion,
        user: ProjectUser | None = None,
    ) -> None:
        super().__init__()
        self.mode = mode
        self.hub = hub
        self.project = project
        self.project_id = project_id
        self.api_version: ApiVersion = api_version
        self.user = user
        self._initial = self._starting_values()
        self._sender: Worker[None] | None = None

    # Layout -----------------------------------------------------------------------------------

    def _starting_values(self) -> tuple[str, str, bool]:
        if self.mode is Mode.EDIT and self.user is not None:
            return (self.user.user.email or "", self.user.role, self.user.is_reviewer)
        email = self.user.user.email or "" if self.user is not None else ""
        return (email, ROLES[0], False)

    def compose(self) -> ComposeResult:
        email, role, reviewer = self._initial
        with Vertical(id="form-box"):
            yield Static(self._title(), id="form-title")
            yield Input(
                value=inert(email),
                placeholder="name@company.example",
                id="email",
                disabled=self.mode is not Mode.ADD,
            )
            yield Static(id="email-problem")
            with RadioSet(id="role"):
                for choice in ROLES:
                    yield Choice(choice, value=choice == role)
            if role not in ROLES:
                yield Static(
                    Content(f"Current role {inert(role)} is not one hubtui offers."),
                    id="odd-role",
                )
            yield Tick("Reviewer", value=reviewer, id="reviewer")
            yield Static(id="form-message")
        yield KeyFooter(compact=True)

    def _title(self) -> Content:
        where = inert(self.project.name if self.project else f"project {self.project_id}")
        if self.mode is Mode.ADD:
            return Content.assemble(("Add a user to ", "bold"), (where, "bold"))
        assert self.user is not None
        name = user_name(self.user)
        if self.mode is Mode.EDIT:
            return Content.assemble(("Change ", "bold"), (name, "bold"), f" in {where}")
        return Content.assemble(
            ("Add ", "bold"),
            (name, "bold"),
            (" as a direct member", "bold"),
            f"\n{name} is a limited reader: they can read {where} only because their email "
            "domain is whitelisted by the hub. They are not a direct member, so there is no role "
            "to change. Saving adds them as a direct member with the role below.",
        )

    def on_mount(self) -> None:
        roles = next(iter(self.query(RadioSet)), None)
        if roles is None:  # opened while the app quits (q then e at once): nothing to set up
            return
        # RadioSet highlights its first button; start the arrow keys on the chosen role instead.
        for _ in range(max(0, roles.pressed_index)):
            roles.action_next_button()
        if self.mode is Mode.ADD:
            self.query_one("#email", Input).focus()
        else:
            self.query_one(RadioSet).focus()

    # Values -----------------------------------------------------------------------------------

    def values(self) -> tuple[str, str, bool]:
        # Only an add takes a typed email; the others send the server's own, exactly.
        email = self.query_one("#email", Input).value if self.mode is Mode.ADD else self._initial[0]
        pressed = self.query_one(RadioSet).pressed_button
        role = str(pressed.label) if pressed is not None else self._initial[1]
        reviewer = self.query_one("#reviewer", Checkbox).value
        return email, role, reviewer

    @property
    def dirty(self) -> bool:
        return self.values() != self._initial

    def _say(self, text: str | Content, *, tone: str = "") -> None:
        """Show a message; a plain string may hold a server's words, so it is made inert."""
        message = self.query_one("#form-message", Static)
        message.set_classes(tone)
        message.update(text if isinstance(text, Content) else Content(inert(text, limit=800)))

    @on(Input.Changed, "#email")
    def _email_changed(self) -> None:
        self.query_one("#email-problem", Static).update("")

    @on(Input.Submitted, "#email")
    def _email_submitted(self) -> None:
        self.query_one(RadioSet).focus()

    # Keys -------------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "check":
            return self.state is State.MAY_HAVE_ADDED
        if action == "save":
            return self.state not in (State.SENDING, State.CHECKING)
        return True

    def _enter(self, state: State, message: str | Content = "", *, tone: str = "") -> None:
        """The one way the form moves: to ``state``, saying ``message``."""
        self.state = state
        self._say(message, tone=tone)

    def watch_state(self, state: State) -> None:
        # What was typed stays in the fields, editable again as soon as nothing is on its way.
        editable = state is not State.SENDING
        self.query_one("#email", Input).disabled = not editable or self.mode is not Mode.ADD
        self.query_one(RadioSet).disabled = not editable
        self.query_one("#reviewer", Checkbox).disabled = not editable

    def action_save(self) -> None:
        if self.state is State.MAY_HAVE_ADDED:
            self._enter(
                State.MAY_HAVE_ADDED,
                "The earlier add may have reached the server. Check the list first (ctrl+r): "
                "it is not sent again until then.",
                tone="warning",
            )
            return
        if self.state is not State.EDITING:
            return
        email, role, reviewer = self.values()
        if self.mode is Mode.ADD:
            problem = email_problem(email)
            if problem:
                self.query_one("#email-problem", Static).update(Content(f"{WARNING} {problem}"))
                self.query_one("#email", Input).focus()
                return
        if self.mode is Mode.EDIT:
            difference = self._difference()
            if not difference:
                self._say("Nothing changed, so nothing was sent.")
                return
        else:  # an add is confirmed too: what is sent, to whom, before it goes
            how = "make the limited reader" if self.mode is Mode.PROMOTE else "add"
            where = inert(self.project.name if self.project else f"project {self.project_id}")
            difference = (
                f"{how} {inert(email)} a direct member of {where} as {role}, reviewer "
                f"{_yes(reviewer)} (they get an invitation)"
            )
        question = Content.assemble(
            ("Confirm: ", "bold"),
            difference,
            "\nPress y or enter to save, n or escape to go back to the form.",
        )

        def answered(yes: bool | None) -> None:
            if yes and self.state is State.EDITING:
                self._send()

        self.app.push_screen(ConfirmScreen(question), answered)

    def _difference(self) -> str:
        _, role, reviewer = self.values()
        _, old_role, old_reviewer = self._initial
        parts = []
        if role != old_role:
            parts.append(f"Role: {inert(old_role)} → {role}")
        if reviewer != old_reviewer:
            parts.append(f"Reviewer: {_yes(old_reviewer)} → {_yes(reviewer)}")
        return " · ".join(parts)

    def action_cancel(self) -> None:
        if self.state is State.SENDING and self._sender is not None:
            # Stop waiting; the request may have reached the server, so its outcome is unknown.
            self._sender.cancel()
        elif self.state is State.CHECKING:
            self._say("Checking the list; a moment.")
        elif self.state is State.EDITING and self.dirty:
            # Enter does not discard: losing what was typed takes a y.
            question = Content("Discard what you typed? Press y to discard, n to keep editing.")

            def answered(yes: bool | None) -> None:
                if yes:
                    self.dismiss(None)

            self.app.push_screen(ConfirmScreen(question, enter_says_yes=False), answered)
        else:
            self.dismiss(None)

    # Sending ----------------------------------------------------------------------------------

    def _send(self) -> None:
        self._enter(State.SENDING, "Sending… (escape stops waiting)")
        self._sender = self._send_worker()

    @work(exclusive=True, group="send", exit_on_error=False)
    async def _send_worker(self) -> None:
        app = workspace_of(self.app)
        email, role, reviewer = self.values()
        adding = self.mode is not Mode.EDIT
        wish = Wanted(
            self.hub.id,
            self.hub.name,
            self.project_id,
            self.project.name if self.project else None,
            email,
            Intent.ADD if adding else Intent.SET,
            role=role,
            reviewer=reviewer,  # the form shows its value: it is always said
        )
        try:
            one = one_change(wish, self.user, api_version=self.api_version, read_only=app.read_only)
        except ReadOnly as refused:
            self._enter(State.EDITING, f"Nothing was sent: {refused}", tone="warning")
            return
        if one.change is None:
            self._enter(State.EDITING, f"Nothing was sent: {one.words}.", tone="warning")
            return
        try:
            client = await app.client()
        except HubError as error:
            self._enter(
                State.EDITING, f"{error} Nothing was sent; your entries are kept.", tone="error"
            )
            return
        try:
            sent = await one.send(
                client, app.change_log, stopped="Stopped waiting before the answer came."
            )
        except EarlierAddUnknown:
            self._enter(
                State.MAY_HAVE_ADDED,
                "An earlier add of this email to this project may have reached the server. "
                "Check the list first (ctrl+r): it is not sent again until then.",
                tone="warning",
            )
        except ChangeLogError as error:
            self._enter(
                State.EDITING,
                f"{error} Nothing was sent: every change is logged before it goes out. Your "
                "entries are kept.",
                tone="error",
            )
        except ChangedSinceRead as error:
            self._enter(State.EDITING, f"{error} Your entries are kept.", tone="warning")
        except asyncio.CancelledError:
            if self.is_attached and self.state is State.SENDING:
                self._after_unknown("You stopped waiting for the server.")
            raise
        else:
            self._ended(sent)

    def _ended(self, sent: Sent) -> None:
        if sent.outcome == Outcome.DONE:
            if sent.user is not None:
                self.dismiss(FormResult(sent.user, self._success_message(sent.user)))
            else:
                self.dismiss(
                    FormResult(
                        None, f"{sent.error} The change was made; the list is reloaded to show it."
                    )
                )
        elif sent.outcome == Outcome.UNKNOWN:
            self._after_unknown(str(sent.error))
        else:
            self._enter(
                State.EDITING,
                f"{sent.error} Your entries are kept: press ctrl+s to try again.",
                tone="error",
            )
            # An add the server refused is most often about the email: start there.
            field = "#email" if self.mode is Mode.ADD else "#role"
            self.query_one(field).focus()

    def _after_unknown(self, why: str) -> None:
        if self.mode is not Mode.EDIT:
            self._enter(
                State.MAY_HAVE_ADDED,
                f"{why} The user may or may not have been added. Press ctrl+r to reload the "
                "list and check before anything is sent again.",
                tone="warning",
            )
            return
        # A change of role sets values: sending it again cannot make it twice.
        self._enter(
            State.EDITING,
            f"{why} The change may or may not have been made; ctrl+s sends it again (it sets "
            "the same values), escape leaves.",
            tone="warning",
        )

    def recover(self, worker: Worker[object], bug: str) -> None:
        # Not stuck in "Sending…": the change log says unknown already (see send_change).
        if self.state is State.SENDING:
            self._after_unknown(bug)
        elif self.state is State.CHECKING:
            self._enter(State.MAY_HAVE_ADDED, bug, tone="error")
        else:
            self._enter(State.EDITING, bug, tone="error")

    def _success_message(self, result: ProjectUser) -> str:
        name = user_name(result)
        where = inert(self.project.name if self.project else f"project {self.project_id}")
        if self.mode is Mode.EDIT:
            return f"Changed {name} in {where}: {self._difference() or 'saved'}."
        return f"Added {name} to {where} as {inert(result.role)}."

    def action_check(self) -> None:
        if self.state is State.MAY_HAVE_ADDED:
            self._enter(State.CHECKING, "Reloading the list to check…")
            self._check_worker()

    @work(exclusive=True, group="send", exit_on_error=False)
    async def _check_worker(self) -> None:
        app = workspace_of(self.app)
        email = self.values()[0]
        try:
            client = await app.client()
            users = await client.list_project_users(
                self.hub.id, self.project_id, api_version=self.api_version
            )
        except HubError as error:
            self._enter(
                State.MAY_HAVE_ADDED,
                f"{error} Still unknown: press ctrl+r to check again.",
                tone="warning",
            )
            return
        members = [u for u in users if u.is_direct_member and u.user.email]
        app.change_log.settle_adds(
            self.hub.id, self.project_id, [u.user.email or "" for u in members]
        )
        found = find_person(members, email)
        if found is not None:
            self.dismiss(
                FormResult(found, f"The add did reach the server: {user_name(found)} is a member.")
            )
            return
        self._enter(
            State.EDITING,
            "The list does not have them: nothing was added. Press ctrl+s to send again.",
        )


def _yes(value: bool) -> str:
    return "yes" if value else "no"
