"""The demo API's deterministic store: hubs, projects, users and whitelisted email domains.

One idea: the demo's showcase and filler data, built deterministically in one place.

The showcase part is the same for every seed; the filler (``DemoSize``) follows the seed.
Nothing here knows HTTP or the client: the server turns these records into wire JSON.
"""

from __future__ import annotations

import random
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

ROLES = ("Reader", "Editor", "Admin")
HUB_ROLES = ("Guest", "Admin")
LIMITED = "Limited"
DEMO_TOKEN = "demo-token"
EMAIL_PATTERN = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


@dataclass(frozen=True)
class Region:
    key: str
    location: str
    path: str
    """Where the region's API lives below the server's origin ('' for the home region)."""


REGIONS = {
    "us": Region("us", "US East", ""),
    "eu": Region("eu", "EU West (Ireland)", "/regions/eu"),
}


@dataclass
class DemoUser:
    id: int
    user_name: str
    email: str
    first_name: str
    last_name: str

    @property
    def domain(self) -> str:
        return self.email.rsplit("@", 1)[1].lower()


@dataclass
class Membership:
    role: str
    is_reviewer: bool = False
    teams: list[tuple[int, str]] | None = field(default_factory=list)
    default_filter_template_id: int | None = None


@dataclass
class DemoProject:
    id: int
    name: str
    number: str
    status: str
    access: str
    created: datetime
    start: datetime | None
    end: datetime | None
    author_id: int
    members: dict[int, Membership] = field(default_factory=dict)
    subscription_expired: bool = False
    """Its users are refused with 409 ``EXPIRED_SUBSCRIPTION``, as the public service does."""


@dataclass
class DemoHub:
    id: str
    name: str
    display_name: str | None
    author_id: int
    created: datetime
    region: str
    whitelisted_domains: tuple[str, ...] = ()
    sso_restricted: bool = False
    tenant_id: str | None = None
    tenant_domain: str | None = None
    user_ids: list[int] = field(default_factory=list)
    projects: dict[int, DemoProject] = field(default_factory=dict)


@dataclass
class HubAccess:
    """A person's access to a hub itself: the hub role, the invitation, when last seen."""

    role: str
    """``Guest`` or ``Admin``."""
    activated: bool
    web_login: datetime | None
    addin_login: datetime | None
    project_activity: datetime | None


@dataclass(frozen=True)
class DemoSize:
    """How much filler to generate beside the showcase (large values are for benchmarks)."""

    seed: int = 0
    hubs: int = 4
    projects_per_hub: int = 3
    users_per_project: int = 8
    big_project_users: int = 0
    """When above 0, a hub ``load-test`` holds one project with this many users."""
    people_per_hub: int = 0
    """When above 0, each generated project's users are drawn from this many people of its hub
    (an access matrix of that many people × its projects); else a new person each time."""


class DemoConflict(Exception):
    """A change the store refuses because of the current state."""


FIRST = (
    "Dana Aiko Björn Chloé Diego Émile Fatima Grace Hamid Ines Jonas Kai Lena Łukasz Mateo Nadia "
    "Olu Priya Quentin Rosa Søren Tomás Ulla Vera Wei Ximena Yusuf Zoë Ana Ben"
).split()
LAST = (
    "Whitfield Tanaka Lindqvist Moreau García Dubois Rahman Osei Karimi Nunes Berg Nakamura "
    "Fischer Kowalski Rossi Haddad Adeyemi Patel Girard Silva Jensen Ortega Virtanen Novak Zhang "
    "Ruiz Demir Okafor Costa Byrne"
).split()
COMPANY = (
    "Granite Harbor Summit Ironwood Bluewater Cedar Meridian Northgate Redstone Silverline "
    "Keystone Oakridge Lakeshore Pinnacle Riverbend Stonebridge Westfield Highland Copperleaf"
).split()
KIND = "Builders Construction Engineering Infrastructure Developments Contractors Partners".split()
PLACE = (
    "Québec Montréal Zürich Malmö Kraków Göteborg Łódź Porto Aarhus Bergen Lyon Sevilla Tromsø "
    "Gdańsk Köln Nantes Turku Bilbao Tampere Genève"
).split()
WORK = (
    "Office Tower,Hospital Wing,Rail Depot,Bridge Deck,School Campus,Data Centre,Water Works,"
    "Metro Station,Housing Block,Logistics Hub,Parking Structure,Library Renovation"
).split(",")
TEAMS = ((1, "Structural"), (2, "MEP"), (3, "Architecture"), (4, "Site Management"))
STATUSES = ("Active", "Active", "Active", "Planning", "Completed", "Archived")
BASE_DATE = datetime(2026, 10, 1, 9, 0, tzinfo=UTC)
#: The latest sign-in or project activity of any hub user (the demo's "recently").
SEEN_UNTIL = datetime(2026, 11, 20, 17, 0, tzinfo=UTC)


class DemoStore:
    """Everything the demo API serves, built deterministically from a :class:`DemoSize`."""

    def __init__(self, size: DemoSize | None = None) -> None:
        self.size = size or DemoSize()
        self.users: dict[int, DemoUser] = {}
        self.hubs: dict[str, DemoHub] = {}
        self._hub_by_name: dict[str, DemoHub] = {}
        self._user_by_email: dict[str, DemoUser] = {}
        self._next_user = 1
        self._email_suffix: dict[str, int] = {}
        self._next_project = 1001
        self.creates = 0
        self.updates = 0
        self.removes = 0
        #: Each hub user's access to the hub itself, made when first asked (deterministic).
        self._hub_access: dict[tuple[str, int], HubAccess] = {}
        #: While the data is built: each hub's user ids as a set (see ``_join``).
        self._joined: dict[str, set[int]] = {}
        self._build_showcase(random.Random("showcase"))
        self._build_filler(random.Random(self.size.seed))

    # Queries ----------------------------------------------------------------------------------

    def hub_by_name(self, name: str) -> DemoHub | None:
        """The hub whose URL name is ``name``; display names are never matched."""
        return self._hub_by_name.get(name)

    def user_by_email(self, email: str) -> DemoUser | None:
        return self._user_by_email.get(email.lower())

    def limited_reader_ids(self, hub: DemoHub, project: DemoProject) -> list[int]:
        """Hub users from a whitelisted domain who are not members, in a ``Limited`` project."""
        if project.access != LIMITED or not hub.whitelisted_domains:
            return []
        domains = set(hub.whitelisted_domains)
        return [
            uid
            for uid in hub.user_ids
            if uid not in project.members and self.users[uid].domain in domains
        ]

    def project_users(
        self, hub: DemoHub, project: DemoProject
    ) -> list[tuple[DemoUser, Membership | None]]:
        """Members with their membership, then limited readers (membership None)."""
        rows: list[tuple[DemoUser, Membership | None]] = [
            (self.users[uid], m) for uid, m in project.members.items()
        ]
        rows.extend((self.users[uid], None) for uid in self.limited_reader_ids(hub, project))
        return rows

    def hub_access(self, hub: DemoHub, user_id: int) -> HubAccess:
        """A hub user's hub role and activity: the hub's author an admin, a few other admins
        (some of them admins of no project), one in ten never signed in, one in fifteen whose
        invitation was never accepted, sign-ins spread over the two years before the data's
        date. The same for every run."""
        key = (hub.id, user_id)
        found = self._hub_access.get(key)
        if found is None:
            found = self._hub_access[key] = _made_access(hub, self.users[user_id])
        return found

    def hub_users(self, hub: DemoHub) -> list[tuple[DemoUser, HubAccess]]:
        return [(self.users[uid], self.hub_access(hub, uid)) for uid in hub.user_ids]

    # Changes ----------------------------------------------------------------------------------

    def invite(self, hub: DemoHub, *, email: str, role: str) -> tuple[DemoUser, HubAccess]:
        """Invite a person to the hub: a hub user whose invitation is not accepted yet."""
        user = self.user_by_email(email)
        if user is not None and user.id in hub.user_ids:
            raise DemoConflict(f"{email} is already a user of this hub")
        if user is None:
            user = self._user_named_by(email)
        hub.user_ids.append(user.id)
        access = HubAccess(role, False, None, None, None)
        self._hub_access[hub.id, user.id] = access
        self.creates += 1
        return user, access

    def set_hub_role(self, hub: DemoHub, user_id: int, role: str) -> HubAccess:
        if user_id not in hub.user_ids:
            raise DemoConflict("the user is not a user of this hub")
        access = self.hub_access(hub, user_id)
        access.role = role
        self.updates += 1
        return access

    def remove_from_hub(self, hub: DemoHub, user_id: int) -> None:
        """Out of the hub, and so out of every project of it."""
        if user_id not in hub.user_ids:
            raise DemoConflict("the user is not a user of this hub")
        hub.user_ids.remove(user_id)
        for project in hub.projects.values():
            project.members.pop(user_id, None)
        self._hub_access.pop((hub.id, user_id), None)
        self.removes += 1

    def add_member(
        self, hub: DemoHub, project: DemoProject, *, email: str, role: str, is_reviewer: bool
    ) -> tuple[DemoUser, Membership]:
        """Add a direct member by email; a limited reader who is added becomes a member."""
        user = self.user_by_email(email)
        if user is not None and user.id in project.members:
            raise DemoConflict(f"{email} is already a direct member of this project")
        if user is None:
            user = self._user_named_by(email)
        if user.id not in hub.user_ids:
            hub.user_ids.append(user.id)
        membership = Membership(role=role, is_reviewer=is_reviewer, teams=[])
        project.members[user.id] = membership
        self.creates += 1
        return user, membership

    def update_member(
        self,
        hub: DemoHub,
        project: DemoProject,
        user_id: int,
        *,
        role: str,
        is_reviewer: bool | None,
    ) -> Membership:
        """Change a direct member's role; a limited reader is refused."""
        membership = project.members.get(user_id)
        if membership is None:
            raise DemoConflict("the user is not a direct member of this project")
        membership.role = role
        if is_reviewer is not None:
            membership.is_reviewer = is_reviewer
        self.updates += 1
        return membership

    # Building ---------------------------------------------------------------------------------

    def _user_named_by(self, email: str) -> DemoUser:
        """A new user for an email seen for the first time, named after it (jo.ng@… → Jo Ng)."""
        local = email.split("@", 1)[0]
        first, _, last = local.replace("_", ".").partition(".")
        return self._new_user(first.capitalize(), last.capitalize(), email)

    def _new_user(self, first: str, last: str, email: str) -> DemoUser:
        uid = self._next_user
        self._next_user += 1
        user_name = str(uuid.UUID(int=(uid * 0x9E3779B97F4A7C15) % (1 << 128), version=4))
        user = DemoUser(uid, user_name, email, first, last)
        self.users[uid] = user
        self._user_by_email[email.lower()] = user
        return user

    def _add_hub(self, hub: DemoHub) -> DemoHub:
        self.hubs[hub.id] = hub
        self._hub_by_name[hub.name] = hub
        return hub

    def _add_project(
        self, hub: DemoHub, rng: random.Random, name: str, *, access: str, status: str = "Active"
    ) -> DemoProject:
        pid = self._next_project
        self._next_project += 1
        created = BASE_DATE - timedelta(days=rng.randint(30, 900), minutes=rng.randint(0, 1439))
        project = DemoProject(
            id=pid,
            name=name,
            number=f"P-{pid}",
            status=status,
            access=access,
            created=created,
            start=created + timedelta(days=14),
            end=created + timedelta(days=rng.randint(200, 900)) if status != "Planning" else None,
            author_id=hub.author_id,
        )
        hub.projects[pid] = project
        return project

    def _join(
        self,
        hub: DemoHub,
        project: DemoProject,
        user: DemoUser,
        role: str,
        *,
        reviewer: bool = False,
        teams: Sequence[tuple[int, str]] | None = (),
    ) -> None:
        # A set beside the list, made again when the list was changed elsewhere: a hub of
        # 50,000 users is built in a second, not in minutes of list scans.
        known = self._joined.get(hub.id)
        if known is None or len(known) != len(hub.user_ids):
            known = self._joined[hub.id] = set(hub.user_ids)
        if user.id not in known:
            hub.user_ids.append(user.id)
            known.add(user.id)
        project.members[user.id] = Membership(
            role=role,
            is_reviewer=reviewer,
            teams=None if teams is None else list(teams),
            default_filter_template_id=None,
        )

    def _person(self, rng: random.Random, domain: str) -> DemoUser:
        first, last = rng.choice(FIRST), rng.choice(LAST)
        local = f"{_ascii(first)}.{_ascii(last)}".lower()
        email = base = f"{local}@{domain}"
        while email in self._user_by_email:
            n = self._email_suffix[base] = self._email_suffix.get(base, 1) + 1
            email = f"{local}{n}@{domain}"
        return self._new_user(first, last, email)

    def _build_showcase(self, rng: random.Random) -> None:
        acme_staff = self._build_acme(rng)
        nordic, malmo = self._build_other_hubs(rng, acme_staff)
        self._build_triage_showcase(rng, nordic, malmo)

    def _build_acme(self, rng: random.Random) -> list[DemoUser]:
        """acme-build, every case the app shows: its staff, a partner domain's member and
        limited readers, an outsider, a name made of markup and terminal control."""
        acme_staff = [
            self._new_user("Dana", "Whitfield", "dana.whitfield@acme-build.com"),
            self._new_user("Aiko", "Tanaka", "aiko.tanaka@acme-build.com"),
            self._new_user("Björn", "Lindqvist", "bjorn.lindqvist@acme-build.com"),
            self._new_user("Chloé", "Moreau", "chloe.moreau@acme-build.com"),
            self._new_user("Diego", "García", "diego.garcia@acme-build.com"),
        ]
        # Server data that would be markup or terminal control if it were not shown literally.
        tricky = self._new_user(
            "[bold]Eve[/bold]", "O'Neil\x1b[2J\x1b]0;pwned\x07", "eve@acme-build.com"
        )
        partner_member = self._new_user("Fatima", "Rahman", "fatima.rahman@northwind-eng.com")
        partners = [
            self._new_user("Grace", "Osei", "grace.osei@northwind-eng.com"),
            self._new_user("Hamid", "Karimi", "hamid.karimi@northwind-eng.com"),
            self._new_user("Ines", "Nunes", "ines.nunes@northwind-eng.com"),
            self._new_user("Jonas", "Berg", "jonas.berg@northwind-eng.com"),
            self._new_user("Kai", "Nakamura", "kai.nakamura@northwind-eng.com"),
        ]
        outsider = self._new_user("Lena", "Fischer", "lena.fischer@example-mail.com")

        acme = self._add_hub(
            DemoHub(
                id="7d1f0c3e-4b8a-4f6e-9a51-acme00000001",
                name="acme-build",
                display_name="ACME Construction Group",
                author_id=acme_staff[0].id,
                created=datetime(2023, 3, 14, 8, 30, tzinfo=UTC),
                region="us",
                whitelisted_domains=("northwind-eng.com",),
                sso_restricted=True,
                tenant_id="0b9f6c2a-1d3e-4f5a-8b7c-6d5e4f3a2b1c",
                tenant_domain="acme-build.com",
            )
        )
        for user in (*partners, outsider):
            acme.user_ids.append(user.id)
        bridge = self._add_project(acme, rng, "Harbour Bridge Retrofit", access=LIMITED)
        self._join(acme, bridge, acme_staff[0], "Admin", reviewer=True, teams=[TEAMS[3]])
        self._join(acme, bridge, acme_staff[1], "Editor", teams=[TEAMS[0]])
        self._join(acme, bridge, acme_staff[2], "Editor", reviewer=True, teams=[TEAMS[0], TEAMS[1]])
        self._join(acme, bridge, acme_staff[3], "Reader", teams=None)
        self._join(acme, bridge, acme_staff[4], "Reader")
        self._join(acme, bridge, tricky, "Reader")
        self._join(acme, bridge, partner_member, "Editor", teams=[TEAMS[2]])
        tower = self._add_project(acme, rng, "Québec Office Tower", access="Private")
        self._join(acme, tower, acme_staff[0], "Admin")
        self._join(acme, tower, acme_staff[3], "Editor", reviewer=True)
        self._join(acme, tower, acme_staff[4], "Reader")
        self._join(acme, tower, outsider, "Reader")
        depot = self._add_project(acme, rng, "Depot 7 Fit-out", access=LIMITED, status="Completed")
        self._join(acme, depot, acme_staff[1], "Admin")
        self._join(acme, depot, partners[0], "Reader")
        return acme_staff

    def _build_other_hubs(
        self, rng: random.Random, acme_staff: list[DemoUser]
    ) -> tuple[DemoHub, DemoProject]:
        """riverside-infra (no DisplayName), nordic-rail (limited readers of a partner domain)
        and skyline-dev (a DisplayName of markup); nordic-rail and its project returned."""
        river = self._add_hub(
            DemoHub(
                id="3c9e8f10-2a6b-4d7c-b1e2-river0000002",
                name="riverside-infra",
                display_name=None,
                author_id=acme_staff[1].id,
                created=datetime(2024, 6, 2, 13, 5, tzinfo=UTC),
                region="eu",
            )
        )
        for name in ("Kraków Water Works", "Riverside Flood Barrier"):
            project = self._add_project(river, rng, name, access="Private")
            for role in ("Admin", "Editor", "Reader", "Reader"):
                self._join(river, project, self._person(rng, "riverside-infra.eu"), role)

        nordic = self._add_hub(
            DemoHub(
                id="a42b7e91-5c3d-4e8f-9d06-nordic000003",
                name="nordic-rail",
                display_name="Nordic Rail Alliance",
                author_id=acme_staff[2].id,
                created=datetime(2025, 1, 20, 7, 45, tzinfo=UTC),
                region="eu",
                whitelisted_domains=("trafikverket-partner.se",),
            )
        )
        malmo = self._add_project(nordic, rng, "Malmö Central Platform 4", access=LIMITED)
        for role in ("Admin", "Editor", "Editor", "Reader"):
            self._join(nordic, malmo, self._person(rng, "nordic-rail.se"), role)
        for _ in range(4):
            nordic.user_ids.append(self._person(rng, "trafikverket-partner.se").id)

        skyline = self._add_hub(
            DemoHub(
                id="e5d4c3b2-a190-4f8e-8d7c-skyline00004",
                name="skyline-dev",
                display_name="[i]Skyline[/i] Developments",
                author_id=acme_staff[3].id,
                created=datetime(2025, 9, 9, 16, 0, tzinfo=UTC),
                region="us",
            )
        )
        loft = self._add_project(skyline, rng, "Göteborg Loft Conversion", access="Private")
        for role in ("Admin", "Reader"):
            self._join(skyline, loft, self._person(rng, "skyline.dev"), role)
        return nordic, malmo

    def _build_triage_showcase(
        self, rng: random.Random, nordic: DemoHub, malmo: DemoProject
    ) -> None:
        """A person worth searching for across projects (``w``), and a project that answers 409.

        Priya Patel (northwind-eng.com) is an Admin in one project, an Editor in another, a limited
        reader in three (Nordic Rail whitelists her domain) and absent from every other project.
        Built last, so that the data before it stays the same for every seed.
        """
        priya = self._new_user("Priya", "Patel", "priya.patel@northwind-eng.com")
        nordic.whitelisted_domains = (*nordic.whitelisted_domains, "northwind-eng.com")
        nordic.user_ids.append(priya.id)
        del malmo  # already Limited: she reads it as a limited reader
        for name in ("Lund Signal Upgrade", "Oslo Freight Link"):
            project = self._add_project(nordic, rng, name, access=LIMITED)
            for role in ("Admin", "Editor", "Reader"):
                self._join(nordic, project, self._person(rng, "nordic-rail.se"), role)
        for name, role in (("Trondheim Yard Expansion", "Admin"), ("Uppsala Depot", "Editor")):
            project = self._add_project(nordic, rng, name, access="Private")
            self._join(nordic, project, priya, role, reviewer=role == "Editor", teams=[TEAMS[3]])
            for other in ("Editor", "Reader"):
                self._join(nordic, project, self._person(rng, "nordic-rail.se"), other)
        expired = self._add_project(
            nordic, rng, "Bergen Tunnel Survey", access=LIMITED, status="Archived"
        )
        expired.subscription_expired = True
        self._join(nordic, expired, self._person(rng, "nordic-rail.se"), "Admin")

    def _build_filler(self, rng: random.Random) -> None:
        size = self.size
        pools: dict[str, list[DemoUser]] = {}
        for n in range(size.hubs):
            company = f"{rng.choice(COMPANY)} {rng.choice(KIND)}"
            name = f"{_slug(company)}-{n + 1}"
            domain = f"{_slug(company)}.example"
            partner = f"partner{n + 1}.example"
            hub = self._add_hub(
                DemoHub(
                    id=str(uuid.UUID(int=rng.getrandbits(128), version=4)),
                    name=name,
                    display_name=company if rng.random() < 0.7 else None,
                    author_id=0,
                    created=BASE_DATE - timedelta(days=rng.randint(1, 1500)),
                    region="us" if n % 2 == 0 else "eu",
                    whitelisted_domains=(partner,) if rng.random() < 0.5 else (),
                )
            )
            for p in range(size.projects_per_hub):
                access = LIMITED if hub.whitelisted_domains and p == 0 else "Private"
                project = self._add_project(
                    hub,
                    rng,
                    f"{rng.choice(PLACE)} {rng.choice(WORK)}",
                    access=access,
                    status=rng.choice(STATUSES),
                )
                pool = pools.get(hub.id)
                if pool is None:  # the hub's people, made once (not again for each project)
                    pool = pools[hub.id] = [
                        self._person(rng, domain) for _ in range(size.people_per_hub)
                    ]
                drawn = rng.sample(pool, min(len(pool), size.users_per_project)) if pool else None
                for u in range(size.users_per_project if drawn is None else len(drawn)):
                    role = "Admin" if u == 0 else rng.choice(("Reader", "Reader", "Editor"))
                    teams = [rng.choice(TEAMS)] if rng.random() < 0.5 else None
                    user = self._person(rng, domain) if drawn is None else drawn[u]
                    self._join(hub, project, user, role, reviewer=rng.random() < 0.2, teams=teams)
            for _ in range(2 if hub.whitelisted_domains else 0):
                hub.user_ids.append(self._person(rng, partner).id)
            hub.author_id = hub.user_ids[0] if hub.user_ids else 1
            for project in hub.projects.values():
                project.author_id = hub.author_id
        if size.big_project_users:
            self._build_big_project(rng, size.big_project_users)

    def _build_big_project(self, rng: random.Random, count: int) -> None:
        hub = self._add_hub(
            DemoHub(
                id=str(uuid.UUID(int=rng.getrandbits(128), version=4)),
                name="load-test",
                display_name="Load Test Holdings",
                author_id=1,
                created=BASE_DATE - timedelta(days=10),
                region="us",
                whitelisted_domains=("loadtest-partner.example",),
            )
        )
        project = self._add_project(hub, rng, "Load Test Tower", access=LIMITED)
        limited = count // 10
        for u in range(count - limited):
            role = "Admin" if u == 0 else ("Reader", "Editor", "Reader")[u % 3]
            teams = [TEAMS[u % 4]] if u % 2 else None
            self._join(hub, project, self._person(rng, "loadtest.example"), role, teams=teams)
        for _ in range(limited):
            hub.user_ids.append(self._person(rng, "loadtest-partner.example").id)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", _ascii(text).lower()).strip("-")


_ASCII = str.maketrans(
    "áàâäãåçéèêëíìîïñóòôöõøúùûüýÿłśźżćńęąšžčřÁÀÂÄÃÅÇÉÈÊËÍÌÎÏÑÓÒÔÖÕØÚÙÛÜÝŁŚŹŻĆŃĘĄŠŽČŘ",
    "aaaaaaceeeeiiiinoooooouuuuyylszzcneaszcrAAAAAACEEEEIIIINOOOOOOUUUUYLSZZCNEASZCR",
)


def _ascii(text: str) -> str:
    return text.translate(_ASCII).replace("ß", "ss").replace("æ", "ae").replace("Æ", "AE")


def last_week() -> DemoStore:
    """The demo's data as it was a week ago: what ``hubtui --demo diff`` compares today with.

    Since then, Aiko Tanaka was promoted (Reader → Editor) and Ulla Berg removed from Harbour
    Bridge Retrofit, that project was switched from Private to Limited (the whitelisted domain's
    people became its limited readers), and Nordic Rail's DisplayName was changed.
    """
    store = DemoStore()
    acme = store.hub_by_name("acme-build")
    nordic = store.hub_by_name("nordic-rail")
    assert acme is not None
    assert nordic is not None
    bridge = next(p for p in acme.projects.values() if p.name == "Harbour Bridge Retrofit")
    bridge.access = "Private"
    aiko = store.user_by_email("aiko.tanaka@acme-build.com")
    assert aiko is not None
    bridge.members[aiko.id].role = "Reader"
    ulla = store._new_user("Ulla", "Berg", "ulla.berg@acme-build.com")
    acme.user_ids.append(ulla.id)
    bridge.members[ulla.id] = Membership(role="Editor", teams=[])
    nordic.display_name = "Nordic Rail Consortium"
    return store


def _made_access(hub: DemoHub, user: DemoUser) -> HubAccess:
    rng = random.Random(f"{hub.id}:{user.id}")
    if user.id == hub.author_id:
        role = "Admin"
    else:
        role = "Admin" if rng.random() < 0.06 else "Guest"
    draw = rng.random()
    if draw < 0.066 and user.id != hub.author_id:
        return HubAccess(role, False, None, None, None)  # invited, never accepted
    if draw < 0.16 and user.id != hub.author_id:
        return HubAccess(role, True, None, None, None)  # accepted, never signed in

    def seen() -> datetime:
        """Most recently (six in ten within 60 days), some months ago, a few up to two years."""
        share = rng.random()
        days = rng.randint(0, 60) if share < 0.6 else rng.randint(61, 365)
        if share >= 0.85:
            days = rng.randint(366, 730)
        return SEEN_UNTIL - timedelta(days=days, minutes=rng.randint(0, 1439))

    web = seen()
    addin = seen() if rng.random() < 0.5 else None
    activity = min(max(web, addin or web) + timedelta(hours=rng.randint(0, 48)), SEEN_UNTIL)
    return HubAccess(role, True, web, addin, activity)
