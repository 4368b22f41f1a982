"""`uno-companion`: one entry point, one module per command in `companion/commands/`.

Each command module defines `HELP` (one line), `add_arguments(parser)` and
`main(args) -> int`. Modules are imported only when their command runs, so `replay` does
not pay for importing torch.
"""
from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
from contextlib import contextmanager
from typing import Iterator, Sequence

from companion.errors import CompanionError

# Names as data: command -> (module, one-line help shown by --help).
COMMANDS: dict[str, tuple[str, str]] = {
    "run": ("companion.commands.run", "run the companion: camera, referee, phone page, buttons"),
    "init": ("companion.commands.init", "write a configuration file"),
    "replay": ("companion.commands.replay", "replay a table log and print the game state"),
    "simulate": ("companion.commands.simulate", "play random legal games and write their table log"),
    "export": ("companion.commands.export", "export a stored game as JSON Lines"),
    "league": ("companion.commands.league", "league night: open a league, add games, show standings"),
    "import": ("companion.commands.importlog", "import a JSON Lines table log into the store"),
    "restore": ("companion.commands.restore", "list the event store's backups, or restore one"),
    "bench-engine": ("companion.commands.bench_engine", "self-play throughput vs rlcard"),
    "render": ("companion.commands.render", "draw card faces to image files"),
    "train": ("companion.commands.train", "generate training data and train the card model"),
    "recognize": ("companion.commands.recognize", "name the cards in images"),
    "eval-photos": ("companion.commands.eval_photos", "accuracy on a folder-per-card photo set"),
    "fit-sharpness": ("companion.commands.fit_sharpness", "fit the referee's reading sharpness on rendered cards"),
    "bench-vision": ("companion.commands.bench_vision", "time the recognizer per frame"),
    "watch": ("companion.commands.watch", "turn a camera or video into camera events (cards laid, take-backs, reveals)"),
    "make-video": ("companion.commands.make_video", "generate a table video with its true events"),
    "bench-watch": ("companion.commands.bench_watch", "watcher accuracy and latency on generated videos"),
    "bench-web": ("companion.commands.bench_web", "phone page latency and page weight"),
    "bench-faults": ("companion.commands.bench_faults", "the companion under kill -9, a full disk, hostile requests and many streams (loopback)"),
}


def build_parser() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    parser = argparse.ArgumentParser(
        prog="uno-companion", description="UNO table companion: a referee for a real card table."
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers = {}
    for name, (_, help_text) in COMMANDS.items():
        subparsers[name] = sub.add_parser(name, help=help_text, description=help_text)
    return parser, subparsers


@contextmanager
def _ending_on_sigterm() -> Iterator[None]:
    """`kill` and systemd stop a command with SIGTERM, which would end Python at once and
    leave a file half-written (`simulate`'s `.part`); raised as SystemExit instead, the
    command unwinds as after Ctrl-C and `files.written_whole` removes what it began.
    `run` puts its own handler over this one (it saves the table before it stops)."""
    main_pid = os.getpid()

    def on_term(signum: int, frame: object) -> None:
        if os.getpid() != main_pid:  # a worker forked by the command (training) ends as before
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        raise SystemExit(128 + signum)

    try:
        previous = signal.signal(signal.SIGTERM, on_term)
    except ValueError:  # not the main thread (tests call main() from threads)
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser, subparsers = build_parser()
    if not argv or argv[0] not in COMMANDS:
        if argv and not argv[0].startswith("-"):
            import difflib

            close = difflib.get_close_matches(argv[0], COMMANDS, n=1)
            hint = f": did you mean {close[0]!r}?" if close else ""
            print(f"uno-companion: unknown command {argv[0]!r}{hint}", file=sys.stderr)
            return 2
        parser.parse_args(argv)
        parser.print_help()
        return 0
    name = argv[0]
    module_name = COMMANDS[name][0]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise
        print(f"uno-companion: the {name!r} command is not available in this build", file=sys.stderr)
        return 2
    module.add_arguments(subparsers[name])
    args = parser.parse_args(argv)
    try:
        with _ending_on_sigterm():
            return int(module.main(args) or 0)
    except CompanionError as exc:
        print(f"uno-companion {name}: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # the reader went away (`export --list | head -1`): not an error, as for `replay`,
        # `export -`, `simulate` and `watch`; stdout pointed at nothing so the exit's flush
        # cannot fail
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
