"""What the server sent is printed as sent: a date in seven digits, or with ``.0``, is the text
the server wrote, in every JSON answer (``--format json`` and ``jsonl``); not sent stays absent."""

from __future__ import annotations

import json
from typing import Any

import pytest

from hubtui.demo import DemoStore, Faults, create_app
from tests.harness.commands import run
from tests.harness.demo_api import changing
from tests.harness.fronts import answer_rewritten
from tests.harness.harness import serving

SEVEN = "2026-03-31T13:31:29.1234567Z"
ZERO = "1895-03-08T09:34:22.0Z"
ACME_ID = "7d1f0c3e-4b8a-4f6e-9a51-acme00000001"


@pytest.mark.parametrize("fmt", ["json", "jsonl"])
def test_a_hub_s_date_is_printed_as_the_server_wrote_it(
    capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    with serving(changing("hubs", "CreationDate", SEVEN)) as url:
        status, out, err = run(capsys, "--base-url", url, "hubs", "--format", fmt)
    assert status == 0, err
    hubs = json.loads(out) if fmt == "json" else [json.loads(line) for line in out.splitlines()]
    assert {hub["CreationDate"] for hub in hubs} == {SEVEN}


def test_a_project_s_and_a_hub_user_s_dates_are_printed_as_sent(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with serving(changing("projects", "StartDate", ZERO)) as url:
        status, out, err = run(
            capsys, "--base-url", url, "projects", "acme-build", "--format", "json"
        )
    assert status == 0, err
    assert {project["StartDate"] for project in json.loads(out)} == {ZERO}
    with serving(changing("users", "LastWebLogin", SEVEN)) as url:
        status, out, err = run(
            capsys, "--base-url", url, "hub-users", "acme-build", "--format", "json"
        )
    assert status == 0, err
    assert SEVEN in out
    assert "13:31:29.123456Z" not in out


def test_a_field_the_server_did_not_send_is_said_not_sent_never_its_default() -> None:
    from hubtui.api.models import Hub
    from hubtui.core.presenting.words import hub_facts

    sent = Hub.model_validate({"Id": "h-1", "Name": "h"})  # no IsUserEntraIdSsoRestricted
    facts = dict(hub_facts(sent, None))
    assert facts["Entra ID SSO"] == "restricted: not sent"
    assert "IsUserEntraIdSsoRestricted" not in sent.as_sent()
    told = Hub.model_validate({"Id": "h-1", "Name": "h", "IsUserEntraIdSsoRestricted": False})
    assert dict(hub_facts(told, None))["Entra ID SSO"] == "restricted: no"


def _answering_by_name_without_an_id(inner: Any) -> Any:
    """The demo API, its hub-by-name answers without an Id (the document marks it nullable)."""

    async def server(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not scope["path"].startswith("/v3/hubs/name/"):
            await inner(scope, receive, send)
            return
        await answer_rewritten(
            inner, scope, receive, send, lambda s, body: (s, body | {"Id": None})
        )

    return server


def test_a_hub_whose_by_name_answer_has_no_id_is_found_from_the_list(
    capsys: pytest.CaptureFixture[str],
) -> None:
    app = _answering_by_name_without_an_id(create_app(DemoStore(), Faults()))
    with serving(app) as url:
        status, out, err = run(capsys, "--base-url", url, "hub", "acme-build", "--format", "json")
        assert status == 0, err
        assert json.loads(out)[0]["Id"] == ACME_ID
        status, out, err = run(capsys, "--base-url", url, "hub-users", "acme-build")
        assert status == 0, err


async def test_a_hub_answered_under_another_id_is_the_client_s_own_error_never_a_key_error() -> (
    None
):
    import httpx

    from hubtui.api import HubClient, InvalidResponseError
    from hubtui.demo import DEMO_TOKEN
    from tests.harness.demo_api import DEMO_URL

    app = changing("hubs", "Id", ACME_ID.upper())  # GET /v3/hubs/{id} answers another case
    transport = httpx.ASGITransport(app=app)
    async with HubClient(DEMO_URL, token=DEMO_TOKEN, transport=transport) as client:
        with pytest.raises(InvalidResponseError, match="answered a hub whose Id is"):
            await client.list_hub_users(ACME_ID)


def test_a_project_s_users_as_json_lines_are_the_json_values_sent(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Each record printed is the server's JSON value: 7.0 stays 7.0 (a model would write 7)."""
    with serving(changing("users", "DefaultFilterTemplateId", 7.0)) as url:
        argv = ("--base-url", url, "users", "acme-build", "1001", "--format", "jsonl")
        status, out, err = run(capsys, *argv)
    assert status == 0, err
    lines = out.splitlines()
    assert lines
    assert all('"DefaultFilterTemplateId": 7.0' in line for line in lines)
