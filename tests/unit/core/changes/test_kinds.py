"""Each kind of change is one class, and the design's table of the kinds is the code's own list."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hubtui.core.batches import revert_of
from hubtui.core.changes.actions import Action
from hubtui.core.changes.kinds import KINDS, ChangedSinceRead, Undo, kind_of
from hubtui.core.changes.record import Change, line_of, parse_line

DESIGN = Path(__file__).resolve().parents[4] / "docs" / "design.md"


def a_change(action: str, **fields: object) -> Change:
    values: dict[str, object] = {
        "time": "2026-11-27T10:00:00Z",
        "action": action,
        "hub_id": "h1",
        "hub_name": "acme-build",
        "project_id": "1001",
        "project_name": "Harbour Bridge Retrofit",
        "user_id": "7",
        "email": "eve@acme.example",
        "before": {"Role": "Reader"},
        "after": {"Role": "Editor"},
        "outcome": "done",
    }
    values.update(fields)
    return Change(**values)  # type: ignore[arg-type]


def test_every_action_is_one_kind_and_each_kind_one_class() -> None:
    assert sorted(kind.action for kind in KINDS) == sorted(Action)
    assert len({type(kind) for kind in KINDS}) == len(KINDS)
    for kind in KINDS:
        assert kind_of(a_change(kind.action.value)) is kind


def test_the_design_s_table_of_the_kinds_is_the_code_s_list() -> None:
    text = DESIGN.read_text(encoding="utf-8")
    table = text[text.index("| kind | its request |") :].split("\n\n", 1)[0]
    named = re.findall(r"^\s*\| `([^`]+)` \|", table, flags=re.MULTILINE)
    assert sorted(named) == sorted(kind.action.value for kind in KINDS)


async def test_a_change_of_a_kind_hubtui_does_not_know_is_shown_never_sent_or_put_back() -> None:
    change = parse_line(line_of(a_change("promote to owner")))
    assert change is not None
    assert change.summary == "Role: Reader → Editor"  # shown as any change is
    assert kind_of(change).undo is Undo.NEVER
    wanted, cannot = revert_of([change])
    assert (wanted, cannot) == ([], [change])  # said to be beyond putting back
    with pytest.raises(ChangedSinceRead, match="does not know how to send"):
        await kind_of(change).plan(None, change)  # type: ignore[arg-type]


def test_each_kind_is_put_back_its_own_way() -> None:
    undone = {
        kind.action: [w.intent.value for w in revert_of([a_change(kind.action.value)])[0]]
        for kind in KINDS
    }
    assert undone[Action.UPDATE] == ["set"]
    assert undone[Action.ADD] == []
    assert undone[Action.RESEND] == []
    assert undone[Action.HUB_ROLE] == ["hub role"]
    assert undone[Action.HUB_INVITE] == ["remove from hub"]
    assert undone[Action.HUB_REMOVE][0] == "invite to hub"
