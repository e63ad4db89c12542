"""HubClient: one async method per operation of the contract.

One idea: one method per operation of the contract, each with the plan a dry run prints.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from types import TracebackType
from typing import Any, Self, TypeVar

import httpx
from pydantic import BaseModel

from hubtui.api import retries
from hubtui.api.errors import HubError, IncompleteListError, InvalidResponseError
from hubtui.api.exchanges import Exchange
from hubtui.api.identity import email_key
from hubtui.api.models import Hub, HubUser, Project, ProjectUser, SentRecord
from hubtui.api.parsing import (
    DEFAULT_MAX_RECORDS,
    RawFilter,
    Records,
    SkippedRecord,
    parse_first,
    parse_list,
    parse_one,
)
from hubtui.api.paths import HUB_BY_NAME, HUBS, PROJECTS, USERS, hub_scoped
from hubtui.api.routing import (
    RegionalRoute,
    Routes,
    encode_segment,
    judge_regional_url,
    server_url,
)
from hubtui.api.streaming import GrowingBody, ListReader
from hubtui.api.transport import DEFAULT_DEADLINE, RequestStats, Sleep, Transport
from hubtui.api.versions import ApiVersion, is_api_version

__all__ = ["ApiVersion", "ChangeRequest", "HubClient", "RequestStats"]

#: How many records of a large list are handed to ``first`` before the whole list is read.
FIRST_RECORDS = 200
#: The most pages of one list hubtui reads (a list the server sends in pages).
DEFAULT_MAX_PAGES = 1000

logger = logging.getLogger("hubtui.api")

M = TypeVar("M", bound="BaseModel | SentRecord")
Id = int | str


@dataclass(frozen=True)
class ChangeRequest:
    """A change exactly as it goes out: what a dry run prints is what the real run sends."""

    method: str
    url: str
    body: dict[str, Any] | None
    """None: the request has no body (a removal)."""
    operation: str
    retry: bool = True
    """False: never tried again by the transport (its effect is not the same twice: an
    invitation emailed again); an unknown outcome is settled by reading back."""


class HubClient:
    """An async client of the hub and project-user API.

    Use it as ``async with HubClient(base_url, token=...) as client:``. GET and PUT calls are
    retried after connection errors, timeouts, 429, 502, 503 and 504; POST never is.
    """

    def __init__(
        self,
        base_url: str,
        *,
        token: str | None = None,
        api_version: ApiVersion = "v3",
        timeout: float = 30.0,
        deadline: float = DEFAULT_DEADLINE,
        max_records: int = DEFAULT_MAX_RECORDS,
        max_retries: int = retries.DEFAULT_MAX_RETRIES,
        transport: httpx.AsyncBaseTransport | None = None,
        trusted_hosts: Iterable[str] = (),
        allow_insecure_http: bool = False,
        ca_bundle: str | None = None,
        sleep: Sleep | None = None,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self._base_url = server_url(base_url, allow_insecure_http=allow_insecure_http)
        self.api_version: ApiVersion = _check_version(api_version)
        #: The most records one list answer may hold (all its pages together).
        self.max_records = max_records
        #: The most pages of one list that are read.
        self.max_pages = DEFAULT_MAX_PAGES
        self._routes = Routes(self._base_url, trusted_hosts)
        self._transport = Transport(
            self._base_url,
            token=token,
            timeout=timeout,
            deadline=deadline,
            max_retries=max_retries,
            transport=transport,
            ca_bundle=ca_bundle,
            sleep=sleep,
            clock=clock,
            judge_redirect=self._judge_redirect,
            on_followed=self._routes.move,
        )
        #: Counts of what was sent: requests and retries.
        self.stats = self._transport.stats
        #: Every exchange (request and answer) of this client, the newest kept.
        self.exchanges = self._transport.exchanges

    @property
    def base_url(self) -> str:
        """The configured server's base URL."""
        return str(self._base_url)

    def __repr__(self) -> str:
        token = "set" if self._transport.has_token else "none"
        version = self.api_version
        return f"HubClient(base_url={self.base_url!r}, api_version={version!r}, token={token})"

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the connections."""
        await self._transport.aclose()

    # Hubs -------------------------------------------------------------------------------------

    async def list_hubs(self) -> Records[Hub]:
        """Every hub the token can see (``GET /v3/hubs``)."""
        hubs = await self._get_list(*await self._list_call(), Hub)
        self._learn_routes(hubs)
        return hubs

    async def get_hub(self, hub_id: Id) -> Hub:
        """One hub by its id (``GET /v3/hubs/{hubId}``)."""
        operation = f"get hub {hub_id!r}"
        hub = await self._get_one(operation, self._url(HUBS, hub_id), Hub)
        self._learn_routes([hub])
        return hub

    async def get_hub_by_name(self, name: str) -> Hub:
        """One hub by its URL name (``Name``), never by its ``DisplayName``."""
        operation = f"get hub by URL name {name!r}"
        hub = await self._get_one(operation, self._url(HUB_BY_NAME, name), Hub)
        self._learn_routes([hub])
        return hub

    def regional_route(self, hub: Hub) -> RegionalRoute:
        """Where calls about this hub's projects and users go, and why."""
        return self._routes.judge(hub)

    # Projects ---------------------------------------------------------------------------------

    async def list_projects(self, hub_id: Id) -> Records[Project]:
        """The hub's projects (``GET /v3/hubs/{hubId}/projects``).

        This operation is assumed, not in the spec: a server may answer 404 or 405.
        """
        return await self._get_list(*await self._list_call(hub_id), Project)

    # Project users ----------------------------------------------------------------------------

    async def list_project_users(
        self,
        hub_id: Id,
        project_id: Id,
        *,
        api_version: ApiVersion | None = None,
        where: RawFilter | None = None,
        first: Callable[[Records[ProjectUser]], object] | None = None,
    ) -> Records[ProjectUser]:
        """The project's users, limited readers included.

        Like every list, a record that breaks the contract is left out and counted in
        ``skipped_count``; the others come back. ``where`` keeps only the records it accepts
        as the server sent them (a JSON object), before they are validated: a fast pre-filter.
        ``first``, for a large list, is called with its first records as soon as the answer is
        in, before the whole list is read (a screen shows them meanwhile).
        """
        operation, url = await self._list_call(hub_id, project_id, api_version)
        return await self._get_list(operation, url, ProjectUser, where=where, first=first)

    async def list_project_users_as_sent(
        self,
        hub_id: Id,
        project_id: Id,
        *,
        api_version: ApiVersion | None = None,
        held: bool = True,
    ) -> Records[SentRecord]:
        """The project's users exactly as the server sent them (``record.root``), each only
        checked to be a JSON object: for keeping them, where validating each would cost more
        than reading it. ``held``: False where each is read once and let go (see
        :func:`~hubtui.api.parsing.parse_list`)."""
        operation, url = await self._list_call(hub_id, project_id, api_version)
        return await self._get_list(operation, url, SentRecord, held=held)

    async def get_project_user(
        self, hub_id: Id, project_id: Id, user_id: Id, *, api_version: ApiVersion | None = None
    ) -> ProjectUser:
        """One user's permissions in a project."""
        url = await self._hub_url(
            hub_id, self._version(api_version), PROJECTS, project_id, USERS, user_id
        )
        operation = f"get user {user_id!r} of project {project_id!r}"
        return await self._get_one(operation, url, ProjectUser)

    async def plan_create(
        self,
        hub_id: Id,
        project_id: Id,
        *,
        email: str,
        role: str,
        is_reviewer: bool | None = None,
        api_version: ApiVersion | None = None,
    ) -> ChangeRequest:
        """The request :meth:`create_project_user` sends for these values (nothing is sent)."""
        url = await self._hub_url(hub_id, self._version(api_version), PROJECTS, project_id, USERS)
        body = _change_body({"Email": email, "Role": role}, is_reviewer)
        return ChangeRequest("POST", url, body, f"add {email!r} to project {project_id!r}")

    async def plan_update(
        self,
        hub_id: Id,
        project_id: Id,
        user_id: Id,
        *,
        role: str,
        is_reviewer: bool | None = None,
        api_version: ApiVersion | None = None,
    ) -> ChangeRequest:
        """The request :meth:`update_project_user` sends for these values (nothing is sent)."""
        url = await self._hub_url(
            hub_id, self._version(api_version), PROJECTS, project_id, USERS, user_id
        )
        body = _change_body({"Role": role}, is_reviewer)
        return ChangeRequest("PUT", url, body, f"update user {user_id!r} of project {project_id!r}")

    async def create_project_user(
        self,
        hub_id: Id,
        project_id: Id,
        *,
        email: str,
        role: str,
        is_reviewer: bool | None = None,
        api_version: ApiVersion | None = None,
    ) -> ProjectUser:
        """Add a user to a project as a direct member. Never retried automatically."""
        plan = await self.plan_create(
            hub_id,
            project_id,
            email=email,
            role=role,
            is_reviewer=is_reviewer,
            api_version=api_version,
        )
        wanted = email_key(email)
        return await self._change(
            plan,
            lambda: self.list_project_users(hub_id, project_id, api_version=api_version),
            lambda user: email_key(user.user.email) == wanted and not user.is_limited,
        )

    async def update_project_user(
        self,
        hub_id: Id,
        project_id: Id,
        user_id: Id,
        *,
        role: str,
        is_reviewer: bool | None = None,
        api_version: ApiVersion | None = None,
    ) -> ProjectUser:
        """Change a direct member's role (and reviewer flag)."""
        plan = await self.plan_update(
            hub_id, project_id, user_id, role=role, is_reviewer=is_reviewer, api_version=api_version
        )
        return await self._change(
            plan, lambda: self._one_user(hub_id, project_id, user_id, api_version), lambda _: True
        )

    # Hub users (the published document's, beyond the spec: a server may answer 404 or 405) -----

    async def list_hub_users(
        self, hub_id: Id, *, first: Callable[[Records[HubUser]], object] | None = None
    ) -> Records[HubUser]:
        """Every person with access to the hub, with their hub role and when they were last
        seen (``GET /v3/hubs/{hubId}/users``). ``first``, for a large list, is called with its
        first records as soon as the answer is in, before the whole list is read."""
        url = await self._hub_url(hub_id, "v3", USERS)
        return await self._get_list(f"list users of hub {hub_id!r}", url, HubUser, first=first)

    async def list_hub_users_as_sent(self, hub_id: Id, *, held: bool = True) -> Records[SentRecord]:
        """The hub's users exactly as the server sent them (``record.root``), each only checked
        to be a JSON object: for keeping them (a snapshot), where a model of each would be
        built only to be written back. ``held``: as in :meth:`list_project_users_as_sent`."""
        url = await self._hub_url(hub_id, "v3", USERS)
        return await self._get_list(f"list users of hub {hub_id!r}", url, SentRecord, held=held)

    async def plan_invite(self, hub_id: Id, *, email: str, role: str) -> ChangeRequest:
        """The request :meth:`invite_hub_user` sends (nothing is sent)."""
        url = await self._hub_url(hub_id, "v3", USERS)
        body = {"Email": email, "Role": role}
        return ChangeRequest("POST", url, body, f"invite {email!r} to hub {hub_id!r}")

    async def plan_update_hub_user(
        self, hub_id: Id, user_id: Id, *, role: str, resend_invite: bool = False
    ) -> ChangeRequest:
        """The request :meth:`update_hub_user` sends (nothing is sent): a hub role (the
        published ``HubUserPut`` requires it, so a resend sends the person's current one), and
        the invitation sent again, which is never retried (a second email)."""
        url = await self._hub_url(hub_id, "v3", USERS, user_id)
        body: dict[str, Any] = {"Role": role}
        if resend_invite:
            body["ResendHubInvite"] = True
        what = "resend the invitation of" if resend_invite else "update"
        operation = f"{what} user {user_id!r} of hub {hub_id!r}"
        return ChangeRequest("PUT", url, body, operation, retry=not resend_invite)

    async def plan_remove_hub_user(self, hub_id: Id, user_id: Id) -> ChangeRequest:
        """The request :meth:`remove_hub_user` sends (nothing is sent)."""
        url = await self._hub_url(hub_id, "v3", USERS, user_id)
        return ChangeRequest("DELETE", url, None, f"remove user {user_id!r} from hub {hub_id!r}")

    async def invite_hub_user(self, hub_id: Id, *, email: str, role: str) -> HubUser:
        """Invite a person to the hub (they get an email). Never retried automatically."""
        plan = await self.plan_invite(hub_id, email=email, role=role)
        wanted = email_key(email)
        return await self._change(
            plan,
            lambda: self.list_hub_users(hub_id),
            lambda user: email_key(user.user.email) == wanted,
            HubUser,
        )

    async def update_hub_user(
        self, hub_id: Id, user_id: Id, *, role: str, resend_invite: bool = False
    ) -> HubUser:
        """Set a person's hub role (``role``, required by the service), and with
        ``resend_invite`` send their invitation again: that call is sent once, never retried."""
        plan = await self.plan_update_hub_user(
            hub_id, user_id, role=role, resend_invite=resend_invite
        )
        return await self._change(
            plan,
            lambda: self.list_hub_users(hub_id),
            lambda user: str(user.user.id) == str(user_id),
            HubUser,
        )

    async def remove_hub_user(self, hub_id: Id, user_id: Id) -> None:
        """Remove a person from the hub (and so from its projects)."""
        plan = await self.plan_remove_hub_user(hub_id, user_id)
        await self._transport.send(plan.method, plan.url, operation=plan.operation, body=None)

    async def _one_user(
        self, hub_id: Id, project_id: Id, user_id: Id, api_version: ApiVersion | None
    ) -> list[ProjectUser]:
        return [await self.get_project_user(hub_id, project_id, user_id, api_version=api_version)]

    async def _change(
        self,
        plan: ChangeRequest,
        read: Callable[[], Awaitable[Sequence[M]]],
        wanted: Callable[[M], bool],
        model: type[M] = ProjectUser,  # type: ignore[assignment]
    ) -> M:
        """The user as the change left them. After a success with an unreadable body (the server
        said yes: the change was made), they are read back (``read``, ``wanted``), not guessed."""
        response = await self._transport.send(
            plan.method, plan.url, operation=plan.operation, body=plan.body, retry=plan.retry
        )
        try:
            return parse_one(response.content, plan.operation, model)
        except InvalidResponseError as unreadable:
            problem = unreadable.problem
        try:
            found = next((user for user in await read() if wanted(user)), None)
        except HubError as error:
            why = f"reading it back failed too ({error})"
        else:
            if found is not None:
                return found
            why = "reading it back did not find the user"
        raise InvalidResponseError(
            operation=plan.operation,
            problem=f"the server accepted the change (HTTP {response.status_code}), but its "
            f"answer ({problem}) could not be read and {why}",
            applied=True,
        )

    # Plumbing ---------------------------------------------------------------------------------

    def _version(self, api_version: ApiVersion | None) -> ApiVersion:
        return self.api_version if api_version is None else _check_version(api_version)

    def _url(self, prefix: str, *segments: Id, base: str | None = None) -> str:
        path = "/".join([prefix.rstrip("/"), *(encode_segment(s) for s in segments)])
        return (base or str(self._base_url)).rstrip("/") + path

    def _judge_redirect(self, target: httpx.URL) -> tuple[bool, str]:
        """A 307/308 target passes the rule a hub's regional API passes, or is refused."""
        route = judge_regional_url(
            str(target), base_url=self._base_url, trusted_hosts=self._routes.trusted_hosts
        )
        return route.trusted, route.why

    def _learn_routes(self, hubs: Sequence[Hub]) -> None:
        self._transport.trust_origins(self._routes.learn(hubs))

    async def _hub_url(self, hub_id: Id, version: str, *segments: Id) -> str:
        route = await self._routes.of(hub_id, lambda: self.get_hub(hub_id))
        return self._url(hub_scoped(version), hub_id, *segments, base=route.base_url)

    async def _get_list(
        self,
        operation: str,
        url: str,
        model: type[M],
        *,
        where: RawFilter | None = None,
        first: Callable[[Records[M]], object] | None = None,
        held: bool = True,
    ) -> Records[M]:
        """The whole list: a list the server sends in pages (``@odata.nextLink``) is read page
        after page, each link followed only on the server that sent the page, within
        :attr:`max_pages` pages and :attr:`max_records` records in all. A list that cannot be
        read whole (a page that fails, a link elsewhere or seen before, past a bound) raises
        :class:`IncompleteListError`: never a short list taken for the whole."""
        records = await self._get_page(operation, url, model, where, first, held)
        seen = {url}
        page = 1
        while records.next_link is not None:
            link = str(httpx.URL(url).join(records.next_link))
            page += 1
            if (problem := _refused_link(url, link, seen, page, self.max_pages)) is not None:
                raise IncompleteListError(operation=operation, problem=problem, read=len(records))
            seen.add(link)
            try:
                more = await self._get_page(operation, link, model, where, None, held)
            except HubError as error:
                raise IncompleteListError(
                    operation=operation, problem=f"page {page} failed ({error})", read=len(records)
                ) from None
            offset = len(records) + records.skipped_count
            records.extend(more)
            records.skipped_count += more.skipped_count
            records.skipped += [SkippedRecord(s.index + offset, s.problem) for s in more.skipped]
            records.next_link = more.next_link
            url = link
            if len(records) + records.skipped_count > self.max_records:
                raise IncompleteListError(
                    operation=operation,
                    problem=f"its pages hold more than {self.max_records:,} records, the most "
                    "hubtui reads (max_records in the config file)",
                    read=len(records),
                )
        return records

    async def _get_page(
        self,
        operation: str,
        url: str,
        model: type[M],
        where: RawFilter | None,
        first: Callable[[Records[M]], object] | None,
        held: bool = True,
    ) -> Records[M]:
        def show_first(content: bytes | bytearray) -> None:
            assert first is not None
            head = parse_first(content, model, FIRST_RECORDS)
            if head:
                first(head)

        def parse(content: bytes | bytearray | GrowingBody) -> Records[M]:
            return parse_list(
                content, operation, model, max_records=self.max_records, where=where, held=held
            )

        reader = ListReader(parse, show_first if first is not None and where is None else None)
        try:
            response = await self._transport.send("GET", url, operation=operation, reader=reader)
            records = await reader.records(response.content)
        finally:
            reader.close()
        if records.skipped_count:
            logger.warning(
                "%s: %d records left out: %s",
                operation,
                records.skipped_count,
                "; ".join(map(str, records.skipped)),
            )
        return records

    async def _get_one(self, operation: str, url: str, model: type[M]) -> M:
        response = await self._transport.send("GET", url, operation=operation)
        return parse_one(response.content, operation, model)

    async def plan_list(
        self,
        hub_id: Id | None = None,
        project_id: Id | None = None,
        *,
        api_version: ApiVersion | None = None,
    ) -> Exchange:
        """The request that lists the hubs (no hub), a hub's projects (a hub) or a project's
        users (both), as the request log would keep it; it is not sent (a hub not read yet is
        read, for its route)."""
        operation, url = await self._list_call(hub_id, project_id, api_version)
        return self._transport.planned("GET", url, operation=operation, body=None)

    async def _list_call(
        self,
        hub_id: Id | None = None,
        project_id: Id | None = None,
        api_version: ApiVersion | None = None,
    ) -> tuple[str, str]:
        """The operation and URL of a list: of hubs, of a hub's projects, of a project's users."""
        if hub_id is None:
            return "list hubs", self._url(HUBS)
        if project_id is None:
            url = await self._hub_url(hub_id, "v3", PROJECTS)
            return f"list projects of hub {hub_id!r}", url
        version = self._version(api_version)
        url = await self._hub_url(hub_id, version, PROJECTS, project_id, USERS)
        return f"list users of project {project_id!r}", url

    def planned_exchange(self, plan: ChangeRequest) -> Exchange:
        """A planned change as the request log would keep it, headers as sent (the token as
        ``Bearer ***``): what :func:`~hubtui.api.exchanges.as_curl` turns into a command."""
        return self._transport.planned(
            plan.method, plan.url, operation=plan.operation, body=plan.body
        )

    def within(self, seconds: float | None) -> contextlib.AbstractContextManager[None]:
        """Bound every call made inside (and in the tasks started inside) by one deadline,
        ``seconds`` from now, beside each call's own: a call past it fails at once, saying so,
        and no wait for a server's ``Retry-After`` reaches beyond it. None: no bound."""
        return self._transport.within(seconds)

    @property
    def deadline(self) -> float:
        """Seconds one call may take in all; past it the call ends as a timeout."""
        return self._transport.deadline


def _refused_link(
    page_url: str, link: str, seen: set[str], page: int, max_pages: int
) -> str | None:
    """Why the next page's ``link`` is not followed (None: it is): it leaves the server that
    sent the page (the token would go with it), it names a page read already (a loop), or the
    list is longer than ``max_pages`` pages."""
    asked, target = httpx.URL(page_url), httpx.URL(link)
    if (target.scheme, target.host, target.port) != (asked.scheme, asked.host, asked.port):
        return (
            f"its page {page} is at another server ({target.scheme}://{target.host}"
            f"{'' if target.port is None else f':{target.port}'}), where hubtui does not send "
            "the token"
        )
    if link in seen:
        return f"its page {page} links back to a page read already"
    if page > max_pages:
        return f"it comes in more than {max_pages:,} pages, the most hubtui reads"
    return None


def _change_body(fields: dict[str, Any], is_reviewer: bool | None) -> dict[str, Any]:
    """A change's body: ``IsReviewer`` only when one was given (never a default sent)."""
    return fields if is_reviewer is None else {**fields, "IsReviewer": is_reviewer}


def _check_version(version: str) -> ApiVersion:
    if is_api_version(version):
        return version
    raise ValueError(f"api_version must be 'v2' or 'v3', not {version!r}")
