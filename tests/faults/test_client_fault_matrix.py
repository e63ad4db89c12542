"""Every client operation × every fault: a typed error, or success after a retry where allowed.

A change answered with success but an unreadable body was made: the client reads the user back.
A change that failed in a way the server may still have acted on says so (``may_have_applied``).

The count of this file's passing cells is the matrix figure in docs/reliability.md.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import httpx
import pytest

from hubtui.api import (
    ApiConnectionError,
    ApiTimeoutError,
    AuthenticationError,
    ConflictError,
    Hub,
    HubClient,
    HubError,
    InvalidResponseError,
    NotFoundError,
    PermissionDeniedError,
    Project,
    ProjectUser,
    RateLimitError,
    ServerError,
)
from tests.faults.faults import FAULTS, HUB, PROJECT, RETRIED, SUCCEEDS, USER
from tests.harness.demo_api import SleepRecorder


@dataclass(frozen=True)
class Operation:
    method: str
    path: str
    good: object
    call: Callable[[HubClient], Awaitable[object]]


USERS = "/v3/hubs/h1/projects/1001/users"
OPERATIONS = {
    "list_hubs": Operation("GET", "/v3/hubs", [HUB], lambda c: c.list_hubs()),
    "get_hub": Operation("GET", "/v3/hubs/h1", HUB, lambda c: c.get_hub("h1")),
    "get_hub_by_name": Operation(
        "GET", "/v3/hubs/name/acme-build", HUB, lambda c: c.get_hub_by_name("acme-build")
    ),
    "list_projects": Operation(
        "GET", "/v3/hubs/h1/projects", [PROJECT], lambda c: c.list_projects("h1")
    ),
    "list_project_users": Operation(
        "GET", USERS, [USER], lambda c: c.list_project_users("h1", 1001)
    ),
    "get_project_user": Operation(
        "GET", f"{USERS}/5", USER, lambda c: c.get_project_user("h1", 1001, 5)
    ),
    "create_project_user": Operation(
        "POST",
        USERS,
        USER,
        lambda c: c.create_project_user("h1", 1001, email="a@b.example", role="Editor"),
    ),
    "update_project_user": Operation(
        "PUT", f"{USERS}/5", USER, lambda c: c.update_project_user("h1", 1001, 5, role="Editor")
    ),
}

EXPECTED_ERROR: dict[str, type[HubError]] = {
    "connection refused": ApiConnectionError,
    "timeout": ApiTimeoutError,
    "reset mid-body": ApiConnectionError,
    "401": AuthenticationError,
    "403": PermissionDeniedError,
    "404": NotFoundError,
    "409 problem details": ConflictError,
    "409 Code and Message": ConflictError,
    "429 Retry-After": RateLimitError,
    "500": ServerError,
    "502": ServerError,
    "503": ServerError,
    "HTML error page": ServerError,
    "malformed JSON": InvalidResponseError,
    "JSON of the wrong shape": InvalidResponseError,
    "empty body": InvalidResponseError,
}
#: Success statuses with bodies that cannot be read: a change was made all the same.
UNREADABLE_SUCCESS = {"malformed JSON", "JSON of the wrong shape", "empty body"}
#: Failures after which the server may have made a change: sent, then no complete answer, or
#: a server (or a gateway) that failed, which may have acted first (the HTML page is a 500).
MAY_HAVE_APPLIED = {"timeout", "reset mid-body", "500", "502", "503", "HTML error page"}


@pytest.mark.parametrize("fault", list(FAULTS))
@pytest.mark.parametrize("name", list(OPERATIONS))
async def test_cell(name: str, fault: str, sleeps: SleepRecorder) -> None:
    operation = OPERATIONS[name]
    faulted: list[httpx.Request] = []
    sent: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        mine = request.method == operation.method and request.url.path == operation.path
        if mine and not faulted:
            faulted.append(request)
            return FAULTS[fault](request, operation.good)
        if request.url.path == "/v3/hubs":
            return httpx.Response(200, json=[HUB])
        if request.method == "GET" and request.url.path == USERS:
            return httpx.Response(200, json=[USER])  # a change's answer, read back
        if request.method == "GET" and request.url.path == f"{USERS}/5":
            return httpx.Response(200, json=USER)
        return httpx.Response(200, json=operation.good)

    client = HubClient(
        "https://api.example.com", token="t", transport=httpx.MockTransport(handler), sleep=sleeps
    )
    async with client:
        if name != "list_hubs":
            await client.list_hubs()  # the hub's region is known, as after the hub list loads
        try:
            result = await operation.call(client)
        except HubError as error:
            outcome: object = error
        else:
            outcome = result
    assert faulted, "the fault was never injected"
    mine = [r for r in sent if r.url.path == operation.path and r.method == operation.method]
    retried = operation.method in ("GET", "PUT") and fault in RETRIED
    change = operation.method in ("POST", "PUT")
    read_back = change and fault in UNREADABLE_SUCCESS
    if fault in SUCCEEDS or retried or read_back:
        assert not isinstance(outcome, HubError), f"{name} × {fault}: {outcome}"
        expected = operation.good[0] if isinstance(operation.good, list) else operation.good
        record = outcome[0] if isinstance(outcome, list) else outcome
        assert isinstance(expected, dict)
        if isinstance(record, ProjectUser):
            assert record.user.id == expected["User"]["Id"]
        else:
            assert isinstance(record, Hub | Project)
            assert record.id == expected["Id"]
        assert len(mine) == (2 if retried else 1)
    else:
        assert isinstance(outcome, EXPECTED_ERROR[fault]), f"{name} × {fault}: {outcome!r}"
        assert " failed: " in str(outcome)
        assert len(mine) == 1
        assert outcome.may_have_applied == (fault in MAY_HAVE_APPLIED)
