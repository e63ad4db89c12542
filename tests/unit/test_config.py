"""Settings: flags over environment over the config file; the token never from a flag value."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from hubtui.cli import main
from hubtui.config import ConfigError, Settings, load_settings


def write_config(tmp_path: Path, text: str) -> dict[str, str]:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return {"HUBTUI_CONFIG": str(path)}


def test_flags_beat_environment_beat_file(tmp_path: Path) -> None:
    env = write_config(tmp_path, 'base_url = "https://file.example"\napi_version = "v2"\n')
    assert load_settings(env=env, need_token=False).base_url == "https://file.example"
    assert load_settings(env=env, need_token=False).api_version == "v2"
    env["HUBTUI_BASE_URL"] = "https://env.example"
    assert load_settings(env=env, need_token=False).base_url == "https://env.example"
    assert (
        load_settings(base_url="https://flag.example", env=env, need_token=False).base_url
        == "https://flag.example"
    )
    assert load_settings(api_version="v3", env=env, need_token=False).api_version == "v3"


def test_token_sources_in_order(tmp_path: Path) -> None:
    command = f"{sys.executable} -c \"print('from-command')\""
    env = write_config(tmp_path, f"token_command = '''{command}'''\n")
    assert load_settings(env=env).token == "from-command"
    env["HUBTUI_TOKEN"] = "from-env"
    assert load_settings(env=env).token == "from-env"
    token_file = tmp_path / "token"
    token_file.write_text("from-file\n", encoding="utf-8")
    assert load_settings(token_file=str(token_file), env=env).token == "from-file"


def test_the_token_is_not_in_the_settings_repr() -> None:
    settings = Settings(base_url="https://x.example", token="sk-very-secret")
    assert "sk-very-secret" not in repr(settings)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("base_url = ", "is not valid TOML"),
        ("base_url = 5", "base_url must be a string"),
        ('api_version = "v4"', "must be v2 or v3"),
        ("read_only = 'maybe'", "read_only must be true or false, not 'maybe'"),
        ("token_command = 'false'", "token_command failed with exit status 1"),
        ("token_command = 'true'", "printed no token"),
        ("trusted_hosts = 'a.example'", "trusted_hosts must be a list of strings"),
        ("deadline = 0", "deadline must be a number from 1 to 3600, not 0"),
        ("deadline = nan", "deadline must be a number from 1 to 3600, not nan"),
        ("deadline = inf", "deadline must be a number from 1 to 3600, not inf"),
        ("search_deadline = -inf", "search_deadline must be a number from 1 to 86400"),
        ("concurrency = 100000", "concurrency must be a whole number from 1 to 64"),
        ("max_records = 1.5", "max_records must be a whole number from 1 to 1e\\+07"),
    ],
)
def test_a_bad_setting_is_a_clear_error(tmp_path: Path, text: str, words: str) -> None:
    with pytest.raises(ConfigError, match=words):
        load_settings(env=write_config(tmp_path, text + "\n"))


def test_a_missing_token_file_says_which(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="Could not read the token file"):
        load_settings(token_file=str(tmp_path / "nope"), env={})


def test_read_only_from_environment(tmp_path: Path) -> None:
    env = write_config(tmp_path, "read_only = false\n")
    env["HUBTUI_READ_ONLY"] = "1"
    assert load_settings(env=env, need_token=False).read_only is True
    assert load_settings(read_only=False, env=env, need_token=False).read_only is False


def test_no_server_given_explains_and_suggests_the_demo(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HUBTUI_CONFIG", str(tmp_path / "none.toml"))
    monkeypatch.delenv("HUBTUI_BASE_URL", raising=False)
    assert main([]) == 2
    assert "hubtui --demo" in capsys.readouterr().err


def test_a_token_commands_first_line_is_the_token(tmp_path: Path) -> None:
    # `pass show` prints the secret, then metadata lines.
    command = f"{sys.executable} -c \"print('sk-first'); print('login: me'); print('url: x')\""
    env = write_config(tmp_path, f"token_command = '''{command}'''\n")
    assert load_settings(env=env).token == "sk-first"
    token_file = tmp_path / "token"
    token_file.write_text("sk-file\nsecond line\n", encoding="utf-8")
    assert load_settings(token_file=str(token_file), env={}).token == "sk-file"


@pytest.mark.parametrize("token", ["sk-\x1b[2Jx", "sk-\x00x", "sk-\u202ex"])
def test_a_token_with_control_characters_is_refused_without_repeating_it(token: str) -> None:
    with pytest.raises(ConfigError, match="HUBTUI_TOKEN holds control characters") as caught:
        load_settings(env={"HUBTUI_TOKEN": token, "HUBTUI_CONFIG": "/nonexistent"})
    assert token not in str(caught.value)


def test_deadline_and_max_records_come_from_the_config_file(tmp_path: Path) -> None:
    settings = load_settings(
        env=write_config(tmp_path, "deadline = 5\nmax_records = 1000\nsearch_deadline = 30\n")
    )
    assert (settings.deadline, settings.max_records, settings.search_deadline) == (5.0, 1000, 30)
    assert load_settings(env={"HUBTUI_CONFIG": "/nonexistent"}).max_records == 250_000


def test_an_environment_variable_that_is_not_a_bool_is_named() -> None:
    env = {"HUBTUI_CONFIG": "/nonexistent", "HUBTUI_READ_ONLY": "maybe"}
    with pytest.raises(ConfigError, match="HUBTUI_READ_ONLY must be true or false"):
        load_settings(env=env, need_token=False)


PROFILES = """
base_url = "https://api.example.com"
api_version = "v2"
concurrency = 4
default_profile = "test"

[profiles.test]
base_url = "https://test.example.com"
read_only = true

[profiles.eu]
base_url = "https://eu.example.com"
token_command = "false"
"""


def test_profiles_inherit_the_top_level_and_are_chosen_in_order(tmp_path: Path) -> None:
    env = write_config(tmp_path, PROFILES)
    chosen = load_settings(env=env, need_token=False)  # default_profile
    assert (chosen.profile, chosen.base_url, chosen.read_only) == (
        "test",
        "https://test.example.com",
        True,
    )
    assert (chosen.api_version, chosen.concurrency) == ("v2", 4)  # inherited
    env["HUBTUI_PROFILE"] = "eu"
    assert load_settings(env=env, need_token=False).base_url == "https://eu.example.com"
    flagged = load_settings(env=env, profile="test", need_token=False)
    assert flagged.base_url == "https://test.example.com"
    # A profile's own server is not replaced by another: its token belongs to it.
    with pytest.raises(ConfigError, match="is not the server of profile 'test'"):
        load_settings(env=env, profile="test", base_url="https://x.example", need_token=False)


def test_a_profiles_token_command_runs_only_when_that_profile_is_used(tmp_path: Path) -> None:
    env = write_config(tmp_path, PROFILES)
    env["HUBTUI_TOKEN"] = "from-env"
    # test names its own server and no token source: the environment's token is not for it.
    with pytest.raises(ConfigError, match=r"Profile 'test' names its own base_url but no token"):
        load_settings(env=env, profile="test")
    with pytest.raises(ConfigError, match="token_command failed"):
        load_settings(env=env, profile="eu")  # its own command, not HUBTUI_TOKEN


TOKENS = """
base_url = "https://prod.example"
token_command = "echo prod-token"

[profiles.staging]
base_url = "https://staging.example"
token_command = "echo staging-token"

[profiles.readonly]
read_only = true

[profiles.bare]
base_url = "https://bare.example"
"""


def test_a_token_belongs_to_the_server_it_was_configured_for(tmp_path: Path) -> None:
    env = write_config(tmp_path, TOKENS)
    (tmp_path / "config.toml").chmod(0o600)
    tmp_path.chmod(0o700)
    env["HUBTUI_TOKEN"] = "prod-from-env"
    token_file = tmp_path / "token"
    token_file.write_text("prod-from-file\n")
    # The default server takes the environment's or the flag's token.
    assert load_settings(env=env).token == "prod-from-env"
    assert load_settings(env=env, token_file=str(token_file)).token == "prod-from-file"
    # A profile with its own server takes its own token, whatever the environment holds.
    staging = load_settings(env=env, profile="staging")
    assert (staging.base_url, staging.token) == ("https://staging.example", "staging-token")
    with pytest.raises(ConfigError, match="--token-file is for the default server"):
        load_settings(env=env, profile="staging", token_file=str(token_file))
    # A profile on the default server inherits the default's token.
    assert load_settings(env=env, profile="readonly").token == "prod-from-env"
    with pytest.raises(ConfigError, match=r"add token_command or token_file to \[profiles.bare\]"):
        load_settings(env=env, profile="bare")
    with pytest.raises(ConfigError, match="is not the server of profile 'staging'"):
        load_settings(env=env, profile="staging", base_url="https://elsewhere.example")
    # The file's token_command is for the file's server, not another one given by a flag.
    del env["HUBTUI_TOKEN"]
    assert load_settings(env=env).token == "prod-token"
    with pytest.raises(ConfigError, match="is for its base_url, not the server given"):
        load_settings(env=env, base_url="https://elsewhere.example")


def test_no_token_is_a_settings_error_before_any_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HUBTUI_CONFIG", str(tmp_path / "none.toml"))
    monkeypatch.delenv("HUBTUI_TOKEN", raising=False)
    assert main(["--base-url", "http://127.0.0.1:9", "hubs"]) == 2
    err = capsys.readouterr().err
    for source in ("HUBTUI_TOKEN", "--token-file", "token_command"):
        assert source in err


@pytest.mark.parametrize("loose", ["file", "folder", "link"])
def test_a_token_command_from_a_file_others_can_write_is_not_run(
    tmp_path: Path, loose: str
) -> None:
    folder = tmp_path / "conf"
    folder.mkdir(mode=0o700)
    ran = tmp_path / "ran"
    real = folder / "config.toml"
    real.write_text(f'base_url = "https://x.example"\ntoken_command = "touch {ran}"\n')
    real.chmod(0o600)
    path = real
    if loose == "file":
        real.chmod(0o666)
    elif loose == "folder":
        folder.chmod(0o777)
    else:
        path = tmp_path / "link.toml"
        path.symlink_to(real)
    with pytest.raises(ConfigError, match="runs no token_command") as caught:
        load_settings(env={"HUBTUI_CONFIG": str(path)})
    assert not ran.exists()
    if loose != "link":
        assert "0666" in str(caught.value) or "0777" in str(caught.value)


def test_a_base_url_with_credentials_is_refused_without_repeating_them() -> None:
    with pytest.raises(ConfigError, match="holds a user name or password") as caught:
        load_settings(base_url="https://me:SECRET@x.example", need_token=False, env={})
    assert "SECRET" not in str(caught.value)


def test_a_profile_name_with_control_characters_is_shown_inert(tmp_path: Path) -> None:
    env = write_config(tmp_path, '[profiles."evil\\u001b]0;owned\\u0007"]\nread_only = true\n')
    with pytest.raises(ConfigError) as caught:
        load_settings(env=env, profile="nope\x1b[2J", need_token=False)
    assert "\x1b" not in str(caught.value)
    assert "\x07" not in str(caught.value)
    assert "␛]0;owned␇" in str(caught.value)


def test_a_missing_profile_names_the_ones_there_are(tmp_path: Path) -> None:
    env = write_config(tmp_path, PROFILES)
    with pytest.raises(ConfigError, match=r"no profile 'prod' .* \(profiles: eu, test\)"):
        load_settings(env=env, profile="prod", need_token=False)
