"""``hubtui serve``: the app in a web browser, for the person who started it and no one else.

A page of the app acts with that person's token, so textual-serve's server is wrapped in three
checks, as Jupyter does:

- a random secret made for this run, in the address ``serve`` prints: the page's first request
  carries it and gets it back as a cookie (HttpOnly, SameSite=Strict), and every later request,
  the WebSocket included, must show it;
- a WebSocket whose ``Origin`` is not the served page's own is refused before any app starts, so a
  page on another site open in the same browser cannot drive it (cross-site WebSocket hijacking);
- a request whose ``Host`` is not the served address is refused (DNS rebinding).

It listens on loopback only. Refusals happen before the app process is started: a refused
WebSocket sees no screen and sends no request.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from aiohttp import web

HOST = "127.0.0.1"
#: The query parameter that carries the secret in the printed address.
SECRET_PARAMETER = "key"
_FORBIDDEN = (
    "hubtui serve: this page needs the address that `hubtui serve` printed (it holds a secret "
    "made for this run).\n"
)


def cookie_name(port: int) -> str:
    """Cookies are shared by every port of a host: one name per port keeps two runs apart."""
    return f"hubtui_serve_{port}"


def new_secret() -> str:
    return secrets.token_urlsafe(32)


def served_origin(port: int) -> str:
    return f"http://{HOST}:{port}"


def page_url(port: int, secret: str) -> str:
    """The address to open: the served origin with this run's secret."""
    return f"{served_origin(port)}/?{SECRET_PARAMETER}={secret}"


def refusal(
    *,
    port: int,
    secret: str,
    path: str,
    host: str | None,
    origin: str | None,
    query_secret: str | None,
    cookie_secret: str | None,
    websocket: bool,
) -> str | None:
    """Why a request must be refused, or None when it may go on (kept pure, for the tests)."""
    if host != f"{HOST}:{port}":
        return "the Host is not the served address"
    if path.startswith("/static/"):
        return None  # the page's scripts, styles and fonts: nothing of the person's
    shown = cookie_secret or ""
    if not websocket and query_secret is not None:
        shown = query_secret
    if not hmac.compare_digest(shown.encode(), secret.encode()):
        return "the secret is missing or wrong"
    if websocket and origin != served_origin(port):
        return "the WebSocket's Origin is not the served page"
    return None


def guarded_server(command: str, port: int, secret: str, title: str = "hubtui") -> Any:
    """A textual-serve server of ``command`` on loopback that only this run's page can use."""
    from aiohttp import web
    from textual_serve.server import Server

    Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

    @web.middleware
    async def guard(request: web.Request, handler: Handler) -> web.StreamResponse:
        websocket = request.headers.get("Upgrade", "").lower() == "websocket"
        why = refusal(
            port=port,
            secret=secret,
            path=request.path,
            host=request.headers.get("Host"),
            origin=request.headers.get("Origin"),
            query_secret=request.query.get(SECRET_PARAMETER),
            cookie_secret=request.cookies.get(cookie_name(port)),
            websocket=websocket,
        )
        if why is not None:
            return web.Response(status=403, text=_FORBIDDEN)
        if not websocket and SECRET_PARAMETER in request.query:
            # The secret moves to a cookie, and out of the address bar and the history.
            response = web.HTTPFound(request.path)
            response.set_cookie(
                cookie_name(port), secret, httponly=True, samesite="Strict", path="/"
            )
            return response
        return await handler(request)

    class GuardedServer(Server):
        async def _make_app(self) -> web.Application:
            app: web.Application = await super()._make_app()
            app.middlewares.append(guard)
            return app

        async def on_startup(self, app: web.Application) -> None:
            """The banner is hubtui's own (textual-serve's would print the command)."""

    return GuardedServer(command, host=HOST, port=port, title=title)
