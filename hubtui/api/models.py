"""Typed records of the hub and project-user API.

Wire names are PascalCase; Python names are their snake_case. Unknown properties are kept
(``model_extra``) because the service adds response properties between versions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import make_dataclass
from datetime import datetime
from typing import Annotated, Any, ClassVar, Self, TypeVar

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    PlainSerializer,
    ValidatorFunctionWrapHandler,
    WrapValidator,
    model_validator,
)
from pydantic.alias_generators import to_pascal

from hubtui.api.identity import KNOWN_ROLES, email_domain

__all__ = [
    "SentRecord",
    "as_sent_value",
    "held_compactly",
    "one_summary_a_person",
    "KNOWN_ROLES",
    "LIMITED_ACCESS",
    "HUB_ROLES",
    "Hub",
    "HubUser",
    "Moment",
    "Image",
    "Project",
    "ProjectUser",
    "RegionSummary",
    "Team",
    "UserSummary",
]

#: The hub roles the published document names (a hub user's ``Role``); others are kept as sent.
HUB_ROLES: tuple[str, ...] = ("Guest", "Admin")

#: The one ``ProjectAccess`` value the spec names; its effect is the ``IsLimited`` rule.
LIMITED_ACCESS = "Limited"


# One set of field names per distinct combination, shared by every record that has it.
_SHARED_FIELD_SETS: dict[frozenset[str], set[str]] = {}
# The unknown fields of every record that has none.
_NO_EXTRA: dict[str, Any] = {}
# Values that repeat from record to record (a role, a first name, a team), one object for each.
# Bounded: emptied when full, so a list of a million distinct names costs at most this many.
_SHARED_VALUES: dict[Any, Any] = {}
_SHARED_VALUES_MAX = 16_384
_SHARED_TEXT_MAX = 64
#: The most items of a tuple held once for the records that send it (their teams).
_SHARED_ITEMS_MAX = 16
#: The most keys a dict holds in Python's smallest table.
_SMALLEST_TABLE = 5
#: The most keys CPython shares among objects of a class (its SHARED_KEYS_MAX_SIZE): a record
#: sent with more is held as decoded, and its shape is not kept.
_SHARED_KEYS_MOST = 30


def _shared(value: Any) -> Any:
    """One object for each repeated short text or small record; anything else as it is."""
    kind = type(value)
    if kind is str:
        if len(value) > _SHARED_TEXT_MAX:
            return value
        key: Any = value
    elif kind is list:
        if value:
            value[:] = [_shared(item) for item in value]
        return value
    elif kind is tuple:
        if not value:
            return value
        value = tuple([_shared(item) for item in value])
        if len(value) > _SHARED_ITEMS_MAX:
            return value  # a long one is held as it is: a key is no longer than what it names
        # By its items, each already the one held: the tuple held keeps them, so no other
        # object takes one's id while the key stands.
        key = (kind, *map(id, value))
    elif isinstance(value, ApiModel) and value.__pydantic_extra__ is _NO_EXTRA:
        # Equal values, the same fields sent (absent is not null) and no unknown fields; only
        # short texts, so that what is held stays small whatever a server sends.
        values = tuple(value.__dict__.values())
        for each in values:
            if type(each) is str and len(each) > _SHARED_TEXT_MAX:
                return value
        key = (kind, id(value.__pydantic_fields_set__), values)
    else:
        return value
    if len(_SHARED_VALUES) >= _SHARED_VALUES_MAX:
        _SHARED_VALUES.clear()
    try:
        return _SHARED_VALUES.setdefault(key, value)
    except TypeError:  # an unhashable value inside a record
        return value


#: The person summaries made so far by the reading under way (:func:`one_summary_a_person`), by
#: user Id; None: no reading holds them.
_SUMMARIES: ContextVar[dict[object, UserSummary] | None] = ContextVar(
    "hubtui_summaries", default=None
)


@contextmanager
def one_summary_a_person() -> Iterator[None]:
    """Within it (and in the tasks and threads it starts), a person's summary made again, the
    same record sent the same way (as :func:`hold_once` compares them), is the one made first:
    the hub's users and a project's users read at once hold one summary a person from the
    moment each is read, not two until they are joined (20,000 people: 10 MB less at the
    peak). Held for the reading only: what the records do not keep is let go when it ends."""
    token = _SUMMARIES.set({})
    try:
        yield
    finally:
        _SUMMARIES.reset(token)


def _first_made(summary: UserSummary) -> UserSummary:
    held = _SUMMARIES.get()
    if held is None:
        return summary
    first = held.setdefault(summary.id, summary)
    return first if first is not summary and _sent_alike(first, summary) else summary


def hold_once(record: ApiModel, field: str, same: ApiModel) -> None:
    """``record``'s ``field`` made ``same`` where it is the same record, sent the same way (the
    same values, the same fields sent, no others): one object for what two lists both send, a
    person's summary in the hub's users and in each project's. Records are frozen, so nothing
    changes the one held in place; the record as sent is the same."""
    values = record.__dict__
    mine = values.get(field)
    if mine is not same and type(mine) is type(same) and _sent_alike(mine, same):
        values[field] = same


def _sent_alike(one: ApiModel, other: ApiModel) -> bool:
    """Two records of a kind sent the same way: the same values, the same fields sent, no
    others (what :func:`hold_once` and a reading's one summary a person hold as one)."""
    return (
        one.__dict__ == other.__dict__
        and one.__pydantic_fields_set__ == other.__pydantic_fields_set__
        and one.__pydantic_extra__ == other.__pydantic_extra__
    )


#: How many records of a kind keep pydantic's own dict before the kind's values object is made:
#: Python's shared keys pay off only past a kind's first few dozen records (see
#: :meth:`ApiModel._share_what_repeats`), and a start that shows a handful of hubs makes none.
VALUES_OBJECT_AFTER = 64


def _values_made_later(model: type[ApiModel], fields: list[str]) -> Callable[..., object | None]:
    """What makes ``model``'s values an object's attributes: None (the dict kept as pydantic
    made it) until :data:`VALUES_OBJECT_AFTER` records of the kind are made, then the object
    (its class made then: 0.65 ms a kind, never at the start)."""
    made_so_far = 0

    def early(*values: Any) -> object | None:
        nonlocal made_so_far
        made_so_far += 1
        if made_so_far < VALUES_OBJECT_AFTER:
            return None
        made = make_dataclass(f"{model.__name__}Values", fields, eq=False)
        model._values_of = made
        held: object = made(*values)
        return held

    return early


class ApiModel(BaseModel):
    """Base of every record: PascalCase aliases, snake_case names, unknown fields kept."""

    model_config = ConfigDict(
        alias_generator=to_pascal,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        extra="allow",
        frozen=True,
    )

    #: Fields whose values repeat across a list (a role, a first name): every record that has
    #: the same value holds the same object. Records are frozen, so nothing changes one in place.
    _repeated: ClassVar[tuple[str, ...]] = ()
    #: Makes a record's values the attributes of an object of a plain class, fields in order:
    #: its dict then shares its keys with every other record's (see :meth:`_share_what_repeats`).
    _values_of: ClassVar[Callable[..., object | None] | None]
    _field_count: ClassVar[int]
    _every_field: ClassVar[set[str]]

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        fields = list(cls.model_fields)
        # Up to five keys fit a dict's smallest table, so only larger records gain (a team,
        # held once by _shared anyway, does not).
        if len(fields) > _SMALLEST_TABLE:
            cls._values_of = staticmethod(_values_made_later(cls, fields))
        else:
            cls._values_of = None
        cls._field_count = len(fields)
        cls._every_field = _SHARED_FIELD_SETS.setdefault(frozenset(fields), set(fields))

    def as_sent(self) -> dict[str, Any]:
        """The record as the server sent it: the API's field names, unknown fields kept, a field
        it did not send left out (never a placeholder)."""
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)

    @model_validator(mode="after")
    def _share_what_repeats(self) -> Self:
        # Each record would otherwise hold its own set of the field names it was given (~0.7 KB)
        # and its own empty dict of unknown fields: 100 MB and 6 MB for a 50,000-user project.
        # Records are frozen, so nothing adds to either, and model_copy() copies both before
        # changing them; records given the same fields can share one set, and one empty dict.
        names = self.__pydantic_fields_set__
        count = self._field_count
        if self.__pydantic_extra__:
            shared = _SHARED_FIELD_SETS.setdefault(frozenset(names), names)
        else:
            object.__setattr__(self, "__pydantic_extra__", _NO_EXTRA)
            # No unknown field: as many names as fields are every field (no set to make).
            if len(names) == count:
                shared = self._every_field
            else:
                shared = _SHARED_FIELD_SETS.setdefault(frozenset(names), names)
        object.__setattr__(self, "__pydantic_fields_set__", shared)
        values = self.__dict__
        for name in self._repeated:
            values[name] = _shared(values[name])
        # The values in a dict that shares its keys with every record of this kind (CPython
        # gives an object's attributes such a dict): 120 bytes, not 272, for a record of six
        # fields once a kind's first few dozen are made, 40 MB of a firm's 300,000. Set in the
        # fields' order, as pydantic-core sets them; were the keys not shared after all, the
        # dict is an ordinary one, as before.
        if len(values) == count and self._values_of is not None:
            held = self._values_of(*values.values())
            if held is not None:
                object.__setattr__(self, "__dict__", held.__dict__)
        return self


class UserSummary(ApiModel):
    """The user object embedded in project users and as a hub's or project's author."""

    id: int
    user_name: str | None = None
    email: str | None = None
    first_name: str | None = None
    last_name: str | None = None
    avatar_url: str | None = None

    _repeated = ("first_name", "last_name")

    @model_validator(mode="after")
    def _one_a_person(self) -> UserSummary:
        # After the base's sharing (pydantic runs a parent's validator first), so that what
        # is compared is what is held.
        return _first_made(self)

    @property
    def full_name(self) -> str:
        """First and last name joined; empty when the server sent neither."""
        first, last = self.first_name, self.last_name
        if first and last:
            return f"{first} {last}"
        return first or last or ""

    @property
    def email_domain(self) -> str | None:
        """The part of the email after the last ``@``, lowercased, if there is one."""
        return email_domain(self.email)


class Team(ApiModel):
    """A team a project user belongs to."""

    id: int | None = None
    name: str | None = None


class ProjectUser(ApiModel):
    """A user's permissions in one project (``ProjectUserPermissions`` on the wire)."""

    user: UserSummary
    role: str
    default_filter_template_id: int | None = None
    teams: tuple[Team, ...] | None = None
    """As sent, in order; a tuple, so that the many records that send the same teams hold one."""
    is_reviewer: bool = False
    # None means the server did not say (older than the 2024-12-02 change): "unknown", not False.
    is_limited: bool | None = None

    _repeated = ("role", "teams")

    @property
    def is_direct_member(self) -> bool | None:
        """True for a direct member, False for a limited reader, None when unknown."""
        return None if self.is_limited is None else not self.is_limited


class RegionSummary(ApiModel):
    """Where a hub lives and the base URL of its regional API."""

    location: str | None = None
    api_regional_url: str | None = None


class Image(ApiModel):
    """An image attached to a hub or project."""

    id: int | str | None = None
    name: str | None = None
    size: int | None = None
    date: DateTime | None = None
    url: str | None = None
    url_expiration: DateTime | None = None
    thumbnail_url: str | None = None
    thumbnail_url_expiration: DateTime | None = None


class Hub(ApiModel):
    """A hub (``HubDetail`` on the wire).

    ``name`` is the URL identifier (what get-hub-by-name matches); ``display_name`` is what the
    owner chose to show. ``display_name`` equals ``name`` when the owner set none, and falls back
    to ``name`` when the server omits it.
    """

    id: str
    name: str
    display_name: str = ""
    author: UserSummary | None = None
    image: Image | None = None
    creation_date: DateTime | None = None
    region_summary: RegionSummary | None = None
    number_of_users: int | None = None
    number_of_projects: int | None = None
    is_user_entra_id_sso_restricted: bool | None = None
    """None: not sent (never shown as "no")."""
    restricted_tenant_id: str | None = None
    restricted_tenant_domain: str | None = None
    _repeated = ("region_summary",)

    @model_validator(mode="before")
    @classmethod
    def _display_name_null_is_absent(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("DisplayName", data.get("display_name")) is None:
            data = {k: v for k, v in data.items() if k not in ("DisplayName", "display_name")}
        return data

    @model_validator(mode="after")
    def _fall_back_to_name(self) -> Self:
        # Shown as the Name, but not marked as sent: a dump (exclude_unset) leaves it absent.
        if "display_name" not in self.__pydantic_fields_set__:
            self.__dict__["display_name"] = self.name
        return self

    @property
    def display_name_sent(self) -> bool:
        """False when the server omitted ``DisplayName`` (a server older than 2026-10-05)."""
        return "display_name" in self.__pydantic_fields_set__

    @property
    def has_custom_display_name(self) -> bool:
        """Whether the owner chose a display name that differs from the URL name."""
        return self.display_name != self.name

    @property
    def api_regional_url(self) -> str | None:
        """The regional API base URL the server names for this hub, if any."""
        return self.region_summary.api_regional_url if self.region_summary else None

    @property
    def region_name(self) -> str | None:
        """The region's name (``RegionSummary.Location``), if any."""
        return self.region_summary.location if self.region_summary else None


class Project(ApiModel):
    """A project of a hub."""

    id: int
    name: str
    author: UserSummary | None = None
    image: Image | None = None
    creation_date: DateTime | None = None
    number: str | None = None
    start_date: DateTime | None = None
    end_date: DateTime | None = None
    project_status: str | None = None
    project_access: str | None = None
    project_control_source: str | None = None

    _repeated = ("project_status", "project_access", "project_control_source")

    @property
    def is_access_limited(self) -> bool:
        """Whether whitelisted hub users appear in this project as limited readers."""
        return self.project_access == LIMITED_ACCESS


#: For each order of keys a record was sent with (more than five), a plain class whose objects'
#: dicts share those keys; bounded, so that a server's flood of shapes costs nothing more.
_SENT_SHAPES: dict[tuple[str, ...], type] = {}
_SENT_SHAPES_MAX = 64


def held_compactly(sent: dict[str, Any]) -> dict[str, Any]:
    """A record as decoded (the same keys, values and order), it and each object it holds (its
    user, its teams) in a dict that shares its keys with every other sent with the same keys in
    the same order, where it has more than five (CPython gives an object's attributes such a
    dict): 120 bytes, not 272, a firm's 400,000 held as sent 53 MB less. Deeper objects, those
    of more keys than CPython shares, and shapes past the bound, are held as decoded."""
    for key, value in sent.items():  # existing keys given new values: the dict keeps its size
        kind = type(value)
        if kind is dict:
            sent[key] = _held_in_shape(value)
        elif kind is list and value and type(value[0]) is dict:
            sent[key] = [_held_in_shape(each) if type(each) is dict else each for each in value]
    return _held_in_shape(sent)


def _held_in_shape(sent: dict[str, Any]) -> dict[str, Any]:
    if not _SMALLEST_TABLE < len(sent) <= _SHARED_KEYS_MOST:
        return sent
    shape = tuple(sent)
    holder = _SENT_SHAPES.get(shape)
    if holder is None:
        if len(_SENT_SHAPES) >= _SENT_SHAPES_MAX:
            return sent
        holder = _SENT_SHAPES[shape] = type("SentValues", (), {})
    held: dict[str, Any] = holder().__dict__
    for key, value in sent.items():  # one by one: an update() would copy the dict as it is
        held[key] = value
    return held


class SentRecord:
    """A record exactly as the server sent it (``root``), only checked to be a JSON object.

    Not a model: nothing in it is validated or rebuilt, so a list of them costs no more than its
    JSON (a root model copied every object: 0.17–0.27 s for 50,000 users).
    """

    __slots__ = ("root",)

    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SentRecord) and other.root == self.root

    __hash__ = None  # type: ignore[assignment]  # as the dict it holds

    def __repr__(self) -> str:
        return f"SentRecord({self.root!r})"


#: The places of a date-time's separators in the one shape of its text that the date writes
#: again exactly: ``2026-10-27T10:27:00Z`` (UTC, to the second, twenty ASCII characters).
_PLAIN_SEPARATORS = "--T::Z"


class SentDateTime(datetime):
    """A date-time read from the text a server sent, keeping that text: what is printed as sent
    is the text itself (``…29.1234567Z``, ``…22.0Z``), never the date written again; but for
    the one shape nearly every server sends, ``2026-10-27T10:27:00Z``, which is the date written
    again character for character and not kept twice (a firm's 300,000 dates, 21 MB)."""

    __slots__ = ("_sent",)  # no dict for each: three a hub user, 60,000 in a hub of 20,000
    _sent: str | None

    @property
    def sent(self) -> str:
        """The text the server sent."""
        text = self._sent
        if text is None:
            return (
                f"{self.year:04d}-{self.month:02d}-{self.day:02d}T"
                f"{self.hour:02d}:{self.minute:02d}:{self.second:02d}Z"
            )
        return text

    @sent.setter
    def sent(self, text: str) -> None:
        # Read as a date already (Python's reader takes digits only, ASCII ones, where these
        # separators leave room for them): in that shape the text is the date written again.
        plain = len(text) == 20 and text[4::3] == _PLAIN_SEPARATORS and text.isascii()
        self._sent = None if plain else text


def _kept(moment: datetime, text: str) -> SentDateTime:
    kept = SentDateTime(
        moment.year,
        moment.month,
        moment.day,
        moment.hour,
        moment.minute,
        moment.second,
        moment.microsecond,
        moment.tzinfo,
        fold=moment.fold,
    )
    kept.sent = text
    return kept


def as_sent_value(value: Any) -> Any:
    """A value printed as sent: a date-time's own text, anything else as it is."""
    if isinstance(value, SentDateTime):
        return value.sent
    if isinstance(value, datetime):
        return value.isoformat()
    return value


def _date_time(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    moment = handler(value)  # pydantic's own reading of a date-time
    if isinstance(value, str) and isinstance(moment, datetime):
        return _kept(moment, value)
    return moment


#: A date-time field: a ``datetime`` as pydantic reads one, printed as the text sent.
DateTime = Annotated[datetime, WrapValidator(_date_time), PlainSerializer(as_sent_value)]


def _iso(text: str) -> str:
    """A date-time's text as ISO 8601 is read: white space around it left out, ``Z`` as UTC."""
    text = text.strip()
    return text[:-1] + "+00:00" if text.endswith("Z") else text


_D = TypeVar("_D", bound=datetime)


def _read_iso(kind: type[_D], text: str) -> _D:
    """``text`` read by :func:`_iso`'s rule as a ``kind`` (ValueError: no date). A text as
    nearly every server sends it is read as it is (Python reads a ``Z`` itself, alike in every
    text it reads so), the rest through :func:`_iso`: a firm's 300,000 dates in a third of the
    time."""
    try:
        return kind.fromisoformat(text)
    except ValueError:
        return kind.fromisoformat(_iso(text))


def _moment(value: Any) -> Any:
    """A date-time as sent: read when it can be (ISO 8601), kept as the text sent when it
    cannot (it then says "unknown", never "never" and never "now")."""
    if isinstance(value, str):
        try:  # read straight into the kind that keeps the text (one step, not two)
            moment = _read_iso(SentDateTime, value)
        except ValueError:
            return value
        moment.sent = value
        return moment
    return value


def read_moment(value: Any) -> Any:
    """A date-time as sent, read by :func:`_moment`'s rule into a plain ``datetime`` (a sixth
    of the time: nothing is printed from it), for a record read without validating it
    (:func:`hubtui.api.as_sent.hub_user_signed_in`): what cannot be read is kept as sent."""
    if isinstance(value, str):
        try:
            return _read_iso(datetime, value)
        except ValueError:
            return value
    return value


#: A date-time a server sent: a ``datetime``, or None (null: never), or whatever else it sent
#: (text that is no date, a number…), kept as sent and read as unknown: a value of the wrong
#: kind costs nobody their row. Absent stays absent (``as_sent``); a date prints as its text.
Moment = Annotated[Any, BeforeValidator(_moment), PlainSerializer(as_sent_value)]


class HubUser(ApiModel):
    """A person's access to a hub (``HubUser`` on the wire, ``GET /v3/hubs/{hubId}/users``):
    the hub role, whether the invitation was accepted, and when they were last seen."""

    user: UserSummary
    role: str | None = None
    """``Guest`` or ``Admin`` (:data:`HUB_ROLES`), as sent."""
    last_web_login: Moment = None
    last_addin_login: Moment = None
    last_hub_project_activity: Moment = None
    is_activated: bool | None = None
    """Whether the invitation was accepted (None: not sent)."""

    _repeated = ("role",)
