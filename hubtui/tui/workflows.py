"""The app's side of the Workspace's workflows: each asks the Workspace (``hubtui.core``) to
do the work and says what came of it (a notification, a screen). Staged changes and their
preview, a batch reverted, a snapshot recorded, changes since one, a list read kept, a
reconnect, reading offline. Navigation, themes and signals are the shell's (``tui.app``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from textual import work
from textual.app import App
from textual.content import Content

from hubtui.api.errors import HubError
from hubtui.config import ConfigError
from hubtui.core.clock import now
from hubtui.core.presenting import amount
from hubtui.core.store import StoreError
from hubtui.core.workspace import StoreOff, Workspace
from hubtui.text import inert
from hubtui.tui.messages import (
    HubPeopleLoaded,
    HubsLoaded,
    Offboard,
    PrepareFix,
    ProjectsLoaded,
    Reconnect,
    RevertBatch,
    ShowChanges,
    UsersLoaded,
    UsersReadAsSent,
)
from hubtui.tui.screens.base import ListScreen

if TYPE_CHECKING:
    from hubtui.api import Hub
    from hubtui.api.models import ApiModel
    from hubtui.core.people.why import Answer
    from hubtui.core.store import SnapshotInfo
    from hubtui.core.workflows.resend import Resending
    from hubtui.tui.session import Session


class WorkspaceActions(App[None]):
    """What the app does with its :class:`~hubtui.core.workspace.Workspace`."""

    workspace: Workspace
    session: Session

    def _say(self, words: str, **options: object) -> None:
        """A notification of plain words (never markup)."""
        self.notify(words, markup=False, **options)  # type: ignore[arg-type]

    async def start_again(self) -> None:
        """Back to a hub list read afresh (the shell's navigation)."""
        raise NotImplementedError

    def action_requests(self) -> None:
        """Show the request log (above the current screen; escape comes back)."""
        from hubtui.tui.screens.dialogs.requests import RequestsScreen

        if not isinstance(self.screen, RequestsScreen):
            self.push_screen(RequestsScreen())

    def action_change_log(self) -> None:
        """The changes of this session and the batches of this server (c): R reverts one."""
        from hubtui.tui.screens.changes.change_log import ChangeLogScreen

        if not isinstance(self.screen, ChangeLogScreen):
            self.push_screen(ChangeLogScreen(self.workspace.change_log, self.workspace.team))

    def ask_why(self, hub: Hub | None, email: str | None = None) -> None:
        """Ask whose access to explain, and where; then explain it (in ``hub``, or every hub).
        ``email``: the highlighted person's, filled in (typing replaces it)."""
        from hubtui.tui.screens.people.why import WhyScreen
        from hubtui.tui.screens.people.why_prompt import WhyPromptScreen

        def answered(given: tuple[str, str | None] | None) -> None:
            if given is not None:
                email, project = given
                self.push_screen(WhyScreen(email, None if hub is None else [hub], project))

        scope = "every hub" if hub is None else f"hub {hub.name}"
        self.push_screen(WhyPromptScreen(scope, email), answered)

    @work(exclusive=True, group="reviews", exit_on_error=False)
    async def show_reviews(self) -> None:
        """The access reviews kept of this server (or why there are none to read)."""
        from hubtui.tui.screens.people.reviews import ReviewsScreen

        try:
            kept = await self.workspace.reviews_kept()
        except (StoreOff, StoreError) as error:
            self._say(f"No review can be read: {inert(str(error))}", severity="warning")
            return
        self.push_screen(ReviewsScreen(kept))

    # Staged changes ------------------------------------------------------------------------

    def staged_changed(self) -> None:
        if isinstance(self.screen, ListScreen):
            self.screen.refresh_status()

    def action_staged(self) -> None:
        """Show the staged changes: one preview, read again now (b, or the palette)."""
        from hubtui.tui.screens.changes.batch import StagedScreen

        if isinstance(self.screen, StagedScreen):
            return
        if not self.session.staged_count:
            self._say(
                "Nothing is staged: mark rows with space, then m changes them (A adds people)."
            )
            return
        self.push_screen(StagedScreen(self.session.staged))

    def drop_staged(self) -> None:
        count = self.session.staged_count
        self.session.staged.drop()
        self.staged_changed()
        self._say(f"{count:,} staged changes dropped; nothing was sent.")

    def on_offboard(self, message: Offboard) -> None:
        """Ask why, find the person in every hub, then open the preview of taking them out of
        each (``O`` on the hub's people and on a person search's results)."""
        from hubtui.tui.screens.dialogs.reason_prompt import ReasonPromptScreen

        email = message.email

        def answered(reason: str | None) -> None:
            if reason is None:
                return
            self._say(
                f"Finding {inert(email, limit=60)} in every hub: the preview opens once read."
            )
            self.offboard(email, reason)

        self.push_screen(ReasonPromptScreen(email), answered)

    @work(exclusive=True, group="offboard", exit_on_error=False)
    async def offboard(self, email: str, reason: str) -> None:
        """The offboarding read (:func:`hubtui.core.people.offboarding`), then its preview."""
        from hubtui.core.people import offboarding, offboarding_reviews
        from hubtui.tui.screens.changes.batch import StagedScreen

        workspace = self.workspace
        started = now()
        try:
            client = await workspace.client()
            hubs = list(await client.list_hubs())
            answer = await offboarding(
                client,
                email,
                hubs,
                concurrency=workspace.concurrency,
                deadline=workspace.search_deadline,
            )
        except HubError as error:
            self._say(f"Not read, nothing staged: {inert(str(error))}", severity="error")
            return
        if not answer.rows:
            # With rows, the preview's counts say what was not read; without, this is all.
            self._say(
                f"{inert(email)} has no access to remove"
                + (
                    ". Incomplete: not read, they may have access there too: "
                    + inert("; ".join(answer.not_read), limit=400)
                    if answer.not_read
                    else "."
                ),
                severity="warning" if answer.not_read else "information",
                timeout=15 if answer.not_read else 5,
            )
            return
        from hubtui.core.batches import ChangeSet  # the batch engine: when a batch is made

        changes = ChangeSet()
        changes.stage(answer.rows)
        reviews = offboarding_reviews(answer, reason, started, workspace.change_log.operator)
        self.push_screen(
            StagedScreen(
                changes,
                reviews=reviews,
                title=f"Offboarding of {email}",  # the breadcrumb shows it inert
                incomplete="; ".join(answer.not_read),
            )
        )

    def on_prepare_fix(self, message: PrepareFix) -> None:
        """A ticket's next step, prepared through the preview the same change has everywhere
        else, by the fix the step carries: an add staged with the role asked (read again,
        previewed, confirmed with ``a``), an invitation asked before it is sent again, a
        batch's revert previewed, the same question of a near address."""
        from hubtui.core.people.advice import (
            AddToProject,
            OpenAddress,
            ResendInvitation,
            RevertBatch,
        )
        from hubtui.tui.screens.changes.role_choice import RoleChoiceScreen

        answer, fix = message.answer, message.step.fix
        if isinstance(fix, OpenAddress):
            from hubtui.tui.screens.people.why import WhyScreen

            self.push_screen(WhyScreen(fix.address, [answer.hub], answer.project_id))
        elif isinstance(fix, RevertBatch):
            self.revert_batch(fix.batch)
        elif isinstance(fix, ResendInvitation):
            self._resend_asked(answer)
        elif isinstance(fix, AddToProject) and answer.project_id is not None:
            where = answer.project_name or f"project {answer.project_id}"

            def chosen(role: str | None) -> None:
                if role is not None:
                    self._stage_add(answer, role)

            self.push_screen(RoleChoiceScreen(answer.email, where, fix.role), chosen)

    def _stage_add(self, answer: Answer, role: str) -> None:
        """One add staged on its own and previewed (:func:`~hubtui.core.workflows.fix.add_of`):
        read again before it is shown, sent only once confirmed there, logged and revertible
        like every change."""
        from hubtui.core.batches import ChangeSet
        from hubtui.core.workflows.fix import add_of
        from hubtui.tui.screens.changes.batch import StagedScreen

        changes = ChangeSet()
        changes.stage([add_of(answer, role)])
        self.push_screen(StagedScreen(changes, title=f"Fix for {answer.email}"))

    def _resend_asked(self, answer: Answer) -> None:
        from hubtui.core.people import hub_people
        from hubtui.core.workflows.resend import ReadOnly, prepare_resend
        from hubtui.tui.screens.dialogs.confirm import ConfirmScreen

        people = hub_people([answer.hub_user], []) if answer.hub_user else []
        try:
            resending = prepare_resend(answer.hub, people, read_only=self.workspace.read_only)
        except ReadOnly as refused:
            self._say(f"Nothing was sent: {refused}", severity="warning")
            return
        if not resending.changes:
            self._say("Their invitation no longer waits: nothing to send again.")
            return
        question = Content.assemble(
            (f"Send the invitation to hub {inert(answer.hub.name)} again", "bold"),
            f" to {inert(answer.email)}? They get an email; they are read again just before. "
            "y sends, n does not.",
        )

        def answered(yes: bool | None) -> None:
            if yes:
                self._resend(resending)

        self.push_screen(ConfirmScreen(question, enter_says_yes=False), answered)

    @work(exclusive=True, group="resend", exit_on_error=False)
    async def _resend(self, resending: Resending) -> None:
        from hubtui.core.workflows.resend import resend_all

        ended = await resend_all(self.workspace, resending)
        severity = "information" if ended.done else "warning" if ended.tried else "error"
        self._say(ended.words, severity=severity, timeout=15)

    def on_revert_batch(self, message: RevertBatch) -> None:
        self.revert_batch(message.batch)

    def revert_batch(self, batch_id: str) -> None:
        """Stage the inverse of a batch this server's change log holds, in a preview of its own
        (:func:`~hubtui.core.workflows.revert.find_revert`, the one use case with ``revert``)."""
        from hubtui.core.workflows.revert import find_revert
        from hubtui.tui.screens.changes.batch import StagedScreen

        revert = find_revert(self.workspace, batch_id)
        back, cannot = revert.wanted, revert.cannot()
        by, already = revert.already()
        if already:
            self._say(
                f"{len(already):,} already put back by batch {by}: nothing is sent for them.",
                timeout=10,
            )
        if cannot:
            more = f" (and {len(cannot) - 5} more)" if len(cannot) > 5 else ""
            self._say(
                f"Cannot be put back: {'; '.join(cannot[:5])}{more}.",
                severity="warning",
                timeout=12,
            )
        if not back:
            self._say(revert.nothing_words())
            return
        from hubtui.core.batches import ChangeSet

        reverting = ChangeSet()
        reverting.stage(back)
        self.push_screen(StagedScreen(reverting, reverts=batch_id))

    # Snapshots -----------------------------------------------------------------------------

    def on_show_changes(self, message: ShowChanges) -> None:
        self.show_changes(message.hub, message.project_id, message.scope)

    @work(exclusive=True, group="changes", exit_on_error=False)
    async def show_changes(self, hub: Hub | None, project_id: str | None, scope: str) -> None:
        """Choose a snapshot of this server, then show what changed since it in ``scope``."""
        try:
            server_store, kept = await self.workspace.snapshots_kept()
        except StoreOff as why:
            self._say(str(why), severity="warning")
            return
        except StoreError as error:
            self._say(inert(str(error), limit=None), severity="error")
            return
        if not kept:
            self._say(
                "No snapshot of this server is kept yet. Record one from the palette (ctrl+p: "
                "Record a snapshot) or with hubtui snapshot; changes are shown since one.",
                severity="warning",
                timeout=10,
            )
            return
        from hubtui.tui.screens.history.since_snapshot import ChangesScreen
        from hubtui.tui.screens.history.snapshot_choice import SnapshotChoiceScreen

        def chosen(since: SnapshotInfo | None) -> None:
            if since is not None:
                self.push_screen(ChangesScreen(server_store, since, hub, project_id, scope))

        self.push_screen(SnapshotChoiceScreen(scope, kept), chosen)

    @work(group="snapshot", exit_on_error=False)
    async def record_snapshot(self, hub: Hub | None) -> None:
        """Read every project's users of ``hub`` (or of all hubs) and keep them as a snapshot."""
        scope = "all hubs" if hub is None else f"hub {inert(hub.name)}"
        try:
            self.workspace.snapshot_store()
        except StoreOff as why:
            self._say(str(why), severity="warning")
            return
        self._say(f"Recording a snapshot of {scope}…")
        try:
            info = await self.workspace.record_snapshot(hub)
        except StoreOff as why:
            self._say(str(why), severity="warning")
            return
        except (HubError, StoreError) as error:
            self._say(
                f"No snapshot was recorded: {inert(str(error), limit=None)}",
                severity="error",
                timeout=15,
            )
            return
        counts = info.counts
        words = (
            f"Snapshot {info.short} of {scope} kept: {counts['hubs']:,} hubs, "
            f"{counts['projects']:,} projects, {counts['users']:,} users."
        )
        if counts["not_read"]:
            words += f" Incomplete: {amount(counts['not_read'], 'list')} could not be read."
        self._say(words, severity="warning" if counts["not_read"] else "information", timeout=15)

    # What is read, kept --------------------------------------------------------------------

    def on_hubs_loaded(self, message: HubsLoaded) -> None:
        self.session.catalog.add_hubs(message.hubs)
        self._keep("hubs", "", "", message.hubs)

    def on_projects_loaded(self, message: ProjectsLoaded) -> None:
        self.session.catalog.add_projects(message.hub, message.projects)
        self._keep("projects", message.hub.id, "", message.projects)

    def on_users_loaded(self, message: UsersLoaded) -> None:
        self.session.catalog.add_users(
            message.hub, message.project, message.project_id, message.users
        )
        self._keep("users", message.hub.id, str(message.project_id), message.users)

    def on_users_read_as_sent(self, message: UsersReadAsSent) -> None:
        hub, project = message.hub.id, str(message.project.id)
        self.workspace.keep_sent_soon("users", hub, project, message.sent, self._not_kept)

    def on_hub_people_loaded(self, message: HubPeopleLoaded) -> None:
        """What the hub's people were read from, kept as any list read is: offline, ``P``
        shows them again."""
        answer, hub = message.answer, message.answer.hub
        if answer.hub_users is not None:
            self._keep("hub_users", hub.id, "", answer.hub_users)
        for project_id, users in answer.lists.items():
            self._keep("users", hub.id, str(project_id), users)

    def _keep(self, kind: str, hub: str, project: str, records: Iterable[ApiModel]) -> None:
        """Keep a list read, off the event loop, before the session ends however soon; a
        store that cannot take it is said once."""
        self.workspace.keep_soon(kind, hub, project, records, self._not_kept)

    def _not_kept(self, error: Exception) -> None:
        self._say(
            f"{inert(str(error), limit=None)} Nothing read is kept this run; changes are "
            "logged as before.",
            title="Store off",
            severity="warning",
            timeout=15,
        )

    # Another token, another profile, or the store in place of the server --------------------

    def on_reconnect(self, message: Reconnect) -> None:
        self.reconnect(message.profile, fresh_start=message.fresh_start)

    @work(exclusive=True, group="reconnect", exit_on_error=False)
    async def reconnect(self, profile: str | None, *, fresh_start: bool) -> None:
        """Read the settings and the token again (for another profile, or the same one).

        ``fresh_start`` goes back to a new hub list (another server); otherwise the screen
        shown loads again with the new token. The change log keeps going, naming the server.
        """
        try:
            label = await self.workspace.reconnect(profile)
            self.session.elsewhere()
        except ValueError as why:
            self._say(str(why), severity="warning")
            return
        except ConfigError as exc:
            self._say(inert(str(exc), limit=None), severity="error", timeout=10)
            return
        if fresh_start:
            await self.start_again()
            self._say(f"Now on {inert(label)} (profile {inert(profile)}).")
            return
        screen = self.screen
        if isinstance(screen, ListScreen):
            screen.refresh_status()
            screen.load()
        self._say("Read the token again; loading again.")

    @work(exclusive=True, group="reconnect", exit_on_error=False)
    async def go_offline(self) -> None:
        """Read the store in place of the server from now on (read-only), from the hub list."""
        try:
            await self.workspace.go_offline()
            self.session.elsewhere()
        except ConfigError as exc:
            self._say(inert(str(exc), limit=None), severity="error", timeout=10)
            return
        await self.start_again()
        self._say(
            "Offline: every list is what the store kept, read-only. Restart hubtui to reach "
            "the server again."
        )
