"""A batch file's rows applied (``hubtui apply FILE.csv``, read by :mod:`hubtui.headless.apply`)
and ``hubtui revert BATCH``: a batch previewed, asked, sent, written.

One idea: apply and revert are one flow (the file read, the preview, the question, the
sending, the results file); the engine itself is core.batch.

The preview is printed grouped by project, each change as a difference and each row not sent
with its reason; a dry run then prints exactly the requests and sends nothing. Sent, every row's
outcome goes into a results CSV beside the input (the same columns, then ``outcome`` and
``message``), which can be corrected and applied again.
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from hubtui.core.files import refusal_words
from hubtui.core.people.review import Review
from hubtui.core.workflows.batch_file import apply_file
from hubtui.core.workflows.engine import (
    SETTLING,
    TYPE_THE_COUNT_ABOVE,
    Batch,
    DecidedRow,
    FileRow,
    Outcome,
    Preview,
    RowOfFile,
    Verdict,
    Wanted,
    plan,
    prepare,
    rows_of_preview,
    write_results,
)
from hubtui.core.workflows.revert import find_revert
from hubtui.core.workflows.reviewed import Kept, apply_reviewed
from hubtui.headless.one_change import ask, read_only_words
from hubtui.headless.output import (
    NOT_SENT,
    NOTHING,
    OK,
    REFUSED,
    UNKNOWN_OUTCOME,
    StatusLine,
    Stop,
    with_client,
)
from hubtui.headless.tables import resolve_hub
from hubtui.text import inert

if TYPE_CHECKING:
    import argparse

    from hubtui.api import Hub, HubClient
    from hubtui.core.workspace import Workspace


async def apply_rows(
    args: argparse.Namespace,
    client: HubClient,
    workspace: Workspace,
    path: Path,
    header: Sequence[str],
    given: Sequence[FileRow],
) -> int:
    """apply of a batch file's rows (read by :mod:`hubtui.headless.apply`): the one use case
    (:func:`~hubtui.core.workflows.batch_file.apply_file`), this command its front end."""
    front = CommandFront(args, client, workspace, path, header)
    await apply_file(
        client,
        given,
        workspace.change_log,
        front,
        concurrency=workspace.concurrency,
        settle=not args.dry_run,
    )
    return front.status


class CommandFront:
    """A command as the front end of a workflow (:mod:`hubtui.core.workflows.ports`): it
    prints the preview, asks (unless ``--yes``), sends through :func:`send_batch`, writes the
    results file beside the file applied, keeps the reviews, and sets the exit status."""

    def __init__(
        self,
        args: argparse.Namespace,
        client: HubClient,
        workspace: Workspace,
        path: Path | None = None,
        header: Sequence[str] = (),
    ) -> None:
        self.args, self.client, self.workspace = args, client, workspace
        self.path, self.header = path, header
        #: The command's exit status, once the workflow ended.
        self.status = OK
        self._reading = _reading(StatusLine())

    async def find_hub(self, given: str) -> Hub:
        """:func:`~hubtui.headless.tables.resolve_hub`, a hub not taken said in words."""
        try:
            return await resolve_hub(self.client, given)
        except Stop as stop:
            raise LookupError(stop.message) from None

    def reading(self, done: int, total: int) -> None:
        self._reading(done, total)

    def previewed(self, preview: Preview, refused: Sequence[RowOfFile]) -> None:
        print_preview(preview, refused)

    async def send(self, preview: Preview, reviews: Sequence[Review]) -> Batch | None:
        return await send_batch(
            self.args, self.client, self.workspace, preview, reverts=None, reviews=reviews
        )

    async def ended(
        self, rows: Sequence[RowOfFile], batch: Batch | None, kept: Kept | None
    ) -> None:
        if self.args.dry_run:
            self.status = status_of(rows, None, dry_run=True)
            return
        if self.path is not None:
            say_results(self.path, self.header, rows, batch.id if batch else "(nothing sent)")
        if kept is not None:
            print(kept.words(), file=sys.stderr)
        self.status = status_of(rows, batch, dry_run=False)


def say_results(path: Path, header: Sequence[str], rows: Sequence[RowOfFile], batch: str) -> None:
    """The results file written beside the input, or why not (the outcomes are above and in
    the change log either way)."""
    try:
        results = write_results(path, header, rows, batch)
    except OSError as error:
        why = inert(refusal_words(path.parent, error))
        print(
            f"Results not written ({why}): the outcomes are above and in the change log.",
            file=sys.stderr,
        )
    else:
        print(f"Results: {inert(str(results))}", file=sys.stderr)


async def revert_command(args: argparse.Namespace, client: HubClient, workspace: Workspace) -> int:
    if workspace.read_only:
        raise Stop(NOT_SENT, read_only_words(args))
    revert = find_revert(workspace, args.batch)  # the one use case, with the app's R
    if revert.plan is None:
        known = ", ".join(inert(b) for b in revert.latest) or "none"
        raise Stop(
            NOTHING,
            f"no batch {inert(args.batch)} sent to {inert(workspace.server_label)} in the "
            f"change log {workspace.change_log.path} (the latest: {known}).",
        )
    wanted, cannot = revert.wanted, revert.cannot()
    for words in cannot:
        print(f"Cannot be put back: {words}.", file=sys.stderr)
    by, already = revert.already()
    if already:
        print(f"Already put back by batch {by} (nothing is sent for these):", file=sys.stderr)
        for words in already:
            print(f"  {words}", file=sys.stderr)
    if not wanted:
        print(revert.nothing_words(), file=sys.stderr)
        return OK if not cannot or already else NOT_SENT
    preview = await read_preview(args, client, workspace, wanted)
    print_preview(preview, [])
    batch = await send_batch(args, client, workspace, preview, reverts=args.batch)
    return status_of(rows_of_preview(preview, batch), batch, dry_run=args.dry_run)


async def read_preview(
    args: argparse.Namespace,
    client: HubClient,
    workspace: Workspace,
    wanted: Sequence[Wanted],
) -> Preview:
    """The preview, each project read again (its unknown adds settled, unless a dry run)."""
    return await prepare(
        client,
        wanted,
        workspace.change_log,
        concurrency=workspace.concurrency,
        settle=not args.dry_run,
        on_read=_reading(StatusLine()),
    )


def _reading(status: StatusLine) -> Callable[[int, int], None]:
    """How far reading each project's users again has come, said on ``status``."""

    def said(done: int, total: int) -> None:
        status.say(f"Reading each project's users again: {done} / {total}")
        if done == total:
            status.clear()

    return said


def print_preview(preview: Preview, refused: Sequence[RowOfFile]) -> None:
    """The preview is the command's answer: on stdout (``> plan.txt`` keeps it)."""
    for (_, _), steps in preview.groups().items():
        first = steps[0].wanted
        sending = sum(1 for s in steps if s.verdict is Verdict.SEND)
        print(f"{inert(first.hub_name)} · {inert(first.where)} ({sending} to send of {len(steps)})")
        for step in steps:
            print(f"  {_step_line(step)}")
    if refused:
        print("Rows not read as changes:")
        for row in refused:
            line = row.given.line if row.given else "?"
            who = inert(row.given.email) if row.given else ""
            print(f"  line {line} {who}: {inert(row.message, limit=None)}")
    total = preview.summary()
    if refused:
        total += f" · {len(refused)} not read as changes"
    print(f"Preview: {total}")


def _step_line(step: DecidedRow) -> str:
    action = step.change.action if step.change is not None else step.verdict.value
    line = f" (line {step.wanted.line})" if step.wanted.line is not None else ""
    # Whole: a confirmation shows all it confirms (what a removal ends can be long).
    return f"{action:<8} {inert(step.wanted.email)}{line}: {inert(step.words, limit=None)}"


async def confirm(
    args: argparse.Namespace,
    count: int,
    *,
    act: str = "Send",
    without_terminal: str = "add --yes to send the batch.",
    not_sent: str = "nothing was sent.",
) -> None:
    """Asked on a terminal, unless ``--yes``: ``y`` for a few changes, the count typed for more
    than :data:`TYPE_THE_COUNT_ABOVE`; anything else ends the command, nothing sent (``act``:
    what the question asks, ``Close campaign 3 and send``)."""
    if args.yes:
        return
    if not sys.stdin.isatty():
        raise Stop(NOT_SENT, f"not asking without a terminal: {without_terminal}")
    if count > TYPE_THE_COUNT_ABOVE:
        typed = await ask(f"Type {count} to {act[:1].lower()}{act[1:]} these {count} changes: ")
        if typed != str(count):
            raise Stop(NOT_SENT, f"the count was not typed: {not_sent}")
        return
    plural = "s" if count != 1 else ""
    if (await ask(f"{act} {count} change{plural}? [y/N] ")).lower() not in ("y", "yes"):
        raise Stop(NOT_SENT, not_sent)


async def send_batch(
    args: argparse.Namespace,
    client: HubClient,
    workspace: Workspace,
    preview: Preview,
    *,
    reverts: str | None,
    reviews: Sequence[Review] = (),
    batch_id: str | None = None,
) -> Batch | None:
    """The batch sent (None: nothing to send, a dry run, or the question answered no), with the
    ``reviews`` whose decisions it carries kept after it, by the one use case
    (:func:`~hubtui.core.workflows.reviewed.apply_reviewed`). ``batch_id``: the id a journal
    named before sending (a campaign's close), else a new one."""
    log = workspace.change_log
    batch = Batch(preview.steps, batch_id=batch_id)
    batch.reverts = reverts
    count = len(batch.steps)
    if args.dry_run:
        for step in batch.steps:
            assert step.change is not None
            request = await plan(client, step.change)
            body = (  # a removal has none: nothing is printed for it
                ""
                if request.body is None
                else "\n" + inert(json.dumps(request.body, ensure_ascii=False), limit=None)
            )
            # The dry run's answer: exactly the request, on stdout.
            print(f"Would send: {request.method} {inert(request.url, limit=None)}{body}")
        print("(dry run: nothing was sent)", file=sys.stderr)
        return None
    if not count:
        print("Nothing to send.", file=sys.stderr)
        return None
    await confirm(args, count)
    status = StatusLine()

    def came(_: int, result: object) -> None:
        ended = sum(batch.outcome_counts().values())
        status.say(f"Sending batch {batch.id}: {ended} / {count} · {batch.summary()}")

    print(f"Batch {batch.id}{f' (reverts {inert(reverts)})' if reverts else ''}", file=sys.stderr)
    task = asyncio.current_task()
    loop = asyncio.get_running_loop()
    hung_up: list[int] = []

    def stop(number: int) -> None:
        hung_up.append(number)
        if task is not None:
            task.cancel()

    for number in (signal.SIGHUP, signal.SIGTERM):
        loop.add_signal_handler(number, stop, number)
    try:
        _, kept = await apply_reviewed(
            batch,
            client,
            log,
            reviews,
            preview,
            workspace.keep_review,
            concurrency=workspace.concurrency,
            on_result=came,
            on_settling=lambda: status.say(SETTLING),
        )
    except asyncio.CancelledError:
        if hung_up:  # the terminal may be gone: every row's line is in the change log
            raise SystemExit(128 + hung_up[0]) from None
        status.clear()
        _print_outcomes(batch)
        print(
            "Stopped: the changes in flight are logged unknown; the rest were not sent. "
            f"Run the same command again to check them and send the rest: {batch.summary()}",
            file=sys.stderr,
        )
        raise
    finally:
        for number in (signal.SIGHUP, signal.SIGTERM):
            loop.remove_signal_handler(number)
    status.clear()
    _print_outcomes(batch)
    print(f"Batch {batch.id}: {inert(batch.summary(), limit=None)}", file=sys.stderr)
    if kept is not None:
        print(kept.words(), file=sys.stderr)
    return batch


def _print_outcomes(batch: Batch) -> None:
    for position, step in enumerate(batch.steps):
        result = batch.results.get(position)
        ended = result.ended.value if result else Outcome.NOT_SENT.value
        why = f": {inert(result.message, limit=300)}" if result and result.message else ""
        where = inert(f"{step.wanted.where} ({step.wanted.hub_name})")
        print(f"  {ended:<8} {inert(step.wanted.email)} in {where}{why}", file=sys.stderr)


def status_of(rows: Sequence[RowOfFile], batch: Batch | None, *, dry_run: bool) -> int:
    verdicts = {row.verdict for row in rows}
    if Outcome.UNKNOWN in verdicts:
        return UNKNOWN_OUTCOME
    if Outcome.FAILED in verdicts or Verdict.NOT_READ in verdicts:
        return REFUSED
    refused = {Verdict.SKIP, Verdict.CHANGED, Outcome.NOT_SENT}
    if verdicts & refused:
        return NOT_SENT
    return OK


def main(args: argparse.Namespace, workspace: Workspace) -> int:
    """revert (apply is :mod:`hubtui.headless.apply`'s)."""
    return asyncio.run(
        with_client(args, workspace, lambda client: revert_command(args, client, workspace))
    )
