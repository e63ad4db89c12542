"""A change is sent from what the server holds now, not from what a preview saw."""

from __future__ import annotations

from pathlib import Path

import httpx

from hubtui.api import HubClient
from hubtui.core.batches import Batch, Intent, Outcome, Wanted, prepare
from hubtui.core.changes.log import ChangeLog
from hubtui.demo import DEMO_TOKEN, DemoStore, Faults, create_app
from tests.harness.demo_api import DEMO_URL

CHLOE = "chloe.moreau@acme-build.com"


async def test_a_row_changed_while_the_confirmation_waited_is_not_sent(tmp_path: Path) -> None:
    store = DemoStore()
    transport = httpx.ASGITransport(app=create_app(store, Faults()))
    async with HubClient(DEMO_URL, token=DEMO_TOKEN, transport=transport) as client:
        hub = await client.get_hub_by_name("acme-build")
        log = ChangeLog(tmp_path / "changes.jsonl", server="demo")
        row = Wanted(hub.id, hub.name, "1001", None, CHLOE, Intent.SET, role="Editor")
        preview = await prepare(client, [row], log)
        assert preview.steps[0].words == "Role: Reader → Editor"
        # While the question waits, someone else makes her an Admin.
        users = await client.list_project_users(hub.id, "1001")
        chloe = next(u for u in users if u.user.email == CHLOE)
        await client.update_project_user(hub.id, "1001", chloe.user.id, role="Admin")
        updates = store.updates
        batch = Batch(preview.steps)
        await batch.send(client, log)
        result = batch.results[0]
        assert result.ended is Outcome.NOT_SENT
        assert "was Reader, now Admin" in result.message
        assert store.updates == updates  # no PUT left
        users = await client.list_project_users(hub.id, "1001")
        assert next(u for u in users if u.user.email == CHLOE).role == "Admin"
    assert (
        not (tmp_path / "changes.jsonl").exists()
        or "Editor" not in (tmp_path / "changes.jsonl").read_text()
    )
