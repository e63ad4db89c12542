"""The service's answers that come with something to do: a sign-in URL shown as text and
offered to copy (u) while the failure that named it is on screen, refused when unsafe."""

from __future__ import annotations

from starlette.responses import JSONResponse
from starlette.types import Receive, Scope, Send

from hubtui.demo import DemoStore, Faults
from tests.harness.app import EVIL, assert_inert, press, running, screen_words


async def test_a_profile_not_created_offers_the_sign_in_url_to_copy() -> None:
    faults = Faults(refuse_with_code="USER_PROFILE_NOT_CREATED")
    async with running(faults=faults) as pilot:
        words = screen_words(pilot)
        assert "Sign in to the web app once (https://app.example.com/login)" in words
        assert "u Copy sign-in URL" in words  # in the footer, while the failure is shown
        await press(pilot, "u")
        assert pilot.app.clipboard == "https://app.example.com/login"
        faults.refuse_with_code = None
        await press(pilot, "r")
        assert "Copy sign-in URL" not in screen_words(pilot)  # gone with the failure
        await press(pilot, "u")
        assert "acme-build" in screen_words(pilot)  # u does nothing now; the list is there


async def test_a_hostile_sign_in_url_is_shown_inert_and_never_copied() -> None:
    async def server(scope: Scope, receive: Receive, send: Send) -> None:
        body = {"Code": "USER_PROFILE_NOT_CREATED", "WebsiteLoginUrl": f"https://x{EVIL}"}
        await JSONResponse(body, status_code=409)(scope, receive, send)

    async with running(store=DemoStore(), server=server) as pilot:
        assert_inert(pilot)
        await press(pilot, "u")
        assert pilot.app.clipboard == ""
        assert "Not copied" in screen_words(pilot)
        assert_inert(pilot)
