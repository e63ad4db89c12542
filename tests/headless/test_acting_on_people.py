"""Acting on people: an offboarding, a review's decisions, a resend and a revert act on the
account named, once, and only while what they were decided on still holds.

Each test runs ``hubtui`` as a person does, against the demo API over real HTTP (in a thread,
so that the test can shape the server's people and make it fail after it acted).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from hubtui.demo import DEMO_TOKEN, DemoStore, Faults, create_app
from hubtui.demo.data import HubAccess, Membership
from tests.harness.commands import run
from tests.harness.demo_api import EARLIEST, LATEST, changing
from tests.harness.harness import serving

ACME = "acme-build"


@dataclass
class Failing:
    """An ASGI app in front of the demo API: a request whose method and path start as in
    ``after_acting`` is passed on (the server acts), and its answer replaced by that status."""

    app: Any
    after_acting: dict[tuple[str, str], int] = field(default_factory=dict)
    seen: list[tuple[str, str]] = field(default_factory=list)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        key = (scope["method"], scope["path"])
        if scope["method"] != "GET":
            self.seen.append(key)
        status = next((s for (m, p), s in self.after_acting.items() if key == (m, p)), None)
        if status is None:
            await self.app(scope, receive, send)
            return

        async def swallow(message: Any) -> None:
            return None

        await self.app(scope, receive, swallow)  # the server acts; its answer is lost
        body = json.dumps({"title": "Gateway failure", "status": status}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [(b"content-type", b"application/problem+json")],
            }
        )
        await send({"type": "http.response.body", "body": body})


@dataclass
class Served:
    url: str
    store: DemoStore
    front: Failing

    @property
    def hub(self) -> Any:
        found = self.store.hub_by_name(ACME)
        assert found is not None
        return found

    def add_account(
        self, email: str, *, role: str = "Guest", first: bool = False, seen_days: int = 30
    ) -> int:
        """A hub user of acme-build with this address, as a new account (``first``: listed
        before every other)."""
        user = self.store._new_user("Test", email.split("@")[0], email)
        moment = datetime.now(UTC) - timedelta(days=seen_days)
        self.store._hub_access[self.hub.id, user.id] = HubAccess(role, True, moment, None, None)
        if first:
            self.hub.user_ids.insert(0, user.id)
        else:
            self.hub.user_ids.append(user.id)
        return user.id

    def member(self, user_id: int, role: str, project: int = 0) -> str:
        """Make ``user_id`` a direct member of a project of acme-build; its id."""
        chosen = list(self.hub.projects.values())[project]
        chosen.members[user_id] = Membership(role=role)
        return str(chosen.id)

    def in_hub(self, user_id: int) -> bool:
        return user_id in self.hub.user_ids


@pytest.fixture
def served() -> Iterator[Served]:
    store = DemoStore()
    front = Failing(create_app(store, Faults()))
    with serving(front) as url:
        yield Served(url, store, front)


def hubtui(capsys: pytest.CaptureFixture[str], served: Served, *argv: str) -> tuple[int, str]:
    status, out, err = run(capsys, "--base-url", served.url, *argv)
    return status, out + err


def deletes(served: Served) -> list[str]:
    return [path for method, path in served.front.seen if method == "DELETE"]


# Wrong person, wrong account ------------------------------------------------------------------


def test_an_address_matches_only_itself_so_offboarding_removes_the_person_named(
    capsys: pytest.CaptureFixture[str], served: Served
) -> None:
    sharp = served.add_account("straße@acme.example", first=True)
    plain = served.add_account("strasse@acme.example")
    status, said = hubtui(
        capsys, served, "offboard", "strasse@acme.example", "--hub", ACME, "--yes"
    )
    assert status == 0, said
    assert [p.rsplit("/", 1)[1] for p in deletes(served)] == [str(plain)]
    assert not served.in_hub(plain)
    assert served.in_hub(sharp)  # ß is not ss: the other person keeps their access


def test_two_accounts_of_one_address_are_both_named_and_both_removed(
    capsys: pytest.CaptureFixture[str], served: Served
) -> None:
    upper = served.add_account("Ann@acme.example")
    lower = served.add_account("ann@acme.example")
    project = served.member(lower, "Admin")
    status, said = hubtui(capsys, served, "offboard", "ann@acme.example", "--hub", ACME, "--yes")
    assert status == 0, said
    assert not served.in_hub(upper)
    assert not served.in_hub(lower)
    assert sorted(p.rsplit("/", 1)[1] for p in deletes(served)) == sorted([str(upper), str(lower)])
    # Each account's projects are its own: the Admin is the second account's alone.
    assert f"Ann@acme.example (Id {upper}), Guest" in said  # each account named before asking
    assert f"ann@acme.example (Id {lower}), Guest" in said
    lines = [line for line in said.splitlines() if "removed from the hub" in line]
    assert len(lines) == 2, said
    assert sum("Admin in" in line for line in lines) == 1, said
    assert project


def test_a_row_of_an_address_held_by_two_accounts_is_refused_naming_both(
    capsys: pytest.CaptureFixture[str], served: Served, tmp_path: Path
) -> None:
    upper = served.add_account("Ann@acme.example")
    lower = served.add_account("ann@acme.example")
    decisions = tmp_path / "review.csv"
    decisions.write_text(
        f"hub,project,email,role,reviewer,decision\n{ACME},,ann@acme.example,,,remove\n"
    )
    status, said = hubtui(capsys, served, "apply", str(decisions), "--yes")
    assert deletes(served) == []
    assert f"Id {upper} Ann@acme.example" in said
    assert f"Id {lower} ann@acme.example" in said
    assert status != 0


# Old evidence ---------------------------------------------------------------------------------


def review_file(
    capsys: pytest.CaptureFixture[str], served: Served, tmp_path: Path
) -> tuple[Path, list[dict[str, str]], list[str]]:
    status, out, err = run(
        capsys, "--base-url", served.url, "review", ACME, "--stale", "200", "--format", "csv"
    )
    assert status == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    header = list(rows[0])
    return tmp_path / "review.csv", rows, header


def write_rows(path: Path, header: list[str], rows: list[dict[str, str]]) -> None:
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, header)
        writer.writeheader()
        writer.writerows(rows)


def test_a_removal_whose_evidence_changed_since_is_refused_naming_what_changed(
    capsys: pytest.CaptureFixture[str], served: Served, tmp_path: Path
) -> None:
    guest = served.add_account("long.gone@acme.example", seen_days=2521)
    path, rows, header = review_file(capsys, served, tmp_path)
    assert {"hub role", "invitation", "last seen (UTC)", "id"} <= set(header)
    mine = [r for r in rows if r["email"] == "long.gone@acme.example"]
    assert mine
    assert mine[0]["hub role"] == "Guest"
    assert mine[0]["id"] == str(guest)
    for row in mine:
        row["decision"] = "remove"
    write_rows(path, header, mine)
    # Since the file was written, they became hub Admin and signed in yesterday.
    access = served.store._hub_access[served.hub.id, guest]
    access.role = "Admin"
    access.web_login = datetime.now(UTC) - timedelta(days=1)
    status, said = hubtui(capsys, served, "apply", str(path), "--yes")
    assert deletes(served) == []
    assert served.in_hub(guest)
    assert "hub role was Guest, now Admin" in said
    assert "last seen was" in said
    assert status != 0


def test_the_same_file_sends_the_removal_while_its_evidence_holds(
    capsys: pytest.CaptureFixture[str], served: Served, tmp_path: Path
) -> None:
    guest = served.add_account("long.gone@acme.example", seen_days=2521)
    path, rows, header = review_file(capsys, served, tmp_path)
    mine = [r for r in rows if r["email"] == "long.gone@acme.example"]
    for row in mine:
        row["decision"] = "remove"
    write_rows(path, header, mine)
    status, said = hubtui(capsys, served, "apply", str(path), "--yes")
    assert status == 0, said
    assert not served.in_hub(guest)


def test_conflicting_decisions_of_one_person_send_nothing_of_theirs(
    capsys: pytest.CaptureFixture[str], served: Served, tmp_path: Path
) -> None:
    guest = served.add_account("torn@acme.example", seen_days=2521)
    served.member(guest, "Editor", 0)
    served.member(guest, "Editor", 1)
    path, rows, header = review_file(capsys, served, tmp_path)
    mine = [r for r in rows if r["email"] == "torn@acme.example"]
    assert len(mine) == 2
    mine[0]["decision"], mine[1]["decision"] = "remove", "keep"
    write_rows(path, header, mine)
    status, said = hubtui(capsys, served, "apply", str(path), "--yes")
    assert deletes(served) == []
    assert served.in_hub(guest)
    assert "conflicting decisions: line 2 says remove from hub, line 3 says keep" in said
    assert status != 0
    # The same membership twice, decided twice differently, is refused the same way.
    twice = [dict(mine[0], decision="reader"), dict(mine[0], decision="keep")]
    write_rows(path, header, twice)
    status, said = hubtui(capsys, served, "apply", str(path), "--yes")
    assert "conflicting decisions: line 2 says set Reader, line 3 says keep" in said
    assert [m for m, _ in served.front.seen] == []


# Reverts --------------------------------------------------------------------------------------


def batch_of(said: str) -> str:
    marker = "hubtui revert "
    return said[said.index(marker) + len(marker) :].split()[0]


def test_an_offboarding_revert_never_overwrites_what_was_given_since(
    capsys: pytest.CaptureFixture[str], served: Served
) -> None:
    person = served.add_account("back.again@acme.example")
    project = served.member(person, "Editor")
    status, said = hubtui(
        capsys, served, "offboard", "back.again@acme.example", "--hub", ACME, "--yes"
    )
    assert status == 0, said
    # They come back, as Admin of the project they were an Editor of.
    served.hub.user_ids.append(person)
    served.store._hub_access[served.hub.id, person] = HubAccess("Guest", True, None, None, None)
    served.member(person, "Admin")
    before = len(served.front.seen)
    status, said = hubtui(capsys, served, "revert", batch_of(said), "--yes")
    assert served.front.seen[before:] == []  # neither the invitation nor the role is sent
    assert "now Admin" in said
    chosen = served.hub.projects[int(project)]
    assert chosen.members[person].role == "Admin"


def test_a_revert_sends_no_project_row_after_its_invitation_is_refused(
    capsys: pytest.CaptureFixture[str], served: Served
) -> None:
    person = served.add_account("refused.again@acme.example")
    served.member(person, "Editor")
    status, said = hubtui(
        capsys, served, "offboard", "refused.again@acme.example", "--hub", ACME, "--yes"
    )
    assert status == 0, said
    users = f"/v3/hubs/{served.hub.id}/users"
    served.front.after_acting[("POST", users)] = 422
    before = len(served.front.seen)
    status, said = hubtui(capsys, served, "revert", batch_of(said), "--yes")
    sent = served.front.seen[before:]
    assert sent == [("POST", users)]  # the invitation only: no add goes around it
    # Each outcome says where: the hub's invitation apart from each project's row.
    assert f"refused.again@acme.example in the hub ({ACME})" in said
    assert "depends on their invitation to the hub" in said
    assert status != 0


# Sent twice, left wrong -----------------------------------------------------------------------


def test_a_resend_answered_504_after_the_server_acted_is_never_sent_again(
    capsys: pytest.CaptureFixture[str], served: Served
) -> None:
    pending = next(
        uid for uid in served.hub.user_ids if not served.store.hub_access(served.hub, uid).activated
    )
    path = f"/v3/hubs/{served.hub.id}/users/{pending}"
    served.front.after_acting[("PUT", path)] = 504
    email = served.store.users[pending].email
    status, said = hubtui(capsys, served, "resend-invite", ACME, email, "--yes")
    assert served.front.seen.count(("PUT", path)) == 1  # one email, whatever the gateway said
    assert status == 4, said


def test_a_removal_answered_500_after_it_was_made_is_settled_done_and_can_be_put_back(
    capsys: pytest.CaptureFixture[str], served: Served
) -> None:
    person = served.add_account("half.gone@acme.example")
    served.member(person, "Editor")
    served.front.after_acting[("DELETE", f"/v3/hubs/{served.hub.id}/users/{person}")] = 500
    status, said = hubtui(
        capsys, served, "offboard", "half.gone@acme.example", "--hub", ACME, "--yes"
    )
    assert not served.in_hub(person)
    assert "1 done" in said, said  # read back: the removal was made
    served.front.after_acting.clear()
    status, said = hubtui(capsys, served, "revert", batch_of(said), "--yes")
    assert status == 0, said
    assert served.in_hub(person)


def test_the_service_refuses_a_hub_user_put_without_a_role_naming_the_field(
    served: Served,
) -> None:
    from hubtui.api.errors import status_error_from_response

    user = served.hub.user_ids[0]
    answer = httpx.put(
        f"{served.url}/v3/hubs/{served.hub.id}/users/{user}",
        json={"ResendHubInvite": True},
        headers={"Authorization": f"Bearer {DEMO_TOKEN}"},
    )
    assert answer.status_code == 422
    error = status_error_from_response(answer, operation="resend the invitation")
    assert "Role: The Role field is required." in str(error)


# Hostile values, previews that hide things ----------------------------------------------------


@pytest.mark.parametrize("moment", [EARLIEST, LATEST, "2999-01-01T00:00:00Z"])
def test_a_date_at_the_calendars_edge_is_unknown_and_costs_no_row(
    capsys: pytest.CaptureFixture[str], moment: str
) -> None:
    with serving(changing("users", "LastWebLogin", moment)) as url:
        for argv in (("hub-users", ACME), ("access", ACME), ("review", ACME)):
            status, out, err = run(capsys, "--base-url", url, *argv, "--format", "csv")
            assert "Traceback" not in err
            assert "OverflowError" not in err
            assert status in (0, 1), err
            rows = list(csv.DictReader(io.StringIO(out)))
            assert rows, f"{argv}: no rows"
            column = next(c for c in ("last seen (UTC)", "last web sign-in (UTC)") if c in rows[0])
            seen = [r[column] for r in rows]
            # A date with no UTC moment, or in the future, is unknown: never "today".
            assert set(seen) <= {"unknown", ""}, (argv, seen)
            assert "unknown" in seen, (argv, seen)


def test_a_confirmation_shows_all_it_confirms(
    capsys: pytest.CaptureFixture[str], served: Served
) -> None:
    person = served.add_account("many.places@acme.example")
    for index, project in enumerate(served.hub.projects.values()):
        project.name = (
            f"A project whose name is long enough, with all it says, to be cut {index:02}" * 2
        )
        project.members[person] = Membership(role="Editor")
    status, said = hubtui(
        capsys, served, "offboard", "many.places@acme.example", "--hub", ACME, "--dry-run"
    )
    assert status == 0, said
    assert "characters)" not in said
    for project in served.hub.projects.values():
        assert project.name in said
