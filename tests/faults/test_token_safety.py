"""The token never leaves through logs, reprs, errors, screens or the change log.

And TLS is always verified, against the system's CAs or a configured bundle.
"""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import trustme

from hubtui.api import (
    ApiConnectionError,
    AuthenticationError,
    ConflictError,
    HubClient,
    UnsafeUrlError,
)
from hubtui.cli import start_log
from hubtui.demo import DEMO_TOKEN, create_app
from tests.harness.app import make_app, no_sleep, press, screen_text, settle
from tests.harness.demo_api import serve_tls

SECRET = "sk-live-7f3a9c1e-SECRET"


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


@pytest.fixture
def debug_log(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "debug.log"
    start_log(str(path))
    yield path
    hubtui_log = logging.getLogger("hubtui")
    for handler in list(hubtui_log.handlers):
        hubtui_log.removeHandler(handler)
        handler.close()
    hubtui_log.setLevel(logging.NOTSET)


async def test_the_debug_log_has_requests_and_responses_but_never_the_token(
    debug_log: Path,
) -> None:
    transport = httpx.ASGITransport(app=create_app())
    async with HubClient("http://localhost", token=DEMO_TOKEN, transport=transport) as c:
        hubs = await c.list_hubs()
        await c.create_project_user(hubs[0].id, 1001, email="log.me@acme-build.com", role="Reader")
    async with HubClient("http://localhost", token=SECRET, transport=transport) as c:
        with pytest.raises(AuthenticationError) as caught:
            await c.list_hubs()
    log = read(debug_log)
    assert "GET http://localhost/v3/hubs" in log
    assert "POST http://localhost/v3/hubs/" in log
    assert "log.me@acme-build.com" in log
    assert "-> 401" in log
    assert "'authorization': '[redacted]'" in log
    for secret in (DEMO_TOKEN, SECRET):
        assert secret not in log
        assert secret not in str(caught.value)
        assert secret not in repr(caught.value)
        assert secret not in repr(c)


async def test_screens_screenshots_and_the_change_log_never_show_the_token(
    tmp_path: Path,
) -> None:
    transport = httpx.ASGITransport(app=create_app())
    log = tmp_path / "changes.jsonl"
    for token in (DEMO_TOKEN, SECRET):
        app = make_app(
            connect=lambda t=token: HubClient(
                "http://localhost", token=t, transport=transport, sleep=no_sleep
            ),
            change_log=log,
        )
        async with app.run_test(size=(120, 40), notifications=True) as pilot:
            await settle(pilot)
            texts = [screen_text(pilot)]
            if token == DEMO_TOKEN:
                await press(pilot, "enter", "enter", "down", "e", "down", "enter", "ctrl+s", "y")
                texts.append(screen_text(pilot))
                await press(pilot, "c")
            else:
                assert "HTTP 401" in " ".join(screen_text(pilot).split())
            texts.append(screen_text(pilot))
            svg = app.export_screenshot()
        for text in (*texts, svg):
            assert token not in text
    assert read(log)
    assert DEMO_TOKEN not in read(log)


async def test_tls_is_verified_and_a_ca_bundle_can_be_set(tmp_path: Path) -> None:
    ca = trustme.CA()
    url, server, thread = serve_tls(tmp_path, ca)
    try:
        async with HubClient(url, token=DEMO_TOKEN, max_retries=0) as client:
            with pytest.raises(ApiConnectionError) as caught:
                await client.list_hubs()
        assert "TLS certificate of localhost:" in str(caught.value)  # host and port named
        assert "could not be verified" in str(caught.value)
        bundle = tmp_path / "ca.pem"
        ca.cert_pem.write_to_path(str(bundle))
        async with HubClient(url, token=DEMO_TOKEN, ca_bundle=str(bundle)) as client:
            hubs = await client.list_hubs()
        assert any(hub.name == "acme-build" for hub in hubs)
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def test_an_unusable_ca_bundle_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(UnsafeUrlError, match="could not be used"):
        HubClient("https://api.example.com", ca_bundle=str(tmp_path / "missing.pem"))


async def test_the_debug_log_escapes_server_text_and_is_private(debug_log: Path) -> None:
    evil = "\x1b]0;owned\x07\x1b[2J\x9b31m\u202eevil"

    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v3/hubs":
            regional = {"ApiRegionalUrl": "https://elsewhere.example.net"}
            return httpx.Response(
                200, json=[{"Id": f"h{evil}", "Name": "a", "RegionSummary": regional}]
            )
        return httpx.Response(409, json={"title": evil, "Code": evil})

    transport = httpx.MockTransport(answer)
    async with HubClient("https://api.example.com", token=SECRET, transport=transport) as c:
        await c.list_hubs()
        with pytest.raises(ConflictError):
            await c.create_project_user(f"h{evil}", 1, email="a@b.example", role="Reader")
    log = read(debug_log)
    for character in ("\x1b", "\x07", "\x9b", "\u202e"):
        assert character not in log
    assert "h␛]0;owned␇" in log  # the hub id, shown, in the routing warning
    assert stat.S_IMODE(os.stat(debug_log).st_mode) == 0o600
