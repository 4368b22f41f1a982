"""The configuration file: defaults, init, line-numbered errors, unknown keys, overrides."""
from __future__ import annotations

from pathlib import Path

import pytest

from companion.cli import main as cli
from companion.config import (
    Config,
    apply_overrides,
    commented_config,
    default_config_path,
    find_line,
    load_config,
    parse_config,
)
from companion.errors import ConfigError, InputFileError


def test_config_defaults_without_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    config = load_config()
    assert config.port == 8000 and config.players == [] and config.path is None
    assert config.gpio["uno_pin"] == 17 and config.camera["source"] == "auto"


def test_config_default_path_follows_xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert default_config_path() == tmp_path / "uno-companion" / "config.toml"


def test_config_commented_file_reads_back_as_defaults() -> None:
    assert parse_config(commented_config()) == Config()


def test_init_writes_a_commented_file_then_refuses_to_overwrite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert cli(["init"]) == 0
    path = tmp_path / "uno-companion" / "config.toml"
    text = path.read_text()
    assert "# BCM pin of the shared UNO! buzzer" in text and "uno_pin = 17" in text
    path.write_text(text.replace("port = 8000", "port = 8080"))
    assert cli(["init"]) == 2  # a file in the way, as README's exit statuses say
    assert "already exists" in capsys.readouterr().err
    assert "port = 8080" in path.read_text()  # the edited file is untouched
    assert cli(["init", "--force"]) == 0
    assert "port = 8000" in path.read_text()


def test_init_suggests_a_long_random_passphrase(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from companion.config import weak_pin

    pins = []
    for name in ("a.toml", "b.toml"):
        assert cli(["init", "--path", str(tmp_path / name)]) == 0
        pins.append(load_config(tmp_path / name).host_pin)
        assert f"host passphrase: {pins[-1]}" in capsys.readouterr().out
    assert pins[0] != pins[1] and all(len(p) >= 20 and not weak_pin(p) for p in pins)
    assert weak_pin("2468") and not weak_pin("123456789")


def test_init_path_option(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "table.toml"
    assert cli(["init", "--path", str(target)]) == 0
    assert load_config(target).path == target


def test_config_reads_players_seats_and_rules() -> None:
    config = parse_config(
        """
players = ["Ann", "Bob", "Cy"]
dealer = "Bob"
port = 8080
host_pin = "2468"
[camera]
source = 0
[gpio]
led_pin = 22
[gpio.seats]
Ann = 5
Bob = 6
Cy = 13
[zones]
discard = [0.3, 0.3, 0.7, 0.7]
[rules]
target = 200
"""
    )
    assert config.players == ["Ann", "Bob", "Cy"] and config.dealer == "Bob"
    assert config.port == 8080 and config.host_pin == "2468"
    assert config.camera["source"] == 0 and config.gpio["led_pin"] == 22
    assert config.seats == {"Ann": 5, "Bob": 6, "Cy": 13}
    assert config.zones["discard"] == (0.3, 0.3, 0.7, 0.7)
    assert config.rules == {"target": 200}


@pytest.mark.parametrize(
    "text, message",
    [
        ('players = ["A", "B"]\n\n\n\n\n\nport = "abc"\n',
         "config.toml line 7: port must be an integer 1-65535, got 'abc'"),
        ("port = 70000\n", "config.toml line 1: port must be an integer 1-65535, got 70000"),
        ("[gpio]\nuno_pin = 40\n", "config.toml line 2: gpio.uno_pin must be a BCM pin number 2-27"),
        ("[gpio]\nenabled = 1\n", "config.toml line 2: gpio.enabled must be true or false, got 1"),
        ("[camera]\nfps = 0\n", "config.toml line 2: camera.fps must be a number 1-120, got 0"),
        ("[camera]\nsource = -1\n", "config.toml line 2: camera.source must be a camera index 0 or more"),
        ('players = ["Solo"]\n', "config.toml line 1: players must name 2-10 players"),
        ('players = ["A", "A"]\n', "config.toml line 1: players must not name a player twice"),
        ('players = ["A", "B"]\ndealer = "Z"\n', "config.toml line 2: dealer must be one of the players, got 'Z'"),
        ('host_pin = "12"\n', "config.toml line 1: host_pin must be 4-12 digits or a passphrase"),
        ('hostnames = "uno.example.net"\n', 'config.toml line 1: hostnames must be a list of names, e.g. ["uno.example.net"]'),
        ('hostnames = ["uno.example.net:8000"]\n', "config.toml line 1: hostnames 'uno.example.net:8000' is no host name"),
        ('players = ["A", "B"]\n[gpio.seats]\nA = 5\nZed = 6\n', "config.toml line 4: gpio.seats.Zed names no player"),
        ('[gpio]\nuno_pin = 0\nled_pin = 5\nbuzzer_pin = 5\n', "config.toml line 4: gpio.buzzer_pin uses the same pin as gpio.led_pin"),
        ("[zones]\ndiscard = [0.5, 0.5, 0.2, 0.9]\n", "config.toml line 2: zones.discard must be [x1, y1, x2, y2]"),
        ("port = \n", "config.toml: not valid TOML"),
        ('[rules]\nstacking = true\nstacking = "cross"\n',  # an option uncommented twice
         "config.toml: not valid TOML: 'stacking' is set twice (the second time at line 3)"),
        # found here, not when `run` has stored a game the engine refuses (and exits 1)
        ('players = ["A", "B"]\n[rules]\nhand_size = 60\n', "config.toml line 3: 2 hands of 60 do not fit in a 108-card deck"),
        ('[gpio]\npass_pin = 24\n', "config.toml line 2: gpio.pass_pin needs draw_pin too"),
        # the wiring guide's `gpio.draw_pin = 23`, typed as it reads
        ('[rules]\ntarget = 200\ngpio.draw_pin = 23\n', "config.toml line 3: write draw_pin = 23 under [gpio]"),
        ('gpio.draw_pin = 23\n[gpio]\nled_pin = 5\n', "config.toml: not valid TOML: line 1: write draw_pin = 23 under [gpio]"),
        ('players = ["Zoë", "B"]\n[gpio.seats]\nZoë = 5\n',
         'config.toml: not valid TOML: line 3: put the name in quotes: "Zoë" = 5'),
        # a list left open: tomllib names the line after it (the next section), not the list's
        ('players = ["Ann", "Bob"\n\n[rules]\ntarget = 200\n',
         "config.toml: not valid TOML: line 1: the list players = [ ... is never closed with ]"),
        ('port = 8000\nplayers = ["Ann",\n  "Bob"\n', "config.toml: not valid TOML: line 2: the list players = [ ..."),
        ('[zones]\ndiscard = [0.1, 0.2, 0.5, 0.6\nreveal = [0, 0, 1, 1]\n',
         "config.toml: not valid TOML: line 2: the list discard = [ ... is never closed with ]"),
    ],
)
def test_config_bad_value_names_key_and_line(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(text)
    assert str(info.value).startswith(message), str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    "text, message",
    [
        ("prot = 8000\n", "config.toml line 1: unknown key 'prot' at the top level: did you mean 'port'?"),
        ("[camera]\n\nsorce = 0\n", "config.toml line 3: unknown key 'sorce' in [camera]: did you mean 'source'?"),
        ("[gpio]\nled = 27\n", "config.toml line 2: unknown key 'led' in [gpio]: did you mean 'led_pin'?"),
        ("[rules]\nstaking = true\n", "config.toml line 2: unknown key 'staking' in [rules]: did you mean 'stacking'?"),
        ("[zones]\ndiscrad = [0, 0, 1, 1]\n", "config.toml line 2: unknown key 'discrad' in [zones]: did you mean 'discard'?"),
        ("[gamera]\n", "config.toml line 1: unknown key 'gamera' at the top level: did you mean 'camera'?"),
    ],
)
def test_config_unknown_key_suggests_the_closest(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match="^" + __import__("re").escape(message)):
        parse_config(text)


def test_config_hostnames_are_kept_in_lower_case() -> None:
    assert parse_config('hostnames = ["Uno.Example.NET."]\n').hostnames == ["uno.example.net"]


def test_config_find_line_respects_tables() -> None:
    text = "port = 1\n[camera]\nport = 2\n[gpio.seats]\n'Ann' = 5\n"
    assert find_line(text, "", "port") == 1
    assert find_line(text, "camera", "port") == 3
    assert find_line(text, "gpio.seats", "Ann") == 5


def test_config_inline_seats_table_points_at_its_key() -> None:
    with pytest.raises(ConfigError, match="line 3: gpio.seats.Bo must be a BCM pin"):
        parse_config('players = ["Al", "Bo"]\n[gpio]\nseats = { Al = 5, Bo = 99 }\n')


def test_config_named_file_missing_is_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match="no such configuration file"):
        load_config(tmp_path / "nope.toml")


def test_config_flags_override_file() -> None:
    config = parse_config('port = 8080\n[camera]\nsource = "picamera"\n')
    apply_overrides(config, port=9000, camera_source="2", db=None)
    assert config.port == 9000 and config.camera["source"] == 2


def test_config_bad_flag_value_is_named() -> None:
    with pytest.raises(ConfigError, match="--port must be an integer 1-65535"):
        apply_overrides(Config(), port=0)


def test_run_reports_config_error_on_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[gpio]\nuno_pin = 'x'\n")
    assert cli(["run", "--config", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith("config.toml line 2: gpio.uno_pin must be a BCM pin number 2-27 (0 = not fitted), got 'x'")
    assert "\n" not in err


@pytest.mark.parametrize(
    "text, message",
    [
        ("[rules]\ntarget = 'x'\n", "config.toml line 2: rule target takes a whole number of at least 1, not 'x'"),
        ("[rules]\njump_in = true\nstacking = 'maybe'\n", "config.toml line 3: rule stacking='maybe' is not one of"),
        ("[rules]\nhand_size = 9\nhand_limit = 8\n", "config.toml line 3: rule hand_limit=8 must be above hand_size (9)"),
        ("[rules]\nuno_penalty = 11\n", "config.toml line 2: rule uno_penalty takes a whole number of cards 0-10"),
        ("[rules]\ndeflect = 'both'\n", "config.toml line 2: rule deflect='both' is not one of false, true, reverse, skip"),
    ],
)
def test_config_bad_rule_value_names_line_and_rule(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(text)
    assert str(info.value).startswith(message)


def test_config_accepts_house_rules_that_fit_together() -> None:
    config = parse_config("[rules]\nhand_size = 5\nhand_limit = 6\nelimination = 9\n"
                          "stacking = 'cross'\ndeflect = true\nteams = true\nturn_seconds = 30\n")
    assert config.rules["hand_limit"] == 6 and config.rules["stacking"] == "cross"


def test_config_teams_need_four_or_six_players() -> None:
    with pytest.raises(ConfigError) as info:
        parse_config('players = ["Ann", "Bob", "Cy"]\n[rules]\nteams = true\n')
    assert str(info.value) == ("config.toml line 3: rule teams needs 4 or 6 players (2 vs 2 or "
                               "3 vs 3, partners seated alternately), not 3")


def test_a_configuration_saved_with_a_byte_order_mark_reads(tmp_path) -> None:
    # a Windows editor's UTF-8 with BOM: "not valid TOML ... at line 1, column 1" before
    path = tmp_path / "config.toml"
    path.write_bytes('\ufeffplayers = ["Ann", "Bob"]\n'.encode("utf-8"))
    assert load_config(path).players == ["Ann", "Bob"]


@pytest.mark.parametrize("players", [["Ann", "", "Bob"], ["Ann Bob Cid"], ["Ann;Bob;Cid"]])
def test_players_on_the_command_line_are_explained_in_its_own_syntax(players) -> None:
    with pytest.raises(ConfigError) as err:
        apply_overrides(Config(), players=players)
    assert "Ann,Bob,Cy" in str(err.value) and "[" not in str(err.value)


def test_players_on_the_command_line_are_checked_as_the_files_are() -> None:
    config = parse_config('players = ["Ann", "Bob", "Cy"]\ndealer = "Cy"\n')
    with pytest.raises(ConfigError, match="--players Ann,Bob leaves out the configuration's dealer 'Cy'"):
        apply_overrides(config, players=["Ann", "Bob"])
    config = parse_config('[rules]\nhand_size = 11\n')
    with pytest.raises(ConfigError, match="10 hands of 11 do not fit in a 108-card deck"):
        apply_overrides(config, players=list("ABCDEFGHIJ"))


def test_seat_buttons_may_wait_for_the_players_the_host_sets_up() -> None:
    assert parse_config('[gpio.seats]\n"Zoë" = 5\n').seats == {"Zoë": 5}


def test_a_model_that_is_not_there_is_the_files_mistake(tmp_path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('players = ["Ann", "Bob"]\n[vision]\nmodel = "nope.onnx"\n', encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert str(err.value) == (f"{path} line 3: vision.model 'nope.onnx' is not a file (a .onnx or .pt card model; "
                              '"" for the shipped one)')


def test_one_player_named_twice_in_other_capitals_is_refused() -> None:
    with pytest.raises(ConfigError, match="twice"):
        apply_overrides(Config(), players=["Anna", "anna", "Bob"])
    with pytest.raises(ConfigError, match="twice"):
        parse_config('players = ["Anna", "Bob", "ANNA "]\n')


def test_a_relative_db_is_beside_the_configuration_wherever_a_command_runs(tmp_path, monkeypatch) -> None:
    # run from another folder, `league new` opened a second, empty store
    (tmp_path / "cfg").mkdir()
    path = tmp_path / "cfg" / "config.toml"
    path.write_text('db = "table/games.db"\n')
    monkeypatch.chdir(tmp_path)
    assert load_config(path).db_path == tmp_path / "cfg" / "table" / "games.db"


def test_a_db_given_on_the_command_line_is_from_the_folder_the_command_runs_in(tmp_path, monkeypatch) -> None:
    from companion.cli import main as cli

    (tmp_path / "cfg").mkdir()
    cfg = tmp_path / "cfg" / "config.toml"
    cfg.write_text('players = ["Ann", "Bob"]\n')
    (tmp_path / "here").mkdir()
    monkeypatch.chdir(tmp_path / "here")
    assert cli(["league", "new", "X", "--db", "games.db", "--config", str(cfg)]) == 0
    assert (tmp_path / "here" / "games.db").is_file() and not (tmp_path / "cfg" / "games.db").exists()
