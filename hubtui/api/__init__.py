"""The typed async client of the hub and project-user API.

Usable on its own::

    async with HubClient("https://api.example.com", token=token) as client:
        for hub in await client.list_hubs():
            print(hub.name, hub.display_name)
"""

from typing import TYPE_CHECKING

from hubtui.lazy import names_from

if TYPE_CHECKING:
    from hubtui.api.client import ChangeRequest, HubClient, RequestStats
    from hubtui.api.errors import (
        ApiConnectionError,
        ApiStatusError,
        ApiTimeoutError,
        AuthenticationError,
        BadRequestError,
        ConflictError,
        HubError,
        IncompleteListError,
        InvalidResponseError,
        NotFoundError,
        NotKeptError,
        PermissionDeniedError,
        RateLimitError,
        ServerError,
        UnsafeUrlError,
    )
    from hubtui.api.models import (
        KNOWN_ROLES,
        LIMITED_ACCESS,
        Hub,
        Image,
        Project,
        ProjectUser,
        RegionSummary,
        Team,
        UserSummary,
    )
    from hubtui.api.routing import RegionalRoute
    from hubtui.api.versions import ApiVersion

# The package is imported lazily so that importing an error class (as the app does at start)
# does not pull in httpx and pydantic before the first screen is painted.
_EXPORTS: dict[str, str] = {
    "KNOWN_ROLES": "hubtui.api.models",
    "LIMITED_ACCESS": "hubtui.api.models",
    "ApiConnectionError": "hubtui.api.errors",
    "ApiStatusError": "hubtui.api.errors",
    "ApiTimeoutError": "hubtui.api.errors",
    "ApiVersion": "hubtui.api.versions",
    "AuthenticationError": "hubtui.api.errors",
    "BadRequestError": "hubtui.api.errors",
    "ConflictError": "hubtui.api.errors",
    "Hub": "hubtui.api.models",
    "HubClient": "hubtui.api.client",
    "HubError": "hubtui.api.errors",
    "Image": "hubtui.api.models",
    "IncompleteListError": "hubtui.api.errors",
    "InvalidResponseError": "hubtui.api.errors",
    "NotFoundError": "hubtui.api.errors",
    "NotKeptError": "hubtui.api.errors",
    "PermissionDeniedError": "hubtui.api.errors",
    "Project": "hubtui.api.models",
    "ProjectUser": "hubtui.api.models",
    "RateLimitError": "hubtui.api.errors",
    "RegionSummary": "hubtui.api.models",
    "RegionalRoute": "hubtui.api.routing",
    "RequestStats": "hubtui.api.client",
    "ChangeRequest": "hubtui.api.client",
    "ServerError": "hubtui.api.errors",
    "Team": "hubtui.api.models",
    "UnsafeUrlError": "hubtui.api.errors",
    "UserSummary": "hubtui.api.models",
}

__all__ = [
    "KNOWN_ROLES",
    "LIMITED_ACCESS",
    "ApiConnectionError",
    "ApiStatusError",
    "ApiTimeoutError",
    "ApiVersion",
    "AuthenticationError",
    "BadRequestError",
    "ConflictError",
    "Hub",
    "HubClient",
    "HubError",
    "Image",
    "IncompleteListError",
    "InvalidResponseError",
    "NotFoundError",
    "NotKeptError",
    "PermissionDeniedError",
    "Project",
    "ProjectUser",
    "RateLimitError",
    "RegionSummary",
    "RegionalRoute",
    "RequestStats",
    "ChangeRequest",
    "ServerError",
    "Team",
    "UnsafeUrlError",
    "UserSummary",
]


__getattr__ = names_from(__name__, _EXPORTS)
