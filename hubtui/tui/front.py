"""The app as the front end of the workflows (:mod:`hubtui.core.workflows`): each handler asks
the use case, and shows what came of it (a notification, a screen, a preview). It holds no
decision of its own: what a ticket's step does is the fix the step carries, what a revert sends
is :func:`~hubtui.core.workflows.revert.find_revert`'s, an offboarding is
:func:`~hubtui.core.workflows.offboard.offboard`. Every run is driven through
:class:`AppRun`, the app's one implementation of :class:`~hubtui.core.workflows.ports.Front`.

The app's shell (``tui.app``) posts to it; it is not a part of the app's class.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from textual.app import App
from textual.content import Content
from textual.screen import Screen
from textual.worker import Worker, get_current_worker

from hubtui.api.errors import HubError
from hubtui.core.presenting import amount
from hubtui.core.workflows.kept import StoreError
from hubtui.core.workflows.ports import NotSent
from hubtui.core.workspace import StoreOff, Workspace
from hubtui.text import inert
from hubtui.tui.session import workspace_of

if TYPE_CHECKING:
    from hubtui.api import ChangeRequest, Hub
    from hubtui.core.people.advice import NextStep
    from hubtui.core.people.review import Offboarding
    from hubtui.core.people.search import Progress
    from hubtui.core.people.why import Answer, ProjectNamed
    from hubtui.core.workflows.engine import Applied, Batch, Preview, Result, RowOfFile
    from hubtui.core.workflows.kept import SnapshotInfo
    from hubtui.core.workflows.ports import Question
    from hubtui.core.workflows.resend import Resending
    from hubtui.core.workflows.reviewed import Kept
    from hubtui.tui.screens.changes.batch import StagedScreen

__all__ = ["AppFront", "AppRun"]


class AppFront:
    """What the app does with the workflows of its :class:`~hubtui.core.workspace.Workspace`."""

    def __init__(self, app: App[None]) -> None:
        self.app = app
        #: The workflows' workers waiting for the person (a preview shown, not yet sent or
        #: left): nothing of theirs runs until the person acts.
        self.waiting: set[Worker[object]] = set()

    @property
    def workspace(self) -> Workspace:
        return workspace_of(self.app)

    def say(self, words: str, **options: object) -> None:
        """A notification of plain words (never markup)."""
        self.app.notify(words, markup=False, **options)  # type: ignore[arg-type]

    def run(self, work: Coroutine[Any, Any, None], group: str, *, exclusive: bool = True) -> None:
        """A workflow run as the app's worker: one of its group at a time, a failure nobody
        expected said by the shell and never the end of the app."""
        self.app.run_worker(work, group=group, exclusive=exclusive, exit_on_error=False)

    def send_staged(self, screen: Screen[Any]) -> None:
        """A staged screen answered yes with no workflow waiting (the staged changes, a
        review, a revert, a retry): its preview sent by the one run, on that screen."""
        from hubtui.tui.screens.changes.batch import StagedScreen

        assert isinstance(screen, StagedScreen)
        screen.run_worker(self._send_staged(screen), group="batch", exit_on_error=False)

    async def _send_staged(self, screen: StagedScreen) -> None:
        from hubtui.core.workflows.keeping import keep_review
        from hubtui.core.workflows.run import Sending, run_preview

        workspace = self.workspace
        preview = screen.preview
        assert preview is not None  # answered yes on it
        sending = Sending(
            workspace.change_log,
            workspace.concurrency,
            reviews=tuple(screen.reviews),
            keep=partial(keep_review, workspace),
            reverts=screen.reverts,
            batch_id=screen.retry_of,  # a retry goes on under the batch it retries
        )
        try:
            client = await workspace.client()
            ran = await run_preview(AppRun(self, screen), client, preview, sending)
        except NotSent:
            return
        if ran.batch is None and ran.kept is not None:
            screen.said_kept(ran.kept)

    # Reviews --------------------------------------------------------------------------------

    def show_reviews(self) -> None:
        self.run(self._show_reviews(), "reviews")

    async def _show_reviews(self) -> None:
        """The access reviews kept of this server (or why there are none to read)."""
        from hubtui.core.workflows.keeping import reviews_kept
        from hubtui.tui.screens.people.reviews import ReviewsScreen

        try:
            kept = await reviews_kept(self.workspace)
        except (StoreOff, StoreError) as error:
            self.say(f"No review can be read: {inert(str(error))}", severity="warning")
            return
        self.app.push_screen(ReviewsScreen(kept))

    # Offboarding ----------------------------------------------------------------------------

    def offboard_asked(self, email: str) -> None:
        """Ask why, then run the offboarding (``O`` on the hub's people and on a person
        search's results): found in every hub, its preview shown, sent from there."""
        from hubtui.tui.screens.dialogs.reason_prompt import ReasonPromptScreen

        def answered(reason: str | None) -> None:
            if reason is None:
                return
            self.say(f"Finding {inert(email, limit=60)} in every hub: the preview opens once read.")
            self.run(self.offboard(email, reason), "offboard")

        self.app.push_screen(ReasonPromptScreen(email), answered)

    async def offboard(self, email: str, reason: str) -> None:
        """The one offboarding use case, with the app as its front end."""
        from hubtui.core.workflows.keeping import keep_review
        from hubtui.core.workflows.offboard import offboard

        workspace = self.workspace
        try:
            client = await workspace.client()
            hubs = list(await client.list_hubs())
            await offboard(
                client,
                email,
                hubs,
                workspace.change_log,
                AppRun(self),
                reason=reason,
                concurrency=workspace.concurrency,
                deadline=workspace.search_deadline,
                settle=True,
                keep=partial(keep_review, workspace),
            )
        except HubError as error:
            self.say(f"Not read, nothing staged: {inert(str(error))}", severity="error")
        except (LookupError, NotSent):
            return  # said by the front as it ended

    # A campaign ---------------------------------------------------------------------------------

    def start_campaign(self, hub: Hub) -> None:
        """A review campaign of ``hub`` (the palette, on a screen of a hub): the hub read whole
        and frozen by the one start use case, then its packets shown."""
        self.say(f"Reading hub {inert(hub.name, limit=60)} whole for a review campaign…")
        self.run(self._start_campaign(hub), "campaign-start")

    async def _start_campaign(self, hub: Hub) -> None:
        from hubtui.core.workflows import campaign as use
        from hubtui.core.workflows.engine import changes_logged
        from hubtui.tui.screens.people.campaigns import PacketsScreen

        workspace = self.workspace
        try:
            client = await workspace.client()
            started = await use.start(
                client,
                hub,
                workspace.review_store(),
                workspace.change_log.operator,
                use.StartAsked(),
                concurrency=workspace.concurrency,
                logged=partial(changes_logged, workspace.change_log),
            )
        except (use.Incomplete, use.Refused, StoreOff, StoreError, HubError) as error:
            self.say(
                f"No campaign started: {inert(str(error), limit=None)}",
                severity="error",
                timeout=15,
            )
            return
        campaign = started.campaign
        counts = campaign.counts
        self.say(
            f"Campaign {campaign.number} started: "
            f"{amount(counts.get('memberships', 0), 'membership')} of "
            f"{amount(counts.get('projects', 0), 'project')} frozen (sha256 "
            f"{campaign.head.sha256[:12]}…); nobody answering keeps their access.",
            timeout=10,
        )
        self.app.push_screen(PacketsScreen(campaign.number))

    # A campaign's close -------------------------------------------------------------------------

    def close_campaign(self, number: int, on_ended: Callable[[], None] | None = None) -> None:
        """The campaign's close (``C`` on its packets), the one use case with the app as its
        front: read again, previewed as the staged screen, sent from there, read back, kept;
        an interrupted close is finished the same way. ``on_ended``: told once it ended."""
        self.say(f"Campaign {number}: reading the hub again; the preview opens once read.")
        self.run(self._close_campaign(number, on_ended), "campaign-close")

    async def _close_campaign(self, number: int, on_ended: Callable[[], None] | None) -> None:
        from hubtui.core.workflows import campaign as use
        from hubtui.core.workflows.campaign import closing as close

        try:
            client = await self.workspace.client()
            ended = await close.close_campaign(
                self.workspace, client, AppRun(self), close.CloseAsked(number)
            )
        except NotSent:
            self.say(f"Campaign {number}: nothing was sent.")
            return
        except (use.Refused, use.Closed, StoreOff, StoreError, HubError) as error:
            self.say(
                f"Campaign {number} not closed: {inert(str(error), limit=None)}",
                severity="error",
                timeout=15,
            )
            return
        finally:
            if on_ended is not None:
                on_ended()
        if ended.problem:
            self.say(inert(ended.problem, limit=None), severity="warning", timeout=30)
            return
        closed = ended.campaign
        assert closed is not None  # closed, or the problem said
        bad = ended.bad
        self.say(
            f"Campaign {number} closed: {amount(ended.verified, 'change')} verified by reading "
            f"back"
            + (f"; {amount(len(bad), 'row')} NOT VERIFIED, failed or unknown" if bad else "")
            + " (hubtui campaign report says each row).",
            severity="warning" if bad else "information",
            timeout=15,
        )

    # A ticket's fix ----------------------------------------------------------------------------

    def prepare_fix(self, answer: Answer, step: NextStep) -> None:
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

        fix = step.fix
        if isinstance(fix, OpenAddress):
            from hubtui.tui.screens.people.why import WhyScreen

            self.app.push_screen(WhyScreen(fix.address, [answer.hub], answer.project_id))
        elif isinstance(fix, RevertBatch):
            self.revert_batch(fix.batch)
        elif isinstance(fix, ResendInvitation):
            self._resend_asked(answer)
        elif isinstance(fix, AddToProject) and answer.project_id is not None:
            where = answer.project_name or f"project {answer.project_id}"

            def chosen(role: str | None) -> None:
                if role is not None:
                    self._stage_add(answer, role)

            self.app.push_screen(RoleChoiceScreen(answer.email, where, fix.role), chosen)

    def _stage_add(self, answer: Answer, role: str) -> None:
        """One add staged on its own and previewed (:func:`~hubtui.core.workflows.fix.add_of`):
        read again before it is shown, sent only once confirmed there, logged and revertible
        like every change."""
        from hubtui.core.workflows.engine import ChangeSet
        from hubtui.core.workflows.fix import add_of
        from hubtui.tui.screens.changes.batch import StagedScreen

        changes = ChangeSet()
        changes.stage([add_of(answer, role)])
        self.app.push_screen(StagedScreen(changes, title=f"Fix for {answer.email}"))

    def _resend_asked(self, answer: Answer) -> None:
        from hubtui.core.people import hub_people
        from hubtui.core.workflows.resend import ReadOnly, prepare_resend
        from hubtui.tui.screens.dialogs.confirm import ConfirmScreen

        people = hub_people([answer.hub_user], []) if answer.hub_user else []
        try:
            resending = prepare_resend(answer.hub, people, read_only=self.workspace.read_only)
        except ReadOnly as refused:
            self.say(f"Nothing was sent: {refused}", severity="warning")
            return
        if not resending.changes:
            self.say("Their invitation no longer waits: nothing to send again.")
            return
        question = Content.assemble(
            (f"Send the invitation to hub {inert(answer.hub.name)} again", "bold"),
            f" to {inert(answer.email)}? They get an email; they are read again just before. "
            "y sends, n does not.",
        )

        def answered(yes: bool | None) -> None:
            if yes:
                self.run(self.resend(resending), "resend")

        self.app.push_screen(ConfirmScreen(question, enter_says_yes=False), answered)

    async def resend(self, resending: Resending) -> None:
        """Invitations sent again (:func:`~hubtui.core.workflows.resend.resend_all`), and how
        that ended, in its words."""
        from hubtui.core.workflows.resend import resend_all

        ended = await resend_all(self.workspace, resending)
        severity = "information" if ended.done else "warning" if ended.tried else "error"
        self.say(ended.words, severity=severity, timeout=15)

    # A batch reverted ---------------------------------------------------------------------------

    def revert_batch(self, batch_id: str) -> None:
        """Stage the inverse of a batch this server's change log holds, in a preview of its own
        (:func:`~hubtui.core.workflows.revert.find_revert`, the one use case with ``revert``)."""
        from hubtui.core.workflows.revert import find_revert
        from hubtui.tui.screens.changes.batch import StagedScreen

        revert = find_revert(self.workspace, batch_id)
        back, cannot = revert.wanted, revert.cannot()
        by, already = revert.already()
        if already:
            self.say(
                f"{len(already):,} already put back by batch {by}: nothing is sent for them.",
                timeout=10,
            )
        if cannot:
            more = f" (and {len(cannot) - 5} more)" if len(cannot) > 5 else ""
            self.say(
                f"Cannot be put back: {'; '.join(cannot[:5])}{more}.",
                severity="warning",
                timeout=12,
            )
        if not back:
            self.say(revert.nothing_words())
            return
        from hubtui.core.workflows.engine import ChangeSet

        reverting = ChangeSet()
        reverting.stage(back)
        self.app.push_screen(StagedScreen(reverting, reverts=batch_id))

    # Snapshots ---------------------------------------------------------------------------------

    def show_changes(self, hub: Hub | None, project_id: str | None, scope: str) -> None:
        self.run(self._show_changes(hub, project_id, scope), "changes")

    async def _show_changes(self, hub: Hub | None, project_id: str | None, scope: str) -> None:
        """Choose a snapshot of this server, then show what changed since it in ``scope``."""
        from hubtui.core.workflows.keeping import snapshots_kept

        try:
            server_store, kept = await snapshots_kept(self.workspace)
        except StoreOff as why:
            self.say(str(why), severity="warning")
            return
        except StoreError as error:
            self.say(inert(str(error), limit=None), severity="error")
            return
        if not kept:
            self.say(
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
                self.app.push_screen(ChangesScreen(server_store, since, hub, project_id, scope))

        self.app.push_screen(SnapshotChoiceScreen(scope, kept), chosen)

    def record_snapshot(self, hub: Hub | None) -> None:
        self.run(self._record_snapshot(hub), "snapshot", exclusive=False)

    async def _record_snapshot(self, hub: Hub | None) -> None:
        """Read every project's users of ``hub`` (or of all hubs) and keep them as a snapshot."""
        from hubtui.core.workflows.keeping import record_snapshot

        scope = "all hubs" if hub is None else f"hub {inert(hub.name)}"
        try:
            self.workspace.snapshot_store()
        except StoreOff as why:
            self.say(str(why), severity="warning")
            return
        self.say(f"Recording a snapshot of {scope}…")
        try:
            info = await record_snapshot(self.workspace, hub)
        except StoreOff as why:
            self.say(str(why), severity="warning")
            return
        except (HubError, StoreError) as error:
            self.say(
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
        self.say(words, severity="warning" if counts["not_read"] else "information", timeout=15)


class AppRun:
    """The app as the front of a workflow's run (:class:`~hubtui.core.workflows.ports.Front`),
    implemented once: the preview shown as the staged screen, whose ``a`` answers the question;
    its progress and outcome shown there; what a workflow says before and after, notified.
    ``screen``: the staged screen the run's preview is on already (a run of its own);
    ``choose``: what lists several projects a ticket names to choose from (the why screen)."""

    def __init__(
        self,
        front: AppFront,
        screen: StagedScreen | None = None,
        *,
        choose: Callable[[ProjectNamed], None] | None = None,
    ) -> None:
        self.front, self.screen, self._choose = front, screen, choose

    async def find_hub(self, given: str) -> Hub:
        client = await self.front.workspace.client()
        found = next((h for h in await client.list_hubs() if given in (h.id, h.name)), None)
        if found is None:
            raise LookupError(f"no hub {given} among those the token sees")
        return found

    def several_projects(self, named: ProjectNamed) -> None:
        if self._choose is not None:
            self._choose(named)

    def searching(self, progress: Progress) -> None:
        """The notification said it is being found; the preview opens once read."""

    def found(self, answer: Offboarding) -> None:
        if answer.rows:
            return  # the preview's counts say what was not read
        not_read = "; ".join(answer.not_read)
        self.front.say(
            f"{inert(answer.email)} has no access to remove"
            + (
                ". Incomplete: not read, they may have access there too: "
                + inert(not_read, limit=400)
                if answer.not_read
                else "."
            ),
            severity="warning" if answer.not_read else "information",
            timeout=15 if answer.not_read else 5,
        )
        raise LookupError("no access to remove")

    def reading(self, done: int, total: int) -> None:
        """Read again before the preview opens: it shows what was read."""

    def previewed(self, preview: Preview, refused: Sequence[RowOfFile], question: Question) -> None:
        """The preview as the staged screen (unless it is on one already), what the workflow
        says before it notified."""
        if question.notes:
            more = len(question.notes) - 3
            words = " ".join(inert(note, limit=300) for note in question.notes[:3])
            if more > 0:
                words += f" (and {more:,} more: the report keeps each)"
            self.front.say(words, severity="warning", timeout=20)
        if self.screen is not None:
            return
        from hubtui.core.workflows.engine import ChangeSet
        from hubtui.tui.screens.changes.batch import StagedScreen

        changes = ChangeSet()
        changes.stage([step.wanted for step in preview.steps])
        self.screen = StagedScreen(
            changes, preview=preview, title=question.title, incomplete=question.incomplete
        )
        self.front.app.push_screen(self.screen)

    async def ask(self, preview: Preview, question: Question) -> Preview:
        """``a`` on the staged screen answers (leaving it: :class:`NotSent`); the workflow's
        worker waits meanwhile, and nothing of it runs until the person acts."""
        assert self.screen is not None  # previewed first
        waiting = get_current_worker()
        self.front.waiting.add(waiting)
        try:
            return await self.screen.answer()
        finally:
            self.front.waiting.discard(waiting)

    def would_send(self, requests: Sequence[ChangeRequest]) -> None:
        """The app has no dry run: read-only shows what would change, and sends nothing."""

    def nothing_to_send(self, preview: Preview) -> None:
        if self.screen is not None:
            self.screen.nothing_to_send()

    def sending(self, batch: Batch, stop: asyncio.Event) -> None:
        if self.screen is not None:
            self.screen.sending(batch, stop)

    def came(self, batch: Batch, result: Result) -> None:
        if self.screen is not None:
            self.screen.came(batch, result)

    def settling(self) -> None:
        if self.screen is not None:
            self.screen.settling()

    def interrupted(self, batch: Batch, error: BaseException) -> None:
        if self.screen is not None:
            self.screen.interrupted()

    def sent(self, applied: Applied, kept: Kept | None) -> None:
        if self.screen is not None:
            self.screen.sent(applied, kept)

    async def ended(
        self, rows: Sequence[RowOfFile], batch: Batch | None, kept: Kept | None
    ) -> None:
        """The batch said itself on its screen; what was kept with nothing sent is said here."""
        if kept is not None and batch is None:
            severity = "warning" if kept.problem is not None else "information"
            self.front.say(kept.words(), severity=severity, timeout=15)
