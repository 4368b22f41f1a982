"""`uno-companion recognize IMAGE... [--json] [--calibrate PHOTO...]`: name the cards in pictures.

With --json each card carries `top`: its three likeliest names with probabilities (the first is
`card`), for anything that weighs the reading against what else it knows (the referee does)."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

HELP = "name the cards in images"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("images", nargs="+", metavar="IMAGE", help="image files")
    parser.add_argument("--json", action="store_true", help="print one JSON list, one object per image")
    parser.add_argument("--model", type=Path, default=None, help="weights (default: the shipped model)")
    parser.add_argument("--conf", type=float, default=0.25, help="confidence threshold (default %(default)s)")
    parser.add_argument("--no-colour-check", action="store_true", help="trust the model's colour only")
    parser.add_argument("--reader", type=Path, default=None,
                        help="second-stage reader weights (default: the shipped reader, if any)")
    parser.add_argument("--no-reader", action="store_true", help="name cards by the detector alone")
    parser.add_argument("--themed", action="store_true", help="the table plays a themed deck (UNO Flip, discard two, reflect, Dementor): read its cards with the themed reader too")
    parser.add_argument("--calibrate", nargs="+", metavar="PHOTO", default=None,
                        help="photos of cards from the same camera (at least one of each colour): learn how it "
                             "shows the four colours first, and read the images with that; it takes every name "
                             "after it, so give it after the images (or end its photos with --)")


def recognize(paths: list[str], detector) -> list[dict]:
    """One entry per image: its cards best first, or an `error` for an unreadable file."""
    import cv2

    out: list[dict[str, Any]] = []
    for path in paths:
        frame = cv2.imread(path, cv2.IMREAD_COLOR) if Path(path).is_file() else None
        if frame is None:
            out.append({"image": path, "error": _unreadable(path)})
            continue
        entry: dict[str, Any] = {"image": path, "cards": [d.to_dict() for d in one_box_each(detector.detect(frame))]}
        if getattr(detector, "colourless", 0):
            entry["colourless"] = detector.colourless  # cards seen, but their colour not: a grey picture
        out.append(entry)
    return out


def one_box_each(found: list) -> list:
    """The cards found, a second box of one card left out: a box mostly inside a surer box of the
    same name, unless both are read surely (the watcher's rule for a hand shown). One card was
    listed twice (red_5 1.00 and red_5 0.63), and a card mostly under its top card, whose crop
    is mostly the top card, was named as the top card again."""
    from companion.vision.watcher import one_card

    kept: list = []
    for d in sorted(found, key=lambda d: -d.confidence):
        if not any(k.card == d.card and one_card(d, k) for k in kept):
            kept.append(d)
    return [d for d in found if d in kept]  # in the detector's order


def _unreadable(path: str) -> str:
    """Why a picture could not be read, in the words a user needs."""
    if not Path(path).exists():
        return "no such file"
    if Path(path).is_dir():
        return "a folder, not a picture (give the pictures in it, e.g. DIR/*.jpg)"
    return "not a readable image"


def read_pictures(paths: list[str]) -> list:
    """The calibration photos, read; a missing or unreadable one is a one-line error."""
    import cv2

    from companion.errors import InputFileError

    pictures = []
    for path in paths:
        picture = cv2.imread(path, cv2.IMREAD_COLOR) if Path(path).is_file() else None
        if picture is None:
            raise InputFileError(f"{path}: {_unreadable(path)}")
        pictures.append(picture)
    return pictures


def check_conf(conf: float) -> None:
    """A confidence threshold is a probability strictly between 0 and 1 (recognize, eval-photos)."""
    from companion.errors import UsageError

    if not 0 < conf < 1:  # NaN too
        raise UsageError(f"--conf must be between 0 and 1, not {conf:g}")


def check_reader(args: argparse.Namespace) -> None:
    """--reader names the weights --no-reader turns off: given both, neither may silently win."""
    from companion.errors import UsageError

    if args.reader is not None and args.no_reader:
        raise UsageError("--reader and --no-reader cannot go together: give one")


def main(args: argparse.Namespace) -> int:
    from companion.vision.detector import YoloDetector

    check_conf(args.conf)
    check_reader(args)
    detector = YoloDetector(args.model, conf=args.conf, colour_check=not args.no_colour_check,
                            reader=False if args.no_reader else (args.reader or True), learn_colours=False,
                            themed=args.themed)
    if args.calibrate:

        calibration = detector.calibrate(read_pictures(args.calibrate))
        swatches = ", ".join(f"{c} {hexa}" for c, hexa in calibration.swatches().items())
        print(f"colours calibrated from {sum(calibration.samples.values())} cards: {swatches}", file=sys.stderr)
    results = recognize(args.images, detector)
    if args.json:
        print(json.dumps(results, indent=1))
    else:
        for r in results:
            if "error" in r:
                print(f"{r['image']}: error: {r['error']}", file=sys.stderr)
            elif not r["cards"]:
                print(f"{r['image']}: no card found" + (
                    ": what looks like a card shows no colour (a black-and-white picture?), and a card's "
                    "colour cannot be read from it" if r.get("colourless") else ""))
            else:
                found = ", ".join(f"{c['card']} ({c['confidence']:.2f})" for c in r["cards"])
                print(f"{r['image']}: {found}")
    # Every picture is read, but one that could not be is a file that cannot be used (README,
    # "Every command exits"): 2, so a script does not take a missing photo for a read one
    return 2 if any("error" in r for r in results) else 0
