"""The next steps of a ticket, decided from the facts by one table: never guessed.

:func:`next_steps` takes what was read of a person in a hub and a project (:class:`Facts`) and
goes down :data:`TABLE`, a row a rule: each row that holds gives its step, with a stable code,
its words and, where there is one, the exact command (quoted for the shell). ``docs/design.md``
shows the table; ``tests/unit/test_advice.py`` goes through every row of it.

Two rules hold over the table: a cause the facts do not show is never given, and an address the
hub does not know is never offered to be added without saying first that nobody has it there,
and which of the hub's addresses are near it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from hubtui.api.identity import email_domain
from hubtui.core.access import person_key
from hubtui.core.changes.history import last_invitation
from hubtui.core.changes.kinds import Undo, kind_of
from hubtui.core.changes.operator import who_words
from hubtui.core.clock import minute
from hubtui.core.people.hub import INACTIVE_AFTER_DAYS
from hubtui.core.signins import LastSeen, last_seen
from hubtui.text import command_line, fold, inert, lookalike

if TYPE_CHECKING:
    from hubtui.api import Hub, Project, ProjectUser
    from hubtui.api.models import HubUser
    from hubtui.core.changes.record import Change

__all__ = [
    "AddToProject",
    "Advice",
    "Fix",
    "OpenAddress",
    "ResendInvitation",
    "RevertBatch",
    "TABLE",
    "Facts",
    "Former",
    "Kept",
    "NextStep",
    "ReviewNote",
    "near_accounts",
    "advice_of",
    "near_addresses",
    "next_steps",
    "outside_tenant",
]


@dataclass(frozen=True)
class AddToProject:
    """The fix that adds the person to the project: the role it suggests (asked first), staged
    and read again like every add."""

    role: str


@dataclass(frozen=True)
class ResendInvitation:
    """The fix that sends their invitation to the hub again (asked first)."""


@dataclass(frozen=True)
class RevertBatch:
    """The fix that puts back the batch that changed their access (its preview first)."""

    batch: str


@dataclass(frozen=True)
class OpenAddress:
    """The fix that asks the same question of an address near this one."""

    address: str


#: What a step's key prepares, each through the preview the same change has everywhere else;
#: a step without one is said, not prepared.
Fix = AddToProject | ResendInvitation | RevertBatch | OpenAddress

#: How many letters apart an address may be and still be named as near the one asked about.
NEAR_LETTERS = 2
#: A person seen within this many days got in lately: the SSO tenant is not why they cannot.
SSO_SEEN_DAYS = 30
#: The most near addresses named.
NEAR_MOST = 5


@dataclass(frozen=True)
class Advice:
    """What a reviewer is recommended of a person, from the same facts and the same rule that
    give a ticket its next step: ``keep``, ``reader``, ``remove``, or ``""`` (nothing to decide
    here), and why in words."""

    decision: str
    reason: str


@dataclass(frozen=True)
class NextStep:
    """One next step: a stable code (for a script), its words, and the command that does it
    (None: there is none to run, or it is a key in the app)."""

    code: str
    words: str
    command: str | None = None
    fix: Fix | None = None
    """What a key prepares for this step (None: there is nothing to prepare)."""
    advice: Advice | None = None
    """What the rule recommends a reviewer (None: it recommends nothing)."""
    shown: bool = True
    """Whether a ticket shows it (a rule that only advises a reviewer is not a next step)."""

    @property
    def fixable(self) -> bool:
        """Whether the app prepares this step's change for a key (a preview, never sent
        before it is confirmed)."""
        return self.fix is not None

    def as_record(self) -> dict[str, str | None]:
        return {"code": self.code, "words": self.words, "command": self.command}

    def text(self) -> str:
        """One line: the words, then the command after a colon."""
        return f"{self.words}." if self.command is None else f"{self.words}: {self.command}"


@dataclass(frozen=True)
class Facts:
    """What was read of a person for a ticket: each list read, or ``None`` where it could not
    be (then no rule stands on it)."""

    email: str
    hub: Hub
    now: datetime
    project_id: str | None = None
    """None: the answer is for the hub, where they have no project."""
    project: Project | None = None
    """The project as the hub's list shows it (None: not listed, or not read)."""
    project_users: Sequence[ProjectUser] | None = None
    member: ProjectUser | None = None
    """Their record in the project's users (None: not listed)."""
    hub_users: Sequence[HubUser] | None = None
    person: HubUser | None = None
    """Their record in the hub's users (None: not a user of the hub)."""
    history: Sequence[Change] = field(default_factory=tuple)
    """What hubtui changed of this person's access in this hub (the change log and the team's
    audit trail), oldest first."""
    kept: Kept = field(default_factory=lambda: Kept())
    """What hubtui keeps that the answer stands on beside the lists read."""
    seen: LastSeen | None = None
    """When the person was last seen, worked out already (None: from :attr:`person`)."""

    @property
    def person_seen(self) -> LastSeen:
        """When the person (a user of the hub) was last seen."""
        assert self.person is not None
        return self.seen if self.seen is not None else last_seen(self.person)

    @property
    def inactive_after(self) -> int:
        return self.kept.inactive_after

    @property
    def former(self) -> Sequence[Former]:
        return self.kept.former

    @property
    def domain(self) -> str:
        return email_domain(self.email) or ""

    @property
    def taken(self) -> list[Change]:
        """What hubtui changed of them here that took effect, or may have (oldest first)."""
        return [c for c in self.history if c.outcome in ("done", "unknown")]

    @property
    def unknown_to_the_hub(self) -> bool:
        """Read, and nobody has this address there: no hub user, no project member."""
        return (
            self.hub_users is not None
            and self.person is None
            and (self.project_id is None or self.project_users is not None)
            and self.member is None
        )


Rule = Callable[[Facts], "list[NextStep]"]


@dataclass(frozen=True)
class ReviewNote:
    """The access review a batch was sent for: its number, and the reason given for this
    person (``""``: none)."""

    number: int
    reason: str = ""


@dataclass(frozen=True)
class Kept:
    """What hubtui keeps that an answer stands on, beside the lists read from the server."""

    inactive_after: int = INACTIVE_AFTER_DAYS
    """The days without a sign-in after which the hub's people count as inactive (the
    ``inactive_after`` setting)."""
    former: Sequence[Former] = ()
    """The accounts that had this address (the snapshots kept, hubtui's changes): a renamed
    account is recognised, its old address never offered as a new person's."""
    reviews: Mapping[str, ReviewNote] = field(default_factory=dict)
    """The access review each batch of their history was sent for, by the batch's id."""


@dataclass(frozen=True)
class Former:
    """An account that had an address asked about: its Id, until when it is known to have had
    it, and its address now."""

    user_id: str
    until: str
    """``snapshot #2 (2026-11-21 09:00)``, or the change hubtui made to it then."""
    now: str | None = None
    """Its address as the hub's users list it now (None: not a user of the hub now)."""
    had: str | None = None
    """Its hub role as last kept (None: not known)."""

    def words(self) -> str:
        """``account Id 4 had it until snapshot #2 (…), and is now anna.lind@…``."""
        now = (
            f"and is now {inert(self.now)}"
            if self.now is not None
            else "and is not a user of the hub now"
        )
        return f"account Id {inert(self.user_id)} had it until {inert(self.until)}, {now}"


def _changed_by_hubtui(facts: Facts) -> list[NextStep]:
    """What hubtui itself changed of their access here: the latest change that took effect
    (or may have), who made it, when, in which batch, and how it is put back."""
    taken = facts.taken
    if not taken:
        return []
    change = taken[-1]
    where = "" if change.where == "the hub" else f" in {change.where}"
    when = minute(change.time)
    by = who_words(change.operator, change.db_role)
    review = facts.kept.reviews.get(change.batch or "")
    if review is not None:
        reason = f" (reason: {review.reason})" if review.reason else ""
        batch = f" in access review #{review.number}{reason}"
    else:
        batch = f" in batch {change.batch}" if change.batch else ""
    maybe = " (its outcome is unknown)" if change.outcome == "unknown" else ""
    words = f"hubtui changed their access: {change.summary}{where} on {when} UTC by {by}{batch}"
    words += maybe + _had(change)
    revertible = kind_of(change).undo not in (Undo.NEVER, Undo.NOTHING)
    if not revertible or change.batch is None:
        return [NextStep("changed_by_hubtui", words)]
    return [
        NextStep(
            "changed_by_hubtui",
            f"{words}; to put it back (R in the change log)",
            command_line("revert", change.batch),
            fix=RevertBatch(change.batch),
        )
    ]


def _had(change: Change) -> str:
    """``; they had Editor and reviewer in Harbour Bridge Retrofit``: what a removal from the
    hub took, as its line kept it."""
    projects = (change.before or {}).get("Projects")
    if kind_of(change).carries != "remove" or not isinstance(projects, list):
        return ""
    had = []
    for project in projects:
        if not isinstance(project, dict):
            continue
        role = str(project.get("Role") or "a role not kept")
        reviewer = " and reviewer" if project.get("IsReviewer") is True else ""
        name = project.get("Name") or f"project {project.get('Id')}"
        had.append(f"{role}{reviewer} in {name}")
    return f"; they had {', '.join(had)}" if had else ""


def _unknown_address(facts: Facts) -> list[NextStep]:
    """Nobody has this address in the hub: said first, then the hub's addresses near it, and
    only then the add, as "if the address is right"."""
    if not facts.unknown_to_the_hub:
        return []
    where = "" if facts.project_id is None else " or in the project"
    steps = [
        NextStep(
            "unknown_address", f"No one with this address is a user of {facts.hub.name}{where}"
        )
    ]
    renamed = [former for former in facts.former if former.now is not None]
    if renamed:
        steps = [
            NextStep(
                "former_address",
                f"No one has this address now; {former.words()}",
                None if former.now is None else command_line(*_why_words(facts, former.now)),
            )
            for former in renamed
        ]
    known = [(u.user.email or "", u.user.full_name) for u in facts.hub_users or ()]
    known += [(u.user.email or "", u.user.full_name) for u in facts.project_users or ()]
    for address, named in near_accounts(facts.email, known):
        steps.append(
            NextStep(
                "near_address",
                f"Near it in the hub: {named} ({_can_do(facts, address)}); is it theirs? "
                "(why for it)",
                command_line(*_why_words(facts, address)),
                fix=OpenAddress(address),
            )
        )
    if facts.project_id is not None and facts.project is not None and not facts.taken:
        # (Where hubtui itself took their access away, its revert above is the fix.)
        words = "If the address is right, add them to the project (they get an invitation)"
        outside = outside_tenant(facts.hub, facts.email)
        if outside:
            words = f"If the address is right ({outside}), add them to the project (they get an "
            words += "invitation)"
        if renamed:
            named = ", ".join(f"Id {inert(f.user_id)}" for f in renamed)
            words = (
                f"Only if this is a new person at an address account {named} had (no one has "
                "it now), add them to the project (they get an invitation)"
            )
        steps.append(
            NextStep(
                "add_if_right",
                words,
                command_line("add-user", facts.hub.name, facts.project_id, facts.email, "Reader"),
                fix=AddToProject("Reader"),
            )
        )
    return steps


def _outside(hub: Hub, email: str) -> bool:
    """Whether the hub restricts sign-in to an Entra ID tenant this address is not of (the
    tenant's domain, or one below it)."""
    tenant = (hub.restricted_tenant_domain or "").lower()
    if not hub.is_user_entra_id_sso_restricted or not tenant:
        return False
    domain = email_domain(email) or ""
    return not (domain == tenant or domain.endswith(f".{tenant}"))


def outside_tenant(hub: Hub, email: str) -> str | None:
    """``it is outside the hub's SSO tenant acme-build.com: they could not sign in`` where the
    hub restricts sign-in to a tenant this address is not of, else None."""
    if not _outside(hub, email):
        return None
    return (
        f"it is outside the hub's Entra ID tenant {inert(hub.restricted_tenant_domain)}: they "
        "could not sign in"
    )


def _can_do(facts: Facts, address: str) -> str:
    """What the account at ``address`` has here, as the lists read show it (the near addresses
    come from these lists: the project's users, else the hub's)."""
    key = person_key(address)
    member = next((u for u in facts.project_users or () if person_key(u.user.email) == key), None)
    if member is None:
        return "a user of the hub" + ("" if facts.project_id is None else ", not in the project")
    if member.is_limited:
        return "a limited reader of the project"
    return f"{member.role or 'a member, role not sent'} in the project"


def _why_words(facts: Facts, email: str) -> list[str]:
    """``why EMAIL [PROJECT] --hub HUB``: the same question of another address."""
    project = [] if facts.project_id is None else [facts.project_id]
    return ["why", email, *project, "--hub", facts.hub.name]


def _not_in_project(facts: Facts) -> list[NextStep]:
    """A user of the hub whom the project does not list: add them to it."""
    if (
        facts.project_id is None
        or facts.project is None
        or facts.project_users is None
        or facts.person is None
        or facts.member is not None
    ):
        return []
    command = command_line("add-user", facts.hub.name, facts.project_id, facts.email, "Reader")
    name = facts.project.name or f"project {facts.project_id}"
    if facts.project.project_access == "Limited":
        words = (
            f"Add them to {name} as a direct member: it reads limited readers only from "
            f"whitelisted domains, and @{facts.domain} is not one of them"
        )
    else:
        words = f"Add them to {name} (a user of the hub, not in the project)"
    return [NextStep("add_to_project", words, command, fix=AddToProject("Reader"))]


def _limited_reader(facts: Facts) -> list[NextStep]:
    if facts.member is None or not facts.member.is_limited:
        return []
    return [
        NextStep(
            "make_direct_member",
            "To let them edit, add them as a direct member (or e on the project's users)",
            command_line("add-user", facts.hub.name, facts.project_id, facts.email, "Editor"),
            fix=AddToProject("Editor"),
            advice=Advice(
                "", f"reads through @{facts.domain}: the domain, not the person, gives access"
            ),
        )
    ]


def _invitation(facts: Facts) -> list[NextStep]:
    person = facts.person
    if person is None or "is_activated" not in person.model_fields_set:
        return []
    if person.is_activated is not False:
        return []
    return [
        NextStep(
            "resend_invitation",
            "They cannot get in until they accept the invitation to the hub: send it again (or "
            "i on the hub's people)",
            command_line("resend-invite", facts.hub.name, facts.email),
            fix=ResendInvitation(),
            advice=_invitation_advice(facts),
        )
    ]


def _invitation_advice(facts: Facts) -> Advice:
    """An invitation never accepted: remove, unless hubtui sent it within the inactive days
    (the server does not say when it went out; the change log says when hubtui sent it)."""
    last = last_invitation(facts.history)
    days = None if last is None else _days_since(last.time, facts.now)
    if days is None:
        return Advice("remove", "invited to the hub, never accepted")
    if days > facts.inactive_after:
        return Advice("remove", f"invited {days:,} days ago, never accepted")
    return Advice(
        "", f"invited {days:,} days ago, not accepted yet (within {facts.inactive_after:,})"
    )


def _days_since(stamped: str, now: datetime) -> int | None:
    """Whole days from a moment the change log wrote to ``now`` (None: no such moment)."""
    try:
        moment = datetime.fromisoformat(stamped)
    except ValueError:
        return None
    if moment.tzinfo is None:
        return None
    return max(0, (now - moment).days)


def _sso_tenant(facts: Facts) -> list[NextStep]:
    """A user of the hub whose address is outside the tenant the hub restricts sign-in to: the
    likely reason they cannot sign in (never said of a person who is not a hub user: their
    first reason is that)."""
    hub, person = facts.hub, facts.person
    if person is None or not _outside(hub, facts.email):
        return []
    seen = facts.person_seen
    days = seen.days_before(facts.now)
    if days is not None and days <= SSO_SEEN_DAYS:
        return []  # they got in lately: the restriction does not keep them out
    if seen.never:
        when = "they have never signed in"
    elif days is None:
        when = "their last sign-in could not be read"
    else:
        when = (
            f"last seen {days:,} days ago, counted from {seen.counted_from()}; if the "
            "restriction came since, this is why"
        )
    words = (
        f"The hub restricts sign-in to the Entra ID tenant {hub.restricted_tenant_domain} and "
        f"their address is at {facts.domain}: that is the likely reason they cannot sign in "
        f"({when})"
    )
    return [NextStep("sso_tenant", words)]


def _sign_ins(facts: Facts) -> list[NextStep]:
    if facts.person is None:
        return []
    seen = facts.person_seen
    days = seen.days_before(facts.now)
    after = facts.inactive_after
    if seen.never:
        return [NextStep("never_signed_in", "They have never signed in", advice=_NEVER_SIGNED_IN)]
    if days is not None and days > after:
        return [
            NextStep(
                "inactive",
                f"Inactive: last seen {days:,} days ago, counted from {seen.counted_from()} "
                f"(inactive after {after:,} days, the inactive_after setting)",
                advice=Advice("remove", f"last seen {days:,} days ago (over {after:,})"),
            )
        ]
    if days is not None:  # active: nothing to do for a ticket, keep for a reviewer
        words = f"last seen {days:,} days ago (within {after:,})"
        return [NextStep("active", words, advice=Advice("keep", words), shown=False)]
    return []


_NEVER_SIGNED_IN = Advice("remove", "never signed in")


#: The table: each rule, in the order its steps are given, with when it holds (the words
#: ``docs/design.md`` shows).
TABLE: tuple[tuple[str, str, Rule], ...] = (
    (
        "changed_by_hubtui",
        "the change log or the team's audit trail holds a change of their access here that took "
        "effect (or may have)",
        _changed_by_hubtui,
    ),
    (
        "unknown_address",
        "the hub's users (and the project's) were read and nobody has this address (an account "
        "that had it, from the snapshots or hubtui's changes: `former_address`, with its "
        "address now)",
        _unknown_address,
    ),
    ("resend_invitation", "a user of the hub who never accepted the invitation", _invitation),
    ("add_to_project", "a user of the hub whom the project does not list", _not_in_project),
    ("make_direct_member", "a limited reader of the project", _limited_reader),
    (
        "sso_tenant",
        "a user of the hub whose address is outside the tenant the hub restricts sign-in to, not "
        "seen in the last 30 days",
        _sso_tenant,
    ),
    (
        "never_signed_in / inactive",
        "a user of the hub never seen, or not for long (seen lately: nothing for a ticket, keep "
        "for a reviewer)",
        _sign_ins,
    ),
)


def next_steps(facts: Facts) -> list[NextStep]:
    """The next steps the facts support, from :data:`TABLE`, in its order."""
    return [step for _, _, rule in TABLE for step in rule(facts) if step.shown]


def advice_of(facts: Facts) -> Advice | None:
    """What a reviewer is recommended of the person, from the same :data:`TABLE`: the advice of
    the first step that carries one (None: the facts support none)."""
    for _, _, rule in TABLE:
        for step in rule(facts):
            if step.advice is not None:
                return step.advice
    return None


def near_addresses(email: str, known: Sequence[tuple[str, str]]) -> list[str]:
    """The addresses of ``known`` (address, the person's name as sent) near ``email`` (never
    itself), in words (:func:`near_accounts`)."""
    return [words for _, words in near_accounts(email, known)]


def near_accounts(email: str, known: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """The addresses of ``known`` (address, the person's name as sent) near ``email`` (never
    itself): the same local part at another domain, at most :data:`NEAR_LETTERS` letters apart,
    or a person of the same name (``lena.fisher@…`` and Lena Fisher at ``lfisher@…``); each as
    sent, and in words: made inert, and one with lookalike or invisible characters said to hold
    them (shown as such, never taken for it)."""
    from rapidfuzz.distance import Levenshtein

    wanted = person_key(email)
    local = wanted.split("@", 1)[0]
    named_as = _name_words(local)
    found: dict[str, tuple[int, str]] = {}  # by address, ASCII case aside: (distance, as sent)
    for address, name in known:
        key = person_key(address)
        if not address or key == wanted or key in found:
            continue
        distance = Levenshtein.distance(wanted, key, score_cutoff=NEAR_LETTERS + 1)
        same_name = len(named_as) > 1 and _name_words(name) == named_as
        if key.split("@", 1)[0] == local or distance <= NEAR_LETTERS or same_name:
            found[key] = (distance, address)
    named = []
    for key in sorted(found, key=lambda k: (found[k][0], k))[:NEAR_MOST]:
        address = found[key][1]
        why = lookalike(address)
        named.append((address, inert(address) + (f" ({why})" if why else "")))
    return named


def _name_words(text: str) -> frozenset[str]:
    """The words of a name or of an address's local part (``lena.fisher``, ``Lena Fisher``),
    accents and case aside; digits and one-letter initials are no words of a name."""
    words = re.split(r"[\s._+\-]+", fold(text))
    return frozenset(w for w in words if len(w) > 1 and not w.isdigit())
