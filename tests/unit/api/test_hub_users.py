"""The hub-user operations of the client against the demo API: typed records, unknown fields
kept, the invitation, a hub role changed, an invitation sent again, a removal, and a server that
does not offer them."""

from __future__ import annotations

import httpx
import pytest

from hubtui.api import HubClient, HubError
from hubtui.api.errors import ApiStatusError
from hubtui.demo import DEMO_TOKEN, DemoStore, Faults, create_app
from tests.harness.demo_api import DEMO_URL


async def test_list_invite_change_resend_and_remove(
    client: HubClient, demo_store: DemoStore
) -> None:
    hub = await client.get_hub_by_name("acme-build")
    before = list(await client.list_hub_users(hub.id))
    assert len(before) == 13
    new = await client.invite_hub_user(hub.id, email="new.hire@acme-build.com", role="Guest")
    assert (new.user.email, new.role, new.is_activated) == (
        "new.hire@acme-build.com",
        "Guest",
        False,
    )
    assert new.last_web_login is None
    plan = await client.plan_update_hub_user(hub.id, new.user.id, role="Guest", resend_invite=True)
    # The published HubUserPut requires Role: the current one goes with the resend, never retried.
    assert (plan.method, plan.body) == ("PUT", {"Role": "Guest", "ResendHubInvite": True})
    assert plan.retry is False
    again = await client.update_hub_user(hub.id, new.user.id, role="Guest", resend_invite=True)
    assert again.role == "Guest"
    admin = await client.update_hub_user(hub.id, new.user.id, role="Admin")
    assert admin.role == "Admin"
    removal = await client.plan_remove_hub_user(hub.id, new.user.id)
    assert (removal.method, removal.body) == ("DELETE", None)
    await client.remove_hub_user(hub.id, new.user.id)
    after = [u.user.email for u in await client.list_hub_users(hub.id)]
    assert "new.hire@acme-build.com" not in after
    assert len(after) == 13


async def test_a_removal_takes_the_person_out_of_every_project(client: HubClient) -> None:
    hub = await client.get_hub_by_name("acme-build")
    users = await client.list_hub_users(hub.id)
    aiko = next(u for u in users if u.user.email == "aiko.tanaka@acme-build.com")
    await client.remove_hub_user(hub.id, aiko.user.id)
    for project in await client.list_projects(hub.id):
        emails = {u.user.email for u in await client.list_project_users(hub.id, project.id)}
        assert "aiko.tanaka@acme-build.com" not in emails


async def test_an_invitation_already_accepted_is_not_sent_again(client: HubClient) -> None:
    hub = await client.get_hub_by_name("acme-build")
    users = await client.list_hub_users(hub.id)
    chloe = next(u for u in users if u.user.email == "chloe.moreau@acme-build.com")
    with pytest.raises(ApiStatusError) as caught:
        await client.update_hub_user(
            hub.id, chloe.user.id, role=str(chloe.role), resend_invite=True
        )
    assert caught.value.status_code == 409


async def test_a_server_without_them_answers_404_and_405() -> None:
    transport = httpx.ASGITransport(app=create_app(DemoStore(), Faults(no_hub_users=True)))
    async with HubClient(DEMO_URL, token=DEMO_TOKEN, transport=transport) as client:
        hub = await client.get_hub_by_name("acme-build")
        with pytest.raises(HubError) as listing:
            await client.list_hub_users(hub.id)
        assert isinstance(listing.value, ApiStatusError)
        assert listing.value.status_code == 404
        with pytest.raises(ApiStatusError) as change:
            await client.update_hub_user(hub.id, 1, role="Admin")
        assert change.value.status_code == 405
