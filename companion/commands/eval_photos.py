"""`uno-companion eval-photos DIR`: top-1 accuracy on a folder-per-card photo set."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HELP = "accuracy on a folder-per-card photo set"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dirs", nargs="+", type=Path, metavar="DIR", help="folder with one sub-folder per card name")
    parser.add_argument("--model", type=Path, default=None, help="weights (default: the shipped model)")
    parser.add_argument("--limit-per-class", type=int, default=None, help="sample at most N photos per card")
    parser.add_argument("--conf", type=float, default=0.1)
    parser.add_argument("--no-colour-check", action="store_true")
    parser.add_argument("--reader", type=Path, default=None,
                        help="second-stage reader weights (default: the shipped reader, if any)")
    parser.add_argument("--no-reader", action="store_true", help="name cards by the detector alone")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--errors", type=Path, default=None, metavar="DIR",
                        help="write contact sheets of the missed photos here (one sub-folder per set)")


def main(args: argparse.Namespace) -> int:
    from companion.detector import YoloDetector
    from companion.evaluation import evaluate, format_report, photo_set, write_miss_sheets

    sets = [(d, photo_set(d, args.limit_per_class)) for d in args.dirs]  # refuse bad folders first
    detector = YoloDetector(args.model, conf=args.conf, colour_check=not args.no_colour_check,
                            reader=False if args.no_reader else (args.reader or True))
    out = {}
    for d, pairs in sets:
        def progress(done: int, total: int) -> None:
            if sys.stderr.isatty():
                print(f"\r{d.name}: {done}/{total}", end="", file=sys.stderr)

        report = evaluate(pairs, detector, progress)
        if sys.stderr.isatty():
            print(file=sys.stderr)
        out[str(d)] = report.to_dict()
        if not args.json:
            print(format_report(report, str(d)))
        if args.errors is not None:
            sheets = write_miss_sheets(report, args.errors / d.name)
            print(f"{len(report.misses)} misses of {d} on {len(sheets)} sheets in {args.errors / d.name}", file=sys.stderr)
    if args.json:
        print(json.dumps(out, indent=1))
    return 0
