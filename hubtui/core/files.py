"""The one way hubtui opens a file, whatever the file is for.

Every file hubtui reads or writes (the change log, the store, snapshot files, batch files and
their results, exports) goes through here, so the rules hold in one place:

- no symbolic link is followed (``O_NOFOLLOW``: a link planted at the name is refused);
- a file that another user owns, or that others can write, is refused with its name and mode;
- a new file is created exclusively (``O_EXCL``) and 0600; where the name is taken, the next
  free name (``results-2.csv``) is used instead, never the file that is there;
- what is read is bounded: a file larger than its bound is refused, saying which bound.

Standard library only: the app's first paint opens the store through here.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO

__all__ = [
    "FileRefused",
    "check_ours",
    "create_new",
    "open_private",
    "open_reading",
    "read_bounded",
    "refusal_words",
    "write_new",
]

#: How many other names are tried after the one asked for (``name-2`` … ``name-N``).
FREE_NAMES = 999


class FileRefused(OSError):
    """A file hubtui will not use, with why (its name, owner or mode, or the bound it broke)."""


def _mode(info: os.stat_result) -> str:
    return f"{stat.S_IMODE(info.st_mode):04o}"


def check_ours(path: Path, info: os.stat_result) -> None:
    """Refuse a file that is not a regular file, is another user's, or others can write."""
    if not stat.S_ISREG(info.st_mode):
        raise FileRefused(errno.EINVAL, f"{path} is not a regular file")
    if info.st_uid not in (0, os.getuid()):
        raise FileRefused(
            errno.EPERM,
            f"{path} belongs to another user (uid {info.st_uid}, mode {_mode(info)}), "
            "so hubtui does not use it",
        )
    if info.st_mode & 0o022:
        raise FileRefused(
            errno.EPERM,
            f"{path} can be written by other users (mode {_mode(info)}), so hubtui does not "
            f"use it: chmod go-w {path}",
        )


def refusal_words(path: Path, error: OSError) -> str:
    """Why ``path`` could not be used, in words that name it."""
    if isinstance(error, FileRefused):
        return str(error.strerror)
    if error.errno == errno.ELOOP:
        return f"{path} is a symbolic link, which hubtui does not follow"
    return f"{path}: {error.strerror or error}"


def _open_checked(path: Path, flags: int) -> int:
    descriptor = os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        check_ours(path, os.fstat(descriptor))
    except BaseException:
        os.close(descriptor)
        raise
    return descriptor


def open_reading(path: Path) -> BinaryIO:
    """``path`` opened to read as it grows (the change log): no link followed, a file another
    user owns or others can write refused. Bounded by the reader, a line at a time."""
    return os.fdopen(_open_checked(path, os.O_RDONLY | os.O_NONBLOCK), "rb")


def read_bounded(path: Path, *, limit: int, what: str = "file") -> bytes:
    """The bytes of ``path``, refused when larger than ``limit`` (the message says the bound)."""
    descriptor = _open_checked(path, os.O_RDONLY | os.O_NONBLOCK)
    with os.fdopen(descriptor, "rb") as handle:
        size = os.fstat(descriptor).st_size
        body = handle.read(limit + 1) if size <= limit else b""
    if size > limit or len(body) > limit:
        raise FileRefused(
            errno.EFBIG,
            f"{path} is larger than the {limit / 1e6:,.0f} MB hubtui reads from a {what} "
            f"({max(size, len(body)) / 1e6:,.1f} MB)",
        )
    return body


def check_existing(path: Path) -> None:
    """Refuse ``path`` if it is a link, or is there and not the person's alone to write."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(info.st_mode):
        raise FileRefused(errno.ELOOP, f"{path} is a symbolic link, which hubtui does not follow")
    check_ours(path, info)


def _private_folder(folder: Path) -> None:
    """The folder made (0700), or tightened to 0700 when it is the person's and looser."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = folder.stat()
    if info.st_mode & 0o077 and info.st_uid == os.getuid():
        folder.chmod(0o700)


def open_private(path: Path) -> int:
    """Open ``path`` for appending as the person's alone: its folder made 0700 and the file 0600
    (both tightened if they were looser), a symbolic link refused (``ELOOP``), a file another
    user owns refused."""
    _private_folder(path.parent)
    flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC
    descriptor = os.open(path, flags, 0o600)
    try:
        found = os.fstat(descriptor)
        if found.st_uid not in (0, os.getuid()) or not stat.S_ISREG(found.st_mode):
            check_ours(path, found)
        if found.st_mode & 0o077:
            os.fchmod(descriptor, 0o600)
    except OSError:
        os.close(descriptor)
        raise
    return descriptor


def make_private(path: Path) -> None:
    """Make ``path`` the person's alone (its folder 0700, the file 0600) without opening the
    file when it is there: a database another part of this process holds open loses its locks
    when any descriptor of its file is closed (POSIX advisory locks belong to the process), and
    another process could then write beside it. A new file is created exclusively, 0600; one
    already there is checked by its path (no link, the person's own) and tightened by mode."""
    _private_folder(path.parent)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        os.close(os.open(path, flags, 0o600))  # new: nobody holds it open, no lock to lose
        return
    except FileExistsError:
        pass
    check_existing(path)
    found = os.lstat(path)
    if not stat.S_ISREG(found.st_mode):
        raise FileRefused(errno.EINVAL, f"{path} is not a regular file")
    if found.st_mode & 0o077:
        path.chmod(0o600)


def _numbered(path: Path, number: int) -> Path:
    if number == 1:
        return path
    suffixes = "".join(path.suffixes[-1:])
    stem = path.name[: len(path.name) - len(suffixes)] if suffixes else path.name
    return path.with_name(f"{stem}-{number}{suffixes}")


def create_new(path: Path) -> tuple[int, Path]:
    """A new file at ``path`` (0600, created exclusively), or at the first free name after it
    (``name-2.csv``): never a file or link already there. Returns its descriptor and name."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    for number in range(1, FREE_NAMES + 2):
        target = _numbered(path, number)
        try:
            return os.open(target, flags, 0o600), target
        except FileExistsError:
            continue
    raise FileRefused(errno.EEXIST, f"{path} and the {FREE_NAMES} names after it are all taken")


def write_new(path: Path, data: bytes | str) -> Path:
    """Write ``data`` to a new file (see :func:`create_new`); returns the name it was given."""
    descriptor, target = create_new(path)
    body = data.encode("utf-8") if isinstance(data, str) else data
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(body)
    except BaseException:
        target.unlink(missing_ok=True)
        raise
    return target
