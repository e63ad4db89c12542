"""What the store's two engines share (the file's SQLite and a team's PostgreSQL): the error
every failure becomes, and what a query answers. Below both, so neither imports the other."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol

__all__ = ["Rows", "StoreError"]


class StoreError(Exception):
    """The store cannot be used; the message names the file and why."""


class Rows(Protocol):
    """What a query answers, in either engine (a DB-API cursor)."""

    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...
    def fetchall(self) -> list[Any]: ...
    def __iter__(self) -> Iterator[Any]: ...
