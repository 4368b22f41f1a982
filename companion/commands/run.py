"""`uno-companion run`: camera, referee, event store, phone page and buttons in one process.

With no camera configured or found it plays the bundled demo video in a loop, at real speed,
for a demo table of four, so `pip install -e . && uno-companion run` shows cards recognised
and standings moving on http://localhost:8000 within a minute.
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any, Callable

from companion.config import Config, apply_overrides, default_config_path, default_data_dir, load_config
from companion.commands import quiet_opencv
from companion.errors import CompanionError, ConfigError, InputFileError, UsageError

HELP = "run the companion: camera, referee, phone page, buttons"

DEMO_DIR = Path(__file__).resolve().parent.parent / "data" / "demo"
log = logging.getLogger("companion.run")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", type=Path, default=None,
                        help="configuration file (default: ~/.config/uno-companion/config.toml; write one with `uno-companion init`)")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--camera", default=None, metavar="SOURCE",
                        help="0, 1, ... (USB camera), picamera, demo (the bundled video), none (phones only), or a stream URL")
    source.add_argument("--video", type=Path, default=None, metavar="FILE",
                        help="play a video file as the camera (in a loop, at real speed)")
    parser.add_argument("--port", type=int, default=None, help="port of the phone page (default 8000)")
    parser.add_argument("--host", default=None, help="address to listen on (default 0.0.0.0: every network)")
    parser.add_argument("--db", type=Path, default=None, help="event store file (SQLite)")
    parser.add_argument("--players", default=None, metavar="A,B,C",
                        help="seats clockwise, comma-separated (overrides the configuration)")
    parser.add_argument("--host-pin", default=None, help="PIN for set-up and corrections on the phone page")
    parser.add_argument("--no-gpio", action="store_true", help="do not use buttons and lights")
    parser.add_argument("--bench", type=float, default=None, metavar="SECONDS",
                        help="run this long, then print frame rate, memory (RSS) and CPU, and stop")
    parser.add_argument("--status-every", type=float, default=5.0, metavar="SECONDS",
                        help="how often to print the status line (default 5)")
    parser.add_argument("--log-names", action="store_true",
                        help="demo: name the cards from the video's true log instead of the card model")


# -- choosing the frame source ---------------------------------------------------------------


def demo_video() -> tuple[Path, Path | None]:
    """The bundled demo video and its true table log (if shipped beside it)."""
    videos = sorted(p for p in DEMO_DIR.glob("*") if p.suffix.lower() in (".mp4", ".avi", ".mkv", ".webm"))
    if not videos:
        raise InputFileError(f"the demo video is missing from {DEMO_DIR} (reinstall the package)")
    video = videos[0]
    for truth in (video.with_suffix(".jsonl"), video.with_suffix(".events.jsonl"), DEMO_DIR / "events.jsonl"):
        if truth.is_file():
            return video, truth
    return video, None


def find_camera(say: Callable[[str], None]) -> str | int | None:
    """`auto`: a Raspberry Pi camera module, else the first USB camera that gives a frame."""
    try:
        from picamera2 import Picamera2  # type: ignore[import-not-found]

        if Picamera2.global_camera_info():
            return "picamera"
    except Exception as exc:  # installed but broken: said, not taken for "no camera"
        from companion.vision.camera import picamera2_broken

        broken = picamera2_broken(exc)
        if broken:
            say(f"camera: picamera2 {broken}")
    try:
        import cv2

        if not any(Path("/dev").glob("video*")) and os.name == "posix":
            return None  # no device node: skip OpenCV's noisy probe
        cap = cv2.VideoCapture(0)
        try:
            if cap.isOpened() and cap.read()[0]:
                return 0
        finally:
            cap.release()
    except Exception as exc:
        say(f"camera: probing camera 0 failed ({exc})")
    return None


def choose_source(config: Config, args: argparse.Namespace, say: Callable[[str], None]) -> tuple[str, Any]:
    """("demo", None), ("none", None), ("video", Path) or ("camera", spec)."""
    if args.video is not None:
        if args.video.is_dir():
            raise InputFileError(_a_folder(args.video))
        if not args.video.is_file():
            raise InputFileError(f"video file {str(args.video)!r} does not exist")
        _probe_video(args.video)
        return "video", args.video
    spec = args.camera if args.camera is not None else config.camera["source"]
    text = str(spec).strip().lower()
    if text in ("demo", "none"):
        return text, None
    if text == "auto":
        found = find_camera(say)
        if found is None and config.players:  # a real table was set up: the phones enter the cards
            say("camera: none found, so the phones enter the cards (`--camera demo` plays the bundled demo)")
            return "none", None
        if found is None:
            say("camera: none found, playing the bundled demo video with a demo table")
            return "demo", None
        return "camera", found
    if text == "picamera" or text.isdigit() or "://" in text:
        return "camera", int(text) if text.isdigit() else str(spec).strip()
    path = Path(str(spec)).expanduser()
    if not path.exists():
        raise InputFileError(f"camera source {str(spec)!r} is not a camera index, 'picamera', 'demo', 'none', a URL or an existing file")
    if path.is_dir():
        raise InputFileError(_a_folder(path))
    if path.is_file():
        _probe_video(path)
    return "video", path  # a device node (/dev/video0) is neither a file nor a folder


def _a_folder(path: Path) -> str:
    return (f"{str(path)!r} is a folder, not a camera or a video: "
            f"`uno-companion watch {path}` reads a folder of pictures")


def _probe_video(path: Path) -> None:
    """Refuse now, in one line, a file that is no video, or a picture (one frame, which the
    loop would replay hundreds of times a second), not as a LOST camera later."""
    from companion.vision.camera import OpenCVSource

    probe = OpenCVSource(str(path))
    try:
        probe.open()
        probe.read()
        if probe.read() is None:
            raise InputFileError(f"{str(path)!r} is a picture (one frame), not a video: "
                                 f"`uno-companion recognize {path}` names the cards in a picture")
    finally:
        probe.close()


# -- building the parts -------------------------------------------------------------------------


def colours_file(config: Config) -> Path:
    """Where the host page saves the table's colour calibration: beside the configuration file."""
    return (config.path or default_config_path()).parent / "colours.json"


def make_detector(config: Config, colours: Path | None = None, say: Callable[[str], None] = print) -> Any:
    """The card model, with the table's saved colour calibration when `colours` names one."""
    from companion.vision.detector import YoloDetector

    options: dict[str, Any] = {"remember_light": True}  # one camera, one light: see YoloDetector
    if colours is not None and colours.exists():
        from companion.vision.calibration import ColourCalibration

        try:
            options["calibration"] = ColourCalibration.load(colours)
            options["learn_colours"] = True  # one camera: sure reads keep the groups following the light
            say(f"vision: card colours as calibrated at this table ({colours})")
        except CompanionError as exc:  # a damaged file must not stop the table: say so, read uncalibrated
            say(f"vision: colour calibration ignored: {exc}")
    from companion.referee.rules import parse_rules

    if parse_rules(config.rules or {}).themed:
        options["themed"] = True  # the deck has themed cards: read them too (see YoloDetector)
    if config.vision.get("model"):
        options["model"] = config.vision["model"]
    if config.vision.get("imgsz"):
        options["imgsz"] = config.vision["imgsz"]
    if config.vision.get("conf"):
        options["conf"] = config.vision["conf"]
    return _construct(YoloDetector, options)


def _construct(cls: Any, options: dict[str, Any]) -> Any:
    """Build with the options the class accepts (the detector's signature is the vision team's)."""
    import inspect

    try:
        accepted = inspect.signature(cls).parameters
    except (TypeError, ValueError):
        return cls(**options)
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in accepted.values()):
        return cls(**options)
    names = {"model": ("model", "weights", "path"), "imgsz": ("imgsz",), "conf": ("conf",)}
    kwargs = {}
    for key, value in options.items():
        for name in names.get(key, (key,)):
            if name in accepted:
                kwargs[name] = value
                break
    return cls(**kwargs)


def make_zones(config: Config, width: int, height: int, base: Any = None) -> Any:
    """Zones from [zones] (fractions of the frame) over `base` (else the default layout), in pixels."""
    from companion.vision.zones import Zones, _rect

    zones = base.scaled_to(width, height) if base is not None else Zones.default(width, height)
    for name, (x1, y1, x2, y2) in config.zones.items():
        setattr(zones, name, _rect(x1 * width, y1 * height, x2 * width, y2 * height))
    return zones


def zones_file(config: Config) -> Path:
    """Where the host page saves the camera zones: beside the configuration file."""
    return (config.path or default_config_path()).parent / "zones.json"


def make_watcher_factory(detector: Any, config: Config, size: Callable[[], tuple[int, int]],
                         base_zones: Any = None, saved: Path | None = None) -> Callable[[], Any]:
    from companion.vision.watcher import Watcher
    from companion.vision.zones import Zones

    def make() -> Any:
        width, height = size()
        if saved is not None and saved.is_file():
            try:  # zones set on the host page win: they were drawn on this camera's picture
                return Watcher(detector, Zones.load(saved).scaled_to(width, height))
            except CompanionError as exc:
                log.warning("ignoring %s: %s", saved, exc)
        return Watcher(detector, make_zones(config, width, height, base_zones))

    return make


def print_join(url: str, say: Callable[[str], None], what: str = "phones: open {url} (same Wi-Fi), or scan:") -> None:
    say(what.format(url=url))
    try:
        import io

        import qrcode

        qr = qrcode.QRCode(border=1)
        qr.add_data(url)
        out = io.StringIO()
        qr.print_ascii(out=out, invert=True)
        say(out.getvalue().rstrip("\n"))
    except Exception:
        pass


def _first_game(store: Any, game_id: str) -> tuple[str, list | None]:
    """(source, players) of the `game` event that started a stored game."""
    for row in store.rows(game_id):
        line = row["line"]
        if row["accepted"] and isinstance(line, dict) and line.get("type") == "game":
            return row["source"], line.get("players")
    return "", None


def _unfinished_of(store: Any, players: list[str], skip: str | None) -> str | None:
    """The newest unfinished stored game begun for `players` (one run with other players in
    between must not bury it), or None. A game whose `game` line was undone (a host's New
    game taken back) has no players left and is no game to take up."""
    from companion.referee.engine import replay

    for game in reversed(store.games()[-50:]):
        if (not game["finished"] and game["id"] != skip and _first_game(store, game["id"])[1] == players
                and replay(store.events(game["id"])).state["players"]):
            return str(game["id"])
    return None


def _result(state: dict) -> str:
    """A finished game's result in the referee's own words ("Ann wins the game with 512 points")."""
    won = [n for n in state.get("notices") or [] if n.get("kind") == "game_won"]
    return won[-1]["message"] if won else f"{state.get('game_winner')} won"


def start_table(referee: Any, config: Config, say: Callable[[str], None]) -> bool:
    """Resume the stored unfinished game (after a restart or a power cut), also when the host
    set its players up on the page or changed its seats; when the configured players were
    changed since it was started from the configuration, resume their own unfinished game, or
    start one for them."""
    state = referee.state
    names = [p["name"] for p in state.get("players", [])]
    resumable = referee.game_id is not None and state.get("waiting_for") not in ("game", "game_over", None)
    if getattr(referee.store, "read_only", ""):  # a damaged store: the page shows what it can
        shown = f"{referee.game_id} shown as it stands" if referee.game_id is not None else "none started"
        say(f"game: {shown}: {referee.store.read_only}")
        return False
    over = referee.game_id is not None and state.get("waiting_for") == "game_over"
    changed = False
    if (resumable or over) and config.players:
        source, first = _first_game(referee.store, referee.game_id)
        changed = source == "config" and first != config.players
    if over and not changed:
        # a restart after the last hand (a power cut, the evening's end): the result stays up
        # and the seats stay taken; the host starts the next game, as without the restart
        say(f"game: {referee.game_id} ({', '.join(names)}) is over: {_result(state)}; "
            "the host starts the next game (Host, New game)")
        return False
    if resumable and not changed:
        say(f"game: resuming {referee.game_id} ({len(referee.events)} events, {', '.join(names)})")
        if config.players and names != config.players:
            say(f"game: the players are those set on the host page; {', '.join(config.players)} "
                "from the configuration play when the host starts a new game")
        return False
    if not config.players:
        say("game: none yet; set up the players on the host page")
        return False
    if changed:  # a run with other players: theirs stays; these players' own game comes back
        if not over:
            say(f"game: {referee.game_id} ({', '.join(names)}) stays in the store unfinished; it resumes "
                f"when the companion starts with those players again")
        older = _unfinished_of(referee.store, config.players, referee.game_id)
        if older is not None:
            referee.resume(older)
            say(f"game: resuming {older} ({len(referee.events)} events, {', '.join(config.players)})")
            return False
    game: dict = {"type": "game", "players": config.players}
    if config.rules:
        game["rules"] = config.rules
    deal = {"type": "deal", "dealer": config.dealer or config.players[0]}
    from companion.referee.engine import Table

    scratch = Table()  # tried first: a game the engine refuses is a mistake in the file, not a stored line
    for event in (game, deal):
        rejected = [n for n in scratch.push(event) if n.get("kind") == "rejected"]
        if rejected:
            where = f" ({config.path})" if config.path else ""
            raise ConfigError(f"cannot start the game from the configuration{where}: {rejected[0].get('message')}")
    for event in (game, deal):
        notices = referee.submit(event, source="config")
        rejected = [n for n in notices if n.get("kind") == "rejected"]
        if rejected:
            raise CompanionError(f"cannot start the game from the configuration: {rejected[0].get('message')}")
    say(f"game: new game {referee.game_id} for {', '.join(config.players)}")
    return True


def access_file(db: Path) -> Path:
    """Seats, host sessions and PIN back-off of the table whose events are in `db`: beside it."""
    return db.with_name(db.stem + ".access.db")


EVERY_ADDRESS = ("0.0.0.0", "::")  # a server bound to these listens on every network


def _http(host: str, port: int) -> str:
    """http://host:port, an IPv6 address in brackets."""
    return f"http://{'[' + host + ']' if ':' in host else host}:{port}"


def make_app(referee: Any, config: Config, host_pin: str, vision: Any = None, mode: str = "camera") -> Any:
    """The phone page. `mode`: "camera" (cards are read), "none" (phones enter the cards),
    "demo" (the recorded demo plays; phones only watch)."""
    from web import create_app

    db = config.db_path
    # a server bound to one address is reached there, not at the machine's LAN address
    public = None if config.host in EVERY_ADDRESS else _http(config.host, config.port) + "/"
    settings: dict = {"HOST_PIN": host_pin, "PORT": config.port, "PUBLIC_URL": public, "HOSTNAMES": tuple(config.hostnames),
                      "DATA_DIR": str(db.parent), "ACCESS_DB": str(access_file(db)), "TABLE_MODE": mode}
    if vision is not None:  # camera zone set-up on the host page
        # the host page says a lost camera, a pile hidden long and a grey picture
        def warnings() -> dict:  # and a hand shown after the verdict that says otherwise
            out = vision.warnings()
            disputed = referee.disputed
            if disputed:
                out["disputed"] = {"player": disputed["player"], "guilty": disputed["guilty"]}
            short = referee.short_reveal  # a hand seen with fewer cards than tracked, kept back
            if short:
                out["short_reveal"] = short
            return out

        settings.update(CAMERA_STATUS=lambda: vision.source_status, CAMERA_WARNINGS=warnings)
        settings.update(SNAPSHOT=lambda: vision.latest, ZONES_PATH=str(zones_file(config)),
                        ZONES_SAVED=vision.reload_zones)
        detector = getattr(vision, "detector", None)
        if callable(getattr(detector, "calibrate", None)):
            settings.update(CALIBRATE=lambda picture: detector.calibrate([picture]),
                            COLOURS_PATH=str(colours_file(config)))
    return create_app(settings, referee=referee)


# -- the command ----------------------------------------------------------------------------------


def main(args: argparse.Namespace) -> int:
    say: Callable[[str], None] = lambda line: print(line, flush=True)
    try:  # `kill -USR1 PID` prints every thread's stack (what a stuck companion is doing)
        import faulthandler

        faulthandler.register(signal.SIGUSR1, all_threads=True)
    except (AttributeError, ValueError, RuntimeError):
        pass
    # the console is the host's: a warning in plain words; the time only when no journal keeps it
    # (systemd's journal stamps each line itself)
    stamp = "" if os.environ.get("JOURNAL_STREAM") else "%(asctime)s "
    logging.basicConfig(level=logging.WARNING, format=stamp + "uno-companion: %(message)s", datefmt="%H:%M:%S")
    os.environ.setdefault("YOLO_OFFLINE", "true")
    quiet_opencv()

    if args.bench is not None and args.bench <= 0:
        raise UsageError("--bench must be a number of seconds above 0")
    if not 0.1 <= args.status_every <= 3600:  # 0 would print (and spin) without a pause
        raise UsageError(f"--status-every is seconds, 0.1 to 3600, not {args.status_every:g}")
    config = load_config(args.config)
    players = [p for p in args.players.split(",")] if args.players is not None else None
    apply_overrides(config, port=args.port, host=args.host, players=players,
                    db=str(args.db.expanduser().absolute()) if args.db is not None else None)  # --db: from here
    if args.no_gpio:
        config.gpio["enabled"] = False
    if args.host_pin is not None:
        from companion.config import _host_pin

        try:
            config.host_pin = _host_pin(args.host_pin)
        except ValueError as exc:
            raise UsageError(f"--host-pin {exc}") from None

    kind, spec = choose_source(config, args, say)
    truth: list[dict] = []
    if kind == "demo":
        video, truth_path = demo_video()
        spec = video
        if truth_path is not None:
            truth = [json.loads(line) for line in truth_path.read_text(encoding="utf-8").splitlines() if line.strip()]
        # demo games never mix with real ones: their own store, beside the real one if named
        config.db = str(Path(config.db).expanduser().with_name("demo.db") if config.db
                        else default_data_dir() / "demo.db")
    return run(config, kind, spec, truth, args, say)


def _demo_press(say: Callable[[str], None]) -> Callable[[dict], None]:
    """What a button does at the demo table: nothing, said once."""
    said: list[bool] = []

    def press(event: dict) -> None:
        if not said:
            said.append(True)
            say("gpio: the demo table plays its recorded game; the buttons count at a real game")

    return press


def run(config: Config, kind: str, spec: Any, truth: list[dict], args: argparse.Namespace,
        say: Callable[[str], None]) -> int:
    from companion.referee.store import StoreError

    # Whatever can refuse the table is checked before anything is written: the phone page's
    # address and port (bound now, served later), then the store's place.
    try:
        from companion.runner import bind_page

        page = bind_page(config.host, config.port)
    except ImportError:
        page = None  # no phone page in this build: said when the page would start
    try:
        db = config.db_path
        if db.exists() and not db.is_file():
            raise StoreError(f"{db} is not a file: --db names the event store's file (it is made if missing)")
        if db.exists():
            _check_store_file(db)  # before its lock file is made beside it
        try:
            db.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot make the store's folder {db.parent}: {exc.strerror or exc}") from None
        return _run(config, kind, spec, truth, args, say, page)
    finally:
        if page is not None:
            page.close()  # the server's own, once it has served (closing twice is nothing)


def _check_store_file(path: Path) -> None:
    """A StoreError for a file that is not SQLite and has no backups (a table log given as
    --db): no store was ever there to restore, unlike a store whose header a bad card damaged."""
    from companion.backup import list_backups
    from companion.referee.store import StoreError

    try:
        with path.open("rb") as f:
            head = f.read(16)
    except OSError:
        return  # (said when the store is opened)
    if head and head != b"SQLite format 3\x00" and not list_backups(path):
        raise StoreError(f"{path} is not an event store (not an SQLite file, and no backups of it): "
                         "name the store's file with --db")


def _run(config: Config, kind: str, spec: Any, truth: list[dict], args: argparse.Namespace,
         say: Callable[[str], None], page: Any) -> int:
    from companion.referee.service import Referee
    from companion.runner import Companion, EventPump, WebServer
    from companion.referee.store import EventStore, StoreError

    from companion.backup import Backups, StoreLock, list_backups

    db = config.db_path
    lock = StoreLock(db)
    missing = not db.exists()
    if not lock.acquire(create=True):
        # exit 2 (a store that cannot be used): systemd's unit does not restart into it
        raise StoreError(f"{db} is in use by another companion: stop it, or use another --db")
    if missing and list_backups(db):  # the store went missing, its backups did not
        say(f"store: {db} is missing but has backups: a new store is started; "
            f"`uno-companion restore` brings the newest backup back (stop the companion first)")
    store = EventStore(db)  # a damaged one opens read-only and says so in one line
    backups = Backups(db)
    if not store.read_only:
        backups.at_start()
    referee = Referee(store, backups=None if store.read_only else backups)
    from companion.config import suggest_passphrase, weak_pin

    host_pin = config.host_pin or suggest_passphrase()
    if weak_pin(host_pin):
        say(f"host: the PIN has only {len(host_pin)} digits; wrong PINs back off, but a passphrase is safer "
            "(`uno-companion init` suggests one)")

    bot, fresh = None, False
    if kind == "demo":
        from companion.tablebot import DEMO_PLAYERS, TableBot

        truth_game = next((e for e in truth if e.get("type") == "game"), {})
        # the recorded game names its players (its dealer, whose hand is shown): other names
        # would have every recorded card refused
        players = truth_game.get("players") or list(DEMO_PLAYERS)
        if config.players and config.players != players:
            say(f"demo: the recorded table's players are {', '.join(players)}; --players (and the "
                f"configuration's players) are for a real table: a camera, or --camera none")
        bot = TableBot(referee, players, truth=truth, rules=config.rules or truth_game.get("rules"))
    else:
        fresh = start_table(referee, config, say)

    vision = None
    if kind in ("demo", "video", "camera"):
        try:
            vision = build_vision(config, kind, spec, referee, bot, say, truth=truth,
                                  recognize=not getattr(args, "log_names", False))
        except ImportError as exc:  # a build without the recognizer: the referee still works
            say(f"vision: not available in this build ({exc}); the phones and buttons still referee")
            bot = None if kind == "demo" else bot
            if kind == "demo":
                start_table(referee, config, say)

    pump = EventPump(referee, "gpio")
    hardware = None
    if config.gpio.get("enabled", True):
        from hardware import open_hardware

        # the demo table plays its recorded game: a press would throw it off, as a phone's tap would
        press = pump.put if kind != "demo" else _demo_press(say)
        hardware = open_hardware(config.gpio, config.seats, press, say=say,
                                 players=[p["name"] for p in referee.state.get("players") or []] or config.players)

    web = None
    try:
        mode = "none" if vision is None else "demo" if bot is not None else "camera"
        app = make_app(referee, config, host_pin, vision, mode)
        if fresh:  # a new game frees the seats of names not in it, as when the host starts one on the page
            app.extensions["uno"].seats_reset()
        web = WebServer(app, config.host, config.port, sock=page)
    except ImportError as exc:
        say(f"phone page: not available in this build ({exc})")
    companion = Companion(referee, web=web, vision=vision, bot=bot, hardware=hardware,
                          pump=pump if hardware is not None else None, say=say)

    stop = threading.Event()

    def on_signal(signum: int, frame: Any) -> None:
        stop.set()

    try:
        previous = signal.signal(signal.SIGTERM, on_signal)  # systemd stops with SIGTERM
    except ValueError:  # not the main thread (tests): no signal handling
        previous = None
    try:
        companion.start()
        if web is not None:
            from web.lan import lan_ip, seat_url

            every = config.host in EVERY_ADDRESS
            url = _http(lan_ip() if every else config.host, web.port)
            # this machine's own name for it only where the server listens on every address
            here = f"http://localhost:{web.port} and " if every else ""
            say(f"uno-companion: phone page on {here}{url}  (host {'PIN' if host_pin.isdigit() and len(host_pin) <= 12 else 'passphrase'} {host_pin})")
            link = host_link(web.app, url)
            if args.bench is None:
                print_join(seat_url(url), say)
                if link:
                    print_join(link, say, "host: open {url} once on the host's phone to log in as host "
                                          "(one use, for an hour), or scan:")
            elif link:
                say(f"host: one-time host link {link}")
        if store.read_only:  # nothing is stored now: not "events are stored in"
            say(f"store: {db} is open read-only: the page shows the table, nothing new is kept; Ctrl-C stops")
        else:
            say(f"events are stored in {db}; Ctrl-C stops")
        if args.bench is not None:
            bench = Bench()
            companion.run(duration=args.bench, every=args.status_every, stop=stop)
            say(bench.report(companion))
        else:
            companion.run(every=args.status_every, stop=stop)
    except KeyboardInterrupt:
        pass
    finally:
        try:
            if previous is not None:
                signal.signal(signal.SIGTERM, previous)
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not cut the shutdown short
        except ValueError:  # not the main thread (tests)
            pass
        companion.stop()
        backups.wait(timeout=10)
        store.close()
        lock.release()
    if store.failing:  # not "every event is saved" when the last write did not go in
        say(f"stopped; the last event was not stored: {store.failing}")
    elif store.read_only:
        say(f"stopped; nothing new was stored: {store.read_only}")
    else:
        say(f"stopped; every event is saved in {db}")
    return 0


def host_link(app: Any, url: str) -> str | None:
    """A one-time link that logs its first visitor in as host (for an hour), or None."""
    try:
        state = app.extensions["uno"]
        token = state.access.new_host_link(float(app.config["HOST_LINK_S"]))
    except (AttributeError, KeyError, CompanionError) as exc:
        log.warning("no host link: %s", exc)
        return None
    return f"{url.rstrip('/')}/host/link/{token}"


def build_vision(config: Config, kind: str, spec: Any, referee: Any, bot: Any, say: Callable[[str], None],
                 truth: list[dict] | None = None, recognize: bool = True) -> Any:
    from companion.vision.camera import OpenCVSource, Picamera2Source
    from companion.vision.detector import ModelMissingError
    from companion.runner import VisionLoop

    size = (int(config.camera["width"]), int(config.camera["height"]))
    frame_size = {"value": (640, 480)}

    def make_source() -> Any:
        if kind == "camera" and spec == "picamera":
            source: Any = Picamera2Source(size=size)
        elif kind == "camera":
            source = OpenCVSource(spec, size=size)
        else:
            source = OpenCVSource(str(spec))
            frame_size["value"] = _video_size(Path(str(spec)))
        return source

    if kind == "camera":
        frame_size["value"] = size
    before_frame = None
    detector: Any = None
    if kind == "demo" and truth and not recognize:
        # --log-names: the watcher still sees each card land, its name comes from the video's
        # true log (to show the referee with perfect names). Said loudly; never for a camera.
        say("vision: demo cards are named from the video's true log, not by the card model (--log-names)")
    else:
        try:
            # The demo video is drawn, not filmed by this table's camera: no table calibration.
            detector = make_detector(config, None if kind == "demo" else colours_file(config), say)
            if kind == "demo":
                say("vision: the demo's cards are recognised by the card model (--log-names: from the video's log)")
        except ModelMissingError as exc:
            if kind != "demo" or not truth:
                raise
            # A build without the card model can still show the demo. Said loudly.
            say(f"vision: {exc}; the demo names its cards from the video's true log instead of recognising them")
    if detector is None:
        from companion.vision.truth import TruthDetector

        detector = TruthDetector(truth)
        before_frame = lambda frame: setattr(detector, "t", frame.t)  # noqa: E731
    base_zones = None
    if kind == "demo" and (DEMO_DIR / "zones.json").is_file():
        from companion.vision.zones import Zones

        base_zones = Zones.load(DEMO_DIR / "zones.json")
    make_watcher = make_watcher_factory(detector, config, lambda: frame_size["value"], base_zones,
                                        None if kind == "demo" else zones_file(config))
    loop = VisionLoop(
        referee,
        make_source,
        make_watcher,
        loop=kind == "demo" or (kind == "video" and bool(config.camera.get("loop", True))),
        realtime=kind in ("demo", "video"),
        max_fps=float(config.camera.get("fps") or 0),
        on_pass=bot.new_pass if bot is not None else None,
        on_event=bot.camera_event if bot is not None else None,
        annotate=bot.annotate if bot is not None else None,
        before_frame=before_frame,
    )
    loop.detector = detector  # the host page's colour calibration talks to it
    return loop


def _video_size(path: Path) -> tuple[int, int]:
    import cv2

    cap = cv2.VideoCapture(str(path))
    try:
        width, height = int(cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT))
    finally:
        cap.release()
    return (width, height) if width and height else (640, 480)


class Bench:
    """Memory and CPU of this process over the run, with the vision thread's frame rate."""

    def __init__(self) -> None:
        self.wall = time.monotonic()
        self.cpu = time.process_time()

    def report(self, companion: Any) -> str:
        wall = time.monotonic() - self.wall
        cpu = time.process_time() - self.cpu
        rss = _rss_mib()
        lines = [f"bench: {wall:.0f} s, CPU {100 * cpu / wall:.0f}% of one core (average), RSS {rss:.0f} MiB"]
        if companion.vision is not None:
            s = companion.vision.stats
            lines.append(
                f"bench: vision {s.frames} frames processed ({s.frames / wall:.1f} fps), {s.skipped} dropped to keep "
                f"real time, {s.detect_ms:.0f} ms/frame recent, {s.events} table events, {s.errors} errors"
            )
        state = companion.referee.state
        lines.append(f"bench: game {describe(state)}")
        return "\n".join(lines)


def describe(state: dict) -> str:
    from companion.runner import describe_game

    return describe_game(state)


def _rss_mib() -> float:
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
