"""One engine, one table: every workflow that changes access sends the same requests and ends the
same way from the app and from its command (:data:`AGREE`, a row a workflow, guarded): the
people marked and a batch file (``b``/``a`` and ``hubtui apply``), invitations sent again (``i``
and ``resend-invite``), an offboarding (``O`` and ``offboard``), a single change (``e`` and
``set-role``), a ticket's fix (``W``'s key and the command ``why`` prints), a revert (``R`` and
``revert``), a review's decisions (``v`` and a decisions file) and a campaign's close (``C`` and
``campaign close``).

The app stages its marks and exports them (``x``) as a batch file before it sends them; that file
is then applied headless to a second server holding the same people. Both servers answer the
same way: one change refused (409, nothing done), the adds acted on and their answers lost (502:
unknown, settled by reading back: found, done), the rest done.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input

import hubtui.core.workflows
from hubtui.core.batches.file import read_batch_file
from hubtui.demo import DemoStore, Faults, create_app
from hubtui.tui.screens.changes.batch import StagedScreen
from hubtui.tui.screens.dialogs.export import ExportScreen
from tests.harness.app import (
    CHLOE,
    DIEGO,
    ask_why,
    burst,
    mark,
    paste,
    press,
    project_users,
    running,
    settle,
    type_text,
)
from tests.harness.commands import run
from tests.harness.harness import serving

BRIDGE = 1001
ADDED = ("crew1@sub.example", "crew2@sub.example")


@dataclass
class Answering:
    """An ASGI app in front of the demo API that records every change request (method, path,
    body) and answers some as a test says: ``refused`` answered 409 without acting,
    ``lost`` acted on and answered 502."""

    app: Any
    refused: set[tuple[str, str]] = field(default_factory=set)
    lost: set[tuple[str, str]] = field(default_factory=set)
    sent: list[tuple[str, str, Any]] = field(default_factory=list)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] == "GET":
            await self.app(scope, receive, send)
            return
        chunks = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        raw = b"".join(chunks)
        key = (scope["method"], scope["path"])
        self.sent.append((*key, json.loads(raw) if raw else None))

        async def replay() -> dict[str, Any]:
            return {"type": "http.request", "body": raw, "more_body": False}

        if key in self.refused:
            await _answer(send, 409)
            return
        if key in self.lost:

            async def swallow(message: Any) -> None:
                return None

            await self.app(scope, replay, swallow)
            await _answer(send, 502)
            return
        await self.app(scope, replay, send)


async def _answer(send: Any, status: int) -> None:
    body = json.dumps({"title": "Refused by the test", "status": status}).encode()
    headers = [(b"content-type", b"application/problem+json")]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def answering() -> Answering:
    """A fresh demo behind the same answers: Diego's role refused, the adds' answers lost."""
    store = DemoStore()
    hub = store.hub_by_name("acme-build")
    assert hub is not None
    diego = next(u for u in store.users.values() if u.email == DIEGO)
    users = f"/v3/hubs/{hub.id}/projects/{BRIDGE}/users"
    return Answering(
        create_app(store, Faults()),
        refused={("PUT", f"{users}/{diego.id}")},
        lost={("POST", users)},
    )


def _marked_and_a_batch_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    in_app = answering()
    exported = tmp_path / "marked.csv"

    async def from_the_app() -> dict[str, str]:
        async with running(server=in_app, start=project_users()) as pilot:
            await mark(pilot, CHLOE, DIEGO)
            await press(pilot, "m", "down", "enter")  # Set role: Editor
            await press(pilot, "A")
            await paste(pilot, "\n".join(ADDED))
            await press(pilot, "ctrl+s", "b")
            staged = pilot.app.screen
            assert isinstance(staged, StagedScreen)
            await press(pilot, "x")
            dialog = pilot.app.screen
            assert isinstance(dialog, ExportScreen)
            dialog.query_one("#export-path", Input).value = str(exported)
            await press(pilot, "enter", "a", "y")
            await settle(pilot)
            return {
                line.step.wanted.email: line.result.ended.value
                for line in staged.lines
                if line.result is not None
            }

    app_outcomes = asyncio.run(from_the_app())
    _, marked = read_batch_file(exported.read_text(encoding="utf-8"))
    assert {(row.cells["hub id"], row.cells["server"]) for row in marked} == {
        ("7d1f0c3e-4b8a-4f6e-9a51-acme00000001", "demo")
    }  # where it was made, so that it is applied nowhere else

    # Applied where it was made (a file made elsewhere is refused): the demo the app ran on,
    # afresh, behind the same answers.
    headless = answering()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("hubtui.demo.create_app", lambda data=None, faults=None: headless)
    status, out, err = run(capsys, "--demo", "apply", str(exported), "--yes")
    results = next(tmp_path.glob("marked-results-*.csv"))
    _, rows = read_batch_file(results.read_text(encoding="utf-8"))
    apply_outcomes = {row.email: row.cells["outcome"] for row in rows}

    # The same requests, in the same order of send phases (the adds and the roles of one project).
    assert sorted(in_app.sent, key=repr) == sorted(headless.sent, key=repr)
    assert len(in_app.sent) == 4
    # The same outcomes: the refused role failed, the lost add was read back and found, done.
    assert app_outcomes == apply_outcomes
    assert app_outcomes == {CHLOE: "done", DIEGO: "failed", ADDED[0]: "done", ADDED[1]: "done"}
    assert status != 0  # a failed row: apply says so


def _i_and_resend_invite(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """One use case sends invitations again (core/workflows/resend.py): the app's ``i`` on the
    hub's people, everyone marked, and ``hubtui resend-invite HUB --yes``."""
    from tests.harness.fronts import Front

    fronts = [Front(create_app(DemoStore(), Faults())) for _ in range(2)]

    async def from_the_app() -> list[str]:
        async with running(size=(120, 40), server=fronts[0]) as pilot:
            await press(pilot, "enter", "P")
            await settle(pilot)
            await press(pilot, "asterisk", "i", "y")
            await settle(pilot)
            log = pilot.app.workspace.change_log  # type: ignore[attr-defined]
            return [f"{c.email} {c.outcome}" for c in log.changes]

    app_outcomes = asyncio.run(from_the_app())
    with serving(fronts[1]) as url:
        status, _, err = run(capsys, "--base-url", url, "resend-invite", "acme-build", "--yes")
    assert status == 0, err
    assert fronts[0].bodies == fronts[1].bodies
    assert [body for _, _, body in fronts[0].bodies] == [{"Role": "Guest", "ResendHubInvite": True}]
    assert app_outcomes == ["hamid.karimi@northwind-eng.com done"]
    assert "hamid.karimi@northwind-eng.com: invitation sent again." in err


FATIMA = "fatima.rahman@northwind-eng.com"
AIKO = "aiko.tanaka@acme-build.com"


def _o_and_offboard(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """One use case takes a person out of every hub (core/people/review.py's offboarding, sent
    by apply_reviewed): the app's ``O`` on the hub's people and ``hubtui offboard EMAIL``."""
    from tests.harness.fronts import Front

    fronts = [Front(create_app(DemoStore(), Faults())) for _ in range(2)]

    async def from_the_app() -> list[str]:
        async with running(size=(120, 40), server=fronts[0]) as pilot:
            await press(pilot, "enter", "P")
            await settle(pilot)
            await press(pilot, "slash")
            await type_text(pilot, FATIMA)
            await press(pilot, "enter", "O")
            await type_text(pilot, "left the company")
            await press(pilot, "enter")
            await settle(pilot)
            await press(pilot, "a", "y")
            await settle(pilot)
            log = pilot.app.workspace.change_log  # type: ignore[attr-defined]
            return [f"{c.action} {c.email} {c.outcome}" for c in log.changes]

    app_outcomes = asyncio.run(from_the_app())
    with serving(fronts[1]) as url:
        status, _, err = run(
            capsys,
            *("--base-url", url, "offboard", FATIMA, "--reason", "left the company", "--yes"),
        )
    headless = [line for line in err.splitlines() if line.startswith("Review #")]
    assert fronts[0].bodies == fronts[1].bodies
    assert [method for method, _, _ in fronts[0].bodies] == ["DELETE"]
    assert app_outcomes == [f"remove from hub {FATIMA} done"]
    assert len(headless) == 1  # kept as a review, as the app keeps it
    assert "kept" in headless[0]
    assert status == 3, err  # a list not read is said (incomplete), as the app says it


def _e_and_set_role(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """One use case makes a single change (core/workflows/one_change.py): the form's ``e`` and
    ``hubtui set-role``."""
    from tests.harness.fronts import Front

    fronts = [Front(create_app(DemoStore(), Faults())) for _ in range(2)]

    async def from_the_app() -> list[str]:
        async with running(server=fronts[0], start=project_users()) as pilot:
            await press(pilot, "down", "e")  # Aiko Tanaka, Editor
            await press(pilot, "down", "enter", "ctrl+s", "y")  # Admin, confirmed
            await settle(pilot)
            log = pilot.app.workspace.change_log  # type: ignore[attr-defined]
            return [f"{c.action} {c.email} {c.outcome}" for c in log.changes]

    app_outcomes = asyncio.run(from_the_app())
    with serving(fronts[1]) as url:
        status, _, err = run(
            capsys,
            *("--base-url", url, "set-role", "acme-build", str(BRIDGE), AIKO, "Admin", "--yes"),
        )
    assert status == 0, err
    assert fronts[0].bodies == fronts[1].bodies
    assert [method for method, _, _ in fronts[0].bodies] == ["PUT"]
    assert app_outcomes == [f"update {AIKO} done"]


def _a_ticket_s_fix_and_its_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """One add is prepared for a ticket's step (core/workflows/fix.py): ``W``'s ``1`` to a sent
    add in the app, and the command ``hubtui why`` prints for the same step."""
    import shlex

    from tests.harness.fronts import Front

    lena = "lena.fischer@example-mail.com"  # a user of the hub, not in Harbour Bridge Retrofit
    fronts = [Front(create_app(DemoStore(), Faults())) for _ in range(2)]

    async def from_the_app() -> list[str]:
        async with running(size=(120, 40), server=fronts[0]) as pilot:
            await ask_why(pilot, lena, "harbour")
            await press(pilot, "1", "enter")
            await settle(pilot)
            await press(pilot, "a", "y")
            await settle(pilot)
            log = pilot.app.workspace.change_log  # type: ignore[attr-defined]
            return [f"{c.action} {c.email} {c.user_id} {c.outcome}" for c in log.changes]

    app_outcomes = asyncio.run(from_the_app())
    with serving(fronts[1]) as url:
        status, out, err = run(
            capsys, "--base-url", url, "why", lena, "harbour", "--hub", "acme-build",
            "--format", "json",
        )  # fmt: skip
        assert status == 0, err
        (step,) = [s for s in json.loads(out)["next_steps"] if s["code"] == "add_to_project"]
        command = shlex.split(step["command"])
        status, _, err = run(capsys, "--base-url", url, *command[1:], "--yes")
    assert status == 0, err
    assert fronts[0].bodies == fronts[1].bodies
    assert [body for _, _, body in fronts[0].bodies] == [{"Email": lena, "Role": "Reader"}]
    assert len(app_outcomes) == 1
    assert app_outcomes[0].startswith(f"add {lena} ")
    assert app_outcomes[0].endswith(" done")


def _r_and_revert(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """One use case puts a batch back (core/workflows/revert.py): ``R`` in the app's change log
    and ``hubtui revert BATCH``, each after the same change (Aiko, Editor made Admin)."""
    import re

    from tests.harness.fronts import Front

    fronts = [Front(create_app(DemoStore(), Faults())) for _ in range(2)]

    async def from_the_app() -> None:
        async with running(
            server=fronts[0], change_log=tmp_path / "app.jsonl", start=project_users()
        ) as pilot:
            await press(pilot, "down", "e")  # Aiko Tanaka, Editor
            await press(pilot, "down", "enter", "ctrl+s", "y")
            await settle(pilot)
            await press(pilot, "c", "R")
            await settle(pilot)
            await press(pilot, "a", "y")
            await settle(pilot)

    asyncio.run(from_the_app())
    with serving(fronts[1]) as url:
        base = ("--base-url", url)
        status, _, err = run(
            capsys, *base, "set-role", "acme-build", "1001", AIKO, "Admin", "--yes"
        )
        assert status == 0, err
        batch = re.search(r"hubtui revert '?(b\w+)", err)
        assert batch is not None, err
        status, _, err = run(capsys, *base, "revert", batch.group(1), "--yes")
    assert status == 0, err
    assert [body for _, _, body in fronts[0].bodies] == [body for _, _, body in fronts[1].bodies]
    assert [body for _, _, body in fronts[0].bodies] == [
        {"Role": "Admin", "IsReviewer": False},
        {"Role": "Editor", "IsReviewer": False},
    ]


def _v_and_a_decisions_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """One engine sends a review's decisions (core/workflows/decisions_file.py for the file,
    apply_reviewed for both): Bjørn removed from the hub with a reason, by ``d`` ``x`` and
    ``v`` on the hub's people, and by a decisions file given to ``hubtui apply``."""
    from tests.harness.fronts import Front
    from tests.headless.test_reviews import BJORN, decisions_file, write

    fronts = [Front(create_app(DemoStore(), Faults())) for _ in range(2)]

    async def from_the_app() -> list[str]:
        async with running(
            size=(140, 40), server=fronts[0], store_path=tmp_path / "app.sqlite3", keeps="all"
        ) as pilot:
            await press(pilot, "enter", "P")
            await settle(pilot)
            await press(pilot, "slash")
            await type_text(pilot, BJORN)
            await press(pilot, "enter")
            await burst(pilot, ["d", "x", *"left the company", "enter"])
            await press(pilot, "v")
            await settle(pilot)
            await press(pilot, "a", "y")
            await settle(pilot)
            log = pilot.app.workspace.change_log  # type: ignore[attr-defined]
            return [f"{c.action} {c.email} {c.outcome}" for c in log.changes]

    app_outcomes = asyncio.run(from_the_app())
    with serving(fronts[1]) as url:
        base = ("--base-url", url)
        rows = decisions_file(capsys, base)
        for row in rows:
            if row["email"] == BJORN:
                row["decision"], row["reason"] = "remove", "left the company"
        decided = write(tmp_path / "decided.csv", rows)
        status, _, err = run(capsys, *base, "apply", str(decided), "--yes")
    assert status == 0, err
    assert [(m, p) for m, p, _ in fronts[0].bodies] == [(m, p) for m, p, _ in fronts[1].bodies]
    assert [m for m, _, _ in fronts[0].bodies] == ["DELETE"]
    assert app_outcomes == [f"remove from hub {BJORN} done"]
    assert "Review #1 kept" in err


def _c_and_campaign_close(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One close use case (core/workflows/campaign/closing.close_campaign) with two fronts: the
    same campaign, decided the same way (Björn Reader, Chloé removed from the hub), closed by
    ``C`` on its packets and by ``hubtui campaign close``, sends the same requests."""
    from hubtui.core.people.review import Decision
    from hubtui.core.workflows import campaign as use
    from tests.harness.campaigns import decided, exported
    from tests.harness.fronts import Front
    from tests.tui.people.test_campaigns import start_campaign, to_packet

    fronts = [Front(create_app(DemoStore(), Faults())) for _ in range(2)]
    bjorn, chloe = "bjorn.lindqvist@acme-build.com", CHLOE
    words = {bjorn: (Decision.READER, ""), chloe: (Decision.REMOVE, "left the company")}

    async def from_the_app() -> None:
        async with running(
            server=fronts[0],
            store_path=tmp_path / "app.sqlite3",
            keeps="all",
            operator="olive.owner",
        ) as pilot:
            await start_campaign(pilot)
            server_store = pilot.app.workspace.review_store()  # type: ignore[attr-defined]
            campaign = await use.open_campaign(server_store, 1)
            for email, (decision, reason) in words.items():
                [position] = [
                    s.row.position
                    for s in campaign.states.values()
                    if (s.row.project, s.row.email) == ("1001", email)
                ]
                events = use.events_of(campaign, [position], decision, reason, "dana")
                campaign = await use.decide(server_store, campaign, events, bulk=None)
            await to_packet(pilot)
            await press(pilot, "C")
            await settle(pilot)
            await press(pilot, "a", "y")
            await settle(pilot)

    asyncio.run(from_the_app())
    monkeypatch.setenv("HUBTUI_OPERATOR", "olive.owner")
    with serving(fronts[1]) as url:
        base = ("--base-url", url)
        assert run(capsys, *base, "campaign", "start", "acme-build")[0] == 0
        mine = [
            r
            | {"decision": {Decision.READER: "reader", Decision.REMOVE: "remove"}[d], "reason": why}
            for r in exported(capsys, base, "--packet", "1001")
            for email, (d, why) in words.items()
            if r["email"] == email
        ]
        monkeypatch.setenv("HUBTUI_OPERATOR", "dana")
        status, _, err = run(
            capsys, *base, "campaign", "decide", "1", decided(tmp_path / "d.csv", mine)
        )
        assert status == 0, err
        monkeypatch.setenv("HUBTUI_OPERATOR", "olive.owner")
        status, _, err = run(capsys, *base, "campaign", "close", "1", "--yes")
    assert status == 0, err
    assert sorted(fronts[0].bodies, key=repr) == sorted(fronts[1].bodies, key=repr)
    assert sorted(m for m, _, _ in fronts[0].bodies) == ["DELETE", "PUT"]


#: Every workflow that changes access (its module of hubtui.core.workflows), and how the app and
#: its command are each made to run it on servers that answer alike: the same requests, the same
#: end. A workflow with no row fails the guard below.
AGREE: dict[str, Callable[..., None]] = {
    "batch_file": _marked_and_a_batch_file,
    "resend": _i_and_resend_invite,
    "offboard": _o_and_offboard,
    "one_change": _e_and_set_role,
    "fix": _a_ticket_s_fix_and_its_command,
    "revert": _r_and_revert,
    "decisions_file": _v_and_a_decisions_file,
    "campaign.closing": _c_and_campaign_close,
}


@pytest.mark.parametrize("workflow", sorted(AGREE))
def test_the_app_and_the_command_send_the_same_requests_and_end_the_same_way(
    workflow: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    run_both = AGREE[workflow]
    given = {"tmp_path": tmp_path, "capsys": capsys, "monkeypatch": monkeypatch}
    run_both(**{name: given[name] for name in inspect.signature(run_both).parameters})


def test_every_workflow_that_sends_has_a_row() -> None:
    """A module of core/workflows that sends (through the run, or one change the one way), and
    the ticket's fix (sent by the staged changes' run), is a row of :data:`AGREE`."""
    root = Path(hubtui.core.workflows.__file__).parent
    sending = {
        ".".join(path.relative_to(root).with_suffix("").parts)
        for path in root.rglob("*.py")
        if path.name != "run.py" and re.search(r"run_preview\(|send_change\(", path.read_text())
    }
    assert sending >= {"batch_file", "campaign.closing", "offboard", "one_change", "revert"}
    assert sending | {"fix"} <= AGREE.keys(), sorted(sending | {"fix"} - AGREE.keys())
