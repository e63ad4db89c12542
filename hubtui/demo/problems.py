"""The demo API's error answers: RFC 7807 problem details."""

from __future__ import annotations

from typing import Any

from starlette.exceptions import HTTPException
from starlette.responses import JSONResponse, Response


def problem(
    status: int, title: str, detail: str, *, headers: dict[str, str] | None = None
) -> Response:
    """An RFC 7807 problem-details answer."""
    body = {"type": "about:blank", "title": title, "status": status, "detail": detail}
    return JSONResponse(
        body, status_code=status, media_type="application/problem+json", headers=headers
    )


class Problem(HTTPException):
    """An error answer, raised from wherever a route finds it (the app turns it into one)."""

    def __init__(
        self,
        status: int,
        title: str,
        detail: str,
        *,
        headers: dict[str, str] | None = None,
        body: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(status, detail, headers)
        self.title = title
        #: A body of the service's own shape instead of problem details (409 with a Code).
        self.body = body

    def response(self) -> Response:
        if self.body is not None:
            return JSONResponse(self.body, status_code=self.status_code, headers=self.headers)
        headers = dict(self.headers) if self.headers else None
        return problem(self.status_code, self.title, self.detail, headers=headers)


def validation_problem(errors: dict[str, list[str]]) -> Response:
    """422 with each refused field named, as the service (ASP.NET's validation problem
    details) answers a body its published document refuses."""
    body = {
        "type": "https://tools.ietf.org/html/rfc4918#section-11.2",
        "title": "One or more validation errors occurred.",
        "status": 422,
        "errors": errors,
    }
    return JSONResponse(body, status_code=422, media_type="application/problem+json")
