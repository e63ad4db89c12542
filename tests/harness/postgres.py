"""A real PostgreSQL for the tests and benchmarks, from the distribution's package: ``initdb``
and ``pg_ctl`` in a temporary folder on a free loopback port, TLS on with a certificate of a
test authority, password sign-in over TCP, stopped and removed at the end.

``initdb`` and ``pg_ctl`` refuse to run as root: as root they run as the ``postgres`` user (which
the package makes) in a folder it owns.
"""

from __future__ import annotations

import glob
import os
import secrets
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from tests.harness.harness import free_port

__all__ = ["PostgresServer", "find_postgres", "running_postgres"]

#: The database the tests use, and its two roles: the owner, who migrates (as the README's
#: ``hubtui store migrate``), and a team member's, with the README's grants and nothing more.
DATABASE, OWNER, MEMBER = "hubtui", "hubtui_owner", "hubtui_member"


def find_postgres() -> Path | None:
    """The folder of the newest PostgreSQL server's programs the package installed."""
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0,
    )
    return Path(found[-1]).parent if found else None


@dataclass
class PostgresServer:
    folder: Path
    port: int
    bin: Path
    passfile: Path
    """A ``.pgpass`` with both roles' passwords (``PGPASSFILE``): libpq's own source."""
    ca: Path
    """The test authority's certificate, which signed the server's."""
    passwords: dict[str, str]

    def url(
        self, *, user: str = OWNER, schema: str | None = None, database: str = DATABASE, **more: str
    ) -> str:
        """A libpq URL of this server, never with a password (from :attr:`passfile`)."""
        query = {"sslmode": "disable", **more}
        if schema is not None:
            query["options"] = f"-csearch_path={schema}"
        said = "&".join(f"{k}={quote(v, safe='')}" for k, v in query.items())
        return f"postgresql://{user}@127.0.0.1:{self.port}/{database}?{said}"

    def sql(self, statement: str, *, database: str = DATABASE) -> str:
        """Run SQL as the superuser (over the server's own socket); what it printed. psql's own
        commands (``\\c``) are read too."""
        done = subprocess.run(
            [
                str(self.bin / "psql"),
                "-h",
                str(self.folder),
                "-p",
                str(self.port),
                "-U",
                "postgres",
                "-d",
                database,
                "-v",
                "ON_ERROR_STOP=1",
                "-qAt",
            ],
            input=statement,
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, "PGPASSWORD": ""},
        )
        if done.returncode != 0:
            raise RuntimeError(f"psql failed: {done.stderr.strip()}")
        return done.stdout.strip()

    def new_schema(self) -> str:
        """A schema of the owner's alone, for one test's store."""
        name = f"t_{uuid.uuid4().hex[:12]}"
        self.sql(f"CREATE SCHEMA {name} AUTHORIZATION {OWNER}")
        return name

    def grant_member(self, schema: str) -> None:
        """The README's grants for a team member, on ``schema``."""
        self.sql(
            f"GRANT USAGE ON SCHEMA {schema} TO {MEMBER}; "
            f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA {schema} TO {MEMBER}; "
            f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA {schema} TO {MEMBER}"
        )

    def add_password(self, user: str) -> None:
        """Give ``user`` a password, kept in :attr:`passfile` (libpq's own source)."""
        word = secrets.token_hex(12)
        self.sql(f"ALTER ROLE {user} PASSWORD '{word}'", database="postgres")
        self.passwords[user] = word
        self.passfile.write_text(
            "".join(f"127.0.0.1:{self.port}:*:{u}:{w}\n" for u, w in self.passwords.items())
        )

    def stop(self) -> None:
        """The server stopped at once, as an outage stops it (connections dropped)."""
        data = self.folder / "data"
        _run([str(self.bin / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"])

    def start(self) -> None:
        """The server started again after :meth:`stop`, its data as it was."""
        data = self.folder / "data"
        log = self.folder / "log"
        _run([str(self.bin / "pg_ctl"), "-D", str(data), "-l", str(log), "-w", "start"])

    def environment(self) -> dict[str, str]:
        """What a process needs to sign in: the password file, and no password of its own."""
        return {"PGPASSFILE": str(self.passfile), "PGCONNECT_TIMEOUT": "5"}


def _as_postgres(command: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


def _run(command: list[str]) -> None:
    done = subprocess.run(_as_postgres(command), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed: {done.stderr.strip()[-800:]}")


def _start(programs: Path, data: Path, folder: Path, port: int) -> int:
    """Start the server on ``port``; where another test's server took that port after it was
    picked, on another free one (the last ``port =`` of the configuration is the one read).
    The port it listens on."""
    log = folder / "log"
    start = [str(programs / "pg_ctl"), "-D", str(data), "-l", str(log), "-w", "start"]
    for _ in range(2):
        try:
            _run(start)
            return port
        except RuntimeError:
            if "Address already in use" not in (log.read_text() if log.exists() else ""):
                raise
        port = free_port()
        with (data / "postgresql.conf").open("a") as conf:
            conf.write(f"port = {port}\n")
    _run(start)
    return port


@contextmanager
def running_postgres(*, bare: bool = False) -> Iterator[PostgresServer]:
    """A fresh PostgreSQL server for the time of the block (RuntimeError naming the package
    when the distribution's PostgreSQL is not installed); ``bare``: only its superuser, for a
    test to set it up as a person would."""
    import trustme

    programs = find_postgres()
    if programs is None:
        raise RuntimeError("PostgreSQL is needed for this test: apt-get install postgresql")
    folder = Path(tempfile.mkdtemp(prefix="hubtui-pg-"))
    data = folder / "data"
    passwords = {"postgres": secrets.token_hex(12), OWNER: secrets.token_hex(12)}
    passwords[MEMBER] = secrets.token_hex(12)
    (folder / "pw").write_text(passwords["postgres"])
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
        shutil.chown(folder / "pw", "postgres", "postgres")
    folder.chmod(0o700)
    port = free_port()
    try:
        _run(
            [
                str(programs / "initdb"),
                "-D",
                str(data),
                "-U",
                "postgres",
                "-E",
                "UTF8",
                "--locale=C",
                "--no-sync",
                "--auth-local=trust",
                "--auth-host=scram-sha-256",
                f"--pwfile={folder / 'pw'}",
            ]
        )
        authority = trustme.CA()
        certificate = authority.issue_cert("127.0.0.1", "localhost")
        certificate.private_key_and_cert_chain_pem.write_to_path(str(data / "server.pem"))
        certificate.private_key_pem.write_to_path(str(data / "server.key"))
        ca = folder / "ca.pem"
        authority.cert_pem.write_to_path(str(ca))
        with (data / "postgresql.conf").open("a") as conf:
            conf.write(
                f"\nport = {port}\nlisten_addresses = '127.0.0.1'\n"
                f"unix_socket_directories = '{folder}'\nfsync = off\n"
                "synchronous_commit = off\nfull_page_writes = off\n"
                "ssl = on\nssl_cert_file = 'server.pem'\nssl_key_file = 'server.key'\n"
                "max_connections = 60\nshared_buffers = 32MB\n"
            )
        for name in ("server.pem", "server.key"):
            (data / name).chmod(0o600)
            if os.geteuid() == 0:
                shutil.chown(data / name, "postgres", "postgres")
        port = _start(programs, data, folder, port)
        passfile = folder / "pgpass"
        passfile.write_text(
            "".join(f"127.0.0.1:{port}:*:{user}:{word}\n" for user, word in passwords.items())
        )
        passfile.chmod(0o600)
        server = PostgresServer(folder, port, programs, passfile, ca, passwords)
        if bare:
            yield server
            return
        server.sql(
            f"CREATE ROLE {OWNER} LOGIN PASSWORD '{passwords[OWNER]}'; "
            f"CREATE ROLE {MEMBER} LOGIN PASSWORD '{passwords[MEMBER]}'",
            database="postgres",
        )
        server.sql(f"CREATE DATABASE {DATABASE} OWNER {OWNER}", database="postgres")
        server.sql(f"GRANT CONNECT ON DATABASE {DATABASE} TO {MEMBER}", database="postgres")
        yield server
    finally:
        if (data / "postmaster.pid").exists():
            stop = [str(programs / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"]
            subprocess.run(_as_postgres(stop), capture_output=True, check=False)
        shutil.rmtree(folder, ignore_errors=True)
