"""Each workflow that sends a batch, driven through a front that records what it is handed: the
run is the workflow's (previewed, asked, claimed, sent, read back, kept, ended, in that order),
the front only shows and answers. Against the demo API in-process; the change log is a file.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import httpx
import pytest

from hubtui.api import ChangeRequest, Hub, HubClient
from hubtui.core.batches import Batch, Result
from hubtui.core.batches.applying import Applied
from hubtui.core.batches.file import read_batch_file
from hubtui.core.batches.file_rows import RowOfFile
from hubtui.core.batches.projects import Preview, prepare
from hubtui.core.batches.wanted import Intent, Wanted
from hubtui.core.changes.log import ChangeLog
from hubtui.core.people.review import Offboarding, Review
from hubtui.core.people.search import Progress
from hubtui.core.people.why import ProjectNamed
from hubtui.core.workflows.batch_file import apply_file
from hubtui.core.workflows.decisions_file import apply_decisions
from hubtui.core.workflows.offboard import offboard
from hubtui.core.workflows.ports import Front, NotSent, Question
from hubtui.core.workflows.reviewed import Kept
from hubtui.core.workflows.run import Sending, run_preview
from hubtui.demo import DEMO_TOKEN, DemoStore, Faults, create_app
from tests.harness.demo_api import DEMO_URL, SleepRecorder

ACME = "acme-build"
ACME_ID = "7d1f0c3e-4b8a-4f6e-9a51-acme00000001"
CHLOE = "chloe.moreau@acme-build.com"  # Reader of Harbour Bridge Retrofit (1001)
DIEGO = "diego.garcia@acme-build.com"  # Reader there too
FATIMA = "fatima.rahman@northwind-eng.com"  # Editor there, a user of the hub


@dataclass
class Recording:
    """A front that records each step it is handed, by name, and answers as it is told:
    ``yes`` False answers the question no."""

    client: HubClient
    yes: bool = True
    steps: list[str] = field(default_factory=list)
    requests: list[ChangeRequest] = field(default_factory=list)
    previews: list[Preview] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)
    ended_with: list[tuple[Batch | None, Kept | None]] = field(default_factory=list)

    async def find_hub(self, given: str) -> Hub:
        self.steps.append("find_hub")
        found = [h for h in await self.client.list_hubs() if given in (h.id, h.name)]
        if not found:
            raise LookupError(f"no hub {given}")
        return found[0]

    def several_projects(self, named: ProjectNamed) -> None:
        self.steps.append("several_projects")

    def searching(self, progress: Progress) -> None:
        if self.steps[-1:] != ["searching"]:
            self.steps.append("searching")

    def found(self, answer: Offboarding) -> None:
        self.steps.append("found")

    def reading(self, done: int, total: int) -> None:
        if self.steps[-1:] != ["reading"]:
            self.steps.append("reading")

    def previewed(self, preview: Preview, refused: Sequence[RowOfFile], question: Question) -> None:
        self.steps.append("previewed")
        self.previews.append(preview)
        self.questions.append(question)

    async def ask(self, preview: Preview, question: Question) -> Preview:
        self.steps.append("ask")
        if not self.yes:
            raise NotSent("answered no")
        return preview

    def would_send(self, requests: Sequence[ChangeRequest]) -> None:
        self.steps.append("would_send")
        self.requests.extend(requests)

    def nothing_to_send(self, preview: Preview) -> None:
        self.steps.append("nothing_to_send")

    def sending(self, batch: Batch, stop: asyncio.Event) -> None:
        self.steps.append("sending")

    def came(self, batch: Batch, result: Result) -> None:
        self.steps.append(f"came {result.ended.value}")

    def settling(self) -> None:
        self.steps.append("settling")

    def interrupted(self, batch: Batch, error: BaseException) -> None:
        self.steps.append(f"interrupted {type(error).__name__}")

    def sent(self, applied: Applied, kept: Kept | None) -> None:
        self.steps.append("sent")

    async def ended(
        self, rows: Sequence[RowOfFile], batch: Batch | None, kept: Kept | None
    ) -> None:
        self.steps.append("ended")
        self.ended_with.append((batch, kept))


def _front(client: HubClient, **options: Any) -> Front:
    front: Front = Recording(client, **options)  # the one protocol, implemented whole
    return front


@pytest.fixture
def demo() -> DemoStore:
    return DemoStore()


@pytest.fixture
async def hub_client(demo: DemoStore) -> AsyncIterator[HubClient]:
    transport = httpx.ASGITransport(app=create_app(demo, Faults()))
    async with HubClient(
        DEMO_URL, token=DEMO_TOKEN, transport=transport, sleep=SleepRecorder()
    ) as client:
        yield client


def role_in_bridge(demo: DemoStore, email: str) -> str | None:
    hub = demo.hub_by_name(ACME)
    assert hub is not None
    for uid, member in hub.projects[1001].members.items():
        if demo.users[uid].email == email:
            return str(member.role)
    return None


def batch_file(*lines: str) -> list[Any]:
    _, rows = read_batch_file("\n".join(["hub,project,email,role", *lines]) + "\n")
    return rows


async def test_a_batch_file_runs_previewed_asked_sent_and_ended_in_that_order(
    hub_client: HubClient, demo: DemoStore, tmp_path: Path
) -> None:
    front = Recording(hub_client)
    log = ChangeLog(tmp_path / "changes.jsonl", server="demo")
    rows = batch_file(f"{ACME},1001,{CHLOE},Editor", f"{ACME},1001,{DIEGO},Editor")
    await apply_file(hub_client, rows, log, front, concurrency=2, settle=True)
    assert front.steps == [
        "find_hub",
        "reading",
        "previewed",
        "ask",
        "sending",
        "came done",
        "came done",
        "sent",
        "ended",
    ]
    assert role_in_bridge(demo, CHLOE) == role_in_bridge(demo, DIEGO) == "Editor"
    batch, _ = front.ended_with[0]
    assert batch is not None
    assert {c.batch for c in log.changes} == {batch.id}


async def test_a_question_answered_no_sends_nothing_and_ends_the_run(
    hub_client: HubClient, demo: DemoStore, tmp_path: Path
) -> None:
    front = Recording(hub_client, yes=False)
    log = ChangeLog(tmp_path / "changes.jsonl", server="demo")
    with pytest.raises(NotSent):
        await apply_file(
            hub_client, batch_file(f"{ACME},1001,{CHLOE},Editor"), log, front, concurrency=2,
            settle=True,
        )  # fmt: skip
    assert front.steps == ["find_hub", "reading", "previewed", "ask"]
    assert role_in_bridge(demo, CHLOE) == "Reader"
    assert log.changes == []


async def test_a_dry_run_hands_the_front_exactly_the_requests_and_asks_nothing(
    hub_client: HubClient, demo: DemoStore, tmp_path: Path
) -> None:
    front = Recording(hub_client)
    log = ChangeLog(tmp_path / "changes.jsonl", server="demo")
    await apply_file(
        hub_client, batch_file(f"{ACME},1001,{CHLOE},Admin"), log, front, concurrency=2,
        settle=False,
    )  # fmt: skip
    assert front.steps == ["find_hub", "reading", "previewed", "would_send", "ended"]
    [request] = front.requests
    assert request.method == "PUT"
    assert request.body is not None
    assert request.body["Role"] == "Admin"
    assert role_in_bridge(demo, CHLOE) == "Reader"


async def test_nothing_to_send_is_said_and_nothing_is_asked(
    hub_client: HubClient, tmp_path: Path
) -> None:
    front = Recording(hub_client)
    log = ChangeLog(tmp_path / "changes.jsonl", server="demo")
    await apply_file(
        hub_client, batch_file(f"{ACME},1001,{CHLOE},Reader"), log, front, concurrency=2,
        settle=True,
    )  # fmt: skip
    assert front.steps == ["find_hub", "reading", "previewed", "nothing_to_send", "ended"]


async def test_an_offboarding_follows_the_search_then_runs_and_keeps_its_review(
    hub_client: HubClient, demo: DemoStore, tmp_path: Path
) -> None:
    front = Recording(hub_client)
    log = ChangeLog(tmp_path / "changes.jsonl", server="demo")
    kept: list[Review] = []

    async def keep(review: Review) -> int:
        kept.append(review)
        return len(kept)

    hubs = [h for h in await hub_client.list_hubs() if h.name == ACME]
    await offboard(
        hub_client, FATIMA, hubs, log, front, reason="left", concurrency=2, deadline=None,
        settle=True, keep=keep,
    )  # fmt: skip
    assert front.steps[:2] == ["searching", "found"]
    assert front.steps[2:] == ["reading", "previewed", "ask", "sending", "came done", "sent",
                               "ended"]  # fmt: skip
    assert front.questions[0].title == f"Offboarding of {FATIMA}"
    assert role_in_bridge(demo, FATIMA) is None
    assert [r.batch for r in kept] == [c.batch for c in log.changes]


async def test_a_decisions_file_keeps_its_review_after_its_run(
    hub_client: HubClient, demo: DemoStore, tmp_path: Path
) -> None:
    front = Recording(hub_client)
    log = ChangeLog(tmp_path / "changes.jsonl", server="demo")
    kept: list[Review] = []

    async def keep(review: Review) -> int:
        kept.append(review)
        return 1

    _, rows = read_batch_file(
        "hub,project,email,role,decision,reason\n"
        f"{ACME},1001,{DIEGO},Reader,reader,only reads\n"
        f"{ACME},1001,{CHLOE},Reader,keep,\n"
    )
    await apply_decisions(
        hub_client, rows, log, front, criteria="a file", concurrency=2, settle=True, keep=keep
    )
    # Diego is Reader already: the run says nothing is to be sent, and the review is kept.
    assert front.steps == ["find_hub", "reading", "previewed", "nothing_to_send", "ended"]
    assert len(kept) == 1
    assert kept[0].criteria == "a file"


async def test_a_journal_s_claim_comes_after_the_yes_and_before_anything_leaves(
    hub_client: HubClient, demo: DemoStore, tmp_path: Path
) -> None:
    log = ChangeLog(tmp_path / "changes.jsonl", server="demo")
    wanted = [
        Wanted(ACME_ID, ACME, "1001", None, CHLOE, Intent.SET, role="Editor"),
    ]
    preview = await prepare(hub_client, wanted, log)
    front = Recording(hub_client)

    async def claimed() -> None:
        front.steps.append("claimed")

    ran = await run_preview(
        front, hub_client, preview, Sending(log, 2, batch_id="b-journal", claim=claimed)
    )
    assert front.steps == ["previewed", "ask", "claimed", "sending", "came done", "sent"]
    assert ran.batch is not None
    assert ran.batch.id == "b-journal"

    async def refused() -> None:
        raise OSError("the store is gone")

    again = Recording(hub_client)
    preview = await prepare(hub_client, [replace(wanted[0], role="Admin")], log)
    with pytest.raises(OSError, match="the store is gone"):
        await run_preview(again, hub_client, preview, Sending(log, 2, claim=refused))
    assert again.steps == ["previewed", "ask"]  # the claim failed: nothing left
    assert role_in_bridge(demo, CHLOE) == "Editor"


async def test_a_run_cancelled_while_sending_tells_the_front_and_goes_on_up(
    tmp_path: Path,
) -> None:
    faults = Faults(change_latency=5)
    transport = httpx.ASGITransport(app=create_app(DemoStore(), faults))
    async with HubClient(DEMO_URL, token=DEMO_TOKEN, transport=transport) as client:
        log = ChangeLog(tmp_path / "changes.jsonl", server="demo")
        wanted = [Wanted(ACME_ID, ACME, "1001", None, CHLOE, Intent.SET, role="Editor")]
        preview = await prepare(client, wanted, log)
        front = Recording(client)
        task = asyncio.ensure_future(run_preview(front, client, preview, Sending(log, 2)))
        for _ in range(500):  # the change in flight (its answer held back five seconds)
            if "sending" in front.steps:
                break
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    assert front.steps[-1] == "interrupted CancelledError"
    assert [c.outcome for c in log.changes] == ["unknown"]  # in flight: logged, never lost
