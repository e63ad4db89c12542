"""The fifth review, as a person runs ``hubtui``: answers that read every record they stand on.

Each test runs the command against the demo API over real HTTP, behind a front that plays the
hostile server (``tests/harness/fronts.py``): a list in pages, a list that fails, a project
listed twice, a project named like another's Id, two accounts of one address.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from hubtui.demo import Faults
from tests.harness.commands import run
from tests.harness.fronts import Served, served, why_json

ACME = "acme-build"
AIKO = "aiko.tanaka@acme-build.com"


def facts(answer: dict[str, Any]) -> dict[str, str]:
    return {fact["fact"]: fact["says"] for fact in answer["facts"]}


# 3. Two accounts of one address ----------------------------------------------------------------


def test_two_accounts_of_one_address_are_each_answered_for(
    capsys: pytest.CaptureFixture[str], demo: Served
) -> None:
    upper = demo.add_account("Ann@acme.example")
    lower = demo.add_account("ann@acme.example", role="Admin")
    demo.member(upper, 1001, "Reader")
    demo.member(lower, 1001, "Admin")
    status, answers, err = why_json(capsys, demo, "ann@acme.example", "1001", "--hub", ACME)
    assert status == 0, err
    assert isinstance(answers, list), answers  # one answer a account, never the first alone
    by_id = {a["user_id"]: a for a in answers}
    assert by_id[str(upper)]["verdict"] == "can read (a direct Reader)"
    assert by_id[str(lower)]["verdict"] == "admin"
    assert facts(by_id[str(lower)])["hub role"] == "Admin"
    assert facts(by_id[str(upper)])["hub role"] == "Guest"
    for answer in answers:
        assert facts(answer)["accounts"].startswith(
            f"2 accounts have this address (Id {upper} Ann@acme.example, Id {lower} "
            "ann@acme.example)"
        )
    status, out, _ = run(capsys, "--base-url", demo.url, "why", "ann@acme.example", "1001",
                         "--hub", ACME)  # fmt: skip
    assert f"ann@acme.example (account Id {lower}, ann@acme.example) in Harbour Bridge" in out
    assert f"ann@acme.example (account Id {upper}, Ann@acme.example) in Harbour Bridge" in out


def test_two_accounts_without_a_project_are_each_answered_for_in_each_hub(
    capsys: pytest.CaptureFixture[str], demo: Served
) -> None:
    upper = demo.add_account("Ann@acme.example")
    lower = demo.add_account("ann@acme.example", role="Admin")
    demo.member(lower, 1002, "Editor")
    status, answers, err = why_json(capsys, demo, "ann@acme.example", "--hub", ACME)
    assert status == 0, err
    said = {(a["user_id"], a["project"]): a["verdict"] for a in answers}
    assert said == {
        (str(lower), "Québec Office Tower"): "can edit",
        (str(upper), None): "a user of the hub, in none of its projects",
    }


# 4. Lists in pages -----------------------------------------------------------------------------


def test_a_person_on_a_later_page_is_found(capsys: pytest.CaptureFixture[str]) -> None:
    with served(Faults(page_size=2)) as paged:
        members = list(paged.hub().projects[1001].members)
        last = paged.store.users[members[-1]].email
        status, answer, err = why_json(capsys, paged, last, "1001", "--hub", ACME)
        assert status == 0, err
        assert answer["verdict"] == "can edit"  # the partner Editor, on the list's last page
        assert any(method == "GET" and "/users" in path for method, path in paged.front.asked)
        pages = [p for m, p in paged.front.asked if p.endswith("/projects/1001/users")]
        assert len(pages) >= 4  # eight users or more, two a page: every page read


def test_a_list_whose_pages_loop_is_unknown_never_no_access(
    capsys: pytest.CaptureFixture[str], demo: Served
) -> None:
    path = f"{demo.hub_path()}/projects/1001/users"

    def looping(status: int, body: Any) -> tuple[int, Any]:
        return status, {"value": body[:2], "@odata.nextLink": f"{demo.url}{path}?page=2"}

    demo.front.rewrite["GET", path] = looping
    status, answer, err = why_json(capsys, demo, "nobody@acme-build.com", "1001", "--hub", ACME)
    assert status == 3, err
    assert answer["verdict"] == "unknown"
    assert "could not be read whole" in " ".join(answer["not_read"])
    assert "links back to a page read already" in " ".join(answer["not_read"])


# 6. An answer built on a list that could not be read ------------------------------------------


def failing(status: int, body: Any) -> tuple[int, Any]:
    return 500, {"title": "Internal Server Error", "status": 500}


def test_the_hub_s_users_failing_makes_the_answer_unknown_in_that_part(
    capsys: pytest.CaptureFixture[str], demo: Served
) -> None:
    demo.front.rewrite["GET", f"{demo.hub_path()}/users"] = failing
    status, answer, err = why_json(capsys, demo, AIKO, "1001", "--hub", ACME)
    assert status == 3, err
    assert answer["verdict"] == "can edit"  # the project's users said so
    assert any(n.startswith("the hub's users: ") for n in answer["not_read"])
    status, answers, err = why_json(capsys, demo, "nina@acme-build.com", "--hub", ACME)
    assert status == 3, err  # not "neither a user nor in a project" (exit 2)
    assert [a["verdict"] for a in answers] == ["unknown"]
    assert "the hub's users: " in answers[0]["not_read"][0]


def test_the_hub_s_projects_failing_is_said_and_exit_3(
    capsys: pytest.CaptureFixture[str], demo: Served
) -> None:
    demo.front.rewrite["GET", f"{demo.hub_path()}/projects"] = failing
    status, answer, err = why_json(capsys, demo, AIKO, "1001", "--hub", ACME)
    assert status == 3, err
    assert answer is None  # no answer from a project list never read
    assert "List projects of hub" in err
    assert "internal error" in err


# 7, 8. A project listed twice; a project named like another's Id -----------------------------


def test_a_project_the_server_lists_twice_is_one_project(
    capsys: pytest.CaptureFixture[str], demo: Served
) -> None:
    demo.front.rewrite["GET", f"{demo.hub_path()}/projects"] = lambda s, body: (s, body + body)
    status, answer, err = why_json(capsys, demo, AIKO, "1001", "--hub", ACME)
    assert status == 0, err
    assert (answer["project_id"], answer["verdict"]) == ("1001", "can edit")
    status, answer, err = why_json(capsys, demo, AIKO, "harbour", "--hub", ACME)
    assert status == 0, err
    assert answer["project_id"] == "1001"


def test_a_value_that_is_one_project_s_id_and_another_s_name_names_neither(
    capsys: pytest.CaptureFixture[str], demo: Served
) -> None:
    named = demo.store._add_project(demo.hub(), random.Random(0), "1002", access="Private")
    status, out, err = run(capsys, "--base-url", demo.url, "why", AIKO, "1002", "--hub", ACME)
    assert status == 2
    assert not out
    assert "'1002' is one project's Id and another's name, so it names neither" in err
    assert "1002  Québec Office Tower" in err
    assert f"{named.id}  1002" in err
    status, answer, err = why_json(capsys, demo, AIKO, "id:1002", "--hub", ACME)
    assert status == 0, err
    assert answer["project"] == "Québec Office Tower"
    status, answer, err = why_json(capsys, demo, AIKO, str(named.id), "--hub", ACME)
    assert status == 0, err
    assert answer["project"] == "1002"


# 1. An account renamed between the read and the send: each kind of change ---------------------

MALLORY = "mallory@evil.example"


def rename_at(demo: Served, path: str, email: str, user_id: int, *, nth: int = 1) -> None:
    """Before the ``nth`` read of ``path`` reaches the server, account ``user_id`` takes the
    address ``email``."""
    count = 0

    def act() -> bool:
        nonlocal count
        count += 1
        if count == nth:
            demo.rename(user_id, email)
        return count < nth

    demo.front.before["GET", path] = act


def test_a_role_is_not_set_on_an_account_renamed_before_the_put(
    capsys: pytest.CaptureFixture[str], demo: Served
) -> None:
    aiko = demo.user_id(AIKO)
    rename_at(demo, f"{demo.hub_path()}/projects/1001/users/{aiko}", MALLORY, aiko)
    status, out, err = run(capsys, "--base-url", demo.url, "set-role", ACME, "1001", AIKO,
                           "Reader", "--yes")  # fmt: skip
    assert status == 2, out + err
    assert f"Id {aiko} is now {MALLORY}, not {AIKO}: nothing was sent" in err
    assert "Done" not in out + err
    assert demo.changes() == []
    assert demo.hub().projects[1001].members[aiko].role == "Editor"  # mallory's role is hers


def test_a_limited_reader_is_not_made_a_member_once_their_account_has_another_address(
    capsys: pytest.CaptureFixture[str], demo: Served
) -> None:
    grace = demo.user_id("grace.osei@northwind-eng.com")
    other = "mallory@northwind-eng.com"  # still of a domain the project reads by
    rename_at(demo, f"{demo.hub_path()}/projects/1001/users/{grace}", other, grace)
    status, out, err = run(capsys, "--base-url", demo.url, "add-user", ACME, "1001",
                           "grace.osei@northwind-eng.com", "Editor", "--yes")  # fmt: skip
    assert status == 2, out + err
    assert f"Id {grace} is now {other}" in err
    assert demo.changes() == []
    assert grace not in demo.hub().projects[1001].members


def test_a_revert_is_not_sent_to_an_account_renamed_since(
    capsys: pytest.CaptureFixture[str], demo: Served
) -> None:
    import re

    aiko = demo.user_id(AIKO)
    base = ("--base-url", demo.url)
    status, _, err = run(capsys, *base, "set-role", ACME, "1001", AIKO, "Reader", "--yes")
    assert status == 0, err
    batch = re.search(r"hubtui revert '?(b[\w-]+)", err)
    assert batch is not None, err
    rename_at(demo, f"{demo.hub_path()}/projects/1001/users/{aiko}", MALLORY, aiko)
    sent = len(demo.changes())
    status, out, err = run(capsys, *base, "revert", batch.group(1), "--yes")
    assert f"Id {aiko} is now {MALLORY}" in out + err
    assert len(demo.changes()) == sent  # no PUT to mallory
    assert demo.hub().projects[1001].members[aiko].role == "Reader"


def hub_reads_before_sending(capsys: pytest.CaptureFixture[str], *argv: str) -> int:
    """How many times ``hubtui ARGV`` reads the hub's users before its change leaves (on a
    demo of its own): the last of them is the read just before the send."""
    with served() as probe:
        path = f"{probe.hub_path()}/users"
        status, out, err = run(capsys, "--base-url", probe.url, *argv)
        assert status == 0, out + err
        asked = probe.front.asked
        first_change = next(i for i, (m, _) in enumerate(asked) if m != "GET")
        return sum(1 for key in asked[:first_change] if key == ("GET", path))


def test_a_removal_from_the_hub_is_not_sent_to_an_account_renamed_before_it(
    capsys: pytest.CaptureFixture[str], demo: Served
) -> None:
    eve = "eve@acme-build.com"
    argv = ("offboard", eve, "--hub", ACME, "--yes")
    nth = hub_reads_before_sending(capsys, *argv)
    user = demo.user_id(eve)
    rename_at(demo, f"{demo.hub_path()}/users", MALLORY, user, nth=nth)
    status, out, err = run(capsys, "--base-url", demo.url, *argv)
    assert f"Id {user} is now {MALLORY}, not {eve}: nothing was sent" in out + err
    assert demo.changes() == []
    assert user in demo.hub().user_ids


def test_an_invitation_is_not_sent_again_to_an_account_renamed_before_it(
    capsys: pytest.CaptureFixture[str], demo: Served
) -> None:
    hamid = "hamid.karimi@northwind-eng.com"
    argv = ("resend-invite", ACME, hamid, "--yes")
    nth = hub_reads_before_sending(capsys, *argv)
    user = demo.user_id(hamid)
    rename_at(demo, f"{demo.hub_path()}/users", MALLORY, user, nth=nth)
    updates = demo.store.updates
    status, out, err = run(capsys, "--base-url", demo.url, *argv)
    assert f"Id {user} is now {MALLORY}, not {hamid}: nothing was sent" in out + err
    assert demo.changes() == []
    assert demo.store.updates == updates  # no email to mallory


async def test_a_hub_role_is_not_set_on_an_account_renamed_before_it(demo: Served) -> None:
    """No command sets a hub role but a revert: the engine every front end sends through."""
    from hubtui.api import HubClient
    from hubtui.core.batches import Batch, Intent, Outcome, Wanted, prepare
    from hubtui.core.changes.log import ChangeLog
    from hubtui.demo import DEMO_TOKEN

    eve = "eve@acme-build.com"
    user = demo.user_id(eve)
    hub = demo.hub()
    row = Wanted(hub.id, hub.name, "", None, eve, Intent.HUB_ROLE, role="Guest",
                 user_id=str(user))  # fmt: skip
    async with HubClient(demo.url, token=DEMO_TOKEN) as client:
        log = ChangeLog(None, server=demo.url)
        preview = await prepare(client, [row], log)
        assert preview.steps[0].change is not None, preview.steps[0].words
        demo.rename(user, MALLORY)
        batch = Batch(preview.steps)
        await batch.send(client, log)
    result = batch.results[0]
    assert result.ended is Outcome.NOT_SENT
    assert f"Id {user} is now {MALLORY}, not {eve}: nothing was sent" in result.message
    assert demo.changes() == []
    assert demo.store.hub_access(hub, user).role == "Admin"  # as it was: nothing was set


# 9. A removal someone else made first ---------------------------------------------------------


def test_a_removal_a_colleague_made_first_is_already_so_and_its_revert_sends_nothing(
    capsys: pytest.CaptureFixture[str], demo: Served
) -> None:
    import re

    eve = "eve@acme-build.com"
    user = demo.user_id(eve)
    hub = demo.hub()
    path = f"{demo.hub_path()}/users/{user}"
    demo.front.before["DELETE", path] = lambda: demo.store.remove_from_hub(hub, user)
    base = ("--base-url", demo.url)
    status, out, err = run(capsys, *base, "offboard", eve, "--hub", ACME, "--yes",
                           "--reason", "left the company")  # fmt: skip
    assert status == 0, out + err
    assert "already removed (not by this change)" in out + err
    assert "failed" not in (out + err).split("Batch")[-1].split(",")[1]  # 0 failed
    batch = re.search(r"Batch (b[\w-]+)", err)
    assert batch is not None, err
    status, out, err = run(capsys, *base, "reviews", "1", "--format", "json")
    assert status == 0, err
    rows = json.loads(out)
    kept = rows["rows"] if isinstance(rows, dict) else rows
    outcomes = [r["outcome"] for r in kept if r["email"] == eve]
    assert outcomes == ["already removed (not by this change)"], out  # not the server's 404
    sent = len(demo.changes())
    status, out, err = run(capsys, *base, "revert", batch.group(1), "--yes")
    assert len(demo.changes()) == sent, out + err  # no invitation: not removed by this change
    assert user not in hub.user_ids


# 5. A next step to paste that runs code -------------------------------------------------------


def test_a_next_step_is_quoted_for_the_shell_so_a_name_never_runs(
    capsys: pytest.CaptureFixture[str], demo: Served
) -> None:
    import shlex
    import subprocess

    hub = demo.hub()
    hostile = "acme$(echo${IFS}PWNED)`echo PWNED`;echo PWNED"
    demo.store._hub_by_name[hostile] = demo.store._hub_by_name.pop(hub.name)
    hub.name = hostile
    hamid = "hamid.karimi@northwind-eng.com"  # never accepted the invitation
    status, answer, err = why_json(capsys, demo, hamid, "1001", "--hub", hub.id)
    assert status == 0, err
    command = next(s["command"] for s in answer["next_steps"] if s["code"] == "resend_invitation")
    assert shlex.split(command) == ["hubtui", "resend-invite", hostile, hamid]
    # Pasted into a real shell (printf in hubtui's place): each word arrives whole, none runs.
    ran = subprocess.run(
        ["sh", "-c", "printf '%s\\n' " + command.removeprefix("hubtui ")],
        capture_output=True,
        text=True,
        check=True,
    )
    assert ran.stdout.splitlines() == ["resend-invite", hostile, hamid]
    status, answer, err = why_json(
        capsys, demo, "grace.osei@northwind-eng.com", "1001", "--hub", hub.id
    )
    command = next(s["command"] for s in answer["next_steps"] if s["code"] == "make_direct_member")
    assert shlex.split(command)[2] == hostile


def test_an_add_promises_no_revert_it_cannot_make(
    capsys: pytest.CaptureFixture[str], demo: Served
) -> None:
    status, _, err = run(capsys, "--base-url", demo.url, "add-user", ACME, "1002",
                         "r2@acme-build.com", "Reader", "--yes")  # fmt: skip
    assert status == 0, err
    assert "revert" not in err


# 2. A decisions file applied where it was not made --------------------------------------------

BJORN = "bjorn.lindqvist@acme-build.com"  # inactive for months: Editor, reviewer in 1001


def decisions(
    capsys: pytest.CaptureFixture[str], at: Served, tmp_path: Any, *, made_on: bool = True
) -> Any:
    """The review's decisions file made on ``at``, with bjorn's rows decided ``remove``
    (``made_on`` False: without the columns that say where it was made, as an older file)."""
    import csv
    import io

    status, out, err = run(capsys, "--base-url", at.url, "review", ACME, "--stale", "90d",
                           "--format", "csv")  # fmt: skip
    assert status == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert {"hub id", "server"} <= set(rows[0])
    assert {r["server"] for r in rows} == {at.url}
    assert {r["hub id"] for r in rows} == {at.hub().id}
    for row in rows:
        if row["email"] == BJORN:
            row.update(decision="remove", reason="left")
    columns = [c for c in rows[0] if made_on or c not in ("hub id", "server")]
    path = tmp_path / "decisions.csv"
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    return path


def test_a_decisions_file_is_refused_on_another_server(
    capsys: pytest.CaptureFixture[str], demo: Served, tmp_path: Any
) -> None:
    path = decisions(capsys, demo, tmp_path)
    with served() as other:
        status, out, err = run(capsys, "--base-url", other.url, "apply", str(path), "--yes")
        assert status == 2, out + err
        assert f"was made on {demo.url}" in err
        assert f"hubtui is using {other.url}" in err
        assert other.changes() == []


def test_a_decisions_file_is_refused_once_another_hub_has_taken_the_name(
    capsys: pytest.CaptureFixture[str], demo: Served, tmp_path: Any
) -> None:
    path = decisions(capsys, demo, tmp_path)
    acme, river = demo.hub(), demo.hub("riverside-infra")
    names = demo.store._hub_by_name
    names.pop(ACME)
    acme.name, river.name = "acme-old", ACME
    names["acme-old"], names[ACME] = acme, river
    status, out, err = run(capsys, "--base-url", demo.url, "apply", str(path), "--yes")
    assert status == 2, out + err
    assert f"made for hub acme-build with the Id {acme.id}" in err
    assert f"the hub with the Id {river.id}, another hub" in err
    assert demo.changes() == []


def test_a_project_the_file_names_that_the_hub_does_not_have_is_evidence_that_no_longer_holds(
    capsys: pytest.CaptureFixture[str], demo: Served, tmp_path: Any
) -> None:
    path = decisions(capsys, demo, tmp_path, made_on=False)  # a file that does not say where
    with served() as other:
        other.hub().projects.clear()  # its acme-build: the same people, none of the projects
        status, out, err = run(capsys, "--base-url", other.url, "apply", str(path), "--yes")
        assert "in Harbour Bridge Retrofit was Editor, now the hub has no such project" in out + err
        assert other.changes() == []  # no DELETE of bjorn
        assert other.user_id(BJORN) in other.hub().user_ids


@pytest.mark.parametrize(
    "argv",
    [
        ("who", "@northwind-eng.com", "--format", "json"),
        ("access", ACME, "--format", "csv"),
        ("hub-users", ACME, "--format", "json"),
        ("why", "grace.osei@northwind-eng.com", "--format", "json"),
    ],
)
def test_the_search_the_matrix_and_why_read_a_server_that_sends_pages_whole(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...]
) -> None:
    answers = []
    for faults in (Faults(), Faults(page_size=2)):
        with served(faults) as at:
            status, out, err = run(capsys, "--base-url", at.url, *argv)
            answers.append((status, out.replace(at.url, "SERVER")))
    assert answers[0] == answers[1]
    assert answers[0][1].count("northwind-eng.com") > 2
