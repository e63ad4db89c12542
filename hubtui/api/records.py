"""What a list answer's reading gives: its records, and those left out (why each was), for the
parser that makes them and the streaming reader that hands them on."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TypeVar

__all__ = ["Records", "SkippedRecord"]

M = TypeVar("M")


@dataclass(frozen=True)
class SkippedRecord:
    """A record of a list that could not be read, by its place in the whole list."""

    index: int
    problem: str

    def __str__(self) -> str:
        return f"record {self.index}: {self.problem}"


class Records(list[M]):
    """The records of a list answer, and those that could not be read (left out)."""

    def __init__(self, records: Iterable[M] = (), *, skipped: int = 0) -> None:
        super().__init__(records)
        #: How many records were left out because they broke the contract.
        self.skipped_count = skipped
        #: The first few of them, described.
        self.skipped: list[SkippedRecord] = []
        #: The address of the list's next page, when the server sent it in pages (an OData
        #: ``@odata.nextLink``); None: this is the last page, or the whole list.
        self.next_link: str | None = None
