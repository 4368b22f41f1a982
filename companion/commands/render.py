"""`uno-companion render`: draw card faces to PNG files (to look at the renderer)."""
from __future__ import annotations

import argparse
from pathlib import Path

HELP = "draw card faces to image files"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("names", nargs="*", metavar="CARD", help="card names (default: every card)")
    parser.add_argument("--design", choices=("classic", "modern"), default="classic")
    parser.add_argument("--height", type=int, default=360)
    parser.add_argument("--out", type=Path, default=Path("cards"), help="folder (default %(default)s)")


def main(args: argparse.Namespace) -> int:
    import cv2

    from companion.files import writable_folder
    from companion.referee.cards import CARD_NAMES, parse_card
    from companion.errors import UsageError
    from companion.synth.render import render_card

    names = [parse_card(n).name for n in args.names] or list(CARD_NAMES)
    if not 32 <= args.height <= 4000:
        raise UsageError("--height must be between 32 and 4000")
    if args.out.exists() and not args.out.is_dir():
        raise UsageError(f"--out {args.out} is a file: name a folder for the card pictures")
    writable_folder(args.out, "--out")  # `/proc/x`: one line, not mkdir's traceback
    for name in names:
        cv2.imwrite(str(args.out / f"{name}-{args.design}.png"), render_card(name, args.design, args.height))
    print(f"{len(names)} card face{'' if len(names) == 1 else 's'} -> {args.out}")
    return 0
