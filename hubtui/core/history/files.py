"""A snapshot carried in a file, as evidence: JSON lines, a manifest first (schema, server, time,
the sha256 of the lines after it), each list a line; read back a line and a record at a time,
within stated bounds."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, BinaryIO

from hubtui.core.files import open_reading, refusal_words, write_new
from hubtui.core.store import ListKey, Snapshot, canonical
from hubtui.text import inert, nesting

#: The version of the snapshot file format.
FILE_SCHEMA = 1


class SnapshotFileError(Exception):
    """A snapshot file that cannot be read, or whose content does not match its manifest."""


#: The largest snapshot file read (a 50,000-user snapshot takes 26 to 40 MB).
SNAPSHOT_FILE_BYTES = 256 * 1024 * 1024
#: The longest line (one list) read from a snapshot file: a project of 100,000 users. A file is
#: read a line at a time, never whole: two files diffed stay within a few hundred MB.
SNAPSHOT_LINE_BYTES = 64 * 1024 * 1024
#: The most lists and records one snapshot file may hold (ten times a 50,000-user snapshot).
SNAPSHOT_FILE_LISTS = 200_000
SNAPSHOT_FILE_RECORDS = 500_000
#: How deep a snapshot file's line may nest (a record of the API nests four deep).
SNAPSHOT_FILE_DEPTH = 64


def _json_line(path: Path, line: bytes, where: str) -> Any:
    """One JSON line of a snapshot file, refused when it nests deeper than records do."""
    if nesting(line) > SNAPSHOT_FILE_DEPTH:
        raise SnapshotFileError(
            f"{path}, {where}: nests deeper than {SNAPSHOT_FILE_DEPTH} levels, which no "
            "snapshot does."
        )
    try:
        return json.loads(line)
    except ValueError as error:
        raise SnapshotFileError(f"{path}, {where}: not JSON ({error}).") from None


def write_snapshot_file(snapshot: Snapshot, path: Path) -> tuple[str, Path]:
    """Write ``snapshot`` to a new file at ``path`` as evidence (0600; the next free name when
    ``path`` is taken, never a file or link there): the sha256 in its manifest, and the name."""
    lines = [
        json.dumps(
            {
                "kind": k.kind,
                "hub": k.hub,
                "project": k.project,
                "ok": ok,
                "why": why,
                "records": list(r),
            },
            ensure_ascii=True,
            sort_keys=True,
        )
        for k, (ok, why, r) in sorted(snapshot.lists.items())
    ]
    body = "".join(line + "\n" for line in lines).encode("ascii")
    digest = hashlib.sha256(body).hexdigest()
    manifest = {
        "hubtui_snapshot": FILE_SCHEMA,
        "server": snapshot.origin,
        "profile": snapshot.profile,
        "scope": snapshot.scope,
        "taken": snapshot.taken,
        "counts": snapshot.counts(),
        "sha256": digest,
    }
    head = json.dumps(manifest, ensure_ascii=True).encode("ascii") + b"\n"
    return digest, write_new(path, head + body)


#: One list of a snapshot file: which list, whether it was read, why not, its records (each an
#: object, or its canonical JSON when read ``compact``).
FileList = tuple[ListKey, bool, str, list[Any]]


def snapshot_file_lists(
    path: Path, *, compact: bool = False
) -> tuple[dict[str, Any], Iterator[FileList]]:
    """A snapshot file's manifest, and its lists one at a time (a file is never held whole):
    each line bounded in size and depth, the count of lists and records bounded, a record an
    object, a list once, and the content checked against the manifest's sha256 once the last
    line is read (:class:`SnapshotFileError` says which bound or check failed). ``compact``:
    each record as its canonical JSON, made as it is read (what a diff of two large files
    holds)."""
    keep: Callable[[dict[str, Any]], Any] = canonical if compact else (lambda record: record)
    try:
        handle = open_reading(path)
        size = os.fstat(handle.fileno()).st_size
    except OSError as error:
        raise SnapshotFileError(f"{refusal_words(path, error)}.") from None
    if size > SNAPSHOT_FILE_BYTES:
        handle.close()
        raise SnapshotFileError(
            f"{path} is larger than the {SNAPSHOT_FILE_BYTES / 1e6:,.0f} MB hubtui reads from a "
            f"snapshot file ({size / 1e6:,.1f} MB)."
        )
    try:
        head = _line_of(path, handle, 1)
        manifest = _json_line(path, head, "its manifest line")
        if not isinstance(manifest, dict) or "hubtui_snapshot" not in manifest:
            raise SnapshotFileError(f"{path} is not a hubtui snapshot file (no manifest line).")
        if manifest["hubtui_snapshot"] != FILE_SCHEMA:
            raise SnapshotFileError(
                f"{path} is a snapshot file of format {inert(manifest['hubtui_snapshot'])}; "
                f"this hubtui reads format {FILE_SCHEMA}."
            )
    except BaseException:
        handle.close()
        raise

    def lists() -> Iterator[FileList]:
        digest = hashlib.sha256()
        seen: set[ListKey] = set()
        records = 0
        with handle:
            number = 1
            while line := _line_of(path, handle, number := number + 1):
                digest.update(line)
                if not line.strip():
                    continue
                key, ok, why, kept = _list_of(path, line, number, keep)
                if key in seen:
                    raise SnapshotFileError(
                        f"{path}, line {number}: the {key.kind} list of hub {inert(key.hub)}"
                        f"{f' project {inert(key.project)}' if key.project else ''} appears "
                        "twice."
                    )
                seen.add(key)
                records += len(kept)
                if len(seen) > SNAPSHOT_FILE_LISTS or records > SNAPSHOT_FILE_RECORDS:
                    raise SnapshotFileError(
                        f"{path} holds more than {SNAPSHOT_FILE_LISTS:,} lists or "
                        f"{SNAPSHOT_FILE_RECORDS:,} records, the most hubtui reads from a "
                        "snapshot file."
                    )
                yield key, ok, why, kept
        if digest.hexdigest() != manifest.get("sha256"):
            raise SnapshotFileError(
                f"{path}: its content does not match the sha256 of its manifest: it was changed "
                "or cut after it was written."
            )

    return manifest, lists()


def _line_of(path: Path, handle: BinaryIO, number: int) -> bytes:
    """The next line (with its newline), refused past :data:`SNAPSHOT_LINE_BYTES`."""
    line = handle.readline(SNAPSHOT_LINE_BYTES + 1)
    if len(line) > SNAPSHOT_LINE_BYTES:
        raise SnapshotFileError(
            f"{path}, line {number}: longer than {SNAPSHOT_LINE_BYTES / 1e6:,.0f} MB, the most "
            "hubtui reads of one list of a snapshot file."
        )
    return line


def _list_of(
    path: Path, line: bytes, number: int, keep: Callable[[dict[str, Any]], Any]
) -> FileList:
    where = f"line {number}"
    if nesting(line) > SNAPSHOT_FILE_DEPTH:
        raise SnapshotFileError(
            f"{path}, {where}: nests deeper than {SNAPSHOT_FILE_DEPTH} levels, which no "
            "snapshot does."
        )
    try:
        item, kept = _fields_and_records(line.decode("utf-8"), keep)
    except (ValueError, IndexError, UnicodeDecodeError) as error:
        raise SnapshotFileError(f"{path}, {where}: not JSON ({error}).") from None
    except TypeError:
        raise SnapshotFileError(f"{path}, {where}: a record that is not an object.") from None
    try:
        key = ListKey(str(item["kind"]), str(item["hub"]), str(item["project"]))
        if kept is None:
            raise TypeError("its records are not a list")
        ok, why = bool(item["ok"]), str(item["why"])
    except (KeyError, TypeError) as error:
        raise SnapshotFileError(
            f"{path}, {where}: a list that cannot be read ({inert(error)})."
        ) from None
    return key, ok, why, kept


_BLANK = " \t\n\r"


def _fields_and_records(
    text: str, keep: Callable[[dict[str, Any]], Any]
) -> tuple[dict[str, Any], list[Any] | None]:
    """A list's line read a value at a time: its fields, and its ``records`` one record after
    another, each as ``keep`` makes it (its canonical JSON: a large list is never held as
    objects). ValueError or IndexError: not JSON; TypeError: a record that is not an object;
    None records: not an array."""
    decoder = json.JSONDecoder()

    def skip(at: int) -> int:
        while at < len(text) and text[at] in _BLANK:
            at += 1
        return at

    def expect(at: int, char: str) -> int:
        at = skip(at)
        if text[at] != char:
            raise ValueError(f"{char!r} expected at character {at}")
        return skip(at + 1)

    fields: dict[str, Any] = {}
    records: list[Any] | None = None
    at = expect(0, "{")
    while text[at] != "}":
        name, at = decoder.raw_decode(text, at)
        if not isinstance(name, str):
            raise ValueError(f"a field name expected at character {at}")
        at = expect(at, ":")
        if name == "records" and text[at] == "[":
            records = []
            at = skip(at + 1)
            while text[at] != "]":
                record, at = decoder.raw_decode(text, at)
                if not isinstance(record, dict):
                    raise TypeError("a record that is not an object")
                records.append(keep(record))
                at = skip(at)
                if text[at] == ",":
                    at = skip(at + 1)
                elif text[at] != "]":
                    raise ValueError(f"',' or ']' expected at character {at}")
            at = skip(at + 1)
        else:
            fields[name], at = decoder.raw_decode(text, at)
            at = skip(at)
        if text[at] == ",":
            at = skip(at + 1)
        elif text[at] != "}":
            raise ValueError(f"',' or '}}' expected at character {at}")
    if skip(at + 1) != len(text):
        raise ValueError(f"extra data at character {at + 1}")
    return fields, records


def read_snapshot_file(path: Path) -> Snapshot:
    """A snapshot file read back whole (see :func:`snapshot_file_lists` for what is checked)."""
    manifest, read = snapshot_file_lists(path)
    lists: dict[ListKey, tuple[bool, str, Sequence[dict[str, Any]]]] = {
        key: (ok, why, kept) for key, ok, why, kept in read
    }
    return snapshot_of(manifest, lists)


def snapshot_of(
    manifest: dict[str, Any], lists: dict[ListKey, tuple[bool, str, Sequence[dict[str, Any]]]]
) -> Snapshot:
    """The snapshot a file's manifest names, holding ``lists``."""
    return Snapshot(
        str(manifest.get("server", "")),
        str(manifest.get("profile", "")),
        str(manifest.get("scope", "")),
        str(manifest.get("taken", "")),
        lists,
    )
