"""The demo API: an ASGI app implementing the contract over a :class:`DemoStore`.

One idea: every route of the demo API in one ASGI app, as one server is.

It shares no code with the client, so the client is tested against an independent
implementation. Faults (latency, error statuses, malformed or truncated bodies) are off unless
:class:`Faults` turns them on.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from datetime import datetime
from typing import Any, TypeVar

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Mount, Route

from hubtui.demo.data import (
    DEMO_TOKEN,
    EMAIL_PATTERN,
    HUB_ROLES,
    REGIONS,
    ROLES,
    DemoConflict,
    DemoHub,
    DemoProject,
    DemoSize,
    DemoStore,
    DemoUser,
    HubAccess,
    Membership,
)
from hubtui.demo.faults import FaultMiddleware, Faults, Pauses, ServerStats
from hubtui.demo.problems import Problem, problem, validation_problem

T = TypeVar("T")

__all__ = ["Faults", "ServerStats", "create_app"]

Handler = Callable[[Request], Awaitable[Response]]


def create_app(
    store: DemoStore | None = None, faults: Faults | None = None, *, size: DemoSize | None = None
) -> Starlette:
    """The demo API over ``store`` (built from ``size`` when not given)."""
    store = store or DemoStore(size)
    faults = faults or Faults()
    api = _DemoApi(store, faults)
    hub_scoped = [
        Route("/v3/hubs/{hub_id}/projects", api.list_projects),
        Route("/v3/hubs/{hub_id}/users", api.hub_users, methods=["GET", "POST"]),
        Route("/v3/hubs/{hub_id}/users/{user_id:int}", api.hub_user, methods=["PUT", "DELETE"]),
        Route(
            "/{version}/hubs/{hub_id}/projects/{project_id:int}/users",
            api.project_users,
            methods=["GET", "POST"],
        ),
        Route(
            "/{version}/hubs/{hub_id}/projects/{project_id:int}/users/{user_id:int}",
            api.project_user,
            methods=["GET", "PUT"],
        ),
    ]
    routes = [
        Route("/v3/hubs", api.list_hubs),
        Route("/v3/hubs/name/{hub_name:path}", api.hub_by_name),
        Route("/v3/hubs/{hub_id}", api.get_hub),
        *hub_scoped,
        Mount("/regions/{region}", routes=hub_scoped),
        Route("/_demo/stats", api.stats),
    ]
    app = Starlette(
        routes=routes,
        exception_handlers={HTTPException: _http_exception},  # type: ignore[dict-item]
    )
    app.state.store = store
    app.state.faults = faults
    app.state.stats = api.stats_counter
    app.state.pauses = pauses = Pauses()
    app.add_middleware(FaultMiddleware, faults=faults, stats=api.stats_counter, pauses=pauses)
    return app


async def _http_exception(request: Request, exc: HTTPException) -> Response:
    if isinstance(exc, Problem):
        return exc.response()
    titles = {404: "Not Found", 405: "Method Not Allowed"}
    title = titles.get(exc.status_code, "Error")
    return problem(exc.status_code, title, f"{request.method} {request.url.path}: {exc.detail}")


class _DemoApi:
    def __init__(self, store: DemoStore, faults: Faults) -> None:
        self.store = store
        self.faults = faults
        self.stats_counter = ServerStats()

    def _list(self, request: Request, items: Sequence[T], render: Callable[[T], Any]) -> Response:
        """A list answer: the whole list, or with ``page_size`` one page of it in an OData
        wrapper, ``@odata.nextLink`` naming the next (``$skip``) while more remain."""
        size = self.faults.page_size
        if not size:
            return _json_list(items, render)
        try:
            skip = max(0, int(request.query_params.get("$skip", "0")))
        except ValueError:
            return problem(400, "Bad Request", "$skip must be a whole number.")
        body: dict[str, Any] = {"value": [render(item) for item in items[skip : skip + size]]}
        if skip + size < len(items):
            following = request.url.include_query_params(**{"$skip": skip + size})
            body["@odata.nextLink"] = str(following)
        return _json(body)

    # Hubs -------------------------------------------------------------------------------------

    async def list_hubs(self, request: Request) -> Response:
        _check_token(request)
        origin = _origin(request)
        hubs = list(self.store.hubs.values())
        return self._list(request, hubs, lambda h: self._hub(h, origin))

    async def get_hub(self, request: Request) -> Response:
        _check_token(request)
        hub = self.store.hubs.get(request.path_params["hub_id"])
        if hub is None:
            return problem(
                404, "Hub not found", f"No hub has the id {request.path_params['hub_id']!r}."
            )
        # The published document: by Id, the hub with the asking user's permissions
        # (HubDetailWithUserPermissions); in the list and by name, without (HubDetail).
        return _json(
            self._hub(hub, _origin(request)) | {"RequestingUserPermissions": {"Role": "Admin"}}
        )

    async def hub_by_name(self, request: Request) -> Response:
        _check_token(request)
        name = request.path_params["hub_name"]
        hub = self.store.hub_by_name(name)
        if hub is None:
            return problem(404, "Hub not found", f"No hub has the URL name {name!r}.")
        return _json(self._hub(hub, _origin(request)))

    # Projects and users -----------------------------------------------------------------------

    async def list_projects(self, request: Request) -> Response:
        hub = self._hub_for(request)
        if self.faults.projects_listing_status is not None:
            status = self.faults.projects_listing_status
            return problem(status, "Not available", "This server does not list a hub's projects.")
        return self._list(request, list(hub.projects.values()), self._project)

    async def hub_users(self, request: Request) -> Response:
        hub = self._hub_for(request)
        if self.faults.no_hub_users:
            return problem(404, "Not Found", "This server does not list a hub's users.")
        if request.method == "POST":
            body = await _json_body(request)
            email, role = body.get("Email"), body.get("Role")
            refused = _hub_user_body(body, ("Email", "Role"), ("Email", "Role"))
            if not refused and not EMAIL_PATTERN.match(str(email)):
                refused["Email"] = ["Email must be an email address."]
            if refused:
                return validation_problem(refused)
            try:
                user, access = self.store.invite(hub, email=str(email), role=str(role))
            except DemoConflict as exc:
                return problem(409, "Conflict", f"{exc}.")
            return _json(self._hub_user(user, access), status=201)
        return self._list(request, self.store.hub_users(hub), lambda row: self._hub_user(*row))

    async def hub_user(self, request: Request) -> Response:
        hub = self._hub_for(request)
        if self.faults.no_hub_users:
            return problem(405, "Method Not Allowed", "This server does not change hub users.")
        user_id: int = request.path_params["user_id"]
        if user_id not in hub.user_ids:
            return problem(404, "User not found", f"User {user_id} is not a user of this hub.")
        try:
            if request.method == "DELETE":
                self.store.remove_from_hub(hub, user_id)
                return Response(status_code=200)  # the published document: 200, no body
            body = await _json_body(request)
            refused = _hub_user_body(body, ("Role",), ("Role", "ResendHubInvite"))
            resend = body.get("ResendHubInvite")
            if resend is not None and not isinstance(resend, bool):
                refused["ResendHubInvite"] = ["ResendHubInvite must be true or false."]
            if refused:
                return validation_problem(refused)
            role = str(body["Role"])
            access = self.store.hub_access(hub, user_id)
            if role != access.role:
                access = self.store.set_hub_role(hub, user_id, role)
            if body.get("ResendHubInvite") is True:
                if access.activated:
                    return problem(409, "Conflict", "The invitation was already accepted.")
                self.store.updates += 1
        except DemoConflict as exc:
            return problem(409, "Conflict", f"{exc}.")
        return _json(self._hub_user(self.store.users[user_id], access))

    def _hub_user(self, user: DemoUser, access: HubAccess) -> dict[str, Any]:
        def moment(value: datetime | None) -> str | None:
            return None if value is None else value.strftime("%Y-%m-%dT%H:%M:%SZ")

        return {
            "User": self._user(user),
            "Role": access.role,
            "LastWebLogin": moment(access.web_login),
            "LastAddinLogin": moment(access.addin_login),
            "LastHubProjectActivity": moment(access.project_activity),
            "IsActivated": access.activated,
        }

    async def project_users(self, request: Request) -> Response:
        found = self._project_for(request)
        hub, project = found
        if request.method == "POST":
            return await self._create(request, hub, project)
        rows = self.store.project_users(hub, project)
        return self._list(request, rows, lambda row: self._project_user(*row))

    async def project_user(self, request: Request) -> Response:
        found = self._project_for(request)
        hub, project = found
        user_id: int = request.path_params["user_id"]
        membership = project.members.get(user_id)
        if membership is None and user_id not in self.store.limited_reader_ids(hub, project):
            return problem(404, "User not found", f"User {user_id} has no access to this project.")
        if request.method == "PUT":
            return await self._update(request, hub, project, user_id)
        return _json(self._project_user(self.store.users[user_id], membership))

    async def _create(self, request: Request, hub: DemoHub, project: DemoProject) -> Response:
        body = await _json_body(request)
        email = body.get("Email")
        if not isinstance(email, str) or not EMAIL_PATTERN.match(email):
            return problem(400, "Invalid request", "Email must be an email address.")
        checked = _role_and_reviewer(body)
        role, is_reviewer = checked
        try:
            user, membership = self.store.add_member(
                hub, project, email=email, role=role, is_reviewer=bool(is_reviewer)
            )
        except DemoConflict as exc:
            return problem(409, "Conflict", f"{exc}.")
        return _json(self._project_user(user, membership), status=201)

    async def _update(
        self, request: Request, hub: DemoHub, project: DemoProject, user_id: int
    ) -> Response:
        body = await _json_body(request)
        checked = _role_and_reviewer(body)
        role, is_reviewer = checked
        try:
            membership = self.store.update_member(
                hub, project, user_id, role=role, is_reviewer=is_reviewer
            )
        except DemoConflict:
            return problem(
                409,
                "Not a direct member",
                "This user is a limited reader through a whitelisted email domain, not a direct "
                "member of the project; add them as a member instead.",
            )
        return _json(self._project_user(self.store.users[user_id], membership))

    async def stats(self, request: Request) -> Response:
        _check_token(request)
        counter = self.stats_counter
        return _json(
            {
                "requests": counter.requests,
                "injected_failures": counter.injected_failures,
                "creates": self.store.creates,
                "updates": self.store.updates,
                "by_route": counter.by_route,
                "in_flight": counter.in_flight,
                "max_in_flight": counter.max_in_flight,
            }
        )

    # Look-ups shared by the hub-scoped routes --------------------------------------------------

    def _hub_for(self, request: Request) -> DemoHub:
        _check_token(request)
        params = request.path_params
        if params.get("version", "v3") not in ("v2", "v3"):
            raise Problem(404, "Not Found", f"Unknown API version {params['version']!r}.")
        hub = self.store.hubs.get(params["hub_id"])
        if hub is None:
            raise Problem(404, "Hub not found", f"No hub has the id {params['hub_id']!r}.")
        region = params.get("region", "us")
        if region not in REGIONS:
            raise Problem(404, "Not Found", f"Unknown region {region!r}.")
        if region != hub.region:
            home = _origin(request) + REGIONS[hub.region].path
            if self.faults.datacenter_redirect:
                path = request.url.path
                if region != "us":
                    path = path.removeprefix(REGIONS[region].path)
                query = f"?{request.url.query}" if request.url.query else ""
                raise Problem(
                    307,
                    "Temporary Redirect",
                    f"Hub {hub.name} is served by its regional API at {home}.",
                    headers={"Location": home + path + query},
                )
            raise Problem(
                421,
                "Misdirected Request",
                f"Hub {hub.name} is served by its regional API at {home}.",
            )
        return hub

    def _project_for(self, request: Request) -> tuple[DemoHub, DemoProject]:
        hub = self._hub_for(request)
        project_id: int = request.path_params["project_id"]
        project = hub.projects.get(project_id)
        if project is None:
            raise Problem(404, "Project not found", f"Hub {hub.name} has no project {project_id}.")
        if project.subscription_expired:
            body = {
                "Code": "EXPIRED_SUBSCRIPTION",
                "Message": f"The subscription of project {project.name} has expired.",
                "WebsiteLoginUrl": "https://login.example.com",
            }
            raise Problem(409, "Conflict", body["Message"], body=body)
        return hub, project

    # Wire shapes ------------------------------------------------------------------------------

    def _user(self, user: DemoUser) -> dict[str, Any]:
        return {
            "Id": user.id,
            "UserName": user.user_name,
            "Email": user.email,
            "FirstName": user.first_name,
            "LastName": user.last_name,
            "AvatarUrl": f"https://avatars.example/{user.user_name}.png",
        }

    def _hub(self, hub: DemoHub, origin: str) -> dict[str, Any]:
        region = REGIONS[hub.region]
        body: dict[str, Any] = {
            "Id": hub.id,
            "Name": hub.name,
            "DisplayName": hub.display_name or hub.name,
            "Author": self._user(self.store.users[hub.author_id]),
            "CreationDate": _iso(hub.created),
            "RegionSummary": {
                "Location": region.location,
                # The production service names no regional API: it redirects instead.
                "ApiRegionalUrl": None if self.faults.datacenter_redirect else origin + region.path,
            },
            "NumberOfUsers": len(hub.user_ids),
            "NumberOfProjects": len(hub.projects),
            "IsUserEntraIdSsoRestricted": hub.sso_restricted,
            "RestrictedTenantId": hub.tenant_id,
            "RestrictedTenantDomain": hub.tenant_domain,
        }
        if self.faults.omit_new_fields:
            del body["DisplayName"]
        return body

    def _project(self, project: DemoProject) -> dict[str, Any]:
        return {
            "Id": project.id,
            "Name": project.name,
            "Author": self._user(self.store.users[project.author_id]),
            "Image": None,
            "CreationDate": _iso(project.created),
            "Number": project.number,
            "StartDate": _iso(project.start),
            "EndDate": _iso(project.end),
            "ProjectStatus": project.status,
            "ProjectAccess": project.access,
            "ProjectControlSource": "Internal",
        }

    def _project_user(self, user: DemoUser, membership: Membership | None) -> dict[str, Any]:
        body: dict[str, Any] = {"User": self._user(user)}
        if membership is None:
            body |= {
                "DefaultFilterTemplateId": None,
                "Role": "Reader",
                "Teams": [],
                "IsReviewer": False,
                "IsLimited": True,
            }
        else:
            teams = membership.teams
            body |= {
                "DefaultFilterTemplateId": membership.default_filter_template_id,
                "Role": membership.role,
                "Teams": None if teams is None else [{"Id": i, "Name": n} for i, n in teams],
                "IsReviewer": membership.is_reviewer,
                "IsLimited": False,
            }
        if self.faults.omit_new_fields:
            del body["IsLimited"]
        return body


def _check_token(request: Request) -> None:
    if request.headers.get("authorization") == f"Bearer {DEMO_TOKEN}":
        return
    raise Problem(
        401,
        "Unauthorized",
        "A valid bearer token is required.",
        headers={"WWW-Authenticate": 'Bearer realm="demo"'},
    )


def _hub_user_body(
    body: dict[str, Any], required: tuple[str, ...], allowed: tuple[str, ...]
) -> dict[str, list[str]]:
    """What the published ``HubUserPost``/``HubUserPut`` refuse in ``body``, by field: a
    required field missing, a role not of the hub's, a field it does not know."""
    refused: dict[str, list[str]] = {}
    for name in required:
        if body.get(name) is None:
            refused[name] = [f"The {name} field is required."]
    if "Role" in body and body["Role"] is not None and body["Role"] not in HUB_ROLES:
        refused["Role"] = [f"Role must be one of {', '.join(HUB_ROLES)}."]
    if "Email" in body and not isinstance(body.get("Email", ""), str):
        refused["Email"] = ["Email must be a string."]
    for name in body:
        if name not in allowed:
            refused[name] = [f"{name} is not a field of this request."]
    return refused


async def _json_body(request: Request) -> dict[str, Any]:
    try:
        body = json.loads(await request.body())
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise Problem(400, "Invalid request", "The body must be a JSON object.") from None
    if not isinstance(body, dict):
        raise Problem(400, "Invalid request", "The body must be a JSON object.")
    return body


def _role_and_reviewer(body: dict[str, Any]) -> tuple[str, bool | None]:
    role = body.get("Role")
    if role not in ROLES:
        raise Problem(400, "Invalid request", f"Role must be one of {', '.join(ROLES)}.")
    is_reviewer = body.get("IsReviewer")
    if is_reviewer is not None and not isinstance(is_reviewer, bool):
        raise Problem(400, "Invalid request", "IsReviewer must be true or false.")
    return str(role), is_reviewer


def _origin(request: Request) -> str:
    return f"{request.url.scheme}://{request.url.netloc}"


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _dumps(body: Any) -> str:
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"))


def _json(body: Any, *, status: int = 200) -> Response:
    return Response(_dumps(body).encode(), status_code=status, media_type="application/json")


#: A list this long or longer is sent as it is written, a part at a time, as a large service
#: sends it: its first records arrive while the rest is still being written.
STREAMED_LIST_AT_LEAST = 1000
_STREAMED_PART = 500


def _json_list(items: Sequence[T], render: Callable[[T], Any]) -> Response:
    """A JSON array of ``items``, each as ``render`` writes it."""
    if len(items) < STREAMED_LIST_AT_LEAST:
        return _json([render(item) for item in items])

    def part(start: int) -> bytes:
        written = ",".join([_dumps(render(item)) for item in items[start : start + _STREAMED_PART]])
        return f"{',' if start else '['}{written}".encode()

    async def parts() -> AsyncIterator[bytes]:
        for start in range(0, len(items), _STREAMED_PART):
            # Written on a thread: other requests are answered meanwhile, as a service answers
            # them beside a large list (its loop would otherwise wait for the whole list).
            yield await asyncio.to_thread(part, start)
        yield b"]"

    return StreamingResponse(parts(), media_type="application/json")
