"""One request of the request log, whole: what was sent and what came back (the token never)."""

from __future__ import annotations

import json
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from hubtui.api.exchanges import BODY_KEPT, Exchange, as_curl
from hubtui.core.presenting import size_words
from hubtui.text import copy_lines, inert, nesting
from hubtui.tui.widgets.chrome import KeyFooter


class ExchangeScreen(ModalScreen[None]):
    """One exchange: the request, the answer, every server string inert."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "dismiss", "Close"),
        Binding("y", "copy", "Copy as curl"),
    ]

    def __init__(self, exchange: Exchange) -> None:
        super().__init__()
        self.exchange = exchange

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog-box"):
            yield Static(describe(self.exchange), id="exchange-text")
        yield KeyFooter(compact=True)

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(copy_lines([as_curl(self.exchange)]))
        self.notify("Sent the request as curl to the terminal's clipboard (OSC 52).", markup=False)


def describe(exchange: Exchange) -> Content:
    """The request and its answer, headers and bodies, as a person reads them."""
    lines: list[Content | str] = [
        Content.styled(f"{exchange.method} {inert(exchange.url, limit=None)}", "bold"),
        f"{inert(exchange.operation)} · {exchange.started:%Y-%m-%d %H:%M:%S} UTC · "
        f"attempt {exchange.attempt + 1} · {exchange.seconds * 1000:,.0f} ms · id {exchange.id}",
        "",
        Content.styled("Request headers", "bold"),
        *(f"  {inert(n)}: {inert(v)}" for n, v in exchange.request_headers),
    ]
    if exchange.request_body or exchange.body_dropped:
        lines += ["", Content.styled("Request body", "bold"), *_body(exchange.request_body)]
    lines.append("")
    if exchange.status is None:
        lines.append(Content.styled(f"No answer: {inert(exchange.error)}", "bold"))
    else:
        said = inert(f"{exchange.status} {exchange.reason}".strip())
        lines += [
            Content.styled(f"Answer {said} · {size_words(exchange.response_size)}", "bold"),
            *(f"  {inert(n)}: {inert(v)}" for n, v in exchange.response_headers),
            "",
            *_body(exchange.response_body),
        ]
        if exchange.response_size > len(exchange.response_body) and not exchange.body_dropped:
            lines.append(
                f"(the first {size_words(BODY_KEPT)} of {size_words(exchange.response_size)})"
            )
    if exchange.body_dropped:
        lines.append("(bodies of older requests are let go, to keep the log small)")
    lines += ["", "y copies the request as curl · escape closes."]
    return Content("\n").join(
        line if isinstance(line, Content) else Content(line) for line in lines
    )


#: The deepest body the request screen indents as JSON.
SHOWN_NESTING = 64


def _body(body: bytes) -> list[str]:
    if not body:
        return ["  (empty)"]
    # Indented only when it nests as records do: a body nested thousands deep is shown as the
    # text it is, never parsed (which would end in a RecursionError).
    if nesting(body) > SHOWN_NESTING:
        return [f"  (nested more than {SHOWN_NESTING} deep: shown as sent)"] + [
            f"  {inert(line)}" for line in body.decode("utf-8", "replace").splitlines()
        ]
    try:
        text = json.dumps(json.loads(body), indent=2, ensure_ascii=False)
    except (ValueError, RecursionError):
        text = body.decode("utf-8", "replace")
    return [f"  {inert(line, limit=None)}" for line in text.splitlines()]
