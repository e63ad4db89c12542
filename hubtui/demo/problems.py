"""The demo API's error answers: RFC 7807 problem details."""

from __future__ import annotations

from starlette.responses import JSONResponse, Response


def problem(
    status: int, title: str, detail: str, *, headers: dict[str, str] | None = None
) -> Response:
    """An RFC 7807 problem-details answer."""
    body = {"type": "about:blank", "title": title, "status": status, "detail": detail}
    return JSONResponse(
        body, status_code=status, media_type="application/problem+json", headers=headers
    )
