"""The project-user API versions hubtui speaks: one type for the client, settings and screens."""

from __future__ import annotations

from typing import Literal, TypeGuard

ApiVersion = Literal["v2", "v3"]
API_VERSIONS: tuple[ApiVersion, ...] = ("v2", "v3")


def is_api_version(value: object) -> TypeGuard[ApiVersion]:
    return value in API_VERSIONS
