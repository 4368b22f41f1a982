"""`uno-companion make-video OUT.mp4 [--plays N | --hands H | --log FILE] [--seed S]`: a table
video and its truth."""
from __future__ import annotations

import argparse

HELP = "generate a table video with its true events"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("out", help="video file to write (.mp4 or .avi); the truth goes beside it, OUT with .jsonl for its suffix")
    # default None, not 30: --plays given with --hands or --log is told apart from the default
    parser.add_argument("--plays", type=int, default=None, help="at least this many cards laid (default 30)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--hands", type=int, help="instead of --plays: play this many whole hands with the "
                        "engine's simulator (the truth then replays without a single rejection)")
    parser.add_argument("--log", metavar="FILE", help="instead of --plays or --hands: act out this table log "
                        "(JSON Lines, e.g. from `simulate --out` or an earlier video's truth); it must replay "
                        "without a rejection, and --seed then only picks how it is drawn")
    parser.add_argument("--players", type=int, default=4, help="players at the table, 2-6 (default 4)")
    parser.add_argument("--design", choices=("classic", "modern"), default="classic", help="card design")
    parser.add_argument("--fps", type=float, default=10.0, help="frames per second (default 10)")
    parser.add_argument("--noise", type=float, default=4.0, help="camera noise, grey levels (default 4)")


def main(args: argparse.Namespace) -> int:
    from companion.errors import UsageError
    from companion.synth.tablevideo import VideoSpec, make_video
    from companion.vision.truth import truth_path

    if args.plays is not None and (args.hands is not None or args.log is not None):
        # --hands and --log are "instead of --plays": one of them would be ignored without a word
        raise UsageError(f"--plays and {'--log' if args.log is not None else '--hands'} cannot go together: "
                         "give one (--hands and --log say what is played)")
    plays = 30 if args.plays is None else args.plays
    if plays < 1:
        raise UsageError("--plays must be at least 1")
    if not 2 <= args.players <= 6:
        raise UsageError("--players must be 2 to 6")
    if not 1 <= args.fps <= 60:
        raise UsageError("--fps must be 1 to 60")
    if not 0 <= args.noise <= 64:
        raise UsageError(f"--noise is grey levels, 0 to 64, not {args.noise:g}")
    spec = VideoSpec(seed=args.seed, design=args.design, fps=args.fps, noise=args.noise)
    steps = None
    if args.log is not None:
        if args.hands is not None:
            raise UsageError("--log and --hands cannot go together: the log says what is played")
        steps = log_steps(args.log)
    elif args.hands is not None:
        if args.hands < 1:
            raise UsageError("--hands must be at least 1")
        from companion.synth.tablevideo import legal_session

        steps = legal_session(args.hands, players=args.players, seed=args.seed)
    truth = make_video(args.out, plays=plays, seed=args.seed, players=args.players, spec=spec, steps=steps)
    seen = sum(1 for line in truth if line["type"] in ("flip", "play"))
    length = max((line.get("t", 0.0) for line in truth), default=0.0)
    print(f"wrote {args.out} ({seen} card{'' if seen == 1 else 's'} laid, the last event at {length:.0f} s) "
          f"and {truth_path(args.out)}")
    return 0


# What an earlier video's truth adds to a table log line: dropped, the new video times it again.
_DRAWN_KEYS = ("t", "t_land", "t_clear", "box", "boxes")


def log_steps(path: str) -> list:
    """The steps that act out a table log file, after checking that it replays cleanly."""
    from companion.referee.engine import Table
    from companion.errors import InputFileError
    from companion.synth.tablevideo import plan_from_log
    from companion.vision.truth import read_truth

    lines = [{k: v for k, v in line.items() if k not in _DRAWN_KEYS} for line in read_truth(path)]
    if not lines or lines[0].get("type") != "game":
        raise InputFileError(f"--log {path}: the log must start with a game event")
    table = Table()
    for number, line in enumerate(lines, 1):
        rejected = [n for n in table.push(line) if n.get("kind") == "rejected"]
        if rejected:
            raise InputFileError(f"--log {path} line {number}: the referee rejects it ({rejected[0].get('message')})")
    return plan_from_log(lines)
