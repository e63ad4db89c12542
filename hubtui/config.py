"""Settings: flags over environment (``HUBTUI_*``) over a TOML file in the user config directory.

The file's top-level settings are the defaults; a ``[profiles.NAME]`` table overrides any of them
for one server (``--profile``, ``HUBTUI_PROFILE`` or ``default_profile`` chooses it), and a
profile's ``token_command`` runs only when that profile is used.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from hubtui.api.versions import ApiVersion, is_api_version
from hubtui.hosts import is_loopback_host

__all__ = ["ConfigError", "Settings", "config_path", "load_settings", "profile_names"]

TOKEN_COMMAND_TIMEOUT = 30.0


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
    profile: str | None = None
    """The profile these settings come from, if any."""


def config_path(env: Mapping[str, str] | None = None) -> Path:
    """Where the config file is: ``HUBTUI_CONFIG``, else ``config.toml`` in the user config dir."""
    env = os.environ if env is None else env
    if env.get("HUBTUI_CONFIG"):
        return Path(env["HUBTUI_CONFIG"]).expanduser()
    from platformdirs import user_config_path

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
    env: Mapping[str, str] | None = None,
    need_token: bool = True,
) -> Settings:
    """Combine flags (the arguments), the environment and the config file, in that order.

    The server address is checked here, so that a wrong one stops before the app opens.
    """
    env = os.environ if env is None else env
    path = config_path(env)
    file = _read_file(path)
    profile = profile or env.get("HUBTUI_PROFILE") or _str(file, "default_profile")
    file = _with_profile(file, profile, path)
    version = api_version or env.get("HUBTUI_API_VERSION") or _str(file, "api_version") or "v3"
    if not is_api_version(version):
        raise ConfigError(f"The API version must be v2 or v3, not {version!r}.")
    token: str | None = None
    if need_token:
        token = _token(token_file, env, file)
    url = base_url or env.get("HUBTUI_BASE_URL") or _str(file, "base_url")
    insecure = _first_bool(
        allow_insecure_http,
        env.get("HUBTUI_ALLOW_INSECURE_HTTP"),
        file.get("allow_insecure_http"),
        name="allow_insecure_http",
    )
    if url:
        _check_base_url(url, insecure)
    return Settings(
        base_url=url,
        token=token,
        api_version=version,
        read_only=_first_bool(
            read_only, env.get("HUBTUI_READ_ONLY"), file.get("read_only"), name="read_only"
        ),
        trusted_hosts=tuple(_str_list(file, "trusted_hosts")),
        allow_insecure_http=insecure,
        ca_bundle=ca_bundle or env.get("HUBTUI_CA_BUNDLE") or _str(file, "ca_bundle"),
        deadline=_positive(file, "deadline", 60.0),
        max_records=int(_positive(file, "max_records", 250_000, whole=True)),
        concurrency=concurrency or int(_positive(file, "concurrency", 8, whole=True)),
        profile=profile,
    )


def profile_names(env: Mapping[str, str] | None = None) -> list[str]:
    """The profiles of the config file (none when it has none or cannot be read)."""
    env = os.environ if env is None else env
    try:
        profiles = _read_file(config_path(env)).get("profiles", {})
    except ConfigError:
        return []
    return sorted(profiles) if isinstance(profiles, dict) else []


def _with_profile(file: dict[str, Any], profile: str | None, path: Path) -> dict[str, Any]:
    profiles = file.get("profiles", {})
    if not isinstance(profiles, dict):
        raise ConfigError(f"In {path}, profiles must be tables: [profiles.NAME].")
    base = {k: v for k, v in file.items() if k not in ("profiles", "default_profile")}
    if not profile:
        return base
    table = profiles.get(profile)
    if not isinstance(table, dict):
        known = ", ".join(sorted(profiles)) or "none"
        raise ConfigError(
            f"There is no profile {profile!r} in {path} (profiles: {known}); change --profile, "
            "HUBTUI_PROFILE or default_profile."
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
        raise ConfigError(f"The server address {url!r} {where} is not an http(s) URL.")
    if parts.scheme == "http" and not allow_insecure_http and not is_loopback_host(host):
        raise ConfigError(
            f"The server address {url} {where} is plain http to another machine, which would "
            "send the token unencrypted: use https, or --allow-insecure-http "
            "(HUBTUI_ALLOW_INSECURE_HTTP, allow_insecure_http) if you must."
        )


def _token(token_file: str | None, env: Mapping[str, str], file: Mapping[str, Any]) -> str | None:
    if token_file:
        try:
            text = Path(token_file).expanduser().read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            why = exc.strerror if isinstance(exc, OSError) else "it is not UTF-8 text"
            raise ConfigError(f"Could not read the token file {token_file}: {why}.") from None
        return _checked_token(text, f"The token file {token_file}")
    if env.get("HUBTUI_TOKEN"):
        return _checked_token(env["HUBTUI_TOKEN"], "HUBTUI_TOKEN")
    command = _str(file, "token_command")
    if command:
        return _run_token_command(command)
    return None


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
            return tomllib.load(handle)
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ConfigError(f"Could not read the config file {path}: {exc.strerror}.") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"The config file {path} is not valid TOML: {exc}.") from None


def _str(file: Mapping[str, Any], key: str) -> str | None:
    value = file.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ConfigError(f"The config setting {key} must be a string.")
    return value


def _positive(file: Mapping[str, Any], key: str, default: float, *, whole: bool = False) -> float:
    value = file.get(key, default)
    kind = int if whole else (int, float)
    if isinstance(value, bool) or not isinstance(value, kind) or value <= 0:
        what = "a whole number" if whole else "a number"
        raise ConfigError(f"The config setting {key} must be {what} above 0, not {value!r}.")
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
        raise ConfigError(f"{source} must be true or false, not {value!r}.")
    return False
