"""A hub's people: the inactive rule from what the server sent (missing, null and malformed
dates), one person across hub users and project users, the matrix, and a server without the
hub-user operations."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from hubtui.api import HubClient
from hubtui.api.as_sent import hub_user_signed_in
from hubtui.api.models import HubUser, Project, ProjectUser
from hubtui.core.people.hub import (
    NEVER_SIGNED_IN,
    NOT_ACCEPTED,
    PeopleJoin,
    access_matrix,
    hub_people,
    read_hub_people,
)
from hubtui.core.signins import last_seen
from hubtui.demo import DEMO_TOKEN, DemoStore, Faults, create_app

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


def hub_user(**fields: Any) -> HubUser:
    person = {"Id": fields.pop("Id", 7), "Email": fields.pop("Email", "a.b@example.com")}
    return HubUser.model_validate({"User": person, "Role": "Guest", **fields})


def member(project_id: int, role: str, email: str, *, limited: bool = False) -> tuple[Any, Any]:
    project = Project.model_validate({"Id": project_id, "Name": f"P{project_id}"})
    user = ProjectUser.model_validate(
        {"User": {"Id": 7, "Email": email}, "Role": role, "IsLimited": limited}
    )
    return project, user


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({}, [NEVER_SIGNED_IN]),  # nothing sent: never
        ({"LastWebLogin": None, "LastAddinLogin": None}, [NEVER_SIGNED_IN]),  # null: never
        ({"LastWebLogin": "2026-11-20T10:00:00Z"}, []),  # five days ago
        ({"LastWebLogin": "2026-08-01T10:00:00Z"}, ["inactive 116 days"]),
        # The latest of the three counts, whichever it is.
        (
            {"LastWebLogin": "2025-01-01T00:00:00Z", "LastHubProjectActivity": "2026-11-01T00:00Z"},
            [],
        ),
        # A date that cannot be read: unknown, never "inactive", never "never".
        ({"LastWebLogin": "last Tuesday"}, ["last sign-in unknown"]),
        (
            {"LastWebLogin": "2020-01-01T00:00:00Z", "LastAddinLogin": "soon"},
            ["last sign-in unknown"],
        ),
        ({"IsActivated": False}, [NOT_ACCEPTED, NEVER_SIGNED_IN]),
        # Without an offset, a date is the service's own zone, UTC.
        ({"LastWebLogin": "2026-08-27T12:00:00"}, ["inactive 90 days"]),
    ],
)
def test_the_inactive_rule_reads_only_what_the_server_sent(
    fields: dict[str, Any], words: list[str]
) -> None:
    [person] = hub_people([hub_user(**fields)], [])
    assert person.marks(NOW) == words


def test_inactive_after_is_a_setting() -> None:
    [person] = hub_people([hub_user(LastWebLogin="2026-10-01T12:00:00Z")], [])
    assert person.marks(NOW) == []
    assert person.marks(NOW, inactive_after=30) == ["inactive 55 days"]
    assert person.is_inactive(NOW, 30)
    assert not person.is_inactive(NOW, 90)


def test_an_unreadable_date_is_kept_as_sent_and_never_made_now() -> None:
    user = hub_user(LastWebLogin="not a date", LastAddinLogin=None)
    assert user.last_web_login == "not a date"
    assert user.as_sent()["LastWebLogin"] == "not a date"
    assert user.as_sent()["LastAddinLogin"] is None
    assert "LastHubProjectActivity" not in user.as_sent()  # absent stays absent
    assert last_seen(user).moment is None


def test_one_person_across_hub_users_and_projects_whatever_the_case_of_the_email() -> None:
    people = hub_people(
        [hub_user(Email="Ann.Lee@Example.com", LastWebLogin="2026-11-24T00:00:00Z")],
        [
            member(1, "Editor", "ann.lee@example.com"),
            member(2, "Reader", " ANN.LEE@example.com", limited=True),
            member(2, "Admin", "only.here@example.com"),
        ],
    )
    assert [p.email for p in people] == ["Ann.Lee@Example.com", "only.here@example.com"]
    ann, other = people
    assert ann.projects_words() == "2 (Editor 1, LIMITED 1)"
    assert ann.projects_words(short=True) == "2 Editor, LIMITED"
    assert other.projects_words() == "1 (Admin 1)"
    assert other.projects_words(short=True) == "1 Admin"
    (limited,) = hub_people(None, [member(2, "Reader", "lim@example.com", limited=True)])
    assert (limited.projects_words(), limited.projects_words(short=True)) == (
        "1 (LIMITED 1)",
        "1 LIMITED",
    )
    (nowhere,) = hub_people([hub_user(Email="no.projects@example.com")], [])
    assert (nowhere.projects_words(), nowhere.projects_words(short=True)) == ("0", "0")
    assert ann.marks(NOW) == ["limited reader @example.com"]
    assert other.hub_user is None
    assert other.marks(NOW) == []  # not among the hub's users: nothing is said of sign-ins
    assert other.seen is None


async def read(store: DemoStore, faults: Faults | None = None) -> Any:
    transport = httpx.ASGITransport(app=create_app(store, faults))
    async with HubClient("http://localhost", token=DEMO_TOKEN, transport=transport) as client:
        hub = await client.get_hub_by_name("acme-build")
        return await read_hub_people(client, hub)


async def test_the_demo_hub_joins_its_users_and_its_projects_and_fills_the_matrix() -> None:
    answer = await read(DemoStore())
    assert answer.complete
    emails = [p.email for p in answer.people]
    assert len(emails) == len({e.casefold() for e in emails})  # one row a person
    assert "priya.patel@northwind-eng.com" not in emails  # a person of another hub
    matrix = access_matrix(answer)
    assert [p.name for p in matrix.projects] == [
        "Harbour Bridge Retrofit",
        "Québec Office Tower",
        "Depot 7 Fit-out",
    ]
    cells = {person.email: row for person, row in matrix.rows}
    assert cells["grace.osei@northwind-eng.com"][0] == "LIMITED"
    assert cells["aiko.tanaka@acme-build.com"] == ["Editor", "", "Admin"]
    marks = {p.email: p.marks(NOW) for p in answer.people}
    assert NOT_ACCEPTED in marks["hamid.karimi@northwind-eng.com"]
    assert NEVER_SIGNED_IN in marks["diego.garcia@acme-build.com"]


async def test_without_hub_users_the_project_people_stay_and_what_lacks_is_said() -> None:
    answer = await read(DemoStore(), Faults(no_hub_users=True))
    assert answer.hub_users_missing == "this server does not list a hub's users"
    assert not answer.complete
    assert "the hub's users were not read" in answer.incomplete_words()
    assert len(answer.people) == 13
    assert all(p.hub_user is None for p in answer.people)
    assert all(p.marks(NOW) == [] or "limited" in p.marks(NOW)[0] for p in answer.people)


@pytest.mark.parametrize(
    ("days", "words"),
    [(0, "today"), (1, "1 day ago"), (44, "44 days ago"), (45, "1 month ago"),
     (100, "3 months ago"), (547, "18 months ago"), (800, "2 years ago")],
)  # fmt: skip
def test_how_long_ago_is_said(days: int, words: str) -> None:
    from hubtui.core.presenting.words import ago

    assert ago(days) == words


@pytest.mark.parametrize("sent", [12345, [2026, 1, 1], {"at": "2026-01-01"}, True, "", "\x1b[2J"])
def test_a_date_of_any_other_kind_is_unknown_and_costs_nobody_their_row(sent: object) -> None:
    user = hub_user(LastWebLogin=sent, LastAddinLogin="2026-11-24T00:00:00Z")
    [person] = hub_people([user], [])
    assert person.marks(NOW) == ["last sign-in unknown"]
    assert person.seen is not None
    assert person.seen.unknown


def test_a_date_of_another_kind_stays_as_sent_in_json() -> None:
    user = hub_user(LastWebLogin=12345, LastAddinLogin=None)
    assert user.as_sent()["LastWebLogin"] == 12345
    assert user.as_sent()["LastAddinLogin"] is None


def test_a_matrix_row_as_csv_guards_its_filled_cells_and_leaves_the_rest_empty() -> None:
    """The access matrix streams as CSV (``hubtui access --format csv``): each filled cell is
    made inert (a hidden control shown as such) and never a formula; the empty ones, nearly
    all at a firm's scale, stay empty."""
    from hubtui.core.people.hub import MatrixRow

    row = MatrixRow(5, {1: '=HYPERLINK("http://evil")', 3: "Editor\u202e", 4: "LIMITED"})
    assert row.csv_row(["a@b.example"]).cells() == [
        "a@b.example",
        "",
        '\'=HYPERLINK("http://evil")',
        "",
        "Editor<U+202E>",
        "LIMITED",
    ]
    assert list(row) == ["", '=HYPERLINK("http://evil")', "", "Editor\u202e", "LIMITED"]


async def test_people_so_far_come_with_the_projects_answered_while_one_is_still_read() -> None:
    """While one project's users are still on their way, the hub's people are told as soon as
    the hub's list is read and again as more projects answer, each time joined with the
    projects that have answered, with the progress that counts them; the answer at the end
    holds every project."""
    import asyncio

    store = DemoStore()
    inner = create_app(store, Faults())
    held = asyncio.Event()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"].endswith("/projects/1001/users"):
            await held.wait()  # this project answers when the test says so
        await inner(scope, receive, send)

    told: list[tuple[list[Any], int, int]] = []  # the people, projects read, projects in all

    def so_far(people: list[Any], progress: Any) -> None:
        if progress is None:  # no project has answered yet
            told.append((people, 0, 0))
        else:
            told.append((people, progress.projects_done, progress.projects_total))

    transport = httpx.ASGITransport(app=app)
    async with HubClient("http://localhost", token=DEMO_TOKEN, transport=transport) as client:
        hub = await client.get_hub_by_name("acme-build")
        reading = asyncio.create_task(read_hub_people(client, hub, on_so_far=so_far))
        for _ in range(100):
            await asyncio.sleep(0.05)
            if any(done == total - 1 > 0 for _, done, total in told):
                break
        held.set()
        answer = await reading
    people, done, total = told[-1]  # told while one project was still held, never after
    assert done == total - 1  # every project but the one held
    projects_so_far = {p.id for person in people for p, _ in person.memberships}
    assert projects_so_far == {1002, 1003}  # the two that answered, not 1001
    assert {p.email for p in people} <= {p.email for p in answer.people}
    assert 1001 in {p.id for person in answer.people for p, _ in person.memberships}


async def test_people_so_far_wait_while_those_told_before_are_not_taken_in() -> None:
    """A screen still indexing the people it was told is not told more: the reading goes on,
    and the people so far are told again once it has taken them in."""
    import asyncio

    store = DemoStore()
    inner = create_app(store, Faults())
    held = asyncio.Event()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"].endswith("/projects/1001/users"):
            await held.wait()
        await inner(scope, receive, send)

    told: list[int] = []
    taken_in = False

    def so_far(people: list[Any], progress: Any) -> None:
        told.append(0 if progress is None else progress.projects_done)

    transport = httpx.ASGITransport(app=app)
    async with HubClient("http://localhost", token=DEMO_TOKEN, transport=transport) as client:
        hub = await client.get_hub_by_name("acme-build")
        reading = asyncio.create_task(
            read_hub_people(client, hub, on_so_far=so_far, so_far_wanted=lambda: taken_in)
        )
        await asyncio.sleep(1.5)  # a telling's time and more: none while none was taken in
        assert told == []
        taken_in = True
        for _ in range(60):
            await asyncio.sleep(0.05)
            if told:
                break
        held.set()
        await reading
    assert told  # told once the screen could take them in


def test_a_person_sent_the_same_by_the_hub_and_a_project_is_held_once_and_printed_as_sent() -> None:
    """A firm's 100,000 people each come in the hub's users and in a project's: the same
    summary sent the same way is one object (70 MB held once, not twice); one sent otherwise
    (another name, a field more or less) stays its own, and each record prints as it was sent."""
    ann = hub_user(Email="ann@example.com")
    _, same = member(1001, "Editor", "ann@example.com")
    sent_before = same.as_sent()
    project, other = member(1002, "Reader", "ann@example.com")
    renamed = ProjectUser.model_validate(
        {"User": {"Id": 7, "Email": "ann@example.com", "FirstName": "Ann"}, "Role": "Viewer"}
    )
    (person,) = hub_people([ann], [(project, same), (project, other), (project, renamed)])
    assert same.user is ann.user
    assert other.user is ann.user
    assert renamed.user is not ann.user  # a name sent here and not there: its own
    assert same.as_sent() == sent_before
    assert renamed.as_sent()["User"] == {"Id": 7, "Email": "ann@example.com", "FirstName": "Ann"}
    assert len(person.memberships) == 3


def test_people_joined_as_memberships_arrive_are_those_joined_at_once_and_those_told_stay() -> None:
    """The people told while a firm's projects are read are joined a few memberships at a
    time: the same people, in the same order, with the same projects, as one join of them all;
    and a person told before keeps the projects they were told with."""
    users = [
        hub_user(Id=1, Email="Ann@example.com", LastWebLogin="2026-11-24T00:00:00Z"),
        hub_user(Id=2, Email="ann@example.com"),  # another account of the same address
        hub_user(Id=1, Email="Ann@example.com"),  # the same account sent twice
        hub_user(Id=3, Email=None),  # no address: by their Id
    ]

    def as_member(project_id: int, role: str, user_id: int, email: str | None) -> Any:
        project = Project.model_validate({"Id": project_id, "Name": f"P{project_id}"})
        user = ProjectUser.model_validate(
            {"User": {"Id": user_id, "Email": email}, "Role": role, "IsLimited": False}
        )
        return project, user

    memberships = [
        as_member(1, "Editor", 1, "ann@example.com"),
        as_member(1, "Reader", 2, "ann@example.com"),
        as_member(1, "Admin", 9, "only.here@example.com"),
        as_member(2, "Reader", 3, None),
        as_member(2, "Editor", 1, "renamed@example.com"),  # the hub's account, a new address
        as_member(3, "Admin", 9, "only.here@example.com"),
        as_member(3, "Reader", 1, "ann@example.com"),
    ]

    def seen(people: list[Any]) -> list[tuple[str, str, int | None, list[tuple[int, str]]]]:
        return [
            (
                p.key,
                p.email,
                None if p.hub_user is None else p.hub_user.user.id,
                [(project.id, user.role) for project, user in p.memberships],
            )
            for p in people
        ]

    at_once = seen(hub_people(users, memberships))
    join = PeopleJoin(users)
    told = []
    for start, end in [(0, 0), (0, 2), (2, 3), (3, 3), (3, 6), (6, 7)]:
        join.add(memberships[start:end])
        people = join.people()
        told.append((people, seen(people)))
    assert told[-1][1] == at_once
    assert [row[0] for row in at_once] == [
        "ann@example.com",
        "ann@example.com (Id 2)",
        "id:3",
        "only.here@example.com",
        "renamed@example.com",
    ]
    for people, as_told in told:  # each as it was told, whatever was joined after
        assert seen(people) == as_told
    assert told[1][1][0][3] == [(1, "Editor")]  # Ann as told after two memberships


@pytest.mark.parametrize(
    ("fields", "counted_from"),
    [
        (
            {"LastAddinLogin": "2026-11-01T00:00:00Z", "LastWebLogin": "2026-10-01T00:00:00Z"},
            "their last add-in sign-in, 2026-11-01",
        ),
        # The same moment twice: one rule names it, whichever field it came in first.
        (
            {
                "LastHubProjectActivity": "2026-11-01T00:00:00Z",
                "LastAddinLogin": "2026-11-01T00:00:00+00:00",
            },
            "their last activity in the hub, 2026-11-01",
        ),
        (
            {"LastAddinLogin": "2026-11-01T01:00:00+01:00", "LastHubProjectActivity": None},
            "their last add-in sign-in, 2026-11-01",
        ),
        ({"LastWebLogin": None}, "never"),
    ],
)
def test_what_a_last_sign_in_is_counted_from_is_the_latest_date_sent(
    fields: dict[str, Any], counted_from: str
) -> None:
    assert last_seen(hub_user(**fields)).counted_from() == counted_from


@pytest.mark.parametrize(
    "fields",
    [
        {"LastWebLogin": "2026-11-20T10:00:00Z", "LastAddinLogin": "2026-11-21T10:00:00+02:00"},
        {"LastWebLogin": " 2026-11-20T10:00:00.1234567Z ", "IsActivated": True},
        {"LastHubProjectActivity": "2026-11-20T10:00:00", "IsActivated": False},  # no offset
        {"LastWebLogin": "last Tuesday", "LastAddinLogin": 20261120},  # no date: unknown
        {"LastWebLogin": "0001-01-01T00:00:00+14:00"},  # no moment in UTC
        {"LastWebLogin": "2999-01-01T00:00:00Z"},  # the future
        {"last_web_login": "2026-10-01T00:00:00Z", "LastWebLogin": None},  # both names sent
        {"last_addin_login": "2026-10-01T00:00:00Z"},  # the record's own name
        {},
    ],
)
def test_a_hub_user_read_as_sent_is_judged_as_its_typed_record_is(fields: dict[str, Any]) -> None:
    """A campaign reads a firm's 100,000 hub users without validating each: their last
    sign-in, the field it is from, and the invitation come out as the typed record's."""
    sent = {"User": {"Id": 7, "Email": "a.b@example.com"}, "Role": "Guest", **fields}
    typed = HubUser.model_validate(sent)
    signed_in = hub_user_signed_in(sent)
    assert signed_in is not None
    assert last_seen(signed_in, datetime.now(UTC)) == last_seen(typed)
    assert signed_in.is_activated == typed.is_activated
    record = signed_in.record(7)  # the record why's table is given on a kind's first row
    assert record is not None
    assert (last_seen(record), record.is_activated) == (last_seen(typed), typed.is_activated)


@pytest.mark.parametrize(
    ("sent", "moment"),
    [
        ("2026-11-26T00:00:00Z", datetime(2026, 11, 26, tzinfo=UTC)),  # within a day's slack
        ("2026-11-26T02:00:00+02:00", datetime(2026, 11, 26, tzinfo=UTC)),
        ("2026-11-26T00:00:00", datetime(2026, 11, 26, tzinfo=UTC)),  # no offset: UTC
        ("2026-11-27T12:00:01Z", None),  # past the slack: unknown, never "today"
        ("2026-11-27T14:00:01+02:00", None),
    ],
)
def test_a_date_ahead_of_the_clock_is_read_within_the_slack_and_unknown_past_it(
    sent: str, moment: datetime | None
) -> None:
    clock = datetime(2026, 11, 25, 12, tzinfo=UTC)
    signed_in = hub_user_signed_in({"LastWebLogin": sent})
    assert signed_in is not None
    seen = last_seen(signed_in, clock)
    assert seen.moment == moment
    assert seen.unreadable == (() if moment is not None else ("LastWebLogin",))
    assert seen.moment is None or seen.moment.utcoffset() == timedelta(0)
