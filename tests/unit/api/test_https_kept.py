"""https is never left for http: a redirect to http on loopback is not followed."""

from __future__ import annotations

from pathlib import Path

import pytest
import trustme
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from hubtui.api import HubClient, InvalidResponseError
from hubtui.demo import DEMO_TOKEN
from tests.harness.demo_api import serve_tls
from tests.harness.hostile import hostile_server


async def test_an_https_redirect_to_http_on_loopback_is_not_followed(tmp_path: Path) -> None:
    async with hostile_server(lambda m, p, b: (200, {}, [b"[]"], 0)) as plain:

        async def moved(request: Request) -> Response:
            return RedirectResponse(f"{plain.url}{request.url.path}", status_code=307)

        ca = trustme.CA()
        bundle = tmp_path / "ca.pem"
        ca.cert_pem.write_to_path(str(bundle))
        app = Starlette(routes=[Route("/v3/hubs", moved)])
        url, tls, thread = serve_tls(tmp_path, ca, app, host="127.0.0.1")
        try:
            async with HubClient(url, token=DEMO_TOKEN, ca_bundle=str(bundle)) as client:
                with pytest.raises(InvalidResponseError, match="leaves https for http"):
                    await client.list_hubs()
        finally:
            tls.should_exit = True
            thread.join(timeout=10)
        assert plain.requests == []
