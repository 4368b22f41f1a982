"""The companion's configuration: one TOML file, defaults and checks in one schema.

The file lives in the standard user location ($XDG_CONFIG_HOME/uno-companion/config.toml,
i.e. ~/.config/uno-companion/config.toml); `uno-companion init` writes a commented one from
the SCHEMA below, so every key, default and comment is written down once. A bad value is a
ConfigError naming the file, the line and the key; an unknown key is rejected with the
closest known one. Command-line flags override the file (see `apply_overrides`).
"""
from __future__ import annotations

import difflib
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from companion.errors import ConfigError, InputFileError

APP = "uno-companion"

# The table options a `game` event may carry (rules.md); values are checked by the engine.
RULE_KEYS: tuple[str, ...] = (
    "deck",
    "swap_cards",
    "hand_size",
    "first_card",
    "dealer_by_draw",
    "target",
    "scoring",
    "uno_penalty",
    "uno_catch",
    "illegal_play_penalty",
    "stacking",
    "jump_in",
    "seven_zero",
    "draw_until_playable",
    "dealer_rotation",
    "hands",
    "customizable",
    "deflect",
    "multiple_play",
    "no_action_finish",
    "no_wild_finish",
    "hand_limit",
    "elimination",
    "teams",
    "double_score",
    "turn_seconds",
)
ZONE_NAMES: tuple[str, ...] = ("discard", "draw", "reveal")
# BCM numbers of the 40-pin header's general-purpose pins.
BCM_PINS = range(2, 28)


# --- value checkers: return the value or raise ValueError("must be ...") -----------------


def _int_range(lo: int, hi: int) -> Callable[[Any], int]:
    def check(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            raise ValueError(f"must be an integer {lo}-{hi}")
        return value

    return check


def _number_range(lo: float, hi: float) -> Callable[[Any], float]:
    def check(value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not lo <= value <= hi:
            raise ValueError(f"must be a number {lo:g}-{hi:g}")
        return float(value)

    return check


def _pin(value: Any) -> int:
    """A BCM pin number, or 0 for "not fitted"."""
    if isinstance(value, bool) or not isinstance(value, int) or (value != 0 and value not in BCM_PINS):
        raise ValueError("must be a BCM pin number 2-27 (0 = not fitted)")
    return value


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError("must be true or false")
    return value


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError("must be a string in quotes")
    return value


def _host_pin(value: Any) -> str:
    if value == "":
        return ""
    text = str(value) if isinstance(value, (str, int)) and not isinstance(value, bool) else None
    if text is None or not (re.fullmatch(r"\d{4,12}", text) or re.fullmatch(r"[ -~]{10,100}", text) and text.strip() == text):
        raise ValueError('must be 4-12 digits or a passphrase of 10-100 characters, in quotes '
                         '(`uno-companion init` suggests one; "" picks one at each start)')
    return text


# Syllables for passphrases that are quick to type on a phone: 15 consonants x 5 vowels.
_CONSONANTS, _VOWELS = "bdfghklmnprstvz", "aeiou"


def suggest_passphrase(words: int = 3, syllables: int = 3) -> str:
    """A random passphrase like "tekavo-mirusa-dolipe": 3 words of 3 syllables, 75 ** 9 (56 bits)."""
    import secrets

    return "-".join("".join(secrets.choice(_CONSONANTS) + secrets.choice(_VOWELS) for _ in range(syllables))
                    for _ in range(words))


def weak_pin(pin: str) -> bool:
    """A host PIN short enough that guessing it is a matter of patience (6 digits or fewer)."""
    return pin.isdigit() and len(pin) <= 6


def _players(value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(p, str) and p.strip() for p in value):
        raise ValueError('must be a list of names, e.g. ["Ann", "Bob", "Cy"]')
    names = [p.strip() for p in value]
    if names and not 2 <= len(names) <= 10:
        raise ValueError("must name 2-10 players (or none: seats are taken on the phones)")
    from companion.referee.rules import name_check

    problem = name_check(names)
    if problem is not None and problem[0] == "same":
        raise ValueError("must not name a player twice (names differing only in capitals are one player)")
    if problem is not None:  # a name too long, or with a tab or line break in it
        raise ValueError(f"must be names a phone can show: {problem[1]}")
    return names


def _hostnames(value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(h, str) and h.strip() for h in value):
        raise ValueError('must be a list of names, e.g. ["uno.example.net"]')
    names = [h.strip().lower().rstrip(".") for h in value]
    for name in names:
        if not re.fullmatch(r"[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?", name) or ".." in name:
            raise ValueError(f"{name!r} is no host name (letters, digits, dots and hyphens, no port)")
    return names


def _camera_source(value: Any) -> str | int:
    if isinstance(value, bool):
        raise ValueError('must be "auto", "demo", "picamera", a camera index or a video file')
    if isinstance(value, int):
        if value < 0:
            raise ValueError("must be a camera index 0 or more")
        return value
    if not isinstance(value, str) or not value.strip():
        raise ValueError('must be "auto", "demo", "picamera", a camera index or a video file')
    return int(value) if value.strip().isdigit() else value.strip()


@dataclass(frozen=True)
class Key:
    """One configuration key: its checker, default and the comment `init` writes above it."""

    check: Callable[[Any], Any]
    default: Any
    comment: str


# Section "" is the top level. Order here is the order `init` writes.
SCHEMA: dict[str, dict[str, Key]] = {
    "": {
        "players": Key(_players, [], 'seats clockwise, e.g. ["Ann", "Bob", "Cy"]; [] = demo table (with the demo video) or set up on the host page'),
        "dealer": Key(_text, "", 'who deals the first hand; "" = the first player'),
        "port": Key(_int_range(1, 65535), 8000, "port of the phone page (http://<this machine>:port)"),
        "host": Key(_text, "0.0.0.0", 'address to listen on; "0.0.0.0" = every network, so phones can join'),
        "hostnames": Key(_hostnames, [], 'other names the page is opened by, e.g. ["uno.example.net"]; IP addresses '
                         'and local names (raspberrypi, uno.local, pi.lan) always work, other names are refused'),
        "host_pin": Key(_host_pin, "", 'passphrase (10+ characters) or PIN (4-12 digits) for set-up and corrections on the phone page; "" = a new passphrase printed at each start'),
        "db": Key(_text, "", 'event store (SQLite); "" = ~/.local/share/uno-companion/games.db; '
                  'a relative path is beside this file'),
    },
    "camera": {
        "source": Key(_camera_source, "auto", '"auto" (first camera found, else the demo video), "demo", "picamera", 0 (USB camera index), or a video file / stream URL'),
        "width": Key(_int_range(160, 4096), 1280, "requested frame width in pixels"),
        "height": Key(_int_range(120, 4096), 720, "requested frame height in pixels"),
        "fps": Key(_number_range(1, 120), 15.0, "frames per second to process at most"),
        "loop": Key(_bool, True, "play a video file again from the start when it ends"),
    },
    "vision": {
        "model": Key(_text, "", 'card model weights (.pt or .onnx); "" = the shipped model in models/'),
        "imgsz": Key(_int_range(0, 2048), 0, "model input size in pixels; 0 = the size it was trained at"),
        "conf": Key(_number_range(0, 0.99), 0.0, "lowest confidence that counts as a card; 0 = the recognizer's own default"),
    },
    "gpio": {
        "enabled": Key(_bool, True, "use the Raspberry Pi's buttons and lights (a laptop carries on without)"),
        "uno_pin": Key(_pin, 17, "BCM pin of the shared UNO! buzzer button (to GND); 0 = none"),
        "draw_pin": Key(_pin, 0, "BCM pin of the Draw/Pass button: short press = draw, long press = pass; 0 = none"),
        "pass_pin": Key(_pin, 0, "BCM pin of a separate Pass button (then draw_pin only draws); 0 = none"),
        "long_press": Key(_number_range(0.3, 5), 1.0, "seconds held that make a Draw/Pass press a pass"),
        "led_pin": Key(_pin, 27, "BCM pin of the UNO! LED (330 ohm resistor): lit while an UNO! window is open, winks twice when a call counts, flashes on an illegal play; 0 = none"),
        "buzzer_pin": Key(_pin, 0, "BCM pin of an active buzzer that beeps on referee notices; 0 = none"),
        "debounce_ms": Key(_int_range(0, 2000), 200, "presses within this many ms of the last accepted one are ignored"),
    },
    # [gpio.seats]: one UNO! button per seat, name = pin (replaces the shared uno_pin).
    "gpio.seats": {},
    # [zones]: name = [x1, y1, x2, y2] as fractions of the frame; absent = found automatically.
    "zones": {},
    # [rules]: table options as in the rulebook; absent = the rulebook's defaults.
    "rules": {},
}

# Tables whose keys are free (player names, zone names, rule names) and how to check a value.
_OPEN_TABLES = ("gpio.seats", "zones", "rules")


@dataclass
class Config:
    """Everything `run` needs, with the file it came from (None: defaults only)."""

    players: list[str] = field(default_factory=list)
    dealer: str = ""
    port: int = 8000
    host: str = "0.0.0.0"
    hostnames: list[str] = field(default_factory=list)
    host_pin: str = ""
    db: str = ""
    camera: dict[str, Any] = field(default_factory=dict)
    vision: dict[str, Any] = field(default_factory=dict)
    gpio: dict[str, Any] = field(default_factory=dict)
    seats: dict[str, int] = field(default_factory=dict)
    zones: dict[str, tuple[float, float, float, float]] = field(default_factory=dict)
    rules: dict[str, Any] = field(default_factory=dict)
    path: Path | None = None

    def __post_init__(self) -> None:
        for section in ("camera", "vision", "gpio"):
            merged = {k: key.default for k, key in SCHEMA[section].items()}
            merged.update(getattr(self, section))
            setattr(self, section, merged)

    @property
    def db_path(self) -> Path:
        from companion.referee.store import default_db_path

        if not self.db:
            return default_db_path().resolve()
        db = Path(self.db).expanduser()
        # a relative path is the configuration's neighbour, wherever the command is run from;
        # a symlink is followed, so its backups and its lock are the file's own
        return (db if db.is_absolute() or self.path is None else Path(self.path).resolve().parent / db).resolve()


def default_config_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / APP / "config.toml"


def default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / APP


# --- locating a key's line: tomllib gives none for values -----------------------------------

_HEADER = re.compile(r"^\s*\[\s*([^\[\]]+?)\s*\]\s*(#.*)?$")
_ASSIGN = re.compile(r"""^\s*("[^"]*"|'[^']*'|[A-Za-z0-9_\-]+)\s*=""")


def _unquote(name: str) -> str:
    return name[1:-1] if name[:1] in "\"'" else name


def find_line(text: str, section: str, key: str | None) -> int | None:
    """1-based line of `key` inside table `section` ("" = top level), or of the header itself."""
    current = ""
    for number, line in enumerate(text.splitlines(), start=1):
        header = _HEADER.match(line)
        if header:
            current = ".".join(_unquote(p.strip()) for p in header.group(1).split("."))
            if key is None and current == section:
                return number
            continue
        if key is not None and current == section:
            assign = _ASSIGN.match(line)
            if assign and _unquote(assign.group(1)) == key:
                return number
    return None


class _Reader:
    """Walks the parsed TOML, checking every value and naming the line of any mistake."""

    def __init__(self, text: str, name: str) -> None:
        self.text = text
        self.name = name

    def fail(self, section: str, key: str | None, message: str) -> ConfigError:
        line = find_line(self.text, section, key)
        if line is None and key is not None:
            line = find_line(self.text, section, None)
        if line is None and "." in section:  # an inline table: point at its parent key
            parent, _, last = section.rpartition(".")
            line = find_line(self.text, parent, last)
        where = f"{self.name} line {line}" if line else self.name
        dotted = ".".join(p for p in (section, key) if p)
        return ConfigError(f"{where}: {dotted} {message}" if dotted else f"{where}: {message}")

    def bad_value(self, section: str, key: str, problem: str, value: Any) -> ConfigError:
        return self.fail(section, key, f"{problem}, got {_show(value)}")

    def unknown(self, section: str, key: str, known: tuple[str, ...] | list[str], value: Any = None) -> ConfigError:
        tables = ("camera", "vision", "gpio", "zones", "rules")
        if key in tables and isinstance(value, dict) and len(value) == 1:
            # `gpio.draw_pin = 23` typed as a guide writes it: TOML reads it as a table `gpio`
            # inside this section (or, at the top, as a second [gpio])
            sub, sub_value = next(iter(value.items()))
            line = next((n for n, text in enumerate(self.text.splitlines(), start=1)
                         if re.match(rf"\s*{re.escape(key)}\s*\.\s*{re.escape(str(sub))}\s*=", text)), None)
            where = f"{self.name} line {line}" if line else self.name
            return ConfigError(f"{where}: write {sub} = {_toml_value(sub_value)} under [{key}] "
                               f"(not {key}.{sub} = ... {'in [' + section + ']' if section else 'here'})")
        close = difflib.get_close_matches(key, known, n=1)
        hint = f": did you mean {close[0]!r}?" if close else f" (known: {', '.join(known)})"
        line = find_line(self.text, section, key) or find_line(self.text, ".".join(p for p in (section, key) if p), None)
        where = f"{self.name} line {line}" if line else self.name
        place = f"in [{section}]" if section else "at the top level"
        return ConfigError(f"{where}: unknown key {key!r} {place}{hint}")


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value)


def _toml_hint(text: str, message: str) -> str:
    """tomllib's message, with the key named where it says only "Cannot overwrite a value"
    (a key written twice, e.g. an option uncommented twice)."""
    lines = text.splitlines()
    m = re.search(r"Cannot overwrite a value \(at line (\d+)", message)
    if m:
        number = int(m.group(1))
        if 0 < number <= len(lines) and "=" in lines[number - 1]:
            key = lines[number - 1].split("=", 1)[0].strip()
            return f"{key!r} is set twice (the second time at line {number})"
    m = re.search(r"Cannot declare \('(\w+)',\) twice", message)
    if m:  # `gpio.draw_pin = 23` at the top, then the file's own [gpio]
        dotted = re.compile(rf"\s*{m.group(1)}\s*\.\s*(\w+)\s*=\s*(.*)$")
        for number, line in enumerate(lines, start=1):
            found = dotted.match(line)
            if found:
                return (f"line {number}: write {found.group(1)} = {found.group(2).strip()} under "
                        f"[{m.group(1)}] (not {m.group(1)}.{found.group(1)} = ...)")
    m = re.search(r"Expected '=' after a key in a key/value pair \(at line (\d+)", message)
    if m:  # a name with an accent or a space as a bare key (`Zoë = 5` under [gpio.seats])
        number = int(m.group(1))
        line = lines[number - 1] if 0 < number <= len(lines) else ""
        key = line.split("=", 1)[0].strip()
        if "=" in line and key and not re.fullmatch(r"[A-Za-z0-9_-]+", key) and key[:1] not in "\"'":
            return f"line {number}: put the name in quotes: \"{key}\" = {line.split('=', 1)[1].strip()}"
    m = re.search(r"Unclosed array \((?:at line (\d+)|at end of document)", message)
    if m:  # tomllib names the line after the list (often a blank line or the next [section])
        end = int(m.group(1)) if m.group(1) else len(lines)
        opened = re.compile(r"\s*([A-Za-z0-9_.\"'-]+)\s*=\s*\[")
        depth, start = 0, None
        for number, line in enumerate(lines[:end], start=1):
            if depth == 0:
                start = (number, opened.match(line))
            bare = re.sub(r'"[^"]*"|\'[^\']*\'|#.*', "", line)  # brackets in strings and comments are text
            depth = max(0, depth + bare.count("[") - bare.count("]"))
        if depth and start is not None and start[1] is not None:
            return f"line {start[0]}: the list {start[1].group(1)} = [ ... is never closed with ]"
    return message


def parse_config(text: str, name: str = "config.toml") -> Config:
    """Check a configuration file's text and return the Config; ConfigError names the line."""
    reader = _Reader(text, name)
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{name}: not valid TOML: {_toml_hint(text, str(exc))}") from None

    values: dict[str, Any] = {}
    sections: dict[str, dict[str, Any]] = {"camera": {}, "vision": {}, "gpio": {}}
    seats: dict[str, int] = {}
    zones: dict[str, tuple[float, float, float, float]] = {}
    rules: dict[str, Any] = {}
    known_top = tuple(SCHEMA[""]) + tuple(s for s in SCHEMA if s and "." not in s)

    for key, value in raw.items():
        if key in SCHEMA[""]:
            values[key] = _checked(reader, "", key, value)
        elif key in ("camera", "vision", "gpio"):
            if not isinstance(value, dict):
                raise reader.bad_value("", key, "must be a table [" + key + "]", value)
            for sub, subvalue in value.items():
                if key == "gpio" and sub == "seats":
                    seats = _seats(reader, subvalue)
                    continue
                if sub not in SCHEMA[key]:
                    allowed = tuple(SCHEMA[key]) + (("seats",) if key == "gpio" else ())
                    raise reader.unknown(key, sub, allowed, subvalue)
                sections[key][sub] = _checked(reader, key, sub, value=subvalue)
        elif key == "zones":
            zones = _zones(reader, value)
        elif key == "rules":
            rules = _rules(reader, value)
        else:
            raise reader.unknown("", key, known_top, value)

    players = values.get("players", [])
    dealer = values.get("dealer", "")
    if dealer and dealer not in players:
        raise reader.bad_value("", "dealer", "must be one of the players", dealer)
    for seat in seats:  # (with no players here, the host's are matched when the table starts)
        if players and seat not in players:
            raise reader.fail("gpio.seats", seat, f"names no player (players: {', '.join(players) or 'none'})")
    _no_shared_pins(reader, sections["gpio"], seats)
    if sections["gpio"].get("pass_pin") and not sections["gpio"].get("draw_pin"):
        # Pass is refused until the player drew: a Pass button alone could never be used
        raise reader.fail("gpio", "pass_pin", "needs draw_pin too: the Pass button is the Draw button's "
                                              "partner (a Draw button alone passes on a long press)")
    if players:
        problem = seats_problem(rules, len(players))
        if problem:
            key = "teams" if "teams" in problem else "hand_size"
            line = find_line(text, "rules", key) or find_line(text, "", "players")
            raise ConfigError(f"{name} line {line}: {problem}" if line else f"{name}: {problem}")
    return Config(
        **values,
        camera=sections["camera"],
        vision=sections["vision"],
        gpio=sections["gpio"],
        seats=seats,
        zones=zones,
        rules=rules,
    )


def _checked(reader: _Reader, section: str, key: str, value: Any) -> Any:
    try:
        return SCHEMA[section][key].check(value)
    except ValueError as exc:
        raise reader.bad_value(section, key, str(exc), value) from None


def _seats(reader: _Reader, value: Any) -> dict[str, int]:
    if not isinstance(value, dict):
        raise reader.bad_value("gpio", "seats", "must be a table [gpio.seats] of name = pin", value)
    seats = {}
    for name, pin in value.items():
        try:
            seats[name] = _pin(pin)
        except ValueError as exc:
            raise reader.bad_value("gpio.seats", name, str(exc), pin) from None
    return {name: pin for name, pin in seats.items() if pin}


def _zones(reader: _Reader, value: Any) -> dict[str, tuple[float, float, float, float]]:
    if not isinstance(value, dict):
        raise reader.bad_value("", "zones", "must be a table [zones]", value)
    zones = {}
    for name, box in value.items():
        if name not in ZONE_NAMES:
            raise reader.unknown("zones", name, ZONE_NAMES)
        ok = (
            isinstance(box, list)
            and len(box) == 4
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v <= 1 for v in box)
        )
        if not ok or not (box[0] < box[2] and box[1] < box[3]):
            raise reader.bad_value(
                "zones", name, "must be [x1, y1, x2, y2], fractions 0-1 of the frame with x1 < x2, y1 < y2", box
            )
        zones[name] = (float(box[0]), float(box[1]), float(box[2]), float(box[3]))
    return zones


def _rules(reader: _Reader, value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise reader.bad_value("", "rules", "must be a table [rules]", value)
    known = rule_keys()
    for name in value:
        if name not in known:
            raise reader.unknown("rules", name, known, value[name])
    for name, option in value.items():
        problem = rule_problem(name, option)
        if problem:
            line = find_line(reader.text, "rules", name)
            raise ConfigError(f"{reader.name} line {line}: {problem}" if line else f"{reader.name}: {problem}")
    problem = rules_problem(value)  # options checked against each other (hand_limit > hand_size)
    if problem:
        named = [name for name in value if f"rule {name}" in problem]
        line = find_line(reader.text, "rules", named[0]) if named else find_line(reader.text, "rules", None)
        raise ConfigError(f"{reader.name} line {line}: {problem}" if line else f"{reader.name}: {problem}")
    return dict(value)


def rule_keys() -> tuple[str, ...]:
    """The table options the engine knows (companion.referee.rules), else the rulebook's list."""
    try:
        from dataclasses import fields

        from companion.referee.rules import Rules
    except ImportError:
        return RULE_KEYS
    return tuple(f.name for f in fields(Rules))


def rule_problem(name: str, value: Any) -> str | None:
    """Why the engine would refuse this table option, or None. The engine owns the values."""
    try:
        from companion.referee.rules import check_rule
    except ImportError:  # engine not in this build: checked when the game starts
        return None
    from companion.errors import RulesError

    try:
        check_rule(name, value)
    except RulesError as exc:
        return str(exc)
    return None


def seats_problem(values: dict[str, Any], players: int) -> str | None:
    """Why these table options do not fit this many players (`teams`), or None."""
    try:
        from companion.referee.rules import check_players, parse_rules
    except ImportError:
        return None
    from companion.errors import RulesError

    try:
        check_players(parse_rules(values), players)
    except RulesError as exc:
        return str(exc)
    return None


def rules_problem(values: dict[str, Any]) -> str | None:
    """Why the engine would refuse this set of table options together, or None."""
    try:
        from companion.referee.rules import parse_rules
    except ImportError:
        return None
    from companion.errors import RulesError

    try:
        parse_rules(values)
    except RulesError as exc:
        return str(exc)
    return None


def _no_shared_pins(reader: _Reader, gpio: dict[str, Any], seats: dict[str, int]) -> None:
    used: dict[int, tuple[str, str]] = {}
    wires: list[tuple[str, str]] = [("gpio", k) for k in ("uno_pin", "draw_pin", "pass_pin", "led_pin", "buzzer_pin") if k in gpio]
    wires += [("gpio.seats", name) for name in seats]
    for section, key in wires:
        pin = gpio[key] if section == "gpio" else seats[key]
        if not pin or (section == "gpio" and key == "uno_pin" and seats):
            continue  # per-seat buttons replace the shared one, so its pin may be reused
        if pin in used:
            other = ".".join(p for p in used[pin] if p)
            raise reader.bad_value(section, key, f"uses the same pin as {other}", pin)
        used[pin] = (section, key)


def load_config(path: str | Path | None = None) -> Config:
    """Read the config file: `path`, or the default location. A missing default file is not a
    mistake (defaults apply); a missing file that was named is."""
    named = path is not None
    target = Path(path).expanduser() if path is not None else default_config_path()
    if not target.exists():
        if named:
            raise InputFileError(f"{target}: no such configuration file (write one with `uno-companion init --path {target}`)")
        return Config()
    try:
        text = target.read_text(encoding="utf-8-sig")  # a Windows editor's byte-order mark is no mistake
    except (OSError, UnicodeDecodeError) as exc:
        raise InputFileError(f"{target}: cannot read the configuration: {exc}") from None
    config = parse_config(text, name=str(target))
    config.path = target
    model = config.vision.get("model")
    if model and not Path(model).expanduser().is_file():
        # found here, before `run` stores a game: the mistake is this file's line, not a model to train
        line = find_line(text, "vision", "model")
        where = f"{target} line {line}" if line else str(target)
        raise ConfigError(f"{where}: vision.model {model!r} is not a file (a .onnx or .pt card model; "
                          f'"" for the shipped one)')
    return config


def apply_overrides(config: Config, **flags: Any) -> Config:
    """Command-line flags win over the file; a flag left at None changes nothing."""
    for name, value in flags.items():
        if value is None:
            continue
        if name in ("camera_source",):
            try:
                config.camera["source"] = _camera_source(value)
            except ValueError as exc:
                raise ConfigError(f"--camera {exc}, got {value!r}") from None
        elif name == "port":
            try:
                config.port = _int_range(1, 65535)(value)
            except ValueError as exc:
                raise ConfigError(f"--port {exc}, got {value!r}") from None
        elif name == "players":
            try:
                config.players = _players(value)
            except ValueError as exc:
                if "list of names" in str(exc) or len(value) == 1:  # the command line's own way to write it
                    why = "one name only" if len(value) == 1 else "an empty name"
                    raise ConfigError(f"--players takes names apart with commas, e.g. Ann,Bob,Cy "
                                      f"({why} in {','.join(value)!r})") from None
                raise ConfigError(f"--players {exc}") from None
            # what the file said of its own players, said again of these (before anything is stored)
            where = f" ({config.path})" if config.path else ""
            if config.dealer and config.dealer not in config.players:
                raise ConfigError(f"--players {','.join(config.players)} leaves out the configuration's dealer "
                                  f"{config.dealer!r}{where}: name them too, or change dealer")
            problem = seats_problem(config.rules, len(config.players))
            if problem:
                raise ConfigError(f"--players {','.join(config.players)}: {problem}")
        elif hasattr(config, name):
            setattr(config, name, value)
        else:
            raise TypeError(f"unknown override {name}")
    return config


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, float):
        return f"{value:g}" if value != int(value) else f"{value:.1f}"
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return str(value)


def commented_config(**values: Any) -> str:
    """The text `uno-companion init` writes: every key at its default with its comment
    (top-level keys in `values` are written with that value instead)."""
    out = [
        "# UNO table companion configuration (`uno-companion init` wrote it; edit freely).",
        "# Command-line flags of `uno-companion run` override these values.",
        "",
    ]
    for section, keys in SCHEMA.items():
        if section in _OPEN_TABLES:
            continue
        if section:
            out += ["", f"[{section}]"]
        for key, spec in keys.items():
            out.append(f"# {spec.comment}")
            value = values[key] if not section and key in values else spec.default
            out.append(f"{key} = {_toml_value(value)}")
    out += [
        "",
        "# One UNO! button per seat instead of the shared one: uncomment, \"name\" = BCM pin",
        "# (the name in quotes, as in players: \"Zoë\" = 5, \"Mary Ann\" = 6).",
        "# [gpio.seats]",
        '# "Ann" = 5',
        '# "Bob" = 6',
        "",
        "# Where the camera looks, as fractions of the frame [x1, y1, x2, y2]; left out, the",
        "# discard pile is the middle of the picture and the reveal area its lower strip (drag them",
        "# on the host page, or `uno-companion watch VIDEO --find-zones` finds them from a recording).",
        "[zones]",
        "# discard = [0.35, 0.30, 0.65, 0.70]",
        "# draw = [0.05, 0.30, 0.30, 0.70]",
        "# reveal = [0.05, 0.75, 0.95, 0.98]",
        "",
        "# Table options from the rulebook; leave out for the rulebook's defaults.",
        "[rules]",
        '# deck = "classic"            # "classic", "modern", "swap" or "flip" (UNO Flip)',
        "# swap_cards = 1              # wild swap hands cards in a \"swap\" deck",
        "# hand_size = 7               # cards dealt to each player",
        '# first_card = "classic"      # "classic" or "number_only" (an action card is turned back)',
        "# target = 500                # points that end the game",
        '# scoring = "winner_takes"    # "winner_takes", or "lowest_wins": everyone scores their own cards',
        "# hands = 4                   # a fixed number of hands instead of a target",
        "# uno_penalty = 2",
        '# uno_catch = "auto"          # "auto" or "players"',
        "# illegal_play_penalty = 2    # cards drawn after taking back a wrong card",
        '# dealer_rotation = "clockwise"   # or "counterclockwise"',
        "# dealer_by_draw = false      # the first dealer: the highest card each player shows",
        '# customizable = "wild"       # the modern deck\'s wild customizable: "wild", "draw_three" or "skip"',
        "# Themed cards added to the deck (the camera then reads them too):",
        "# discard_two = 0             # Triple Play discard two cards per colour",
        "# mario_reflect = 0           # Super Mario reflect cards",
        "# dementor = 0                # Harry Potter Dementor cards",
        "# House rules (all off by default):",
        "# stacking = false            # false, \"draw_two\", \"wild_draw_four\", true, or \"cross\" (draw two",
        "#                             # on wild draw four and the reverse, totals add up)",
        "# jump_in = false",
        "# seven_zero = false",
        "# draw_until_playable = false",
        '# deflect = false             # "reverse", "skip" or true: that card of the colour in force sends a pending draw on',
        "# multiple_play = false       # lay several cards of one number in one play",
        "# no_action_finish = false    # the last card may not be a skip, reverse or draw two",
        "# no_wild_finish = false      # the last card may not be a wild",
        "# hand_limit = 15             # a player holding this many cards does not draw by choice",
        "# elimination = 25            # a player who reaches this many cards is out of the hand",
        "# teams = false               # partners seated alternately (4 or 6 players) score together",
        "# double_score = false        # a hand won on a draw two or wild draw four scores double",
        "# turn_seconds = 30           # a turn timer on the phones (it only warns)",
        "",
    ]
    return "\n".join(out)
