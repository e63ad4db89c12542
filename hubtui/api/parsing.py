"""Response bodies into records: lists bare or wrapped, bounded in count, one bad record skipped.

A record the server sent that breaks the contract costs only itself: the list comes back without
it and says which it was (:class:`Records`). Only a list whose every record is unreadable, or a
body that is not a list at all, is an error.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError
from pydantic_core import from_json

from hubtui.api.errors import InvalidResponseError
from hubtui.api.memory import give_back_freed
from hubtui.api.models import SentRecord, held_compactly
from hubtui.api.records import Records, SkippedRecord
from hubtui.api.streaming import FIRST_BYTES, GrowingBody

__all__ = [
    "BATCHED_LIST_BYTES",
    "DEFAULT_MAX_RECORDS",
    "NEXT_LINK",
    "Records",
    "SkippedRecord",
    "parse_first",
    "parse_list",
    "parse_one",
]

M = TypeVar("M", bound=BaseModel | SentRecord)
#: A test on a record as the server sent it (a JSON object), before it is validated.
RawFilter = Callable[[Mapping[str, Any]], bool]

#: The most records one list answer may hold; more is refused before they are all built.
DEFAULT_MAX_RECORDS = 250_000
#: The fewest bytes one record can take in a JSON array (``{},``): a body longer than this many
#: bytes per allowed record is decoded one record at a time, counting as it goes.
MIN_RECORD_BYTES = 3
#: A list body larger than this is validated in batches: slower by about a third, but its peak
#: memory is some 40 MB lower for a 50,000-user project.
BATCHED_LIST_BYTES = 8 * 1024 * 1024
_BATCH = 2000
#: Where an OData wrapper names the next page of a list the server sends in pages.
NEXT_LINK = "@odata.nextLink"
#: How many skipped records are described one by one (the rest are counted).
_DESCRIBED = 20
#: Why a record read as sent is left out: a list's records are JSON objects.
NOT_AN_OBJECT = "it is not a JSON object"


_LIST_ADAPTERS: dict[type[BaseModel], TypeAdapter[Any]] = {}


def _list_adapter(model: type[M]) -> TypeAdapter[list[M]]:
    key = _pydantic(model)
    adapter = _LIST_ADAPTERS.get(key)
    if adapter is None:
        adapter = _LIST_ADAPTERS[key] = TypeAdapter(list[model])  # type: ignore[valid-type]
    return adapter


def _pydantic(model: type[M]) -> type[BaseModel]:
    """A record type that is a model (never :class:`SentRecord`, which each caller takes first)."""
    assert model is not SentRecord
    return model  # type: ignore[return-value]


#: How a record as sent is held: compactly (:func:`~hubtui.api.models.held_compactly`), or as
#: decoded where it is read once and let go.
Hold = Callable[[dict[str, Any]], dict[str, Any]]


def _holding(held: bool) -> Hold:
    return held_compactly if held else _as_decoded


def _as_decoded(item: dict[str, Any]) -> dict[str, Any]:
    return item


def _validated(model: type[M], item: Any, hold: Hold = held_compactly) -> M:
    """One record: a model validated, or a record as sent only checked to be a JSON object
    (a :class:`NotAnObject` if not), held by ``hold``."""
    if model is SentRecord:
        if not isinstance(item, dict):
            raise NotAnObject
        return SentRecord(hold(item))  # type: ignore[return-value]
    return _pydantic(model).model_validate(item)  # type: ignore[return-value]


class NotAnObject(ValueError):
    """A record read as sent that is not a JSON object."""


def parse_list(
    content: bytes | bytearray | GrowingBody,
    operation: str,
    model: type[M],
    *,
    max_records: int = DEFAULT_MAX_RECORDS,
    batched_above: int = BATCHED_LIST_BYTES,
    where: RawFilter | None = None,
    held: bool = True,
) -> Records[M]:
    """A bare JSON array, or an OData ``{"value": [...]}`` wrapper, of records; a wrapper's
    ``@odata.nextLink`` (the next page) is kept as :attr:`Records.next_link`, not followed here.

    ``where``, when given, keeps only the records it accepts as sent, before any is validated:
    a search that wants a few records of many validates only those. A :class:`GrowingBody`
    that holds an array is read as it arrives (anything else is read once it has ended).

    ``held``: records as sent are held compactly (:func:`~hubtui.api.models.held_compactly`),
    which saves memory only for what is kept; False where the caller reads each once and lets
    it go (a campaign's start: 0.45 s of a firm's 200,000 records).
    """
    builder = _Builder(operation, model, max_records, where, held)
    if isinstance(content, GrowingBody):
        if _first_byte(content.read) == b"[":
            with _read_as_json(operation):
                _parse_in_batches(content.read, builder, content.let_go_before)
            return builder.finish()
        content = content.whole()
    head = content.lstrip()[:1]
    with _read_as_json(operation):
        if head == b"[" and len(content) > min(batched_above, max_records * MIN_RECORD_BYTES):
            _parse_in_batches(_reader_of(content), builder)
        elif head == b"[" and (where is not None or model is SentRecord):
            builder.add(_decoded(content))
        elif head == b"[":
            try:
                builder.take_valid(_list_adapter(model).validate_json(content))
            except ValidationError as exc:
                if exc.errors()[0]["type"] == "json_invalid":
                    raise
                builder.add(_decoded(content))
        elif head == b"{":
            wrapper = _decoded(content)
            if not (isinstance(wrapper, dict) and isinstance(wrapper.get("value"), list)):
                raise InvalidResponseError(
                    operation=operation,
                    problem='expected a JSON array or an object with a "value" array',
                )
            link = wrapper.get(NEXT_LINK)
            if link is not None and not isinstance(link, str):
                raise InvalidResponseError(
                    operation=operation, problem=f'its "{NEXT_LINK}" is not an address'
                )
            builder.add(wrapper["value"])
            records = builder.finish()
            records.next_link = link
            return records
        else:
            raise _not_json(operation, content, expected="a JSON array")
    return builder.finish()


def _decoded(text: bytes | bytearray | str) -> Any:
    """A JSON text's value. Read by pydantic-core's reader, which holds each short text it has
    lately read once (the names, roles and teams a list repeats: 39 MB less of a firm's hub
    held as sent) and reads a fifth faster; what that reader refuses (a lone surrogate, nesting
    deeper than 200, text that is no JSON) is read by Python's, as it always was, so that what
    is read, and what is refused and how, is as before."""
    try:
        return from_json(text)
    except ValueError:
        return json.loads(text)


@contextmanager
def _read_as_json(operation: str) -> Iterator[None]:
    """A body that breaks the contract, or is not JSON at all, as an InvalidResponseError."""
    try:
        yield
    except ValidationError as exc:  # a ValueError too: named first
        raise _invalid(operation, exc) from None
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        raise InvalidResponseError(
            operation=operation, problem="the body is not valid JSON"
        ) from None


class _Builder:
    """Collects a list's records, batch by batch, skipping the unreadable and counting all."""

    def __init__(
        self,
        operation: str,
        model: type[M],
        max_records: int,
        where: RawFilter | None = None,
        held: bool = True,
    ) -> None:
        self.where = where
        self.hold = _holding(held)
        self.operation = operation
        self.model = model
        self.max_records = max_records
        self.records: Records[Any] = Records()
        self.seen = 0
        self.first_error: InvalidResponseError | None = None

    def _count(self, more: int) -> int:
        start = self.seen
        self.seen += more
        if self.seen > self.max_records:
            raise InvalidResponseError(
                operation=self.operation,
                problem=f"it holds more than {self.max_records:,} records, the most hubtui reads "
                "(max_records in the config file)",
            )
        return start

    def take_valid(self, records: list[Any]) -> None:
        self._count(len(records))
        self.records.extend(records)

    def add(self, items: list[Any]) -> None:
        start = self._count(len(items))
        where = self.where
        if where is not None:
            chosen = [
                (start + n, item)
                for n, item in enumerate(items)
                if isinstance(item, dict) and where(item)
            ]
            self._validate_each(chosen)
            return
        if self.model is SentRecord:
            hold = self.hold
            sent = [SentRecord(hold(item)) for item in items if type(item) is dict]
            if len(sent) == len(items):
                self.records.extend(sent)
                return
        else:
            try:
                self.records.extend(_list_adapter(self.model).validate_python(items))
                return
            except ValidationError:
                pass
        self._validate_each([(start + n, item) for n, item in enumerate(items)])

    def _validate_each(self, items: list[tuple[int, Any]]) -> None:
        for index, item in items:
            try:
                self.records.append(_validated(self.model, item, self.hold))
            except NotAnObject:
                self._skip_problem(index, NOT_AN_OBJECT, None)
            except ValidationError as exc:
                self._skip(index, exc)
            except RecursionError:
                self._skip_problem(index, "it is nested too deeply", None)

    def _skip(self, index: int, exc: ValidationError) -> None:
        error = _invalid(self.operation, exc, offset=index, single=True)
        self._skip_problem(index, error.problem, error)

    def _skip_problem(self, index: int, problem: str, error: InvalidResponseError | None) -> None:
        records = self.records
        records.skipped_count += 1
        if len(records.skipped) < _DESCRIBED:
            where = f" at {error.location}" if error and error.location else ""
            records.skipped.append(SkippedRecord(index, f"{problem}{where}"))
        if self.first_error is None:
            self.first_error = error or InvalidResponseError(
                operation=self.operation, problem=problem, location=f"[{index}]"
            )

    def finish(self) -> Records[Any]:
        if not self.records and self.first_error is not None:
            raise self.first_error  # nothing readable at all: the answer as a whole failed
        return self.records


#: Reads ``size`` bytes of a body from ``start`` (fewer only at its end).
ReadAt = Callable[[int, int], bytes | bytearray]


def _reader_of(content: bytes | bytearray) -> ReadAt:
    return lambda start, size: content[start : start + size]


def _first_byte(read: ReadAt) -> bytes:
    """The body's first byte that is not white space (empty if there is none)."""
    start = 0
    while True:
        chunk = read(start, 4096)
        stripped = chunk.lstrip()
        if stripped or len(chunk) < 4096:
            return bytes(stripped[:1])
        start += len(chunk)


def _parse_in_batches(
    read: ReadAt, builder: _Builder, let_go: Callable[[int], object] | None = None
) -> None:
    """Decode the array a window of text at a time and validate it a batch at a time.

    Validating the whole body at once holds a parse tree of all of it; this holds one batch,
    and counts the records as it goes, so that a flood of tiny records is refused early. The
    body is turned into text a window at a time, so its text is never held whole either;
    ``let_go`` is told each time how far the body has been turned into text (never read again).
    A body read as it arrives is parsed on a thread of its own: what each batch freed is given
    back to the system before the next (see :mod:`hubtui.api.memory`).
    """
    text = _TextWindows(read, _WINDOW, let_go)
    decoder = json.JSONDecoder()
    batch: list[Any] = []
    position, char = text.after_space(0)
    if char != "[":
        raise ValueError("expected [")
    position, char = text.after_space(position + 1)
    while char != "]":
        items, position = text.values(decoder, position)
        batch.extend(items)
        if len(batch) >= _BATCH:
            builder.add(batch)
            batch = []
            if let_go is not None:
                give_back_freed()
        position, char = text.after_space(position)
        if char == ",":
            position, char = text.after_space(position + 1)
            if char == "]":
                raise ValueError("a comma before ]")
        elif char != "]":
            raise ValueError("expected , or ]")
    text.expect_end(position + 1)
    builder.add(batch)


#: How many bytes of a large body are turned into text at a time.
_WINDOW = 1024 * 1024
_SPACE = re.compile(r"[ \t\n\r]*")
#: An object's end, the comma, and the next object's start up to its first key's colon.
_SEAM = re.compile(r'\}[ \t\n\r]*,[ \t\n\r]*\{[ \t\n\r]*"[^"\\]{1,64}"[ \t\n\r]*:')


class _TextWindows:
    """A body's UTF-8 text, decoded a window at a time as the reading moves along it."""

    def __init__(
        self, read: ReadAt, window: int, let_go: Callable[[int], object] | None = None
    ) -> None:
        self._read_at = read
        self._window = window
        self._let_go = let_go
        self._decoder = codecs.getincrementaldecoder("utf-8")()
        self._read = 0
        self._ended = False
        self.text = ""
        #: Where one element ends and the next begins (``}, {"User":``), as the first two
        #: objects showed it: "" until then, None where elements are decoded one at a time.
        self._seam: str | None = ""
        self._more(0)

    def _more(self, keep_from: int) -> int:
        """Forget the text before ``keep_from`` and decode more; ``keep_from`` is now 0.

        Each call while one value is unfinished reads as much again as is held, so a value
        larger than a window is decoded in a number of steps that grows with its log.
        """
        size = max(self._window, len(self.text) - keep_from)
        chunk = self._read_at(self._read, size)
        self._read += len(chunk)
        self._ended = len(chunk) < size
        self.text = self.text[keep_from:] + self._decoder.decode(chunk, final=self._ended)
        if self._let_go is not None:
            self._let_go(self._read)  # what was read is text now (or in the decoder)
        return 0

    def after_space(self, position: int) -> tuple[int, str]:
        """The place of the next character that is not white space, and that character
        (empty at the end of the body)."""
        char = self.text[position : position + 1]
        if char and char not in " \t\n\r":
            return position, char
        while True:
            match = _SPACE.match(self.text, position)
            assert match is not None  # the pattern matches the empty string
            position = match.end()
            if position < len(self.text) or self._ended:
                return position, self.text[position : position + 1]
            position = self._more(position)

    def values(self, decoder: json.JSONDecoder, position: int) -> tuple[list[Any], int]:
        """The array's elements from ``position`` (where one starts) to the last place in the
        text held where one object ends and the next begins as the first two did, decoded as
        one array; or, where there is no such place, the one element at ``position``. Either
        way with the place after them.

        Decoded together, the elements share their keys' strings (a 50,000-user list holds
        35 MB less, and is decoded in 0.34 s instead of 0.42 s). Cut there, the text decodes
        as an array only where the cut falls between two elements: an object ends at its ``}``
        whatever follows, and a cut inside a string or an object leaves it open. Where it does
        not decode (the place was inside an object or a string), the elements are decoded one
        at a time from then on.
        """
        seam = self._seam
        if seam:
            cut = self.text.rfind(seam, position)
            if cut > position:
                try:
                    items = _decoded(f"[{self.text[position : cut + 1]}]")
                except ValueError:
                    self._seam = None
                else:
                    return items, cut + 1
        item, end = self._value(decoder, position)
        if seam == "":
            found = _SEAM.match(self.text, end - 1)  # a value ends after its first character
            self._seam = found.group() if found else ""
        return [item], end

    def _value(self, decoder: json.JSONDecoder, position: int) -> tuple[Any, int]:
        """The JSON value starting at ``position``, and the place after it."""
        while True:
            try:
                item, end = decoder.raw_decode(self.text, position)
            except ValueError:
                if self._ended:
                    raise
                position = self._more(position)
                continue
            if end == len(self.text) and not self._ended:
                position = self._more(position)  # a number may go on in the next window
                continue
            return item, end

    def expect_end(self, position: int) -> None:
        """Nothing but white space from ``position`` to the end of the body."""
        position, char = self.after_space(position)
        if char:
            raise ValueError("data after the array")


def parse_first(content: bytes | bytearray, model: type[M], count: int) -> Records[M]:
    """Up to ``count`` records from the start of a list body, read from its first bytes only.

    What a screen shows while the whole list is parsed: a record that cannot be read is left
    out here (the whole list's parse describes it), and nothing is an error (that parse says).
    """
    head = bytes(content[:FIRST_BYTES])
    try:
        value = from_json(head, allow_partial=True)
    except ValueError:
        return Records()
    items = value.get("value") if isinstance(value, dict) else value
    if not isinstance(items, list):
        return Records()
    if len(content) > len(head):
        items = items[:-1]  # the last may be cut short: absent fields would read as not sent
    records: Records[M] = Records()
    for item in items[:count]:
        try:
            records.append(_validated(model, item))
        except (ValidationError, NotAnObject, RecursionError):
            continue
    return records


def parse_one(content: bytes | bytearray, operation: str, model: type[M]) -> M:
    """One JSON object as a record."""
    if content.lstrip()[:1] != b"{":
        raise _not_json(operation, content, expected="a JSON object")
    with _read_as_json(operation):
        return _pydantic(model).model_validate_json(content)  # type: ignore[return-value]


def _not_json(operation: str, content: bytes | bytearray, *, expected: str) -> InvalidResponseError:
    stripped = content.strip()
    if not stripped:
        problem = f"the body is empty where {expected} was expected"
    elif stripped[:1] == b"<":
        problem = f"the body is HTML or XML where {expected} was expected"
    else:
        problem = f"expected {expected}"
    return InvalidResponseError(operation=operation, problem=problem)


def _invalid(
    operation: str, exc: ValidationError, *, offset: int = 0, single: bool = False
) -> InvalidResponseError:
    first = exc.errors(include_url=False, include_input=False)[0]
    if first["type"] == "json_invalid":
        return InvalidResponseError(operation=operation, problem="the body is not valid JSON")
    loc: list[Any] = list(first["loc"])
    if single:
        loc.insert(0, offset)  # one record's error: place it in the whole list
    elif loc and isinstance(loc[0], int):
        loc[0] += offset
    location = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc).lstrip(
        "."
    )
    return InvalidResponseError(
        operation=operation, problem=first["msg"].rstrip(".").lower(), location=location or None
    )
