"""Values a server sends or a file holds that once ended the app, cost the other rows or passed
for something else: dates at the limits, rows that cannot be drawn, deep bodies, hidden characters
in an email, two paths of one host, a value that is one hub's Id and another's name."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from hubtui.api import Hub
from hubtui.core.access import email_problem
from hubtui.core.presenting.names import match_hub
from hubtui.core.presenting.words import when, when_both
from hubtui.hosts import server_identity as origin_of
from hubtui.tui.record_view import Column, RecordView, Row
from hubtui.tui.screens.dialogs.exchange import _body

#: The date that once stopped every start: the year 0 once it is in UTC.
EARLIEST = "0001-01-01T00:00:00+14:00"


@pytest.mark.parametrize(
    "sent",
    [EARLIEST, "9999-12-31T23:59:59-14:00"],
    ids=["the first instant at +14", "the last instant at -14"],
)
def test_a_date_at_the_limits_is_shown_as_unknown_with_the_reason(sent: str) -> None:
    moment = datetime.fromisoformat(sent)
    assert when(moment) == "unknown"
    panel = when_both(moment)
    assert panel.startswith("unknown: the server sent ")
    assert moment.isoformat() in panel
    # A date inside the range is shown as before.
    assert when(datetime(2026, 11, 17, 14, 2, tzinfo=UTC)) == "2026-11-17"
    assert when_both(datetime(2, 1, 1, tzinfo=timezone(timedelta(hours=14)))).endswith("UTC")


def test_a_row_that_cannot_be_drawn_costs_only_itself() -> None:
    def row(value: int) -> Row:
        if value == 2:
            raise OverflowError("date value out of range")
        return Row(cells=(" ", f"row {value}", "x"))

    view: RecordView[int] = RecordView([Column("m", " "), Column("a", "A"), Column("b", "B")])
    view.replace([1, 2, 3], row, str)
    cells = [view.row(i).cells for i in range(3)]
    assert cells[0][1] == "row 1"
    assert cells[2][1] == "row 3"
    assert cells[1][1] == "unreadable: date value out of range"
    view.set_filter("row")  # the search keys are built for every row, the broken one too
    assert view.shown == [0, 2]


def test_a_body_nested_twenty_thousand_deep_is_shown_as_text() -> None:
    body = b"[" * 20_000 + b"]" * 20_000
    lines = _body(body)
    assert lines[0] == "  (nested more than 64 deep: shown as sent)"
    assert "[[[[" in lines[1]
    assert _body(b'{"a": [1, 2]}')[0] == "  {"


@pytest.mark.parametrize("hidden", ["\x00", "\x1b", "\u202e", "\u200b"])
def test_an_email_holding_a_hidden_character_is_refused(hidden: str) -> None:
    problem = email_problem(f"eve{hidden}@acme-build.com")
    assert problem is not None
    assert f"U+{ord(hidden):04X}" in problem


def test_two_paths_of_one_host_are_two_servers() -> None:
    assert origin_of("http://h:8080/a") != origin_of("http://h:8080/b")
    assert origin_of("HTTP://H:8080/a/") == origin_of("http://h:8080/a") == "http://h:8080/a"
    assert origin_of("https://h") == "https://h:443"  # as stores kept it before


def hub(hub_id: str, name: str) -> Hub:
    return Hub.model_validate({"Id": hub_id, "Name": name})


def test_a_value_that_is_one_hubs_id_and_anothers_name_chooses_neither() -> None:
    found = match_hub([hub("1", "acme-build"), hub("h-2", "1")], "1")
    assert found.hub is None
    assert found.ambiguous
    words = found.words()
    assert "“1” names more than one hub, so none is chosen" in words
    assert "the Id of hub “acme-build”" in words
    assert "the URL name of hub “1”" in words
    assert match_hub([hub("1", "acme-build"), hub("h-2", "x")], "1").hub is not None
