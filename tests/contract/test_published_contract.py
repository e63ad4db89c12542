"""hubtui and its demo held to the service's published OpenAPI document (the hub and hub-user
operations, kept in ``konekt-hubs.json``): every answer the demo gives valid against the
document's schema for its status, the statuses the document names, and every request body hubtui
sends valid against the document's. Where hubtui's given spec adds to the document (the fields
``docs/api-contract.md`` lists), those fields alone are set aside before an answer is checked."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from openapi_schema_validator import OAS30Validator

from hubtui.api import HubClient
from hubtui.demo import DEMO_TOKEN, DemoStore, Faults, create_app
from tests.contract.make_fixture import FIXTURE, PUBLISHED, extract
from tests.harness.demo_api import DEMO_URL

DOCUMENT: dict[str, Any] = json.loads(FIXTURE.read_text(encoding="utf-8"))
ACME = "7d1f0c3e-4b8a-4f6e-9a51-acme00000001"
HEADERS = {"Authorization": f"Bearer {DEMO_TOKEN}"}
#: What the given spec adds to the document's hub (docs/api-contract.md, "Against the published
#: document"): the app's Name-against-DisplayName rests on the first.
SEED_HUB_FIELDS = {
    "DisplayName",
    "IsUserEntraIdSsoRestricted",
    "RestrictedTenantId",
    "RestrictedTenantDomain",
}


def operation(path: str, method: str) -> dict[str, Any]:
    found: dict[str, Any] = DOCUMENT["paths"][path][method]
    return found


def schema_of(content: dict[str, Any]) -> dict[str, Any]:
    """The schema of a body (every media type the document names holds the same one)."""
    schemas = [media["schema"] for media in content.values()]
    assert all(s == schemas[0] for s in schemas)
    return {**schemas[0], "components": DOCUMENT["components"]}


def problems(instance: Any, schema: dict[str, Any]) -> list[str]:
    validator = OAS30Validator(schema)
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(instance)]


def without_seed_fields(body: Any) -> Any:
    """A hub answer without the fields the given spec adds (a list: each hub)."""
    if isinstance(body, list):
        return [without_seed_fields(item) for item in body]
    return {k: v for k, v in body.items() if k not in SEED_HUB_FIELDS}


def answer_is_documented(path: str, method: str, answer: httpx.Response) -> None:
    responses = operation(path, method)["responses"]
    status = str(answer.status_code)
    assert status in responses, f"{method.upper()} {path}: {status} is not one the document names"
    content = responses[status].get("content")
    if content is None:
        assert answer.content == b"", "the document says this answer has no body"
        return
    body = answer.json()
    if path.startswith("/v3/hubs") and "/users" not in path:
        body = without_seed_fields(body)
    assert problems(body, schema_of(content)) == []


@pytest.fixture
async def demo() -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=create_app(DemoStore(), Faults()))
    async with httpx.AsyncClient(transport=transport, base_url=DEMO_URL, headers=HEADERS) as c:
        yield c


def test_the_kept_document_is_what_the_published_one_says() -> None:
    assert PUBLISHED.exists(), f"the published document is expected at {PUBLISHED}"
    published = json.loads(PUBLISHED.read_text(encoding="utf-8"))
    assert extract(published) == DOCUMENT


async def test_the_demo_s_hub_answers_are_valid_against_the_document(
    demo: httpx.AsyncClient,
) -> None:
    answer_is_documented("/v3/hubs", "get", await demo.get("/v3/hubs"))
    answer_is_documented("/v3/hubs/{hubId}", "get", await demo.get(f"/v3/hubs/{ACME}"))
    by_name = await demo.get("/v3/hubs/name/acme-build")
    answer_is_documented("/v3/hubs/name/{hubName}", "get", by_name)
    answer_is_documented("/v3/hubs/{hubId}/users", "get", await demo.get(f"/v3/hubs/{ACME}/users"))


async def test_the_demo_s_hub_user_changes_answer_as_the_document_says(
    demo: httpx.AsyncClient,
) -> None:
    users = "/v3/hubs/{hubId}/users"
    one = "/v3/hubs/{hubId}/users/{userId}"
    made = await demo.post(f"/v3/hubs/{ACME}/users", json={"Email": "n@x.example", "Role": "Guest"})
    assert made.status_code == 201
    answer_is_documented(users, "post", made)
    user_id = made.json()["User"]["Id"]
    changed = await demo.put(f"/v3/hubs/{ACME}/users/{user_id}", json={"Role": "Admin"})
    answer_is_documented(one, "put", changed)
    again = await demo.put(
        f"/v3/hubs/{ACME}/users/{user_id}", json={"Role": "Admin", "ResendHubInvite": True}
    )
    answer_is_documented(one, "put", again)
    removed = await demo.delete(f"/v3/hubs/{ACME}/users/{user_id}")
    answer_is_documented(one, "delete", removed)


@pytest.mark.parametrize(
    ("method", "body"),
    [
        ("post", {"Email": "n@x.example"}),  # no Role
        ("post", {"Email": "", "Role": "Guest"}),  # an empty Email
        ("post", {"Email": "n@x.example", "Role": "Owner"}),  # no such HubRole
        ("post", {"Email": "n@x.example", "Role": "Guest", "Extra": 1}),  # not in the schema
        ("put", {"ResendHubInvite": True}),  # no Role
    ],
)
async def test_the_demo_refuses_what_the_document_refuses_with_422(
    demo: httpx.AsyncClient, method: str, body: dict[str, Any]
) -> None:
    schema_path = (
        "/v3/hubs/{hubId}/users" if method == "post" else "/v3/hubs/{hubId}/users/{userId}"
    )
    content = operation(schema_path, method)["requestBody"]["content"]
    assert problems(body, schema_of(content)) != []  # the document refuses it
    url = f"/v3/hubs/{ACME}/users" + ("" if method == "post" else "/4")
    answer = await demo.request(method.upper(), url, json=body)
    assert answer.status_code == 422, answer.text
    assert answer.json().get("errors") or answer.json().get("validation")


async def test_every_hub_user_body_hubtui_sends_is_valid_against_the_document() -> None:
    transport = httpx.ASGITransport(app=create_app(DemoStore(), Faults()))
    async with HubClient(DEMO_URL, token=DEMO_TOKEN, transport=transport) as client:
        planned = [
            await client.plan_invite(ACME, email="n@x.example", role="Guest"),
            await client.plan_update_hub_user(ACME, "4", role="Admin"),
            await client.plan_update_hub_user(ACME, "4", role="Guest", resend_invite=True),
        ]
    for plan in planned:
        path = "/v3/hubs/{hubId}/users" + ("" if plan.method == "POST" else "/{userId}")
        content = operation(path, plan.method.lower())["requestBody"]["content"]
        assert problems(plan.body, schema_of(content)) == [], plan
