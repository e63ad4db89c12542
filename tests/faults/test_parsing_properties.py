"""Arbitrary JSON and bytes fed to every parser: records or InvalidResponseError, nothing else."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial
from unittest.mock import patch

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hubtui.api import Hub, InvalidResponseError, Project, ProjectUser, parsing
from hubtui.api.errors import ApiStatusError, status_error_from_response
from hubtui.api.models import SentRecord
from hubtui.api.parsing import Records, parse_list, parse_one

KEYS = st.sampled_from(
    [
        "Id",
        "Name",
        "DisplayName",
        "User",
        "Role",
        "Teams",
        "IsLimited",
        "IsReviewer",
        "RegionSummary",
        "ApiRegionalUrl",
        "Email",
        "FirstName",
        "CreationDate",
        "Image",
        "value",
        "title",
        "detail",
        "Code",
        "Message",
    ]
)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**100), max_value=2**100)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet=st.characters(codec="utf-8"), max_size=40)
)
JSON = st.recursive(
    SCALARS,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(KEYS | st.text(max_size=8), children, max_size=6)
    ),
    max_leaves=40,
)
DEEP = st.integers(min_value=1, max_value=5000).map(
    lambda depth: ("[" * depth + "]" * depth).encode()
)
BODIES = JSON.map(lambda value: json.dumps(value).encode()) | st.binary(max_size=200) | DEEP


#: No example database: the suite leaves nothing in the checkout (each run draws afresh).
COMMON = settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)


def outcome(parse: Callable[[], object]) -> object:
    """The parser's result, or the InvalidResponseError it raised (anything else propagates)."""
    try:
        return parse()
    except InvalidResponseError as error:
        return error


def assert_same_outcome(parsed: object, whole: object) -> None:
    """Both refused, or the same records and the same ones left out."""
    if isinstance(whole, InvalidResponseError):
        assert isinstance(parsed, InvalidResponseError)
    else:
        assert isinstance(parsed, Records)
        assert isinstance(whole, Records)
        assert parsed == whole
        assert parsed.skipped == whole.skipped


@COMMON
@given(BODIES)
def test_list_parsers(body: bytes) -> None:
    for model in (Hub, Project, ProjectUser):
        result = outcome(partial(parse_list, body, "list things", model))
        if isinstance(result, InvalidResponseError):
            assert str(result).startswith("List things failed")
        else:
            assert isinstance(result, Records)
            assert all(isinstance(record, model) for record in result)
            # A record is left out only beside at least one that was read.
            assert result or not result.skipped_count


@COMMON
@given(BODIES)
def test_record_parsers(body: bytes) -> None:
    for model in (Hub, Project, ProjectUser):
        result = outcome(partial(parse_one, body, "get a thing", model))
        if isinstance(result, InvalidResponseError):
            assert str(result).startswith("Get a thing failed")
        else:
            assert isinstance(result, model)


@COMMON
@given(BODIES, st.sampled_from([400, 401, 403, 404, 409, 429, 500, 503, 418]))
def test_error_body_parser(body: bytes, status: int) -> None:
    response = httpx.Response(status, content=body, headers={"Retry-After": "soon"})
    error = status_error_from_response(response, operation="do a thing")
    assert isinstance(error, ApiStatusError)
    assert error.status_code == status
    assert str(error).startswith("Do a thing failed")
    assert "\n" not in str(error)


@COMMON
@given(BODIES)
def test_batched_list_parser_agrees_with_the_whole_body_parser(body: bytes) -> None:
    for model in (Hub, Project, ProjectUser):
        whole = outcome(partial(parse_list, body, "list things", model))
        batched = outcome(partial(parse_list, body, "list things", model, batched_above=0))
        assert_same_outcome(batched, whole)


@COMMON
@given(BODIES, st.integers(min_value=1, max_value=64))
def test_a_large_body_read_a_window_of_text_at_a_time_gives_the_same_records(
    body: bytes, window: int
) -> None:
    # Windows this small split records, numbers, strings and multi-byte characters.
    whole = outcome(partial(parse_list, body, "list things", ProjectUser))
    with patch.object(parsing, "_WINDOW", window):
        windowed = outcome(partial(parse_list, body, "list things", ProjectUser, batched_above=0))
    assert_same_outcome(windowed, whole)


def test_records_split_across_windows_are_read_whole() -> None:
    users = [
        {"User": {"Id": n, "FirstName": "Zoë ✓ 𝄞" * (n % 3)}, "Role": "Reader", "IsLimited": n > 2}
        for n in range(2500)
    ]
    # A number where a record belongs is left out as that number, however it is split.
    records: list[object] = [1234567, *users]
    body = json.dumps(records, ensure_ascii=False, indent=1).encode()
    for window in (1, 2, 3, 5, 4096):
        with patch.object(parsing, "_WINDOW", window):
            parsed = parse_list(body, "list users", ProjectUser, batched_above=0)
        assert [(u.user.id, u.user.first_name, u.is_limited) for u in parsed] == [
            (n, "Zoë ✓ 𝄞" * (n % 3), n > 2) for n in range(2500)
        ]
        assert [str(s) for s in parsed.skipped] == [
            "record 0: input should be a valid dictionary or instance of projectuser at [0]"
        ]


OBJECTS = st.lists(st.dictionaries(KEYS, JSON, min_size=1, max_size=4), min_size=2, max_size=12)
SPACING = st.sampled_from([{}, {"separators": (",", ":")}, {"indent": 1}, {"indent": "\t"}])


@COMMON
@given(OBJECTS, SPACING, st.integers(min_value=1, max_value=400))
def test_objects_decoded_a_window_at_a_time_are_the_objects_sent(
    objects: list[dict[str, object]], spacing: dict[str, object], window: int
) -> None:
    # Objects of the same first key decode together, cut where one ends and the next begins;
    # a cut inside one (a nested object, a string) must never change what is read.
    body = json.dumps(objects, ensure_ascii=False, **spacing).encode()  # type: ignore[arg-type]
    for model in (SentRecord, ProjectUser):
        whole = outcome(partial(parse_list, body, "list things", model))
        with patch.object(parsing, "_WINDOW", window):
            windowed = outcome(partial(parse_list, body, "list things", model, batched_above=0))
        assert_same_outcome(windowed, whole)
    sent = parse_list(body, "list things", SentRecord, batched_above=0)
    assert [record.root for record in sent] == objects


def test_hubs_whose_teams_start_as_the_hubs_do_are_read_whole() -> None:
    # Each hub and each of its teams starts with "Id": the place between two teams looks like
    # the place between two hubs. A cut there is inside a hub, and must not cost a record.
    hubs = [
        {"Id": f"h{n}", "Teams": [{"Id": t, "Name": '}, {"Id": 1'} for t in range(3)]}
        for n in range(300)
    ]
    body = json.dumps(hubs).encode()
    for window in (7, 64, 1000, 1 << 20):
        with patch.object(parsing, "_WINDOW", window):
            parsed = parse_list(body, "list hubs", SentRecord, batched_above=0)
        assert [record.root for record in parsed] == hubs
        assert parsed.skipped_count == 0


@COMMON
@given(BODIES)
def test_a_pre_filter_that_keeps_everything_changes_no_record(body: bytes) -> None:
    whole = outcome(partial(parse_list, body, "list users", ProjectUser))
    kept = outcome(partial(parse_list, body, "list users", ProjectUser, where=lambda r: True))
    if isinstance(whole, Records) and isinstance(kept, Records):
        assert list(kept) == list(whole)
    else:
        assert isinstance(whole, InvalidResponseError) or isinstance(kept, Records)


def test_one_bad_record_is_left_out_and_named_by_its_place_in_the_whole_list() -> None:
    users = [{"User": {"Id": n}, "Role": "Reader", "IsLimited": False} for n in range(2500)]
    users[2100]["Role"] = 7
    body = json.dumps(users).encode()
    for batched_above in (0, len(body) + 1):
        parsed = parse_list(body, "list users", ProjectUser, batched_above=batched_above)
        assert [u.user.id for u in parsed] == [n for n in range(2500) if n != 2100]
        assert parsed.skipped_count == 1
        assert (
            str(parsed.skipped[0]) == "record 2100: input should be a valid string at [2100].Role"
        )


def test_a_list_with_no_readable_record_is_an_error_naming_the_first() -> None:
    body = json.dumps([{"User": {"Id": 1}, "Role": 7}, {"User": {}}]).encode()
    with pytest.raises(InvalidResponseError, match=r"at \[0\]\.Role"):
        parse_list(body, "list users", ProjectUser)


@pytest.mark.parametrize("batched_above", [0, 10**9])
def test_more_records_than_the_limit_are_refused_before_all_are_built(batched_above: int) -> None:
    body = json.dumps([{"Id": n, "Name": "p"} for n in range(5001)]).encode()
    with pytest.raises(InvalidResponseError, match="more than 5,000 records"):
        parse_list(body, "list projects", Project, max_records=5000, batched_above=batched_above)
    assert len(parse_list(body, "list projects", Project, max_records=5001)) == 5001
