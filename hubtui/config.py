"""Settings: flags over environment (``HUBTUI_*``) over a TOML file in the user config directory.

One idea: every setting, each source (flags, environment, config file, profiles) and the
token rules in one place, so that one precedence holds for all.

The file's top-level settings are the defaults; a ``[profiles.NAME]`` table overrides any of them
for one server (``--profile``, ``HUBTUI_PROFILE`` or ``default_profile`` chooses it), and a
profile's ``token_command`` runs only when that profile is used.
"""

from __future__ import annotations

import math
import os
import shlex
import stat
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from platformdirs import user_config_path

from hubtui.api.versions import ApiVersion, is_api_version
from hubtui.hosts import is_loopback_host
from hubtui.text import inert

__all__ = ["ConfigError", "Settings", "config_path", "load_settings", "profile_names"]

TOKEN_COMMAND_TIMEOUT = 30.0


#: What the store keeps: the hub lists, every list read (the default: offline opens what was
#: seen; `hubtui store prune` bounds it), or nothing.
STORE_CHOICES = ("hubs", "all", "off")


class ConfigError(Exception):
    """A setting is missing or wrong; the message says which and how to fix it."""


@dataclass(frozen=True)
class Settings:
    base_url: str | None = None
    token: str | None = field(default=None, repr=False)
    api_version: ApiVersion = "v3"
    read_only: bool = False
    trusted_hosts: tuple[str, ...] = ()
    allow_insecure_http: bool = False
    ca_bundle: str | None = None
    deadline: float = 60.0
    """Seconds one call may take in all, retries included."""
    max_records: int = 250_000
    """The most records one list answer may hold."""
    concurrency: int = 8
    """How many project-user lists a search across projects fetches at once."""
    search_deadline: float = 300.0
    """Seconds a whole search across projects may take; what has not answered by then is
    reported as not read."""
    profile: str | None = None
    """The profile these settings come from, if any."""
    inactive_after: int = 90
    """Days without a sign-in or project activity after which a hub user is "inactive"."""
    store: str = "all"
    """What is kept on disk of what was read: ``hubs`` (the hub lists, for the start), ``all``
    (every list read, as its latest state) or ``off`` (nothing)."""
    operator: str | None = None
    """Who makes the changes, as each change logged and each review kept names them (None: the
    OS user at the host)."""
    store_url: str | None = None
    """A team's store on PostgreSQL (a libpq address, never with a password): snapshots,
    reviews and the audit trail shared there; None: the local file alone."""


def config_path(env: Mapping[str, str] | None = None) -> Path:
    """Where the config file is: ``HUBTUI_CONFIG``, else ``config.toml`` in the user config dir."""
    env = os.environ if env is None else env
    if env.get("HUBTUI_CONFIG"):
        return Path(env["HUBTUI_CONFIG"]).expanduser()
    return user_config_path("hubtui") / "config.toml"


def load_settings(
    *,
    base_url: str | None = None,
    token_file: str | None = None,
    api_version: str | None = None,
    read_only: bool | None = None,
    allow_insecure_http: bool | None = None,
    ca_bundle: str | None = None,
    concurrency: int | None = None,
    profile: str | None = None,
    store: str | None = None,
    store_url: str | None = None,
    env: Mapping[str, str] | None = None,
    need_token: bool = True,
) -> Settings:
    """Combine flags (the arguments), the environment and the config file, in that order.

    The server address is checked here, so that a wrong one stops before the app opens.
    """
    env = os.environ if env is None else env
    path = config_path(env)
    whole = _read_file(path)
    profile = profile or env.get("HUBTUI_PROFILE") or _str(whole, "default_profile")
    file = _with_profile(whole, profile, path)
    own = _profile_table(whole, profile)
    version = api_version or env.get("HUBTUI_API_VERSION") or _str(file, "api_version") or "v3"
    if not is_api_version(version):
        raise ConfigError(f"The API version must be v2 or v3, not {inert(version)!r}.")
    profile_url = _str(own, "base_url")
    if profile_url and base_url and base_url != profile_url:
        raise ConfigError(
            f"--base-url {inert(base_url)} is not the server of profile {inert(profile)!r} "
            f"({inert(profile_url)}), and that profile's token belongs to its own server: drop "
            "--base-url, or --profile."
        )
    url = base_url or profile_url or env.get("HUBTUI_BASE_URL") or _str(whole, "base_url")
    insecure = _first_bool(
        allow_insecure_http,
        env.get("HUBTUI_ALLOW_INSECURE_HTTP"),
        file.get("allow_insecure_http"),
        name="allow_insecure_http",
    )
    if url:
        _check_base_url(url, insecure)
    kept = store or env.get("HUBTUI_STORE") or _str(file, "store") or "all"
    if kept not in STORE_CHOICES:
        raise ConfigError(
            f"The store setting must be one of {', '.join(STORE_CHOICES)}, not {inert(kept)!r}."
        )
    settings = Settings(
        base_url=url,
        api_version=version,
        read_only=_first_bool(
            read_only, env.get("HUBTUI_READ_ONLY"), file.get("read_only"), name="read_only"
        ),
        trusted_hosts=tuple(_str_list(file, "trusted_hosts")),
        allow_insecure_http=insecure,
        ca_bundle=ca_bundle or env.get("HUBTUI_CA_BUNDLE") or _str(file, "ca_bundle"),
        deadline=_number(file, "deadline", 60.0, 1, 3600),
        max_records=int(_number(file, "max_records", 250_000, 1, 10_000_000, whole=True)),
        concurrency=concurrency or int(_number(file, "concurrency", 8, 1, 64, whole=True)),
        search_deadline=_number(file, "search_deadline", 300.0, 1, 86_400),
        inactive_after=int(_number(file, "inactive_after", 90, 1, 3650, whole=True)),
        profile=profile,
        store=kept,
        operator=_operator(env.get("HUBTUI_OPERATOR") or _str(file, "operator")),
        store_url=_store_url(store_url or env.get("HUBTUI_STORE_URL") or _str(file, "store_url")),
    )
    if not need_token:
        return settings
    # Last, once every other setting is right: a token_command runs only for settings in use.
    token = _token(token_file, env, whole, own, profile, path, base_url)
    if token is None and url:
        raise ConfigError(
            "No token is configured: set HUBTUI_TOKEN, use --token-file FILE, or add "
            f"token_command (or token_file) to {path}."
        )
    return replace(settings, token=token)


def profile_names(env: Mapping[str, str] | None = None) -> list[str]:
    """The profiles of the config file (none when it has none or cannot be read)."""
    env = os.environ if env is None else env
    try:
        profiles = _read_file(config_path(env)).get("profiles", {})
    except ConfigError:
        return []
    return sorted(profiles) if isinstance(profiles, dict) else []


def _profile_table(file: Mapping[str, Any], profile: str | None) -> dict[str, Any]:
    """The profile's own settings (none inherited); {} without a profile."""
    table = file.get("profiles", {}).get(profile) if profile else None
    return table if isinstance(table, dict) else {}


def _with_profile(file: dict[str, Any], profile: str | None, path: Path) -> dict[str, Any]:
    profiles = file.get("profiles", {})
    if not isinstance(profiles, dict):
        raise ConfigError(f"In {path}, profiles must be tables: [profiles.NAME].")
    base = {k: v for k, v in file.items() if k not in ("profiles", "default_profile")}
    if not profile:
        return base
    table = profiles.get(profile)
    if not isinstance(table, dict):
        known = ", ".join(inert(name) for name in sorted(profiles)) or "none"
        raise ConfigError(
            f"There is no profile {inert(profile)!r} in {path} (profiles: {known}); change "
            "--profile, HUBTUI_PROFILE or default_profile."
        )
    return {**base, **table}


def _check_base_url(url: str, allow_insecure_http: bool) -> None:
    where = "(from --base-url, HUBTUI_BASE_URL or base_url)"
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
    except ValueError:
        parts, host = None, ""
    if parts is None or parts.scheme not in ("http", "https") or not host:
        raise ConfigError(f"The server address {inert(url)!r} {where} is not an http(s) URL.")
    if parts.username is not None or parts.password is not None:
        raise ConfigError(
            f"The server address {where} holds a user name or password before its host: hubtui "
            "would show and log it. Give the address without it, and the token through "
            "HUBTUI_TOKEN, --token-file or token_command."
        )
    if parts.scheme == "http" and not allow_insecure_http and not is_loopback_host(host):
        raise ConfigError(
            f"The server address {inert(url)} {where} is plain http to another machine, which "
            "would "
            "send the token unencrypted: use https, or --allow-insecure-http "
            "(HUBTUI_ALLOW_INSECURE_HTTP, allow_insecure_http) if you must."
        )


def _token(
    token_file: str | None,
    env: Mapping[str, str],
    whole: Mapping[str, Any],
    own: Mapping[str, Any],
    profile: str | None,
    path: Path,
    base_url: str | None,
) -> str | None:
    """The token, from a source configured for the server in use: a token belongs to the server
    it was configured for.

    A profile that names its own ``base_url`` takes its token only from its own
    ``token_command`` or ``token_file``. ``--token-file`` and ``HUBTUI_TOKEN`` go with the
    default server (or the one ``--base-url`` gives); the top-level ``token_command`` with the
    top-level ``base_url``. None when no source is configured.
    """
    if own.get("base_url") is not None:
        if token_file:
            raise ConfigError(
                f"--token-file is for the default server, not profile {inert(profile)!r}, which "
                f"names its own base_url: give the profile its token_command or token_file in "
                f"{path}, and drop --token-file."
            )
        token = _file_token(own, path)
        if token is None:
            raise ConfigError(
                f"Profile {inert(profile)!r} names its own base_url but no token source: add "
                f"token_command or token_file to [profiles.{inert(profile)}] in {path} "
                "(HUBTUI_TOKEN and --token-file are for the default server only)."
            )
        return token
    if token_file:
        return _read_token_file(token_file, "The token file")
    if env.get("HUBTUI_TOKEN"):
        return _required(_checked_token(env["HUBTUI_TOKEN"], "HUBTUI_TOKEN"), "HUBTUI_TOKEN")
    file_url = _str(whole, "base_url")
    chosen_url = base_url or env.get("HUBTUI_BASE_URL")
    return _file_token(
        {**whole, **own}, path, guard=not (chosen_url and file_url and chosen_url != file_url)
    )


def _file_token(table: Mapping[str, Any], path: Path, *, guard: bool = True) -> str | None:
    """The token from a table's ``token_command`` or ``token_file``, if it has one.

    ``guard`` False: the server in use is not the file's ``base_url``, so the file's token
    source is not for it (an error, naming what to use instead)."""
    command = _str(table, "token_command")
    file_name = _str(table, "token_file")
    if command is None and file_name is None:
        return None
    if not guard:
        raise ConfigError(
            f"The token_command or token_file in {path} is for its base_url, not the server "
            "given by --base-url or HUBTUI_BASE_URL: give that server's token with "
            "HUBTUI_TOKEN or --token-file."
        )
    if command is not None:
        _check_trusted(path)
        return _run_token_command(command)
    assert file_name is not None
    return _read_token_file(file_name, f"The token_file of {path}")


def _read_token_file(name: str, what: str) -> str:
    try:
        text = Path(name).expanduser().read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) else "it is not UTF-8 text"
        raise ConfigError(f"Could not read {what.lower()} {name}: {why}.") from None
    return _required(_checked_token(text, f"{what} {name}"), f"{what} {name}")


def _required(token: str | None, source: str) -> str:
    if not token:
        raise ConfigError(f"{source} holds no token.")
    return token


def _check_trusted(path: Path) -> None:
    """Refuse to run a command from a file others could have written, as ssh does with its
    config: the file and its folder must be the person's (or root's) and not writable by
    group or others, and the file must not be reached through a symbolic link."""
    if path.is_symlink():
        raise ConfigError(
            f"The config file {path} is a symbolic link: hubtui runs no token_command from it. "
            "Use the file itself (HUBTUI_CONFIG)."
        )
    for place in (path, path.parent):
        try:
            info = place.stat()
        except OSError as exc:
            raise ConfigError(f"Could not check {place}: {exc.strerror}.") from None
        mode = stat.S_IMODE(info.st_mode)
        if info.st_uid not in (0, os.getuid()) or mode & 0o022:
            raise ConfigError(
                f"{place} can be written by other users (mode {mode:04o}), so hubtui runs no "
                f"token_command from {path}: chmod go-w {place}."
            )


def _checked_token(text: str, source: str) -> str | None:
    """The token: the first line of ``text`` (``pass show`` prints metadata lines after it).

    A token holding control characters is refused: it cannot go into a header, and it is
    more likely a mistake than a token. The message never repeats the token.
    """
    lines = text.strip().splitlines()
    token = lines[0].strip() if lines else ""
    if any(not ch.isprintable() for ch in token):
        raise ConfigError(
            f"{source} holds control characters on its first line, so it is not a usable token."
        )
    return token or None


def _run_token_command(command: str) -> str:
    try:
        done = subprocess.run(
            shlex.split(command),
            capture_output=True,
            text=True,
            timeout=TOKEN_COMMAND_TIMEOUT,
            check=False,
        )
    except (OSError, ValueError, subprocess.TimeoutExpired) as exc:
        raise ConfigError(
            f"The config's token_command could not run: {type(exc).__name__}."
        ) from None
    if done.returncode != 0:
        raise ConfigError(f"The config's token_command failed with exit status {done.returncode}.")
    token = _checked_token(done.stdout, "The output of the config's token_command")
    if not token:
        raise ConfigError("The config's token_command printed no token.")
    return token


def _read_file(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            import tomllib  # only where a config file is there: 2.5 ms of every start otherwise

            return tomllib.load(handle)
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ConfigError(f"Could not read the config file {path}: {exc.strerror}.") from None
    except ValueError as exc:  # tomllib.TOMLDecodeError, a ValueError
        raise ConfigError(f"The config file {path} is not valid TOML: {exc}.") from None


def _store_url(given: str | None) -> str | None:
    """The team store's address as given, refused when it holds a password (see
    :func:`hubtui.store_address.store_url_problem`)."""
    if not given:
        return None
    from hubtui.store_address import store_url_problem

    if problem := store_url_problem(given):
        raise ConfigError(problem)
    return given.strip()


def _operator(given: str | None) -> str | None:
    """The operator's name as given, refused when it is not one line of plain text."""
    if not given:
        return None
    name = " ".join(given.split())
    if name != given.strip() or len(name) > 100 or inert(name) != name:
        raise ConfigError(
            "The operator setting must be a name of at most 100 characters on one line, "
            "without control or invisible characters."
        )
    return name


def _str(file: Mapping[str, Any], key: str) -> str | None:
    value = file.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ConfigError(f"The config setting {key} must be a string.")
    return value


def _number(
    file: Mapping[str, Any],
    key: str,
    default: float,
    low: float,
    high: float,
    *,
    whole: bool = False,
) -> float:
    """A number setting within [low, high] (never NaN or infinite), or an error naming it."""
    value = file.get(key, default)
    kind = int if whole else (int, float)
    if (
        isinstance(value, bool)
        or not isinstance(value, kind)
        or not math.isfinite(value)
        or not low <= value <= high
    ):
        what = "a whole number" if whole else "a number"
        raise ConfigError(
            f"The config setting {key} must be {what} from {low:g} to {high:g}, not {value!r}."
        )
    return float(value)


def _str_list(file: Mapping[str, Any], key: str) -> list[str]:
    value = file.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"The config setting {key} must be a list of strings.")
    return value


def _first_bool(*values: object, name: str) -> bool:
    """The first value given (flag, environment, file) as a bool; a wrong one names the setting."""
    sources = (f"--{name.replace('_', '-')}", f"HUBTUI_{name.upper()}", name)
    for source, value in zip(sources, values, strict=True):
        if value is None:
            continue
        if isinstance(value, bool):
            return value
        if isinstance(value, str):
            if value.strip().lower() in ("1", "true", "yes", "on"):
                return True
            if value.strip().lower() in ("0", "false", "no", "off", ""):
                return False
        raise ConfigError(f"{source} must be true or false, not {inert(value)!r}.")
    return False
