"""`uno-companion fit-sharpness`: the referee's READING_SHARPNESS, fitted on rendered cards.

Renders each card name laid on a pile (`companion.synth.scenes.pile_scene`) under the robustness
benchmark's camera shifts, reads the pictures with the shipped recognizer and prints the
temperature under which the true names are likeliest (`companion.synth.evaluation.fit_sharpness`).
No photo is used: the real photos stay a final check (`measure_sharpness`).
"""
from __future__ import annotations

import argparse
import json
import sys

from companion.errors import UsageError

HELP = "fit the referee's reading sharpness on rendered cards under camera shifts"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--per-card", type=int, default=30, help="pictures of each card name (default 30)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the pictures (default 0)")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")


def main(args: argparse.Namespace) -> int:
    from companion.synth.evaluation import fit_sharpness

    if args.per_card < 1:
        raise UsageError("--per-card must be at least 1")
    tty = sys.stderr.isatty()

    def progress(done: int, total: int) -> None:
        if tty:
            print(f"\r{done}/{total} pictures  ", end="", file=sys.stderr)

    result = fit_sharpness(per_card=args.per_card, seed=args.seed, progress=progress)
    if tty:
        print(file=sys.stderr)
    if args.json:
        print(json.dumps(result))
    else:
        iou = result["box_iou"]
        print(f"{result['pictures']} rendered piles, card found in {result['found']}, read right {result['right']}: "
              f"sharpness {result['sharpness']}")
        print(f"box IoU with the true box: p1 {iou['p1']}, p5 {iou['p5']}, median {iou['p50']}")
    return 0
