"""`uno-companion watch SOURCE [--zones FILE] [--json] [--fake-truth TRUTH.jsonl]`.

Prints the camera's own events as JSON Lines: `lay` (a card came to rest on the discard
pile, with the recognizer's likeliest names in `top`), `take_back` and `reveal`. There is no
game here, so no referee to say whether a laid card is a `flip` or a `play`, nor to weigh
its readings against the table: `run` does that (companion/referee/service.py).
"""
from __future__ import annotations

import argparse
import json
import logging
import sys

HELP = "turn a camera or video into camera events (cards laid, take-backs, reveals)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", help="a video file, a folder of images, a camera index (0), a stream URL, or 'picamera'")
    parser.add_argument("--zones", help="zones JSON file (default: the layout of the generated videos)")
    parser.add_argument("--json", action="store_true", help="print bare JSON Lines (default adds nothing else either; "
                        "without it a summary line goes to stderr at the end)")
    parser.add_argument("--fake-truth", metavar="TRUTH.jsonl",
                        help="name cards from a generated video's truth instead of the model (a perfect recognizer)")
    parser.add_argument("--weights", help="model weights (default: the shipped model)")
    parser.add_argument("--themed", action="store_true", help="the table plays a themed deck (UNO Flip, discard two, reflect, Dementor): read its cards with the themed reader too")
    parser.add_argument("--realtime", action="store_true", help="play files at their real speed")
    parser.add_argument("--find-zones", metavar="OUT.json", help="find the zones from the source, save them, and stop")


def _fake_truth(path: str) -> list[dict]:
    """A video's truth, or a one-line error (exit 2) for a file that is not one: a plain table
    log (`simulate --out`) has no video times, so the perfect recognizer saw no card and the
    watch ended "0 events" as if the video were empty."""
    from companion.errors import InputFileError
    from companion.vision.truth import read_truth

    lines = read_truth(path)
    for number, line in enumerate(lines, 1):
        if not isinstance(line, dict):
            raise InputFileError(f"--fake-truth {path} line {number}: not a JSON object")
    cards = [line for line in lines if line.get("type") in ("flip", "play")]
    if not any("t" in line and "box" in line for line in cards):
        lacks = "no card line" if not cards else "no `t` times and boxes on its card lines"
        raise InputFileError(f"--fake-truth {path}: not a video's truth ({lacks}): give the .jsonl that "
                             "make-video wrote beside the video")
    return lines


def main(args: argparse.Namespace) -> int:
    from companion.commands import quiet_opencv

    quiet_opencv()  # a camera that cannot be opened: one line a try, not OpenCV's dozen
    from companion.vision.camera import ResilientSource, open_source
    from companion.vision.zones import Zones, find_zones

    logging.basicConfig(level=logging.WARNING, format="uno-companion watch: %(message)s")
    truth_lines = _fake_truth(args.fake_truth) if args.fake_truth else None
    source = open_source(args.source, realtime=args.realtime)
    if args.find_zones:
        source.open()
        try:
            def frames():
                while (f := source.read()) is not None:
                    yield f.image
            zones = find_zones(frames())
        finally:
            source.close()
        zones.save(args.find_zones)
        print(f"zones written to {args.find_zones}: discard {zones.to_dict()['discard']}")
        return 0
    zones = Zones.load(args.zones) if args.zones else None
    truth = None
    if args.fake_truth:
        from companion.vision.truth import TruthDetector

        truth = TruthDetector(truth_lines or [])
        detector = truth
    else:
        from companion.vision.detector import YoloDetector

        detector = YoloDetector(args.weights or None, themed=args.themed)
    from companion.vision.watcher import Watcher, beside_words

    watcher = None
    count = 0
    beside = None
    resilient = ResilientSource(source, loop=False)
    try:
        for frame in resilient.frames():
            if watcher is None:
                h, w = frame.image.shape[:2]
                watcher = Watcher(detector, (zones or Zones.default(w, h)))
            if truth is not None:
                truth.t = frame.t
            for event in watcher.feed(frame.image, frame.t):
                print(json.dumps(event), flush=True)
                count += 1
            # a card beside the pile is no event (the table log's format stays): said aside
            card = watcher.beside["card"] if watcher.beside else None
            if card and card != beside:
                print(f"t={frame.t:.1f} s: {beside_words(card)}", file=sys.stderr, flush=True)
            beside = card
    except BrokenPipeError:  # the reader (e.g. `head`) has had enough
        return 0
    if not args.json:
        print(f"{count} events from {watcher.frames if watcher else 0} frames", file=sys.stderr)
    # a camera gone to its black-and-white night mode: cards seen, none named (as `run` says it)
    grey = int(getattr(getattr(watcher, "detector", None), "colourless_total", 0)) if watcher else 0
    if grey:
        print(f"{grey} card readings showed no colour (a black-and-white picture?): a card's colour cannot "
              "be read from it, so those cards were not named", file=sys.stderr)
    return 0
